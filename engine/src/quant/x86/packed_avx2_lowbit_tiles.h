// The 256-bit kernels for packed groups of Q1_0, Q2_0, TQ1_0/TQ2_0 and NVFP4
// (layouts: quant/packed_lowbit.h), shared by packed_avx2_lowbit.cpp
// (vpmaddubsw + vpmaddwd) and packed_avxvnni_lowbit.cpp (vpdpbusd), each
// compiled with its own instruction-set flags. A register holds 8 rows x 4
// weights, so a group of 16 rows is two halves. The decoded weights stay
// small enough for vpmaddubsw's int16 pairs (TQ codes <= 3, Q2_0 code + 7
// <= 10, Q1_0 128 +- 1 <= 129; NVFP4 the E2M1 magnitude <= 12 with its sign
// moved onto the activation). Internal linkage: each including file gets its
// own copy built for its flags.
//
// Every integer sum is exact and each row's float steps are its type's dot
// product (generic/lowbit.cpp), as packed_avx512_lowbit.cpp, so results equal
// packedMatmulScalar's bit for bit.
#pragma once

#include "quant/x86/x86_lowbit.h"

#include "quant/lowbit_blocks.h"
#include "quant/packed.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace burrow::quant::x86 {

namespace {

constexpr size_t kLowbitRun = 64;   // one run of 16 rows; a half is 32 bytes
constexpr size_t kQ1Block = 288, kQ2Block = 288, kTernaryBlock = 1056, kNvfp4Block = 576;
constexpr size_t kQ8_0Bytes = sizeof(BlockQ8_0);
constexpr int64_t kLowbitTokenChunk = 128;
constexpr size_t kLowbitPrefetch = 4096;

template <int NT>
inline void lowbitPrefetch(const uint8_t *p)
{
    if constexpr (NT == 1)
        _mm_prefetch(reinterpret_cast<const char *>(p + kLowbitPrefetch), _MM_HINT_T0);
}

inline __m256i lbLoad256(const uint8_t *p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)); }
inline __m256i lbBcast32(const void *p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}
inline __m256 lbHalves8(const uint8_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))); }

inline void lbStoreRows(float *dst, __m256 v, int rows)
{
    if (rows >= 8) {
        _mm256_storeu_ps(dst, v);
        return;
    }
    alignas(32) float tmp[8];
    _mm256_store_ps(tmp, v);
    std::memcpy(dst, tmp, static_cast<size_t>(rows) * sizeof(float));
}

// hsum8 over 8 lane registers, row by row.
inline __m256 lbHsum8Rows(const __m256 a[8])
{
    const __m256 r0 = _mm256_add_ps(a[4], a[0]), r1 = _mm256_add_ps(a[5], a[1]);
    const __m256 r2 = _mm256_add_ps(a[6], a[2]), r3 = _mm256_add_ps(a[7], a[3]);
    return _mm256_add_ps(_mm256_add_ps(r0, r2), _mm256_add_ps(r1, r3));
}

