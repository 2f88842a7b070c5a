// Helpers shared by the drafting passes (forward_mtp.cpp, forward_assistant.cpp):
// a parallel loop over a pass's rows and a draft's pick.
#pragma once

#include "runtime/thread_pool.h"

#include <cstdint>

namespace burrow::runtime {

// fn(row) for rows [0, n) split over the pool; `width` values per row size
// the work (one row runs on the calling thread alone).
template <typename F>
void forEachDraftRow(ThreadPool &pool, int n, int64_t width, F &&fn)
{
    pool.run([&](int ith, int nth) {
        int64_t t0, t1;
        ThreadPool::split(n, ith, nth, &t0, &t1);
        for (int64_t t = t0; t < t1; ++t)
            fn(static_cast<int>(t));
    }, n > 1 ? n * width * 4 : 0);
}

// The first index of the largest of v[0..n) (a draft: the reference's draft
// sampler is a top-10 whose first candidate it takes).
inline int32_t draftArgmax(const float *v, int64_t n)
{
    int64_t best = 0;
    for (int64_t i = 1; i < n; ++i)
        if (v[i] > v[best])
            best = i;
    return static_cast<int32_t>(best);
}

} // namespace burrow::runtime
