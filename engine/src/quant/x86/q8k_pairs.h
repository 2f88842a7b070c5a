// The Q8_K activation's 16-element sums in pairs, as the packed K-quant
// kernels take their mins back out: out[p] holds (bsums[4p] + bsums[4p+1],
// bsums[4p+2] + bsums[4p+3]) as two int16 — the sums of sub-blocks 2p and
// 2p + 1 of 32, one int32 per 64-element chunk, ready for a vpmaddwd
// against the chunk's two mins. Exact: |sum of 32 codes| <= 4064.
// Internal linkage in every including file (static), as
// packed_avx512_rows.h: each file keeps the copy built with its own flags.
#pragma once

#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <cstdint>

namespace burrow::quant::x86 {

static inline void bsumPairs(const BlockQ8_K &a, int32_t out[4])
{
    const __m128i pairs = _mm_hadd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(a.bsums)),
                                         _mm_loadu_si128(reinterpret_cast<const __m128i *>(a.bsums + 8)));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out), pairs);
}

} // namespace burrow::quant::x86
