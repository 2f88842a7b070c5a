#include "speculative/vocab_match.h"

#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <string>

namespace burrow::speculative {

namespace {

const char *typeName(tokenizer::VocabType type)
{
    return type == tokenizer::VocabType::VOCAB_TYPE_SPM ? "SentencePiece" : "BPE";
}

// A token's text for a message: at most 40 bytes, control bytes escaped.
std::string shown(const std::string &text)
{
    std::string out;
    for (char c : text.substr(0, 40)) {
        if (static_cast<unsigned char>(c) < 0x20)
            out += "\\x" + std::string(1, "0123456789abcdef"[(c >> 4) & 15]) + "0123456789abcdef"[c & 15];
        else
            out += c;
    }
    return "'" + out + (text.size() > 40 ? "...'" : "'");
}

constexpr const char *kPrefix = "the draft model's vocabulary differs from the model's: ";

} // namespace

Status checkDraftVocabulary(const tokenizer::Tokenizer &target, const tokenizer::Tokenizer &draft)
{
    if (target.type() != draft.type())
        return Status::error(std::string(kPrefix) + "its tokenizer is " + typeName(draft.type()) + ", the model's " +
                             typeName(target.type()));
    if (target.addBos() != draft.addBos() || (target.addBos() && target.bos() != draft.bos()))
        return Status::error(std::string(kPrefix) + "the start token (BOS) is " +
                             (draft.addBos() ? std::to_string(draft.bos()) : std::string("not added")) +
                             ", the model's " +
                             (target.addBos() ? std::to_string(target.bos()) : std::string("not added")));
    if (target.addEos() != draft.addEos() || (target.addEos() && target.eos() != draft.eos()))
        return Status::error(std::string(kPrefix) + "the end token (EOS) is " +
                             (draft.addEos() ? std::to_string(draft.eos()) : std::string("not added")) +
                             ", the model's " +
                             (target.addEos() ? std::to_string(target.eos()) : std::string("not added")));
    const int32_t nt = target.size(), nd = draft.size();
    if (std::max(nt, nd) - std::min(nt, nd) > kVocabSizeSlack)
        return Status::error(std::string(kPrefix) + "it has " + std::to_string(nd) + " tokens, the model " +
                             std::to_string(nt) + " (at most " + std::to_string(kVocabSizeSlack) + " apart)");
    for (int32_t id = kVocabCheckFrom; id < std::min(nt, nd); ++id)
        if (target.tokenText(id) != draft.tokenText(id))
            return Status::error(std::string(kPrefix) + "token " + std::to_string(id) + " is " +
                                 shown(draft.tokenText(id)) + ", the model's " + shown(target.tokenText(id)));
    return Status::ok();
}

} // namespace burrow::speculative
