// Helpers shared by the AVX-512 packed-group kernels (packed_avx512.cpp,
// packed_avx512_planes.cpp, packed_avx512_lowbit.cpp, packed_amx.cpp,
// iq_tiles_avx512.cpp): a group's 16 f16 values as floats, the 8-lane
// types' final sum, and a register of 16 rows' outputs stored for the rows
// that exist. Internal linkage in every including file (static), so no file's
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

// hsum8 over 8 lane registers, row by row: ((a4 + a0) + (a6 + a2)) + ((a5 + a1)
// + (a7 + a3)), the scalar twins' order (the 8-lane types' final sum).
static inline __m512 hsum8Rows(const __m512 *a)
{
    const __m512 r0 = _mm512_add_ps(a[4], a[0]), r1 = _mm512_add_ps(a[5], a[1]);
    const __m512 r2 = _mm512_add_ps(a[6], a[2]), r3 = _mm512_add_ps(a[7], a[3]);
    return _mm512_add_ps(_mm512_add_ps(r0, r2), _mm512_add_ps(r1, r3));
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
