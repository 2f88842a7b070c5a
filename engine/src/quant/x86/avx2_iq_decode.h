// AVX2 (+ FMA + F16C) decoders of the lattice i-quants' 32-element
// sub-blocks, shared by the dot products (avx2_iq.cpp) and the prompt
// path's tile conversion (iq_tiles_avx2.cpp). Include only from translation
// units compiled with the AVX2 flags; everything here has internal linkage
// (an unnamed namespace per includer), so no AVX2 code can reach scalar
// callers.
//
// D::sub(block, ib, D::prepare(block)) gives sub-block ib as
//   mag     the grid magnitudes (bytes; IQ1: |grid|, 0 or 1)
//   sgn     +-1 bytes (IQ1: the grid bytes themselves), so that
//           _mm256_sign_epi8(mag, sgn) is the signed value
//   scale   16 int16: the scale 2s + 1 of elements 0..15 (int32 lanes 0..3),
//           then of 16..31 (lanes 4..7), the vpmaddwd operand
//   shift   IQ1_M: +1 bytes, -1 where the element's group of 8 has a negative shift
// and D::d(block) the block's scale as float (IQ1_M: assembled).
#pragma once

#include "quant/iq_grids.h"
#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <cstring>

namespace burrow::quant::x86 {
namespace {

using T = GgmlType;

inline __m256i loadu256(const void *p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }

inline uint32_t loadU32(const void *p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// The reference's hsum_float_8: ((a4 + a0) + (a6 + a2)) + ((a5 + a1) + (a7 + a3)).
inline float hsum8(__m256 v)
{
    __m128 r = _mm_add_ps(_mm256_extractf128_ps(v, 1), _mm256_castps256_ps128(v));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

// 16 int16: the scale of elements 0..15 (lanes 0..3), then of 16..31 (lanes 4..7).
inline __m256i scales16(int lo, int hi)
{
    return _mm256_set_m128i(_mm_set1_epi16(static_cast<int16_t>(hi)), _mm_set1_epi16(static_cast<int16_t>(lo)));
}

// 4 plain sign bytes (bit j of byte k: element 8k + j negative) -> 32 bytes of +-1.
inline __m256i signBytes(uint32_t bits)
{
    const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)),
                                               _mm256_setr_epi64x(0, 0x0101010101010101, 0x0202020202020202,
                                                                  0x0303030303030303));
    const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
    const __m256i neg = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
    return _mm256_or_si256(neg, _mm256_set1_epi8(1));
}

// The scales of a super-block's 16 halves as (s, s) int16 pairs: pairs[0]
// halves 0..7, pairs[1] halves 8..15 (computed once per super-block by the
// types with a scale per 16).
struct Pairs {
    __m256i v[2];
};

inline Pairs pairsOf(__m128i halves8)   // 16 bytes, 2s + 1 of half h in byte h
{
    const __m256i s0 = _mm256_cvtepu8_epi32(halves8), s1 = _mm256_cvtepu8_epi32(_mm_srli_si128(halves8, 8));
    return {{_mm256_or_si256(s0, _mm256_slli_epi32(s0, 16)), _mm256_or_si256(s1, _mm256_slli_epi32(s1, 16))}};
}

// Scale bytes (low nibble: first 16 of sub-block ib, high: second 16) -> pairs.
inline Pairs nibblePairs(const uint8_t *scales)
{
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(scales));
    const __m128i m4 = _mm_set1_epi8(0x0f);
    const __m128i h = _mm_unpacklo_epi8(_mm_and_si128(b, m4), _mm_and_si128(_mm_srli_epi16(b, 4), m4));
    return pairsOf(_mm_or_si128(_mm_add_epi8(h, h), _mm_set1_epi8(1)));
}

// Sub-block ib's scales16 from the super-block's pairs.
inline __m256i scaleOf(const Pairs &p, int ib)
{
    const int k = 2 * (ib % 4);
    return _mm256_permutevar8x32_epi32(p.v[ib / 4], _mm256_setr_epi32(k, k, k, k, k + 1, k + 1, k + 1, k + 1));
}