// Q8_0 activation rows of a tile and their side arrays (packed.h).
template <int NT>
struct LbQ8_0Rows {
    const uint8_t *qs[NT];
    const float *scale[NT];
    const int32_t *sum[NT];
    LbQ8_0Rows(const PackedActivation &act, int64_t t0, int64_t nq, int64_t sumsPerBlock)
    {
        for (int j = 0; j < NT; ++j) {
            qs[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;
            scale[j] = act.scale + (t0 + j) * nq;
            sum[j] = act.sum + (t0 + j) * nq * sumsPerBlock;
        }
    }
};

// TQ1_0 / TQ2_0, half h: lane m from -(bsums 2m + 2m+1) over the 8 runs m;
// acc[m] = fma(float(lane), d_a d_w, acc[m]) per super-block; hsum8.
template <int NT, typename Dot>
void ternaryHalf(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
                 size_t ldy, int rows)
{
    const __m256i three = _mm256_set1_epi8(3);
    const BlockQ8_K *a[NT];
    __m256 acc[NT][8];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kTernaryBlock;
        const __m256 dw = lbHalves8(o + 16 * h);
        __m256 dd[NT];
        for (int j = 0; j < NT; ++j)
            dd[j] = _mm256_mul_ps(dw, _mm256_set1_ps(a[j][b].d));
        for (int m = 0; m < 8; ++m) {
            __m256i lane[NT];
            #pragma GCC unroll 4
            for (int j = 0; j < NT; ++j)
                lane[j] = _mm256_set1_epi32(-(a[j][b].bsums[2 * m] + a[j][b].bsums[2 * m + 1]));
            #pragma GCC unroll 2
            for (int q = 0; q < 2; ++q) {
                const uint8_t *run = o + 32 + static_cast<size_t>(2 * m + q) * kLowbitRun + 32 * static_cast<size_t>(h);
                lowbitPrefetch<NT>(run);
                const __m256i w = lbLoad256(run);
                #pragma GCC unroll 4
                for (int l = 0; l < 4; ++l) {
                    const __m256i v = _mm256_and_si256(_mm256_srli_epi32(w, 2 * l), three);
                    #pragma GCC unroll 4
                    for (int j = 0; j < NT; ++j)
                        lane[j] = Dot::dot4(lane[j], v, lbBcast32(a[j][b].qs + 128 * q + 32 * l + 4 * m));
                }
            }
            for (int j = 0; j < NT; ++j)
                acc[j][m] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(lane[j]), dd[j], acc[j][m]);
        }
    }
    for (int j = 0; j < NT; ++j)
        lbStoreRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, lbHsum8Rows(acc[j]), rows);
}

// Q2_0, half h: per Q8_0 block isum = (code + 7) . a - 8 sum(a), sumi =
// fma(d_a, isum, sumi); per block acc = fma(d_w, sumi, acc).
template <int NT, typename Dot>
void q2Half(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
            size_t ldy, int rows)
{
    const LbQ8_0Rows<NT> a(act, t0, W.blocks * 2, 1);
    const __m256i three = _mm256_set1_epi8(3), seven = _mm256_set1_epi8(7);
    __m256 acc[NT];
    for (int j = 0; j < NT; ++j)
        acc[j] = _mm256_setzero_ps();
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ2Block;
        const __m256 dw = lbHalves8(o + 16 * h);
        __m256 sumi[NT];
        for (int j = 0; j < NT; ++j)
            sumi[j] = _mm256_setzero_ps();
        #pragma GCC unroll 2
        for (int k = 0; k < 2; ++k) {
            const int64_t qb = 2 * b + k;
            __m256i isum[NT];
            for (int j = 0; j < NT; ++j)
                isum[j] = _mm256_set1_epi32(a.sum[j][qb]);
            #pragma GCC unroll 2
            for (int p = 0; p < 2; ++p) {
                const uint8_t *run = o + 32 + static_cast<size_t>(2 * k + p) * kLowbitRun + 32 * static_cast<size_t>(h);
                lowbitPrefetch<NT>(run);
                const __m256i w = lbLoad256(run);
                #pragma GCC unroll 4
                for (int l = 0; l < 4; ++l) {
                    const __m256i v = _mm256_add_epi8(_mm256_and_si256(_mm256_srli_epi32(w, 2 * l), three), seven);
                    #pragma GCC unroll 8
                    for (int j = 0; j < NT; ++j)
                        isum[j] = Dot::dot4(isum[j], v, lbBcast32(a.qs[j] + static_cast<size_t>(qb) * kQ8_0Bytes + 16 * p + 4 * l));
                }
            }
            for (int j = 0; j < NT; ++j)
                sumi[j] = _mm256_fmadd_ps(_mm256_set1_ps(a.scale[j][qb]), _mm256_cvtepi32_ps(isum[j]), sumi[j]);
        }
        for (int j = 0; j < NT; ++j)
            acc[j] = _mm256_fmadd_ps(dw, sumi[j], acc[j]);
    }
    for (int j = 0; j < NT; ++j)
        lbStoreRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, acc[j], rows);
}

