// Chat facts from GGUF metadata (see chat_gguf.h).
#include "chat/chat_gguf.h"

namespace burrow::chat {

std::string ChatModelFacts::specialToken(const std::string &name) const
{
    for (const auto &[n, text] : specialTokens)
        if (n == name)
            return text;
    return {};
}

VocabLookup ChatModelFacts::vocabLookup() const
{
    return [this](std::string_view text) { return vocabulary.count(std::string(text)) != 0; };
}

ChatFormatInputs ChatModelFacts::formatInputs() const
{
    ChatFormatInputs in;
    in.architecture = architecture;
    in.templateText = templateText;
    in.vocabHas = vocabLookup();
    in.eosText = specialToken("eos_token");
    in.eotText = eotText;
    return in;
}

Result<ChatModelFacts> readChatFacts(const gguf::GgufFile &file)
{
    ChatModelFacts facts;
    const std::string &path = file.path();
    if (Status s = file.getOptionalString("general.architecture", facts.architecture); !s)
        return s.withContext(path);
    if (Status s = file.getOptionalString("tokenizer.chat_template", facts.templateText); !s)
        return s.withContext(path);
    std::vector<std::string> tokens;
    if (file.find("tokenizer.ggml.tokens")) {
        if (Status s = file.getStringArray("tokenizer.ggml.tokens", tokens); !s)
            return s.withContext(path);
    }
    static const std::pair<const char *, const char *> kSpecial[] = {
        {"bos_token", "tokenizer.ggml.bos_token_id"},       {"eos_token", "tokenizer.ggml.eos_token_id"},
        {"unk_token", "tokenizer.ggml.unknown_token_id"},   {"pad_token", "tokenizer.ggml.padding_token_id"},
        {"sep_token", "tokenizer.ggml.seperator_token_id"}, {"cls_token", "tokenizer.ggml.cls_token_id"},
        {"mask_token", "tokenizer.ggml.mask_token_id"},
    };
    auto tokenText = [&](const char *key, std::string &out) -> Status {
        if (!file.find(key))
            return {};
        uint32_t id = 0;
        if (Status s = file.getU32(key, id); !s)
            return s.withContext(path);
        if (id >= tokens.size())
            return {};   // -1 (0xFFFFFFFF) and other ids outside the vocabulary mean "none"
        out = tokens[id];
        return {};
    };
    for (const auto &[name, key] : kSpecial) {
        std::string text;
        if (!file.find(key))
            continue;
        if (Status s = tokenText(key, text); !s)
            return s;
        if (!text.empty())
            facts.specialTokens.emplace_back(name, std::move(text));
    }
    if (Status s = tokenText("tokenizer.ggml.eot_token_id", facts.eotText); !s)
        return s;
    facts.vocabulary.reserve(tokens.size());
    for (auto &t : tokens)
        facts.vocabulary.insert(std::move(t));
    return facts;
}

Result<ChatModelFacts> readChatFacts(const std::string &path)
{
    auto file = gguf::GgufFile::open(path);
    if (!file)
        return file.status();
    return readChatFacts(**file);
}

} // namespace burrow::chat