// One decoded sub-block of 32: magnitudes, +-1 signs, scales (scales16);
// IQ1_M also the +-1 sign of each 8's shift.
struct Sub {
    __m256i mag, sgn, scale, shift;
};

struct DecIQ2_XXS {
    static constexpr T kType = T::GGML_TYPE_IQ2_XXS;
    static Pairs prepare(const uint8_t *) { return {}; }
    static constexpr size_t kBytes = sizeof(BlockIQ2_XXS);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ2_XXS *>(b)->d); }
    static Sub sub(const uint8_t *b, int ib, [[maybe_unused]] const Pairs &pairs)
    {
        const auto *x = reinterpret_cast<const BlockIQ2_XXS *>(b);
        const uint32_t idx = loadU32(x->qs + 4 * ib), ss = loadU32(x->qs + 4 * ib + 2);
        const auto &g = kIq2xxsGrid;
        const auto &s = kIqEvenSignBytes;
        const int sc = static_cast<int>(2 * (ss >> 28) + 1);
        return {_mm256_set_epi64x(static_cast<int64_t>(g[idx >> 24]), static_cast<int64_t>(g[(idx >> 16) & 0xff]),
                                  static_cast<int64_t>(g[(idx >> 8) & 0xff]), static_cast<int64_t>(g[idx & 0xff])),
                _mm256_set_epi64x(static_cast<int64_t>(s[(ss >> 21) & 127]), static_cast<int64_t>(s[(ss >> 14) & 127]),
                                  static_cast<int64_t>(s[(ss >> 7) & 127]), static_cast<int64_t>(s[ss & 127])),
                scales16(sc, sc), _mm256_setzero_si256()};
    }
};

struct DecIQ2_XS {
    static constexpr T kType = T::GGML_TYPE_IQ2_XS;
    static Pairs prepare(const uint8_t *b) { return nibblePairs(reinterpret_cast<const BlockIQ2_XS *>(b)->scales); }
    static constexpr size_t kBytes = sizeof(BlockIQ2_XS);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ2_XS *>(b)->d); }
    static Sub sub(const uint8_t *b, int ib, [[maybe_unused]] const Pairs &pairs)
    {
        const auto *x = reinterpret_cast<const BlockIQ2_XS *>(b);
        const uint16_t *q = x->qs + 4 * ib;
        const auto &g = kIq2xsGrid;
        const auto &s = kIqEvenSignBytes;
        return {_mm256_set_epi64x(static_cast<int64_t>(g[q[3] & 511]), static_cast<int64_t>(g[q[2] & 511]),
                                  static_cast<int64_t>(g[q[1] & 511]), static_cast<int64_t>(g[q[0] & 511])),
                _mm256_set_epi64x(static_cast<int64_t>(s[q[3] >> 9]), static_cast<int64_t>(s[q[2] >> 9]),
                                  static_cast<int64_t>(s[q[1] >> 9]), static_cast<int64_t>(s[q[0] >> 9])),
                scaleOf(pairs, ib), _mm256_setzero_si256()};
    }
};

struct DecIQ2_S {
    static constexpr T kType = T::GGML_TYPE_IQ2_S;
    static Pairs prepare(const uint8_t *b) { return nibblePairs(reinterpret_cast<const BlockIQ2_S *>(b)->scales); }
    static constexpr size_t kBytes = sizeof(BlockIQ2_S);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ2_S *>(b)->d); }
    static Sub sub(const uint8_t *b, int ib, [[maybe_unused]] const Pairs &pairs)
    {
        const auto *x = reinterpret_cast<const BlockIQ2_S *>(b);
        const uint8_t *qs = x->qs + 4 * ib;
        const unsigned qh = x->qh[ib];
        const auto &g = kIq2sGrid;
        return {_mm256_set_epi64x(static_cast<int64_t>(g[qs[3] | ((qh << 2) & 0x300)]),
                                  static_cast<int64_t>(g[qs[2] | ((qh << 4) & 0x300)]),
                                  static_cast<int64_t>(g[qs[1] | ((qh << 6) & 0x300)]),
                                  static_cast<int64_t>(g[qs[0] | ((qh << 8) & 0x300)])),
                signBytes(loadU32(x->qs + QK_K / 8 + 4 * ib)),
                scaleOf(pairs, ib), _mm256_setzero_si256()};
    }
};

