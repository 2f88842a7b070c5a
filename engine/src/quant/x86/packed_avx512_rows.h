// Helpers shared by the AVX-512 packed-group kernels (packed_avx512.cpp,
// packed_avx512_lowbit.cpp, packed_amx.cpp): a group's 16 f16 values as
// floats, and a register of 16 rows' outputs stored for the rows that
// exist. Internal linkage in every including file (static), so no file's
// copy, compiled with its own instruction-set flags, stands in for another's.
#pragma once

#include "quant/packed.h"

#include <immintrin.h>

#include <cstdint>

namespace burrow::quant::x86 {

static inline __m512 halves16(const uint8_t *p)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
}

// dst[r] = v[r] for r < rows (rows 1..16).
static inline void storeRows(float *dst, __m512 v, int rows)
{
    if (rows == kPackRows)
        _mm512_storeu_ps(dst, v);
    else
        _mm512_mask_storeu_ps(dst, static_cast<__mmask16>((1u << rows) - 1u), v);
}

} // namespace burrow::quant::x86
