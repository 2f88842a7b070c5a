// Pre-tokenizers of byte-level BPE vocabularies: the regular expressions that
// cut text into words before merging, chosen by `tokenizer.ggml.pre`.
//
// Contract: the regex sets are those of the reference engine (llama.cpp,
// src/llama-vocab.cpp of August 2026), applied the way it applies them:
// every expression refines the pieces the previous one produced; a match
// becomes a piece and so does every stretch between matches. Unicode
// categories (\p{L}, \p{N}, \p{P}, \s) come from PCRE2 (UTF + UCP mode).
// An unknown `pre` name is refused by name.
//
// Text that is not valid UTF-8 is not refused: every invalid byte becomes a
// piece of its own and the valid stretches between them are split as usual
// (the reference engine throws on such text).
//
// Cost: split() is linear in the text for every set in the table (PCRE2 JIT),
// one pcre2_match call per piece and expression. Thread-safe: a PreTokenizer
// is immutable after create(); split() allocates its own match data.
#pragma once

#include "burrow/status.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::tokenizer {

// What a `tokenizer.ggml.pre` value means for the BPE tokenizer.
struct PreTokenizerInfo {
    std::string name;          // the value as found in the file ("llama-bpe")
    std::string regexSet;      // which expressions ("llama3", "gpt2", "deepseek-llm", ...)
    bool ignoreMerges = false; // a word that is a whole token is taken as is (Llama 3)
    bool addBos = false;       // default of add_bos before tokenizer.ggml.add_bos_token
    bool cleanSpaces = true;   // detokenizer removes " ," " ." " 's" ... (GPT-2 heritage)
    bool noBos = false;        // the vocabulary has no BOS (chatglm-bpe)
};

// Looks up a `pre` value. An empty value means "default" (the reference
// warns; so does this, through the engine log). Unknown values are an error
// naming the value.
Result<PreTokenizerInfo> lookupPreTokenizer(std::string_view pre);

// Every `pre` value lookupPreTokenizer() accepts, for messages and docs.
std::vector<std::string> knownPreTokenizers();

class PreTokenizer {
public:
    // Compiles the expressions of `regexSet` (a PreTokenizerInfo::regexSet).
    static Result<std::unique_ptr<PreTokenizer>> create(const std::string &regexSet);
    ~PreTokenizer();
    PreTokenizer(const PreTokenizer &) = delete;
    PreTokenizer &operator=(const PreTokenizer &) = delete;

    // Cuts `text` into words, appended to `words` as views into `text`, in
    // order; their concatenation is `text`. Empty text gives no words.
    void split(std::string_view text, std::vector<std::string_view> &words) const;

    const std::vector<std::string> &expressions() const;

private:
    PreTokenizer();
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace burrow::tokenizer