struct DecIQ3_XXS {
    static constexpr T kType = T::GGML_TYPE_IQ3_XXS;
    static Pairs prepare(const uint8_t *) { return {}; }
    static constexpr size_t kBytes = sizeof(BlockIQ3_XXS);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ3_XXS *>(b)->d); }
    static Sub sub(const uint8_t *b, int ib, [[maybe_unused]] const Pairs &pairs)
    {
        const auto *x = reinterpret_cast<const BlockIQ3_XXS *>(b);
        const uint8_t *q = x->qs + 8 * ib;
        const uint32_t ss = loadU32(x->qs + QK_K / 4 + 4 * ib);
        const auto &g = kIq3xxsGrid;
        const auto &s = kIqEvenSignBytes;
        const int sc = static_cast<int>(2 * (ss >> 28) + 1);
        return {_mm256_set_epi32(static_cast<int>(g[q[7]]), static_cast<int>(g[q[6]]), static_cast<int>(g[q[5]]),
                                 static_cast<int>(g[q[4]]), static_cast<int>(g[q[3]]), static_cast<int>(g[q[2]]),
                                 static_cast<int>(g[q[1]]), static_cast<int>(g[q[0]])),
                _mm256_set_epi64x(static_cast<int64_t>(s[(ss >> 21) & 127]), static_cast<int64_t>(s[(ss >> 14) & 127]),
                                  static_cast<int64_t>(s[(ss >> 7) & 127]), static_cast<int64_t>(s[ss & 127])),
                scales16(sc, sc), _mm256_setzero_si256()};
    }
};

struct DecIQ3_S {
    static constexpr T kType = T::GGML_TYPE_IQ3_S;
    static Pairs prepare(const uint8_t *) { return {}; }
    static constexpr size_t kBytes = sizeof(BlockIQ3_S);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ3_S *>(b)->d); }
    static Sub sub(const uint8_t *b, int ib, [[maybe_unused]] const Pairs &pairs)
    {
        const auto *x = reinterpret_cast<const BlockIQ3_S *>(b);
        const uint8_t *q = x->qs + 8 * ib;
        const unsigned qh = x->qh[ib];
        const auto &g = kIq3sGrid;
        const auto at = [&](int k) { return static_cast<int>(g[q[k] | (((qh >> k) & 1u) << 8)]); };
        const int sc = 2 * ((x->scales[ib / 2] >> (4 * (ib % 2))) & 0xf) + 1;
        return {_mm256_set_epi32(at(7), at(6), at(5), at(4), at(3), at(2), at(1), at(0)),
                signBytes(loadU32(x->signs + 4 * ib)), scales16(sc, sc), _mm256_setzero_si256()};
    }
};

// IQ1: the grid bytes (-1, 0, 1) are their own signs; magnitudes 0 or 1.
struct DecIQ1_S {
    static constexpr T kType = T::GGML_TYPE_IQ1_S;
    static Pairs prepare(const uint8_t *) { return {}; }
    static constexpr size_t kBytes = sizeof(BlockIQ1_S);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ1_S *>(b)->d); }
    static Sub sub(const uint8_t *b, int ib, [[maybe_unused]] const Pairs &pairs)
    {
        const auto *x = reinterpret_cast<const BlockIQ1_S *>(b);
        const unsigned qh = x->qh[ib];
        const auto &g = kIq1sGrid;
        const __m256i w = _mm256_set_epi64x(static_cast<int64_t>(g[iq1sPointIndex(*x, ib, 3)]),
                                            static_cast<int64_t>(g[iq1sPointIndex(*x, ib, 2)]),
                                            static_cast<int64_t>(g[iq1sPointIndex(*x, ib, 1)]),
                                            static_cast<int64_t>(g[iq1sPointIndex(*x, ib, 0)]));
        const int sc = static_cast<int>(2 * ((qh >> 12) & 7) + 1);
        return {_mm256_sign_epi8(w, w), w, scales16(sc, sc), _mm256_setzero_si256()};
    }
    // The shift's integer from the activations' sums of 16 (iq_kernels.h).
    static int32_t shiftSum(const uint8_t *b, const int16_t *bsums)
    {
        const auto *x = reinterpret_cast<const BlockIQ1_S *>(b);
        const __m256i qh = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x->qh)));
        const __m256i sc = _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(qh, 12), _mm256_set1_epi32(7)), 1),
                                           _mm256_set1_epi32(1));
        // the sign as +-1 (bit 15 set: -1), applied with vpsignd
        const __m256i sign = _mm256_or_si256(_mm256_srai_epi32(_mm256_slli_epi32(qh, 16), 31), _mm256_set1_epi32(1));
        const __m256i sums = _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(bsums)), _mm256_set1_epi16(1));
        const __m256i prod = _mm256_mullo_epi32(_mm256_sign_epi32(sc, sign), sums);
        __m128i r = _mm_add_epi32(_mm256_castsi256_si128(prod), _mm256_extracti128_si256(prod, 1));
        r = _mm_add_epi32(r, _mm_unpackhi_epi64(r, r));
        r = _mm_add_epi32(r, _mm_shuffle_epi32(r, 1));
        return _mm_cvtsi128_si32(r);
    }
};

