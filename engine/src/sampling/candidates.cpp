#include "sampling/candidates.h"

#include <algorithm>
#include <cmath>

namespace burrow::sampling {

namespace {

bool logitGreater(const Candidate &a, const Candidate &b) { return a.logit > b.logit; }

} // namespace

void sortDescending(CandidateArray &candidates)
{
    if (candidates.sorted)
        return;
    std::sort(candidates.data, candidates.data + candidates.size, logitGreater);
    candidates.sorted = true;
}

void keepTopSorted(CandidateArray &candidates, size_t k)
{
    if (!candidates.sorted)
        std::partial_sort(candidates.data, candidates.data + k, candidates.data + candidates.size, logitGreater);
    candidates.size = k;
    candidates.sorted = true;
}

void softmax(CandidateArray &candidates)
{
    sortDescending(candidates);
    // Float accumulation in candidate order, as the reference does: the
    // probabilities (and so seeded draws) come out bit-identical to it.
    const float maxLogit = candidates.data[0].logit;
    float sum = 0.0f;
    for (size_t i = 0; i < candidates.size; ++i) {
        const float p = std::exp(candidates.data[i].logit - maxLogit);
        candidates.data[i].p = p;
        sum += p;
    }
    for (size_t i = 0; i < candidates.size; ++i)
        candidates.data[i].p /= sum;
}

void softmaxUnsorted(CandidateArray &candidates)
{
    float maxLogit = candidates.data[0].logit;
    for (size_t i = 1; i < candidates.size; ++i)
        maxLogit = std::max(maxLogit, candidates.data[i].logit);
    float sum = 0.0f;
    for (size_t i = 0; i < candidates.size; ++i) {
        const float p = std::exp(candidates.data[i].logit - maxLogit);
        candidates.data[i].p = p;
        sum += p;
    }
    for (size_t i = 0; i < candidates.size; ++i)
        candidates.data[i].p /= sum;
}

void sortHead(CandidateArray &candidates, size_t k)
{
    std::partial_sort(candidates.data, candidates.data + k, candidates.data + candidates.size, logitGreater);
}

void sortRange(CandidateArray &candidates, size_t from, size_t to)
{
    std::partial_sort(candidates.data + from, candidates.data + to, candidates.data + candidates.size, logitGreater);
}

size_t argmaxIndex(const CandidateArray &candidates)
{
    // The best value lives in a register: comparing against data[best]
    // would chain a load on every iteration.
    size_t best = 0;
    float bestLogit = candidates.data[0].logit;
    for (size_t i = 1; i < candidates.size; ++i) {
        if (candidates.data[i].logit > bestLogit) {
            bestLogit = candidates.data[i].logit;
            best = i;
        }
    }
    return best;
}

} // namespace burrow::sampling