// 0xff in byte 4r + i where bit 4r + i of the 32 sign bits is set.
inline __m256i bitsToBytes(uint32_t bits)
{
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                            2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128,
                                         1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
    const __m256i picked = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)), spread), bit);
    return _mm256_cmpeq_epi8(picked, bit);
}

// Q1_0, half h (one token: its 8 lanes fill the registers): lane m of Q8_0
// block k from 128 +- 1 weights and -128 x the run sum; b = d_a0 lane, then
// fma for k = 1..3; acc[m] = fma(d_w, b, acc[m]); hsum8.
template <typename Dot>
void q1Half(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
            size_t ldy, int rows)
{
    const LbQ8_0Rows<1> a(act, t0, W.blocks * 4, 8);
    const __m256i plus = _mm256_set1_epi8(static_cast<char>(0x81)), minus = _mm256_set1_epi8(0x7f);
    __m256 acc[8];
    for (int m = 0; m < 8; ++m)
        acc[m] = _mm256_setzero_ps();
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ1Block;
        lowbitPrefetch<1>(o);
        lowbitPrefetch<1>(o + 128);
        lowbitPrefetch<1>(o + 256);
        const __m256 dw = lbHalves8(o + 16 * h);
        __m256 da[4];
        for (int k = 0; k < 4; ++k)
            da[k] = _mm256_set1_ps(a.scale[0][4 * b + k]);
        #pragma GCC unroll 8
        for (int m = 0; m < 8; ++m) {
            __m256 part = _mm256_setzero_ps();
            #pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
                uint32_t bits;
                std::memcpy(&bits, o + 32 + static_cast<size_t>(4 * m + k) * 8 + 4 * static_cast<size_t>(h), 4);
                const __m256i w = _mm256_blendv_epi8(minus, plus, bitsToBytes(bits));
                const int64_t qb = 4 * b + k;
                const __m256i lane = Dot::dot4(_mm256_set1_epi32(a.sum[0][qb * 8 + m]), w,
                                               lbBcast32(a.qs[0] + static_cast<size_t>(qb) * kQ8_0Bytes + 4 * m));
                const __m256 f = _mm256_cvtepi32_ps(lane);
                part = k == 0 ? _mm256_mul_ps(da[0], f) : _mm256_fmadd_ps(da[k], f, part);
            }
            acc[m] = _mm256_fmadd_ps(dw, part, acc[m]);
        }
    }
    lbStoreRows(y + static_cast<size_t>(t0) * ldy + 8 * h, lbHsum8Rows(acc), rows);
}

// Half the UE4M3 scales of 8 rows from their packed codes (packed_lowbit.h).
inline __m256 ue4m3Half8(const uint8_t *p)
{
    const __m256i c = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(p)));
    const __m256i zero = _mm256_cmpeq_epi32(c, _mm256_setzero_si256());
    const __m256i bits = _mm256_add_epi32(_mm256_slli_epi32(c, 20), _mm256_set1_epi32(116 << 23));
    return _mm256_castsi256_ps(_mm256_andnot_si256(zero, bits));
}

