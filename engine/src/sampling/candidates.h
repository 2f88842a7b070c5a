// Candidates: the working set every sampler stage reads and narrows.
//
// The Chain owns one buffer of vocabSize Candidates, reserved once; per token
// it is overwritten from the logits and handed to each stage as a
// CandidateArray view. Stages shrink `size`, reorder, rewrite logits, fill
// `p`, and a final stage sets `selected`. Nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>

#include "burrow/engine.h"

namespace burrow::sampling {

struct Candidate {
    Token id = 0;
    float logit = 0.0f;
    float p = 0.0f;            // probability; valid only after a stage computed it
};

// A view over the candidates (not owning). Invariants: data[0..size) are the
// live candidates; when `sorted`, they are in descending logit order;
// `selected` is an index into data[0..size) or -1 before a selecting stage.
struct CandidateArray {
    Candidate *data = nullptr;
    size_t size = 0;
    int64_t selected = -1;
    bool sorted = false;

    Token selectedToken() const { return selected >= 0 ? data[selected].id : Token(-1); }
};

// Sorts data[0..size) by descending logit (unstable, like the reference's
// std::sort) and marks the array sorted. O(n log n); no-op when already sorted.
void sortDescending(CandidateArray &candidates);

// Keeps the k highest logits in descending order at the front (partial sort),
// shrinks size to k and marks sorted. Requires 1 <= k <= size. O(n log k).
void keepTopSorted(CandidateArray &candidates, size_t k);

// Softmax over the live candidates, in float like the reference: sorts first
// (unless sorted), then p_i = exp(l_i - l_0) / sum. Requires size >= 1. O(n log n).
void softmax(CandidateArray &candidates);

// Softmax without sorting (order kept, `sorted` unchanged): p_i = exp(l_i -
// max) / sum. Requires size >= 1. O(n).
void softmaxUnsorted(CandidateArray &candidates);

// Moves the k highest logits, in descending order, to the front; the rest
// follow in unspecified order. Size and `sorted` are unchanged. Requires
// k <= size. O(n log k).
void sortHead(CandidateArray &candidates, size_t k);

// After sortHead(from): moves the next (to - from) highest logits, in
// descending order, to data[from..to), so data[0..to) is the sorted head.
// O((size - from) log (to - from)).
void sortRange(CandidateArray &candidates, size_t from, size_t to);

// Index of the first candidate with the highest logit (size >= 1). O(n).
size_t argmaxIndex(const CandidateArray &candidates);

} // namespace burrow::sampling
