// Decoding the blocks of Q1_0, Q2_0, TQ1_0, TQ2_0 and NVFP4 into byte
// registers with AVX2 instructions, shared by the AVX2 and AVX-512 kernel
// files (avx2_lowbit.cpp, avx512_lowbit.cpp, the packed kernels). Internal
// linkage (anonymous namespace): every including translation unit compiles
// its own copy with its own flags. Needs -mavx2.
#pragma once

#include "quant/lowbit_blocks.h"

#include <immintrin.h>

#include <cstring>

namespace burrow::quant::x86 {
namespace {

inline __m256i loadu256(const void *p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }
inline __m128i loadu128(const void *p) { return _mm_loadu_si128(static_cast<const __m128i *>(p)); }

// 0xff in byte e where bit e of the 32 bits at `bits` is clear (the weight is -d).
inline __m256i clearBits32(const uint8_t *bits)
{
    int32_t v;
    std::memcpy(&v, bits, 4);
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                            2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128,
                                         1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
    const __m256i picked = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32(v), spread), bit);
    return _mm256_cmpeq_epi8(picked, _mm256_setzero_si256());
}

// The 64 codes (0..3) of a Q2_0 block, elements in order: lo = elements
// 0..31, hi = 32..63.
inline void q2Codes(const uint8_t *qs, __m256i *lo, __m256i *hi)
{
    const __m128i raw = loadu128(qs);
    const __m128i three = _mm_set1_epi8(3);
    const __m128i v0 = _mm_and_si128(raw, three);
    const __m128i v1 = _mm_and_si128(_mm_srli_epi16(raw, 2), three);
    const __m128i v2 = _mm_and_si128(_mm_srli_epi16(raw, 4), three);
    const __m128i v3 = _mm_and_si128(_mm_srli_epi16(raw, 6), three);
    // (e0, e1, e4, e5, ...) and (e2, e3, e6, e7, ...), then words interleaved
    const __m128i a0 = _mm_unpacklo_epi8(v0, v1), b0 = _mm_unpacklo_epi8(v2, v3);
    const __m128i a1 = _mm_unpackhi_epi8(v0, v1), b1 = _mm_unpackhi_epi8(v2, v3);
    *lo = _mm256_set_m128i(_mm_unpackhi_epi16(a0, b0), _mm_unpacklo_epi16(a0, b0));
    *hi = _mm256_set_m128i(_mm_unpackhi_epi16(a1, b1), _mm_unpacklo_epi16(a1, b1));
}

// The top two bits of v * 3 (bytes), for v = (byte * 3^n mod 256): the
// reference's trit extraction (a halving add twice, the +1 of avg taken off
// first).
inline __m256i tritOf(__m256i v)
{
    const __m256i zero = _mm256_setzero_si256();
    v = _mm256_subs_epu8(v, _mm256_set1_epi8(1));
    v = _mm256_avg_epu8(v, _mm256_avg_epu8(v, zero));
    return _mm256_and_si256(_mm256_srli_epi16(v, 6), _mm256_set1_epi8(3));
}
inline __m256i times3(__m256i v) { return _mm256_add_epi8(v, _mm256_add_epi8(v, v)); }
inline __m256i times9(__m256i v)
{
    return _mm256_add_epi8(_mm256_and_si256(_mm256_slli_epi16(v, 3), _mm256_set1_epi8(-8)), v);
}
inline __m128i times3(__m128i v) { return _mm_add_epi8(v, _mm_add_epi8(v, v)); }
inline __m128i times9(__m128i v) { return _mm_add_epi8(_mm_and_si128(_mm_slli_epi16(v, 3), _mm_set1_epi8(-8)), v); }

// The 256 trits of a TQ1_0 block as 8 registers of 32, segment c = elements 32c..32c+31.
inline void tq1Segments(const BlockTQ1_0 &b, __m256i seg[8])
{
    const __m256i q0 = loadu256(b.qs);
    const __m256i q1 = times3(q0), q2 = times9(q0), q3 = times9(q1), q4 = times9(q2);
    seg[0] = tritOf(q0);
    seg[1] = tritOf(q1);
    seg[2] = tritOf(q2);
    seg[3] = tritOf(q3);
    seg[4] = tritOf(q4);
    const __m128i r0 = loadu128(b.qs + 32);
    const __m128i r1 = times3(r0), r2 = times9(r0), r3 = times9(r1), r4 = times9(r2);
    int32_t qh;
    std::memcpy(&qh, b.qh, 4);
    const __m128i h0 = _mm_set1_epi32(qh), h1 = times3(h0), h2 = times9(h0), h3 = times3(h2);
    const __m128i h = _mm_blend_epi32(_mm_blend_epi32(h0, h1, 0x2), _mm_blend_epi32(h2, h3, 0x8), 0xc);
    seg[5] = tritOf(_mm256_set_m128i(r1, r0));
    seg[6] = tritOf(_mm256_set_m128i(r3, r2));
    seg[7] = tritOf(_mm256_set_m128i(h, r4));
}

inline void tq2Segments(const BlockTQ2_0 &b, __m256i seg[8])
{
    const __m256i three = _mm256_set1_epi8(3);
    for (int h = 0; h < 2; ++h) {
        const __m256i q = loadu256(b.qs + 32 * h);
        for (int l = 0; l < 4; ++l)
            seg[4 * h + l] = _mm256_and_si256(_mm256_srli_epi16(q, 2 * l), three);
    }
}


inline void ternarySegments(const BlockTQ1_0 &b, __m256i seg[8]) { tq1Segments(b, seg); }
inline void ternarySegments(const BlockTQ2_0 &b, __m256i seg[8]) { tq2Segments(b, seg); }

// The 64 values of an NVFP4 block (doubled E2M1, signed bytes) in element
// order: first 32 (sub-blocks 0, 1), then the next 32.
inline void nvfp4Values(const BlockNVFP4 &b, __m256i *v01, __m256i *v23)
{
    const __m128i table = loadu128(kValuesMxfp4);
    const __m128i low4 = _mm_set1_epi8(0x0f);
    for (int h = 0; h < 2; ++h) {
        const __m128i q = loadu128(b.qs + 16 * h);
        const __m128i lo = _mm_shuffle_epi8(table, _mm_and_si128(q, low4));
        const __m128i hi = _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(q, 4), low4));
        (h == 0 ? *v01 : *v23) = _mm256_set_m128i(_mm_unpackhi_epi64(lo, hi), _mm_unpacklo_epi64(lo, hi));
    }
}

} // namespace
} // namespace burrow::quant::x86
