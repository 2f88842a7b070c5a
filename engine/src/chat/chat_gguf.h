// What the chat layer needs from a GGUF file: architecture, chat template,
// special-token texts and a vocabulary lookup by token text.
//
// Contract: readChatFacts() reads only metadata (no tensor data) and fails
// with the reader's message for a file that is not valid GGUF; missing keys
// are not errors (no template, no BOS, ...).
// Cost: O(vocabulary) to copy the token texts.
#pragma once

#include "chat/chat_format.h"
#include "gguf/gguf_reader.h"

#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace burrow::chat {

struct ChatModelFacts {
    std::string architecture;
    std::string templateText;                 // tokenizer.chat_template ("" when absent)
    // Template variable -> token text, for the ids present in the file:
    // bos_token, eos_token, unk_token, pad_token, sep_token, cls_token, mask_token.
    std::vector<std::pair<std::string, std::string>> specialTokens;
    std::string eotText;                      // tokenizer.ggml.eot_token_id's text ("" when absent)
    std::unordered_set<std::string> vocabulary;   // every token text

    std::string specialToken(const std::string &name) const;   // "" when absent
    VocabLookup vocabLookup() const;          // valid while this object lives
    // Inputs for chooseChatFormat(); EOS text included.
    ChatFormatInputs formatInputs() const;
};

Result<ChatModelFacts> readChatFacts(const gguf::GgufFile &file);
Result<ChatModelFacts> readChatFacts(const std::string &path);

} // namespace burrow::chat
