// What renderChat() needs from a model, computed once per model: the chat
// facts of the file (template, special-token texts, vocabulary) and the
// chosen format (the model's template or a fallback), parsed.
#pragma once

#include "chat/chat_format.h"
#include "chat/chat_gguf.h"

#include <memory>

namespace burrow::runtime {

struct ChatState {
    chat::ChatModelFacts facts;
    chat::ChatFormatChoice choice;
};

Result<std::shared_ptr<const ChatState>> makeChatState(const gguf::GgufFile &file);

} // namespace burrow::runtime
