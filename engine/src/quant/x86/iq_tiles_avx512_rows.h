// The float steps that end a lattice i-quant tile's rows on AVX-512 (the VNNI
// tiles, iq_tiles_avx512.cpp, and the AMX ones, iq_tiles_amx.cpp): the 8
// lane accumulators of 16 rows summed as the scalar twin's hsum8, then the
// type's factor and IQ1's shift term. Internal linkage (static inline):
// AVX-512 translation units only.
#pragma once

#include "common/ggml_types.h"
#include "quant/iq_tiles.h"
#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace burrow::quant::x86 {

static inline __m512i iqBcast32(const uint8_t *p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return _mm512_set1_epi32(static_cast<int>(v));
}

// hsum8 over 8 lane registers, row by row: ((a4 + a0) + (a6 + a2)) + ((a5 + a1) + (a7 + a3)).
static inline __m512 hsum8Rows(const __m512 *a)
{
    const __m512 r0 = _mm512_add_ps(a[4], a[0]), r1 = _mm512_add_ps(a[5], a[1]);
    const __m512 r2 = _mm512_add_ps(a[6], a[2]), r3 = _mm512_add_ps(a[7], a[3]);
    return _mm512_add_ps(_mm512_add_ps(r0, r2), _mm512_add_ps(r1, r3));
}

// IQ1_M's shift lane m of super-block b (tile o) for one token (its side):
// the sum over sub-blocks of c(ib, m) * (the 4 activations of run (m, ib)).
static inline __m512i iq1mShiftLane(const uint8_t *o, const uint8_t *side, int64_t nb, int m, int64_t b)
{
    __m512i sl = _mm512_setzero_si512();
    for (int p = 0; p < 4; ++p)
        sl = _mm512_dpwssd_epi32(sl, _mm512_loadu_si512(o + kIqTileOffExtra + 64 * static_cast<size_t>(4 * m + p)),
                                 iqBcast32(side + iqSideQ4(nb, m, b, p)));
    return sl;
}

// One token's 16 results from its lane accumulators `part` (and IQ1_M's
// shift lanes `partShift`): tile and nb as the multiply's, side and a the
// token's activation side and Q8_K row.
template <GgmlType Type>
static inline __m512 iqTileRowsOut(const uint8_t *tile, int64_t nb, const uint8_t *side, const BlockQ8_K *a,
                                   const __m512 part[8], const __m512 *partShift)
{
    const size_t superBytes = iqTileSuperBytes(Type);
    __m512 out = hsum8Rows(part);
    if constexpr (Type == GgmlType::GGML_TYPE_IQ1_S) {
        __m512 acc1 = _mm512_setzero_ps();
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
            __m512i tot = _mm512_setzero_si512();
            for (int p = 0; p < 4; ++p)
                tot = _mm512_dpwssd_epi32(tot, _mm512_loadu_si512(o + kIqTileOffExtra + 64 * static_cast<size_t>(p)),
                                          iqBcast32(side + iqSideSums(nb, b, p)));
            const __m512 d = _mm512_mul_ps(_mm512_loadu_ps(o), _mm512_set1_ps(a[b].d));
            acc1 = _mm512_fmadd_ps(d, _mm512_cvtepi32_ps(tot), acc1);
        }
        out = _mm512_add_ps(out, _mm512_mul_ps(_mm512_set1_ps(0.125f), acc1));
    } else if constexpr (Type == GgmlType::GGML_TYPE_IQ1_M) {
        out = _mm512_add_ps(out, _mm512_mul_ps(_mm512_set1_ps(0.125f), hsum8Rows(partShift)));
    } else if constexpr (Type != GgmlType::GGML_TYPE_IQ3_S) {
        out = _mm512_mul_ps(_mm512_set1_ps(Type == GgmlType::GGML_TYPE_IQ3_XXS ? 0.25f : 0.125f), out);
    }
    return out;
}

} // namespace burrow::quant::x86