struct DecIQ1_M {
    static constexpr T kType = T::GGML_TYPE_IQ1_M;
    // 16 3-bit scales: scale word w, bits 3j.. hold half 4w + j
    static Pairs prepare(const uint8_t *b)
    {
        const __m256i words = _mm256_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(reinterpret_cast<const BlockIQ1_M *>(b)->scales)));
        const __m256i shifts = _mm256_setr_epi32(0, 3, 6, 9, 0, 3, 6, 9);
        Pairs p;
        for (int h = 0; h < 2; ++h) {
            const __m256i w = _mm256_permutevar8x32_epi32(words, _mm256_setr_epi32(2 * h, 2 * h, 2 * h, 2 * h, 2 * h + 1, 2 * h + 1, 2 * h + 1, 2 * h + 1));
            const __m256i v = _mm256_and_si256(_mm256_srlv_epi32(w, shifts), _mm256_set1_epi32(7));
            const __m256i sc = _mm256_or_si256(_mm256_slli_epi32(v, 1), _mm256_set1_epi32(1));
            p.v[h] = _mm256_or_si256(sc, _mm256_slli_epi32(sc, 16));
        }
        return p;
    }
    static constexpr size_t kBytes = sizeof(BlockIQ1_M);
    static float d(const uint8_t *b)
    {
        uint16_t sc[4];
        std::memcpy(sc, reinterpret_cast<const BlockIQ1_M *>(b)->scales, 8);
        return _cvtsh_ss(static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00)
                                              | (sc[3] & 0xf000)));
    }
    static Sub sub(const uint8_t *b, int ib, [[maybe_unused]] const Pairs &pairs)
    {
        const auto *x = reinterpret_cast<const BlockIQ1_M *>(b);
        const unsigned h0 = x->qh[2 * ib], h1 = x->qh[2 * ib + 1];
        const auto &g = kIq1sGrid;
        const __m256i w = _mm256_set_epi64x(static_cast<int64_t>(g[iq1mPointIndex(*x, ib, 3)]),
                                            static_cast<int64_t>(g[iq1mPointIndex(*x, ib, 2)]),
                                            static_cast<int64_t>(g[iq1mPointIndex(*x, ib, 1)]),
                                            static_cast<int64_t>(g[iq1mPointIndex(*x, ib, 0)]));
        // +1 bytes, or -1 where the group's shift bit is set (branch-free: the bits are random)
        const __m256i bits = _mm256_and_si256(_mm256_set_epi64x(h1, h1, h0, h0),
                                              _mm256_set_epi64x(0x80, 0x08, 0x80, 0x08));
        const __m256i shift = _mm256_or_si256(_mm256_cmpgt_epi64(bits, _mm256_setzero_si256()), _mm256_set1_epi8(1));
        return {_mm256_sign_epi8(w, w), w, scaleOf(pairs, ib), shift};
    }
};

} // namespace
} // namespace burrow::quant::x86
