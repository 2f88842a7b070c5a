// The AVX2 multiply of the lattice i-quants', Q2_K's and Q3_K's prompt
// tiles (layout and contract: quant/iq_tiles.h), shared by two translation
// units: iq_tiles_avx2.cpp (AVX2 + FMA + F16C) and iq_tiles_avxvnni.cpp
// (the same and AVX-VNNI, where __AVXVNNI__ picks vpdpbusd / vpdpwssd for
// the integer steps). Everything here has internal linkage (an unnamed
// namespace per includer), so neither unit's code can reach the other's
// callers.
//
// The 16 rows as two halves of 8 (one 256-bit register of int32 lanes
// each). Per lane m (elements 4m..4m + 3 of every sub-block) and
// super-block: the runs' integer products (addLaneRuns), started from the
// lane start; then the rows' float steps, acc_m = fma(d_w d_a, lane,
// acc_m), for up to 4 tokens (kMaxTile) sharing each weight register, and
// hsum8 over the lanes. Results equal the scalar twin (and so the rows'
// vecDot) bit for bit.
#pragma once

#include "quant/iq_tiles.h"
#include "quant/packed.h"
#include "quant/quant_blocks.h"
#include "quant/x86/in_order.h"

#include <immintrin.h>

#include <cstring>

namespace burrow::quant::x86 {
namespace {

using T = GgmlType;

constexpr size_t kOffStart = kIqTileOffStart, kOffScale = kIqTileOffScale, kOffWeights = kIqTileOffWeights,
                 kOffExtra = kIqTileOffExtra;
// Tokens per pass: 4 (16 ymm registers: 4 lanes, 4 sums, weights, scales);
// Q2_K 6 (its one chain per token leaves room; 2048 x 5632 by 512 tokens,
// one thread: 113-122 ms with 4, 84-96 with 6, 93-95 with 7 or 8; the
// lattice types are 5-10 % slower with 5 or 6). With AVX-VNNI, IQ1_S and
// IQ1_M 8 (a run is one vpdpbusd, no int16 sums to hold: IQ1_S 64 -> 52-53
// ms, IQ1_M 100 -> 85-91 ms; 10 and 12 slower again; the other types lose
// 3-9 % with 6 or 8 there).
template <T Type>
constexpr int kMaxTile = Type == T::GGML_TYPE_Q2_K ? 6
#if defined(__AVXVNNI__)
                       : (Type == T::GGML_TYPE_IQ1_S || Type == T::GGML_TYPE_IQ1_M) ? 8
#endif
                                                   : 4;

inline __m256i bcast32(const uint8_t *p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}
inline __m256i load8(const uint8_t *p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)); }

// hsum8 over 8 lane registers, row by row: ((a4 + a0) + (a6 + a2)) + ((a5 + a1) + (a7 + a3)).
inline __m256 hsum8Rows(const __m256 *a)
{
    const __m256 r0 = _mm256_add_ps(a[4], a[0]), r1 = _mm256_add_ps(a[5], a[1]);
    const __m256 r2 = _mm256_add_ps(a[6], a[2]), r3 = _mm256_add_ps(a[7], a[3]);
    return _mm256_add_ps(_mm256_add_ps(r0, r2), _mm256_add_ps(r1, r3));
}

