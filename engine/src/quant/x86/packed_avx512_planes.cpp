// AVX-512 VNNI prompt tiles for IQ4_XS through int16 weight planes (layout of
// the packed groups: quant/packed.h; the one-token kernel and the contract:
// packed_avx512.cpp).
//
// IQ4_XS's dot product keeps 8 integer lanes per row and super-block (lane
// m: elements 4m..4m + 3 of each 16-element half of every sub-block, each
// sub-block times its scale ls - 32), converted and scaled in float once per
// super-block. The one-token kernel gets each lane from vpmaddubsw (the
// value's magnitude by the activation with the value's sign) and vpdpwssd
// (the scale): per 64 products of a token two multiplies, two sign steps and
// the nibbles' table look-ups shared by only 1-2 tokens. Here each group is
// converted once per call and chunk of tokens into planes of
// v = value * (ls - 32) as int16 (|v| <= 127 * 32), two elements of each row
// per dword, and the activations once into int16: one vpdpwssd multiplies 2
// elements of 16 rows by a broadcast pair of activations, so a lane is a
// chain of vpdpwssd with no sign steps, for up to kMaxTile tokens per
// loaded plane. The integer lanes are exact either way and the float steps
// are the one-token kernel's (acc_m = fma(d_w d_a, lane_m, acc_m) per
// super-block, hsum8), so results are the same bits (tst_packed).
//
// Planes of one super-block (8 KiB): [lane m][sub-block ib][pair p][16 rows]
// dwords, pair p = elements 32 ib + e(m) + 2p, + 1, e(m) = 16 (m / 4) + 4 (m % 4).
#include "quant/x86/x86_kernels.h"

#include "quant/packed.h"
#include "quant/quant_blocks.h"
#include "quant/x86/packed_avx512_rows.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace burrow::quant::x86 {

namespace {

constexpr size_t kRun = 64;              // one 4-byte run of 16 rows
constexpr size_t kIQ4XSSuper = 2176;     // a packed IQ4_XS super-block of 16 rows
constexpr size_t kPlaneSuper = 8 * 8 * 2 * 64;
constexpr int kMaxTile = 8;              // tokens sharing each loaded plane (4, 6 and 8 measured the same)

// The planes of one IQ4_XS group.
void iq4XsPlanes(const PackedMatrix &W, const uint8_t *g, uint8_t *planes)
{
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i table = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i *>(kValuesIq4nl)));
    const __m512i firstRows = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    const __m512i lastRows = _mm512_add_epi32(firstRows, _mm512_set1_epi32(8));
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kIQ4XSSuper;
        uint8_t *dst = planes + static_cast<size_t>(b) * kPlaneSuper;
        __m512i pairs[8];
        iq4XsScalePairs(o, pairs);
        for (int ib = 0; ib < 8; ++ib) {
            const __m512i pair = pairs[ib];
            const __m512i s0 = _mm512_permutexvar_epi32(firstRows, pair), s1 = _mm512_permutexvar_epi32(lastRows, pair);
            for (int c = 0; c < 4; ++c) {
                const __m512i w = _mm512_loadu_si512(o + 128 + static_cast<size_t>(c * 8 + ib) * kRun);
                for (int half = 0; half < 2; ++half) {
                    const __m512i codes = half == 0 ? _mm512_and_si512(w, low4)
                                                    : _mm512_and_si512(_mm512_srli_epi16(w, 4), low4);
                    const __m512i values = _mm512_shuffle_epi8(table, codes);
                    // rows 0-7 and 8-15: 4 int16 per row, dword 2r + p = pair p of row r
                    const __m512i v0 = _mm512_mullo_epi16(_mm512_cvtepi8_epi16(_mm512_castsi512_si256(values)), s0);
                    const __m512i v1 = _mm512_mullo_epi16(_mm512_cvtepi8_epi16(_mm512_extracti64x4_epi64(values, 1)), s1);
                    const int m = 4 * half + c;
                    uint8_t *p = dst + static_cast<size_t>(m * 8 + ib) * 2 * 64;
                    _mm512_store_si512(p, _mm512_permutex2var_epi32(v0, even, v1));
                    _mm512_store_si512(p + 64, _mm512_permutex2var_epi32(v0, odd, v1));
                }
            }
        }
    }
}

