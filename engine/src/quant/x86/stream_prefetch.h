// The one-token kernels' streaming prefetch where the CPU wants it
// (cpu_features.h streamPrefetch: on for Intel, where it measured faster;
// BURROW_STREAM_PREFETCH=0/1 overrides): the line kStreamAhead bytes past p
// is asked for. Used by the packed kernels (packed_avx512.cpp,
// packed_avx2.cpp), the lattice i-quants' row kernels (avx512_iq_decode.h,
// avx2_iq.cpp) and the other row kernels (avx2_kernels.cpp,
// avx512_kernels.cpp: Q2_K, Q3_K, and every type when not packed, through
// prefetchRowBlock). _mm_prefetch needs no more than SSE; internal linkage
// (static), so each translation unit keeps its own copy of the flag.
#pragma once

#include "quant/cpu_features.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace burrow::quant::x86 {

inline constexpr size_t kStreamAhead = 4096;

// Read once per translation unit at load (a function-local static's guard
// in the kernels' inner loops cost the AVX2 Q8_0 kernel 4 %).
static const bool g_streamPrefetchOn = cpuFeatures().streamPrefetch;

static inline void prefetchStreamAhead(const void *p)
{
    if (g_streamPrefetchOn)
        _mm_prefetch(static_cast<const char *>(p) + kStreamAhead, _MM_HINT_T0);
}

// A row kernel reading block ib of a row (the file's blocks, one row after
// another): the stream ahead asked for once per block, or once per second
// block where blocks are smaller than a line (asking for every line of a
// super-block measured slower).
template <typename Block>
static inline void prefetchRowBlock(const Block *x, int64_t ib)
{
    if (sizeof(Block) >= 64 || (ib & 1) == 0)
        prefetchStreamAhead(x + ib);
}

} // namespace burrow::quant::x86