// lane[j] += lane m's 8 runs of super-block b (tile bytes o, rows from
// byte `half` of each 16-row vector) against token j's side: vpmaddubsw,
// vpmaddwd with the run's scale pair, vpaddd (AVX-VNNI: vpmaddubsw, then
// vpdpwssd with the scale pair).
// IQ1_S and IQ1_M (weights value x scale, |v| <= 15: iqTileScaledWeights):
// 4 runs' vpmaddubsw pairs summed as int16 (|sum| <= 4 x 2 x 255 x 15 <
// 2^15), then one vpmaddwd with 1s, per 4 runs (AVX-VNNI: one vpdpbusd a
// run, as Q2_K's scaled runs). Every way gives the same integer.
// Plain AVX2 keeps each lane's adds in program order (in_order.h; 25-37 %
// faster per tile); Q2_K's single chain through all 64 runs of a
// super-block is as fast either way (measured level), and keeps GCC's order.
template <int NT, T Type>
inline void addLaneRuns(const uint8_t *o, size_t half, const uint8_t *const side[NT], int64_t nb, int m, int64_t b,
                        __m256i lane[NT])
{
    if constexpr (Type == T::GGML_TYPE_IQ1_S || Type == T::GGML_TYPE_IQ1_M) {
        const __m256i ones = _mm256_set1_epi16(1);
        for (int ib0 = 0; ib0 < 8; ib0 += 4) {
            __m256i w[4];
            for (int i = 0; i < 4; ++i)
                w[i] = load8(o + kOffWeights + 64 * static_cast<size_t>(8 * m + ib0 + i) + half);
#if defined(__AVXVNNI__)
            (void)ones;
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < NT; ++j)
                    lane[j] = _mm256_dpbusd_avx_epi32(lane[j], bcast32(side[j] + iqSideRun(nb, m, b, ib0 + i)), w[i]);
#else
            for (int j = 0; j < NT; ++j) {
                __m256i s16 = _mm256_maddubs_epi16(bcast32(side[j] + iqSideRun(nb, m, b, ib0)), w[0]);
                for (int i = 1; i < 4; ++i)
                    s16 = _mm256_add_epi16(s16, _mm256_maddubs_epi16(bcast32(side[j] + iqSideRun(nb, m, b, ib0 + i)), w[i]));
                lane[j] = inOrder(_mm256_add_epi32(lane[j], _mm256_madd_epi16(s16, ones)));
            }
#endif
        }
        return;
    }
    for (int ib = 0; ib < 8; ++ib) {
        const __m256i w = load8(o + kOffWeights + 64 * static_cast<size_t>(8 * m + ib) + half);
        const __m256i sc = load8(o + kOffScale + 64 * static_cast<size_t>(2 * ib + m / 4) + half);
        for (int j = 0; j < NT; ++j) {
            const __m256i a = bcast32(side[j] + iqSideRun(nb, m, b, ib));
#if defined(__AVXVNNI__)
            if constexpr (iqTileScaledWeights(Type))   // Q2_K: its runs hold value x scale, its scale pairs are 1
                lane[j] = _mm256_dpbusd_avx_epi32(lane[j], a, w);
            else
                lane[j] = _mm256_dpwssd_avx_epi32(lane[j], _mm256_maddubs_epi16(a, w), sc);
#else
            lane[j] = _mm256_add_epi32(lane[j], _mm256_madd_epi16(_mm256_maddubs_epi16(a, w), sc));
            if constexpr (Type != T::GGML_TYPE_Q2_K)
                lane[j] = inOrder(lane[j]);
#endif
        }
    }
}

// The first `here` (<= 8) of out's rows to dst.
inline void storeRows(float *dst, __m256 out, int here)
{
    if (here == 8) {
        _mm256_storeu_ps(dst, out);
    } else {
        alignas(32) float tmp[8];
        _mm256_store_ps(tmp, out);
        std::memcpy(dst, tmp, static_cast<size_t>(here) * sizeof(float));
    }
}

