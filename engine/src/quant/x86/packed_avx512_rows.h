// Helpers shared by the AVX-512 packed-group kernels (packed_avx512.cpp,
// packed_avx512_planes.cpp, packed_avx512_lowbit.cpp, packed_amx.cpp,
// iq_tiles_avx512.cpp): a group's 16 f16 values as floats, the 8-lane
// types' final sum, and a register of 16 rows' outputs stored for the rows
// that exist. Internal linkage in every including file (static), so no file's
// copy, compiled with its own instruction-set flags, stands in for another's.
#pragma once

#include "quant/packed.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

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

// IQ4_XS's 8 sub-block scales of a packed super-block o (16 rows), each as
// an int16 pair (ls - 32, ls - 32) per row: ls = low nibble ib of the rows'
// scales_l (o + 64) | bits 2ib, 2ib + 1 of scales_h (o + 32) << 4.
static inline void iq4XsScalePairs(const uint8_t *o, __m512i pairs[8])
{
    const __m512i low4 = _mm512_set1_epi32(0x0f);
    const __m512i low6 = _mm512_set1_epi32(0x3f);
    const __m512i lowWord = _mm512_set1_epi32(0xffff);
    const __m512i sl = _mm512_loadu_si512(o + 64);
    const __m512i sh = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(o + 32)));
    for (int ib = 0; ib < 8; ++ib) {
        const __m512i ls = _mm512_and_si512(
            _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(sl, static_cast<unsigned>(4 * ib)), low4),
                            _mm512_slli_epi32(_mm512_srli_epi32(sh, static_cast<unsigned>(2 * ib)), 4)),
            low6);
        const __m512i v = _mm512_sub_epi32(ls, _mm512_set1_epi32(32));
        pairs[ib] = _mm512_or_si512(_mm512_and_si512(v, lowWord), _mm512_slli_epi32(v, 16));
    }
}

// A per-thread scratch of at least `bytes` (64-aligned, grown in 4 KiB steps
// and kept; each including translation unit has its own); null when out of
// memory.
static inline uint8_t *threadScratch(size_t bytes)
{
    struct Freer {
        void operator()(uint8_t *p) const { std::free(p); }
    };
    thread_local std::unique_ptr<uint8_t, Freer> buffer;
    thread_local size_t capacity = 0;
    if (bytes > capacity) {
        const size_t rounded = (bytes + 4095) & ~size_t{4095};
        buffer.reset(static_cast<uint8_t *>(std::aligned_alloc(64, rounded)));
        capacity = buffer ? rounded : 0;
    }
    return buffer.get();
}

// A per-thread table of at least n floats from a 64-byte boundary, apart
// from threadScratch's buffer (a kernel may hold both), grown and kept: the
// tiles' d_w d_a per super-block and token.
static inline float *threadTable(size_t n)
{
    thread_local std::vector<float> v;
    if (v.size() < n + 16)
        v.resize(n + 16);
    return v.data() + ((64 - reinterpret_cast<uintptr_t>(v.data()) % 64) % 64) / sizeof(float);
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