// NT tokens from t (their int16 activations at a16, K per token) by one
// group's planes.
template <int NT>
void iq4XsPlaneTile(const PackedMatrix &W, const uint8_t *g, const uint8_t *planes, const int16_t *a16,
                    const PackedActivation &act, int64_t t, float *y, size_t ldy, int rows)
{
    const int64_t K = W.K;
    const BlockQ8_K *a[NT];
    for (int j = 0; j < NT; ++j)
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t + j) * act.stride);
    // Lane by lane (each lane's float chain in registers: all 8 lanes of 8
    // tokens, 64 accumulators, would live on the stack), the rows' d_w d_a
    // formed once per super-block and token.
    float *dd = threadTable(static_cast<size_t>(W.blocks) * NT * 16);   // [blocks][NT][16]
    for (int64_t b = 0; b < W.blocks; ++b) {
        const __m512 dw = halves16(g + static_cast<size_t>(b) * kIQ4XSSuper);
        for (int j = 0; j < NT; ++j)
            _mm512_store_ps(dd + (b * NT + j) * 16, _mm512_mul_ps(dw, _mm512_set1_ps(a[j][b].d)));
    }
    __m512 acc[NT][8];
    for (int m = 0; m < 8; ++m) {
        __m512 accm[NT];
        for (int j = 0; j < NT; ++j)
            accm[j] = _mm512_setzero_ps();
        for (int64_t b = 0; b < W.blocks; ++b) {
            const uint8_t *pb = planes + static_cast<size_t>(b) * kPlaneSuper;
            const int64_t e = 256 * b + 16 * (m / 4) + 4 * (m % 4);
            __m512i lane[NT];
            for (int j = 0; j < NT; ++j)
                lane[j] = _mm512_setzero_si512();
            for (int ib = 0; ib < 8; ++ib)
                for (int p = 0; p < 2; ++p) {
                    const __m512i w = _mm512_load_si512(pb + static_cast<size_t>((m * 8 + ib) * 2 + p) * 64);
                    for (int j = 0; j < NT; ++j) {
                        int32_t pairBits;
                        std::memcpy(&pairBits, a16 + static_cast<size_t>(j) * static_cast<size_t>(K) + static_cast<size_t>(e + 32 * ib + 2 * p), 4);
                        lane[j] = _mm512_dpwssd_epi32(lane[j], w, _mm512_set1_epi32(pairBits));
                    }
                }
            for (int j = 0; j < NT; ++j)
                accm[j] = _mm512_fmadd_ps(_mm512_load_ps(dd + (b * NT + j) * 16), _mm512_cvtepi32_ps(lane[j]), accm[j]);
        }
        for (int j = 0; j < NT; ++j)
            acc[j][m] = accm[j];
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t + j) * ldy, hsum8Rows(acc[j]), rows);
}

using PlaneTileFn = void (*)(const PackedMatrix &, const uint8_t *, const uint8_t *, const int16_t *,
                             const PackedActivation &, int64_t, float *, size_t, int);
constexpr PlaneTileFn kIq4XsTiles[kMaxTile] = {iq4XsPlaneTile<1>, iq4XsPlaneTile<2>, iq4XsPlaneTile<3>, iq4XsPlaneTile<4>, iq4XsPlaneTile<5>, iq4XsPlaneTile<6>, iq4XsPlaneTile<7>, iq4XsPlaneTile<8>};

} // namespace

bool packedMatmulAvx512Planes(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t t0,
                              int64_t t1, float *y, size_t ldy)
{
    if (W.type != GgmlType::GGML_TYPE_IQ4_XS || t1 <= t0)
        return false;
    const size_t planeBytes = static_cast<size_t>(W.blocks) * kPlaneSuper;
    const size_t actBytes = static_cast<size_t>(t1 - t0) * static_cast<size_t>(W.K) * sizeof(int16_t);
    uint8_t *buffer = threadScratch(planeBytes + actBytes);
    if (!buffer)
        return false;
    auto *a16 = reinterpret_cast<int16_t *>(buffer + planeBytes);
    for (int64_t t = t0; t < t1; ++t) {
        const auto *a = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t) * act.stride);
        int16_t *dst = a16 + static_cast<size_t>(t - t0) * static_cast<size_t>(W.K);
        for (int64_t b = 0; b < W.blocks; ++b)
            for (int k = 0; k < 256; k += 32)
                _mm512_storeu_si512(dst + 256 * b + k, _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(a[b].qs + k))));
    }
    for (int64_t g = g0; g < g1; ++g) {
        const int rows = static_cast<int>(std::min<int64_t>(kPackRows, W.N - g * kPackRows));
        iq4XsPlanes(W, W.group(g), buffer);
        float *yg = y + static_cast<size_t>(g) * kPackRows;
        for (int64_t t = t0; t < t1; t += kMaxTile) {
            const int64_t n = std::min<int64_t>(kMaxTile, t1 - t);
            kIq4XsTiles[n - 1](W, W.group(g), buffer, a16 + static_cast<size_t>(t - t0) * static_cast<size_t>(W.K), act, t,
                               yg, ldy, rows);
        }
    }
    return true;
}

} // namespace burrow::quant::x86
