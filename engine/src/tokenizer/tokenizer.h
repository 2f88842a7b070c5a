// The tokenizer: text <-> token ids for SentencePiece ("llama"), byte-level
// BPE ("gpt2") and Gemma 4's BPE over raw UTF-8 with '▁' for spaces
// ("gemma4") vocabularies stored in GGUF metadata. This is the header the
// rest of the engine uses (the model wraps it as burrow::Model::tokenize etc.).
//
// Contract:
// - Exactness: tokenize(text, false, false) gives the ids the reference engine
//   (llama.cpp of August 2026) gives: those of Hugging Face tokenizers for
//   the vocabularies in ../shared/tokenizer, and the reference's own where it
//   differs on purpose (../shared/tokenizer-2026: no NFC normalisation for
//   Qwen3, combining marks split o200k words, no '~' among DeepSeek V3's
//   symbols). Tested on all their vectors.
// - Loading checks every array's type and length, every merge and every id
//   (see vocab.h); a bad vocabulary is refused with a message, never a crash.
// - Any byte string can be tokenized: invalid UTF-8 is not an error (SPM
//   falls back to byte tokens, BPE spells the bytes at byte level).
// - A Tokenizer is immutable after loading; all const methods are
//   thread-safe.
// Token ids are int32_t, as burrow::Token; -1 means "none".
#pragma once

#include "burrow/status.h"
#include "tokenizer/stream_decoder.h"
#include "tokenizer/vocab.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::gguf {
class GgufFile;
}

namespace burrow::tokenizer {

class PreTokenizer;

struct DetokenizeOptions {
    // Write CONTROL and UNKNOWN tokens as their text ("<|im_end|>"); off:
    // they give nothing. USER_DEFINED tokens are always written.
    bool renderSpecial = false;
    // Remove the one space SentencePiece put in front of the text
    // (add_space_prefix): from the first token's piece only.
    bool removeLeadingSpace = true;
    // Vocabularies whose clean_spaces flag is set (GPT-2 heritage): remove
    // the space in " ?", " !", " .", " ,", around a lone "'", and before
    // "'s", "'m", "'re", "'ve". Lossy; off gives the exact bytes.
    bool cleanSpaces = true;
};

class Tokenizer {
public:
    // Reads the tokenizer.ggml.* metadata of `file` and builds the tokenizer.
    static Result<std::unique_ptr<Tokenizer>> fromGguf(const gguf::GgufFile &file);
    // Builds from plain data (tests, other containers).
    static Result<std::unique_ptr<Tokenizer>> create(VocabData data);
    ~Tokenizer();
    Tokenizer(const Tokenizer &) = delete;
    Tokenizer &operator=(const Tokenizer &) = delete;

    VocabType type() const;
    const std::string &modelName() const;      // "llama" / "gpt2" / "gemma4"
    const std::string &preName() const;        // tokenizer.ggml.pre as found ("" when absent)
    int32_t size() const;                      // number of tokens

    // Text -> ids. addSpecial: BOS (and EOS) as the vocabulary's
    // add_bos/add_eos say. parseSpecial: control tokens written in the text
    // ("<|im_start|>") become their single token; off, they are plain text.
    // User-defined tokens are matched either way. Cost: linear in the text
    // (plus one substring search per special token that occurs in it).
    std::vector<int32_t> tokenize(std::string_view text, bool addSpecial, bool parseSpecial) const;

    // The bytes one token stands for: SPM '▁' becomes ' ', byte tokens
    // <0xHH> their byte, BPE byte-level characters their bytes (a character
    // outside the byte map is written as its UTF-8). May be an incomplete
    // UTF-8 sequence. CONTROL/UNKNOWN tokens give "" unless renderSpecial.
    // An id out of range gives "".
    std::string tokenBytes(int32_t id, bool renderSpecial = false) const;
    // Whole-sequence detokenization (see DetokenizeOptions).
    std::string detokenize(std::span<const int32_t> ids, const DetokenizeOptions &options = {}) const;

    // Special tokens (-1 when the vocabulary has none).
    int32_t bos() const;
    int32_t eos() const;
    int32_t eot() const;   // end of turn (<|eot_id|>, <|im_end|>, ...), from metadata or found by text
    int32_t eom() const;   // end of message (<|eom_id|>)
    int32_t unk() const;
    int32_t pad() const;
    bool addBos() const;
    bool addEos() const;
    bool addSpacePrefix() const;

    // End of generation: EOS, EOT, EOM, fill-in-the-middle pad/repo/file-sep
    // and the tokens spelled <|eot_id|>, <|im_end|>, <|end|>, <|return|>,
    // <|call|>, <end_of_turn>, <|endoftext|>, <|eom_id|>, <EOT>, <eos>, </s>,
    // ... (the reference's list, see vocab.cpp), except <|end|> in a harmony
    // vocabulary (it has <|return|> and <|call|>). Sorted ids.
    bool isEndOfGeneration(int32_t id) const;
    const std::vector<int32_t> &endOfGenerationIds() const;

    // Vocabulary entries. Out-of-range ids: "" / TOKEN_TYPE_UNDEFINED.
    const std::string &tokenText(int32_t id) const;   // as stored ("▁the", "Ġthe", "<|im_end|>")
    TokenType tokenType(int32_t id) const;            // after forcing end-of-generation texts to CONTROL
    float tokenScore(int32_t id) const;
    bool isControl(int32_t id) const;
    // Id of the token whose stored text is exactly `text`, or -1.
    int32_t findToken(std::string_view text) const;

    const Vocab &vocab() const;

private:
    Tokenizer();
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace burrow::tokenizer
