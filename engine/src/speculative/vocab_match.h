// Whether a draft model's tokens mean what the target's mean, so its
// guesses can be verified by the target (a draft model must share the
// target's vocabulary). Compared as the reference compares them
// (llama.cpp common/speculative.cpp, 9749): the tokenizer kind; add-BOS and
// the BOS id when added; add-EOS and the EOS id when added; vocabulary sizes
// within kVocabSizeSlack of each other; and the stored text of every token
// from id kVocabCheckFrom up to the smaller size (the first few are often
// control tokens spelled differently by converters).
//
// Tokens the draft has beyond the target's vocabulary are never proposed
// (the scheduler stops a draft there). Cost: O(smaller vocabulary x token
// length), once per draft model.
#pragma once

#include "burrow/status.h"

#include <cstdint>

namespace burrow::tokenizer {
class Tokenizer;
}

namespace burrow::speculative {

inline constexpr int32_t kVocabSizeSlack = 128;
inline constexpr int32_t kVocabCheckFrom = 5;

// Status::ok(), or an error naming the first difference (for a human:
// "the draft model's vocabulary differs from the model's: token 17 is ...").
Status checkDraftVocabulary(const tokenizer::Tokenizer &target, const tokenizer::Tokenizer &draft);

} // namespace burrow::speculative