// Rows 8h..8h + 7 of the group (`rows` of them real) times tokens t0..t0 + NT - 1.
template <T Type, int NT>
void multiplyHalf(const uint8_t *tile, int64_t K, int h, int rows, const PackedActivation &act, int64_t t0, float *y,
                  size_t ldy)
{
    constexpr bool kS = Type == T::GGML_TYPE_IQ1_S, kM = Type == T::GGML_TYPE_IQ1_M;
    const int64_t nb = K / QK_K;
    const size_t superBytes = iqTileSuperBytes(Type);
    const size_t half = 32 * static_cast<size_t>(h);   // byte offset of row 8h in a 16-row vector
    const uint8_t *side[NT];
    const BlockQ8_K *a[NT];
    for (int j = 0; j < NT; ++j) {
        side[j] = act.tileSide + iqSideToken(nb, t0 + j);
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
    }
    __m256 part[NT][8], partShift[kM ? NT : 1][8];
    for (int m = 0; m < 8; ++m) {
        __m256 acc[NT], accShift[kM ? NT : 1];
        for (int j = 0; j < NT; ++j)
            acc[j] = _mm256_setzero_ps();
        for (int j = 0; j < (kM ? NT : 1); ++j)
            accShift[j] = _mm256_setzero_ps();
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
            __m256i lane[NT];
            const __m256i start = load8(o + kOffStart + 64 * static_cast<size_t>(m) + half);
            for (int j = 0; j < NT; ++j)
                lane[j] = start;
            addLaneRuns<NT, Type>(o, half, side, nb, m, b, lane);
            const __m256 dw = _mm256_loadu_ps(reinterpret_cast<const float *>(o) + 8 * h);
            for (int j = 0; j < NT; ++j) {
                const __m256 d = _mm256_mul_ps(dw, _mm256_set1_ps(a[j][b].d));
                acc[j] = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(lane[j]), acc[j]);
                if constexpr (kM) {
                    __m256i sl = _mm256_setzero_si256();
                    for (int p = 0; p < 4; ++p)
                        sl = _mm256_add_epi32(sl, _mm256_madd_epi16(load8(o + kOffExtra + 64 * static_cast<size_t>(4 * m + p) + half),
                                                                    bcast32(side[j] + iqSideQ4(nb, m, b, p))));
                    accShift[j] = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(sl), accShift[j]);
                }
            }
        }
        for (int j = 0; j < NT; ++j) {
            part[j][m] = acc[j];
            if constexpr (kM)
                partShift[j][m] = accShift[j];
        }
    }
    const int here = rows - 8 * h < 8 ? rows - 8 * h : 8;
    for (int j = 0; j < NT; ++j) {
        __m256 out = hsum8Rows(part[j]);
        if constexpr (kS) {
            __m256 acc1 = _mm256_setzero_ps();
            for (int64_t b = 0; b < nb; ++b) {
                const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
                __m256i tot = _mm256_setzero_si256();
                for (int p = 0; p < 4; ++p)
                    tot = _mm256_add_epi32(tot, _mm256_madd_epi16(load8(o + kOffExtra + 64 * static_cast<size_t>(p) + half),
                                                                  bcast32(side[j] + iqSideSums(nb, b, p))));
                const __m256 d = _mm256_mul_ps(_mm256_loadu_ps(reinterpret_cast<const float *>(o) + 8 * h), _mm256_set1_ps(a[j][b].d));
                acc1 = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(tot), acc1);
            }
            out = _mm256_add_ps(out, _mm256_mul_ps(_mm256_set1_ps(0.125f), acc1));
        } else if constexpr (kM) {
            out = _mm256_add_ps(out, _mm256_mul_ps(_mm256_set1_ps(0.125f), hsum8Rows(partShift[j])));
        } else if constexpr (Type != T::GGML_TYPE_IQ3_S && Type != T::GGML_TYPE_Q3_K) {
            out = _mm256_mul_ps(_mm256_set1_ps(Type == T::GGML_TYPE_IQ3_XXS ? 0.25f : 0.125f), out);
        }
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * static_cast<size_t>(h), out, here);
    }
}