// NVFP4, half h (one token): lane m of each Q8_0 block from the E2M1
// magnitudes and the activations signed by their values; per sub-block
// acc[m] = fma(ue4m3(s) d_a, lane, acc[m]), the first Q8_0 block then the
// second; hsum8.
template <typename Dot>
void nvfp4Half(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
               size_t ldy, int rows)
{
    const LbQ8_0Rows<1> a(act, t0, W.blocks * 2, 8);
    const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(kValuesMxfp4)));
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    __m256 acc[8];
    for (int m = 0; m < 8; ++m)
        acc[m] = _mm256_setzero_ps();
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kNvfp4Block;
        #pragma GCC unroll 4
        for (int s = 0; s < 4; ++s) {
            const int64_t qb = 2 * b + s / 2;
            const __m256 ss = _mm256_mul_ps(ue4m3Half8(o + 16 * s + 8 * h), _mm256_set1_ps(a.scale[0][qb]));
            #pragma GCC unroll 2
            for (int c = 0; c < 2; ++c) {
                const uint8_t *run = o + 64 + static_cast<size_t>(2 * s + c) * kLowbitRun + 32 * static_cast<size_t>(h);
                lowbitPrefetch<1>(run);
                const __m256i w = lbLoad256(run);
                const __m256i v[2] = {_mm256_shuffle_epi8(table, _mm256_and_si256(w, low4)),
                                      _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(w, 4), low4))};
                #pragma GCC unroll 2
                for (int half = 0; half < 2; ++half) {
                    const int m = 4 * (s % 2) + 2 * half + c;
                    const __m256i y4 = lbBcast32(a.qs[0] + static_cast<size_t>(qb) * kQ8_0Bytes + 4 * m);
                    const __m256i lane = Dot::dot4(_mm256_setzero_si256(), _mm256_abs_epi8(v[half]), _mm256_sign_epi8(y4, v[half]));
                    acc[m] = _mm256_fmadd_ps(ss, _mm256_cvtepi32_ps(lane), acc[m]);
                }
            }
        }
    }
    lbStoreRows(y + static_cast<size_t>(t0) * ldy + 8 * h, lbHsum8Rows(acc), rows);
}

using LbHalfFn = void (*)(const PackedMatrix &, const uint8_t *, int, const PackedActivation &, int64_t, float *,
                          size_t, int);

// The packedMatmul loop over groups, halves and token tiles (TQ: 2 tokens,
// Q2_0: 4, Q1_0 and NVFP4: 1, their 8 lane accumulators filling the
// registers).
template <typename Dot>
void packedMatmulHalvesLowbit(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                              int64_t nTokens, float *y, size_t ldy)
{
    LbHalfFn fns[4] = {};
    int64_t tile = 1;
    switch (W.type) {
    case GgmlType::GGML_TYPE_TQ1_0:
    case GgmlType::GGML_TYPE_TQ2_0:
        fns[0] = ternaryHalf<1, Dot>;
        fns[1] = ternaryHalf<2, Dot>;
        tile = 2;
        break;
    case GgmlType::GGML_TYPE_Q2_0:
        fns[0] = q2Half<1, Dot>;
        fns[1] = q2Half<2, Dot>;
        fns[2] = q2Half<3, Dot>;
        fns[3] = q2Half<4, Dot>;
        tile = 4;
        break;
    case GgmlType::GGML_TYPE_Q1_0: fns[0] = q1Half<Dot>; break;
    case GgmlType::GGML_TYPE_NVFP4: fns[0] = nvfp4Half<Dot>; break;
    default: return;
    }
    for (int64_t c0 = 0; c0 < nTokens; c0 += kLowbitTokenChunk) {
        const int64_t c1 = std::min(nTokens, c0 + kLowbitTokenChunk);
        for (int64_t gi = g0; gi < g1; ++gi) {
            const int rows = static_cast<int>(std::min<int64_t>(kPackRows, W.N - gi * kPackRows));
            float *yg = y + static_cast<size_t>(gi) * kPackRows;
            for (int h = 0; h < 2 && 8 * h < rows; ++h)
                for (int64_t t = c0; t < c1; t += tile)
                    fns[std::min<int64_t>(tile, c1 - t) - 1](W, W.group(gi), h, act, t, yg, ldy, rows - 8 * h);
        }
    }
}

} // namespace

} // namespace burrow::quant::x86
