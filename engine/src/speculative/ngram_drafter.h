// The n-gram (prompt lookup) drafter: guesses the next tokens of a reply by
// copying what followed the last few tokens the previous time they occurred
// in the conversation (prompt and reply so far). No model, no memory; strong
// wherever a reply repeats its context: edits, code, summaries, a
// regenerated answer.
//
// draftNgram: for n = kNgramMax down to kNgramMin, the most recent earlier
// occurrence of history's last n tokens; the first n found gives the draft:
// up to maxTokens tokens that followed it (fewer where history ends).
// Cost: O(len x n) comparisons per call, no allocation.
#pragma once

#include "burrow/engine.h"

#include <cstddef>

namespace burrow::speculative {

inline constexpr int kNgramMax = 4;
inline constexpr int kNgramMin = 2;

// Writes up to maxTokens tokens to out; returns how many (0: no match).
int draftNgram(const Token *history, size_t len, int maxTokens, Token *out);

} // namespace burrow::speculative