// Q2_K, rows 8h..8h + 7 (iq_tiles.h; as the AVX-512 multiplyTileQ2K): one
// integer chain per token and super-block through the 8 lanes' runs, the
// mins' dot product, then acc = fma(isum, d_w d_a, acc), accm = fma(imin,
// dmin_w d_a, accm); acc - accm.
template <int NT>
void multiplyHalfQ2K(const uint8_t *tile, int64_t K, int h, int rows, const PackedActivation &act, int64_t t0, float *y,
                     size_t ldy)
{
    const int64_t nb = K / QK_K;
    const size_t superBytes = iqTileSuperBytes(T::GGML_TYPE_Q2_K);
    const size_t half = 32 * static_cast<size_t>(h);
    const uint8_t *side[NT];
    const BlockQ8_K *a[NT];
    for (int j = 0; j < NT; ++j) {
        side[j] = act.tileSide + iqSideToken(nb, t0 + j);
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
    }
    __m256 acc[NT], accm[NT];
    for (int j = 0; j < NT; ++j)
        acc[j] = accm[j] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
        __m256i isum[NT];
        const __m256i start = load8(o + kOffStart + half);
        for (int j = 0; j < NT; ++j)
            isum[j] = start;
        for (int m = 0; m < 8; ++m)
            addLaneRuns<NT, T::GGML_TYPE_Q2_K>(o, half, side, nb, m, b, isum);
        const __m256 dw = _mm256_loadu_ps(reinterpret_cast<const float *>(o) + 8 * h);
        const __m256 dmw = _mm256_loadu_ps(reinterpret_cast<const float *>(o + kIqTileOffQ2KDmin) + 8 * h);
        for (int j = 0; j < NT; ++j) {
            __m256i imin = _mm256_setzero_si256();
            for (int p = 0; p < 8; ++p)
                imin = _mm256_add_epi32(imin, _mm256_madd_epi16(load8(o + kOffExtra + 64 * static_cast<size_t>(p) + half),
                                                                bcast32(side[j] + iqSideBsums(nb, b, p))));
            const __m256 da = _mm256_set1_ps(a[j][b].d);
            acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[j]), _mm256_mul_ps(dw, da), acc[j]);
            accm[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin), _mm256_mul_ps(dmw, da), accm[j]);
        }
    }
    const int here = rows - 8 * h < 8 ? rows - 8 * h : 8;
    for (int j = 0; j < NT; ++j) {
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * static_cast<size_t>(h), _mm256_sub_ps(acc[j], accm[j]), here);
    }
}

template <T Type, int NT>
void multiplyAny(const uint8_t *tile, int64_t K, int h, int rows, const PackedActivation &act, int64_t t0, float *y,
                 size_t ldy)
{
    if constexpr (Type == T::GGML_TYPE_Q2_K)
        multiplyHalfQ2K<NT>(tile, K, h, rows, act, t0, y, ldy);
    else
        multiplyHalf<Type, NT>(tile, K, h, rows, act, t0, y, ldy);
}

template <T Type, int N>
void multiplyRest(const uint8_t *tile, int64_t K, int h, int rows, const PackedActivation &act, int64_t t, int64_t n,
                  float *y, size_t ldy)
{
    if constexpr (N > 0) {
        if (n == N)
            multiplyAny<Type, N>(tile, K, h, rows, act, t, y, ldy);
        else
            multiplyRest<Type, N - 1>(tile, K, h, rows, act, t, n, y, ldy);
    }
}

template <T Type>
void multiplyAll(const uint8_t *tile, int64_t K, int rows, const PackedActivation &act, int64_t t0, int64_t t1, float *y,
                 size_t ldy)
{
    for (int h = 0; h < 2 && 8 * h < rows; ++h) {
        int64_t t = t0;
        for (; t + kMaxTile<Type> <= t1; t += kMaxTile<Type>)
            multiplyAny<Type, kMaxTile<Type>>(tile, K, h, rows, act, t, y, ldy);
        if (t < t1)
            multiplyRest<Type, kMaxTile<Type> - 1>(tile, K, h, rows, act, t, t1 - t, y, ldy);
    }
}

// The multiply of a converted group with tokens [t0, t1) (iq_simd.h).
inline void multiplyTileAvx2(GgmlType type, const uint8_t *tile, int64_t K, int rows, const PackedActivation &act,
                             int64_t t0, int64_t t1, float *y, size_t ldy)
{
    switch (type) {
    case T::GGML_TYPE_IQ2_XXS: multiplyAll<T::GGML_TYPE_IQ2_XXS>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ2_XS: multiplyAll<T::GGML_TYPE_IQ2_XS>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ2_S: multiplyAll<T::GGML_TYPE_IQ2_S>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ3_XXS: multiplyAll<T::GGML_TYPE_IQ3_XXS>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ3_S: multiplyAll<T::GGML_TYPE_IQ3_S>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ1_S: multiplyAll<T::GGML_TYPE_IQ1_S>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ1_M: multiplyAll<T::GGML_TYPE_IQ1_M>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_Q2_K: multiplyAll<T::GGML_TYPE_Q2_K>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_Q3_K: multiplyAll<T::GGML_TYPE_Q3_K>(tile, K, rows, act, t0, t1, y, ldy); break;
    default: break;
    }}

} // namespace
} // namespace burrow::quant::x86
