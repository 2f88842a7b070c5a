// What renderChat() needs from a model, computed once per model: the chat
// facts of the file (template, special-token texts, vocabulary) and the
// chosen format (the model's template or a fallback), parsed. Formats a
// caller forces by name are parsed on first use and kept (thread-safe).
#pragma once

#include "chat/chat_format.h"
#include "chat/chat_gguf.h"

#include <map>
#include <memory>
#include <mutex>

namespace burrow::api {

struct ChatState {
    chat::ChatModelFacts facts;
    chat::ChatFormatChoice choice;   // "auto": the model's template or its fallback

    // The choice when `kind` is forced (a built-in format). Made on the first
    // call for each kind; later calls return the same object.
    Result<std::shared_ptr<const chat::ChatFormatChoice>> forcedChoice(chat::ChatFormatKind kind) const;

private:
    mutable std::mutex m_forcedMutex;
    mutable std::map<chat::ChatFormatKind, std::shared_ptr<const chat::ChatFormatChoice>> m_forced;
};

Result<std::shared_ptr<const ChatState>> makeChatState(const gguf::GgufFile &file);

} // namespace burrow::api
