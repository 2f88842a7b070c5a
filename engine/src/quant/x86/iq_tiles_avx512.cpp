// AVX-512 VNNI tiles of the lattice i-quants (layout and contract:
// quant/iq_tiles.h; this file is compiled with the AVX-512 flags).
//
// Conversion: each row's super-block is decoded (avx512_iq_decode.h) into
// 256 signed int8 and its 16 scales, then the 16 rows are transposed into
// runs of 16 rows x 4 bytes. Multiply: for each lane m (elements 4m..4m + 3
// of every sub-block) the super-blocks in order, each a sum over its 8
// sub-blocks of vpmaddubsw (unsigned activations, signed weights) and
// vpdpwssd (the scale pair), started from the lane start; then the rows'
// float steps, acc_m = fma(d_w d_a, lane, acc_m), for up to 8 tokens that
// share each weight register. Results equal the scalar twin bit for bit.
//
// Everything here has internal linkage except the two entry points.
#include "quant/x86/iq_simd.h"

#include "quant/iq_tiles.h"
#include "quant/packed.h"
#include "quant/x86/avx512_iq_decode.h"
#include "quant/x86/packed_avx512_rows.h"

#include <immintrin.h>

#include <cstdint>

namespace burrow::quant::x86 {

namespace {

using T = GgmlType;

constexpr size_t kOffStart = kIqTileOffStart, kOffScale = kIqTileOffScale, kOffWeights = kIqTileOffWeights,
                 kOffExtra = kIqTileOffExtra;
constexpr int kMaxTile = 8;   // tokens per tile (12 was slower on Zen 4)

inline __m512i bcast32(const uint8_t *p) { return _mm512_set1_epi32(static_cast<int>(iqLoadU32(p))); }

// 16 x 16 dwords transposed: out[c] = dword c of every row r (lane r).
inline void transpose16(const __m512i r[16], __m512i out[16])
{
    __m512i a[16], b[16];
    for (int i = 0; i < 8; ++i) {
        a[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    // b[4g + j], lane L: dword 4L + j of rows 4g..4g + 3
    for (int g = 0; g < 4; ++g) {
        b[4 * g] = _mm512_unpacklo_epi64(a[4 * g], a[4 * g + 2]);
        b[4 * g + 1] = _mm512_unpackhi_epi64(a[4 * g], a[4 * g + 2]);
        b[4 * g + 2] = _mm512_unpacklo_epi64(a[4 * g + 1], a[4 * g + 3]);
        b[4 * g + 3] = _mm512_unpackhi_epi64(a[4 * g + 1], a[4 * g + 3]);
    }
    for (int j = 0; j < 4; ++j) {
        const __m512i even01 = _mm512_shuffle_i32x4(b[j], b[4 + j], 0x88), odd01 = _mm512_shuffle_i32x4(b[j], b[4 + j], 0xdd);
        const __m512i even23 = _mm512_shuffle_i32x4(b[8 + j], b[12 + j], 0x88), odd23 = _mm512_shuffle_i32x4(b[8 + j], b[12 + j], 0xdd);
        out[j] = _mm512_shuffle_i32x4(even01, even23, 0x88);
        out[8 + j] = _mm512_shuffle_i32x4(even01, even23, 0xdd);
        out[4 + j] = _mm512_shuffle_i32x4(odd01, odd23, 0x88);
        out[12 + j] = _mm512_shuffle_i32x4(odd01, odd23, 0xdd);
    }
}

// w[32k .. 32k + 31] *= the scales of halves 2k and 2k + 1 (the products fit a byte: iqTileScaledWeights).
inline void scaleWeights(int8_t *w, const int16_t *halves)
{
    for (int k = 0; k < 8; ++k) {
        auto *p = reinterpret_cast<__m256i *>(w + 32 * k);
        const __m512i v = _mm512_cvtepi8_epi16(_mm256_load_si256(p));
        const __m512i sc = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi16(halves[2 * k])), _mm256_set1_epi16(halves[2 * k + 1]), 1);
        _mm256_store_si256(p, _mm512_cvtepi16_epi8(_mm512_mullo_epi16(v, sc)));
    }
}

template <typename D>
void convertGroup(const uint8_t *rows, size_t rowBytes, int64_t K, int nRows, uint8_t *tile)
{
    constexpr bool kScaled = iqTileScaledWeights(D::kType);
    const int64_t nb = K / QK_K;
    const size_t superBytes = iqTileSuperBytes(D::kType);
    alignas(64) int8_t w[16][256];
    alignas(64) int16_t halves[16][16];
    alignas(64) float dw[16];
    uint32_t groupNeg[16];
    const __m512i zero = _mm512_setzero_si512();
    for (int64_t b = 0; b < nb; ++b) {
        uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
        for (int r = 0; r < 16; ++r) {
            if (r >= nRows) {
                for (int k = 0; k < 4; ++k)
                    _mm512_store_si512(w[r] + 64 * k, zero);
                _mm256_store_si256(reinterpret_cast<__m256i *>(halves[r]), _mm256_setzero_si256());
                dw[r] = 0.0f;
                groupNeg[r] = 0;
                continue;
            }
            IqSuper s;
            D::decode(rows + static_cast<size_t>(r) * rowBytes + static_cast<size_t>(b) * D::kBytes, s);
            for (int k = 0; k < 4; ++k)
                _mm512_store_si512(w[r] + 64 * k, _mm512_mask_sub_epi8(s.mag[k], s.neg[k], zero, s.mag[k]));
            _mm256_store_si256(reinterpret_cast<__m256i *>(halves[r]), s.halves);
            if constexpr (kScaled)
                scaleWeights(w[r], halves[r]);
            dw[r] = s.d;
            if constexpr (D::kType == T::GGML_TYPE_IQ1_S || D::kType == T::GGML_TYPE_IQ1_M)
                groupNeg[r] = s.shiftGroupNeg;
            else
                groupNeg[r] = 0;
        }
        _mm512_storeu_ps(o, _mm512_load_ps(dw));
        // scale pairs [16 h][16 rows]: the rows' int16 half h, twice (1 where the weights hold it)
        if constexpr (kScaled) {
            const __m512i one = _mm512_maskz_set1_epi32(static_cast<__mmask16>((1u << nRows) - 1u), 0x10001);   // rows past N: 0
            for (int h = 0; h < 16; ++h)
                _mm512_storeu_si512(o + kOffScale + 64 * static_cast<size_t>(h), one);
        } else {
            __m512i rowsIn[16], cols[16];
            for (int r = 0; r < 16; ++r)
                rowsIn[r] = _mm512_mullo_epi32(_mm512_cvtepu16_epi32(_mm256_load_si256(reinterpret_cast<const __m256i *>(halves[r]))),
                                               _mm512_set1_epi32(0x10001));
            transpose16(rowsIn, cols);
            for (int h = 0; h < 16; ++h)
                _mm512_storeu_si512(o + kOffScale + 64 * static_cast<size_t>(h), cols[h]);
        }
        // weights: run (m, ib) = dword 8ib + m of every row; part k holds ib = 2k, 2k + 1
        for (int k = 0; k < 4; ++k) {
            __m512i rowsIn[16], cols[16];
            for (int r = 0; r < 16; ++r)
                rowsIn[r] = _mm512_load_si512(w[r] + 64 * k);
            transpose16(rowsIn, cols);
            for (int q = 0; q < 16; ++q) {
                const int ib = 2 * k + q / 8, m = q % 8;
                _mm512_storeu_si512(o + kOffWeights + 64 * static_cast<size_t>(8 * m + ib), cols[q]);
            }
        }
        // lane starts: -128 * sum over ib of scale(2ib + m / 4) * (sum of the run's weights)
        const __m512i ones = _mm512_set1_epi8(1);
        for (int m = 0; m < 8; ++m) {
            __m512i start = zero;
            for (int ib = 0; ib < 8; ++ib) {
                const __m512i run = _mm512_loadu_si512(o + kOffWeights + 64 * static_cast<size_t>(8 * m + ib));
                const __m512i sc = _mm512_loadu_si512(o + kOffScale + 64 * static_cast<size_t>(2 * ib + m / 4));
                start = _mm512_dpwssd_epi32(start, _mm512_maddubs_epi16(ones, run), sc);
            }
            _mm512_storeu_si512(o + kOffStart + 64 * static_cast<size_t>(m), _mm512_sub_epi32(zero, _mm512_slli_epi32(start, 7)));
        }
        if constexpr (D::kType == T::GGML_TYPE_Q2_K) {
            // the whole super-block's start in lane 0's place; the mins' pairs and dmin
            __m512i total = zero;
            for (int m = 0; m < 8; ++m) {
                total = _mm512_add_epi32(total, _mm512_loadu_si512(o + kOffStart + 64 * static_cast<size_t>(m)));
                _mm512_storeu_si512(o + kOffStart + 64 * static_cast<size_t>(m), zero);
            }
            _mm512_storeu_si512(o + kOffStart, total);
            alignas(64) int32_t mins[8][16] = {};
            alignas(64) float dmin[16] = {};
            for (int r = 0; r < nRows; ++r) {
                const auto *x = reinterpret_cast<const BlockQ2_K *>(rows + static_cast<size_t>(r) * rowBytes + static_cast<size_t>(b) * D::kBytes);
                for (int p = 0; p < 8; ++p)
                    mins[p][r] = static_cast<int32_t>(static_cast<uint32_t>(x->scales[2 * p] >> 4) | (static_cast<uint32_t>(x->scales[2 * p + 1] >> 4) << 16));
                dmin[r] = _cvtsh_ss(x->dmin);
            }
            for (int p = 0; p < 8; ++p)
                _mm512_storeu_si512(o + kOffExtra + 64 * static_cast<size_t>(p), _mm512_load_si512(mins[p]));
            _mm512_storeu_ps(o + kIqTileOffQ2KDmin, _mm512_load_ps(dmin));
        }
        if constexpr (D::kType == T::GGML_TYPE_IQ1_S || D::kType == T::GGML_TYPE_IQ1_M)
            for (int r = 0; r < 16; ++r)   // rows past N: zero halves, zero pairs
                iqTilePutShiftPairs(D::kType, o, static_cast<size_t>(r), halves[r], groupNeg[r]);
    }
}

// lane[j] += lane m's 8 runs of super-block o against token j's bytes
// (runs: [8 ib][8 j][4], the side of 8 tokens): vpmaddubsw, then vpdpwssd
// with the run's scale pair; where the weights hold their scales
// (iqTileScaledWeights) one vpdpbusd. (Forced inline: the lanes stay in
// registers.)
template <int NT, bool Scaled>
__attribute__((always_inline)) inline void addLaneRuns(const uint8_t *o, const uint8_t *runs, int m, __m512i lane[NT])
{
#pragma GCC unroll 8
    for (int ib = 0; ib < 8; ++ib) {
        const __m512i w = _mm512_loadu_si512(o + kOffWeights + 64 * static_cast<size_t>(8 * m + ib));
        if constexpr (Scaled) {
            for (int j = 0; j < NT; ++j)
                lane[j] = _mm512_dpbusd_epi32(lane[j], bcast32(runs + 32 * ib + 4 * j), w);
        } else {
            const __m512i sc = _mm512_loadu_si512(o + kOffScale + 64 * static_cast<size_t>(2 * ib + m / 4));
            for (int j = 0; j < NT; ++j)
                lane[j] = _mm512_dpwssd_epi32(lane[j], _mm512_maddubs_epi16(bcast32(runs + 32 * ib + 4 * j), w), sc);
        }
    }
}

template <T Type, int NT>
void multiplyTile(const uint8_t *tile, int64_t K, int rows, const PackedActivation &act, int64_t t0, float *y, size_t ldy)
{
    constexpr bool kS = Type == T::GGML_TYPE_IQ1_S, kM = Type == T::GGML_TYPE_IQ1_M;
    const int64_t nb = K / QK_K;
    const size_t superBytes = iqTileSuperBytes(Type);
    // t0 is a multiple of 8 (multiplyAll): the tokens' bytes lie side by
    // side, 4 apart, behind one pointer.
    const uint8_t *side0 = act.tileSide + iqSideToken(nb, t0);
    const uint8_t *side[NT];
    const BlockQ8_K *a[NT];
    for (int j = 0; j < NT; ++j) {
        side[j] = side0 + 4 * j;
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
    }
    // The rows' d_w * d_a per super-block and token, once for the 8 lanes.
    float *dTok = threadTable(static_cast<size_t>(nb) * NT * 16);   // [nb][NT][16]
    for (int64_t b = 0; b < nb; ++b) {
        const __m512 dw = _mm512_loadu_ps(tile + static_cast<size_t>(b) * superBytes);
        for (int j = 0; j < NT; ++j)
            _mm512_store_ps(dTok + (b * NT + j) * 16, _mm512_mul_ps(dw, _mm512_set1_ps(a[j][b].d)));
    }
    __m512 part[NT][8], partShift[kM ? NT : 1][8];
    for (int m = 0; m < 8; ++m) {
        __m512 acc[NT], accShift[kM ? NT : 1];
        for (int j = 0; j < NT; ++j)
            acc[j] = _mm512_setzero_ps();
        for (int j = 0; j < (kM ? NT : 1); ++j)
            accShift[j] = _mm512_setzero_ps();
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
            __m512i lane[NT];
            const __m512i start = _mm512_loadu_si512(o + kOffStart + 64 * static_cast<size_t>(m));
            for (int j = 0; j < NT; ++j)
                lane[j] = start;
            addLaneRuns<NT, iqTileScaledWeights(Type)>(o, side0 + iqSideRun(nb, m, b, 0), m, lane);
            for (int j = 0; j < NT; ++j) {
                const __m512 d = _mm512_load_ps(dTok + (b * NT + j) * 16);
                acc[j] = _mm512_fmadd_ps(d, _mm512_cvtepi32_ps(lane[j]), acc[j]);
                if constexpr (kM) {
                    __m512i sl = _mm512_setzero_si512();
                    for (int p = 0; p < 4; ++p)
                        sl = _mm512_dpwssd_epi32(sl, _mm512_loadu_si512(o + kOffExtra + 64 * static_cast<size_t>(4 * m + p)),
                                                 bcast32(side[j] + iqSideQ4(nb, m, b, p)));
                    accShift[j] = _mm512_fmadd_ps(d, _mm512_cvtepi32_ps(sl), accShift[j]);
                }
            }
        }
        for (int j = 0; j < NT; ++j) {
            part[j][m] = acc[j];
            if constexpr (kM)
                partShift[j][m] = accShift[j];
        }
    }
    const __mmask16 keep = static_cast<__mmask16>((1u << rows) - 1u);
    for (int j = 0; j < NT; ++j) {
        __m512 out = hsum8Rows(part[j]);
        if constexpr (kS) {
            __m512 acc1 = _mm512_setzero_ps();
            for (int64_t b = 0; b < nb; ++b) {
                const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
                __m512i tot = _mm512_setzero_si512();
                for (int p = 0; p < 4; ++p)
                    tot = _mm512_dpwssd_epi32(tot, _mm512_loadu_si512(o + kOffExtra + 64 * static_cast<size_t>(p)),
                                              bcast32(side[j] + iqSideSums(nb, b, p)));
                const __m512 d = _mm512_mul_ps(_mm512_loadu_ps(o), _mm512_set1_ps(a[j][b].d));
                acc1 = _mm512_fmadd_ps(d, _mm512_cvtepi32_ps(tot), acc1);
            }
            out = _mm512_add_ps(out, _mm512_mul_ps(_mm512_set1_ps(0.125f), acc1));
        } else if constexpr (kM) {
            out = _mm512_add_ps(out, _mm512_mul_ps(_mm512_set1_ps(0.125f), hsum8Rows(partShift[j])));
        } else if constexpr (Type != T::GGML_TYPE_IQ3_S && Type != T::GGML_TYPE_Q3_K) {
            out = _mm512_mul_ps(_mm512_set1_ps(Type == T::GGML_TYPE_IQ3_XXS ? 0.25f : 0.125f), out);
        }
        _mm512_mask_storeu_ps(y + static_cast<size_t>(t0 + j) * ldy, keep, out);
    }
}

// Q2_K (iq_tiles.h): per super-block one integer chain per token through
// the 8 lanes' runs from the block's start, the mins' dot product over the
// 16 halves, then generic q2K's float steps:
// acc = fma(isum, d_w d_a, acc), accm = fma(imin, dmin_w d_a, accm); acc - accm.
template <int NT>
void multiplyTileQ2K(const uint8_t *tile, int64_t K, int rows, const PackedActivation &act, int64_t t0, float *y, size_t ldy)
{
    const int64_t nb = K / QK_K;
    const size_t superBytes = iqTileSuperBytes(T::GGML_TYPE_Q2_K);
    const uint8_t *side0 = act.tileSide + iqSideToken(nb, t0);   // t0 a multiple of 8: the tokens 4 bytes apart
    const BlockQ8_K *a[NT];
    for (int j = 0; j < NT; ++j)
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
    __m512 acc[NT], accm[NT];
    for (int j = 0; j < NT; ++j)
        acc[j] = accm[j] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
        __m512i isum[NT];
        const __m512i start = _mm512_loadu_si512(o + kOffStart);
        for (int j = 0; j < NT; ++j)
            isum[j] = start;
        for (int m = 0; m < 8; ++m) {
            addLaneRuns<NT, iqTileScaledWeights(T::GGML_TYPE_Q2_K)>(o, side0 + iqSideRun(nb, m, b, 0), m, isum);
        }
        const __m512 dw = _mm512_loadu_ps(o), dmw = _mm512_loadu_ps(o + kIqTileOffQ2KDmin);
        for (int j = 0; j < NT; ++j) {
            __m512i imin = _mm512_setzero_si512();
            for (int p = 0; p < 8; ++p)
                imin = _mm512_dpwssd_epi32(imin, _mm512_loadu_si512(o + kOffExtra + 64 * static_cast<size_t>(p)),
                                           bcast32(side0 + iqSideBsums(nb, b, p) + 4 * j));
            const __m512 da = _mm512_set1_ps(a[j][b].d);
            acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[j]), _mm512_mul_ps(dw, da), acc[j]);
            accm[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(imin), _mm512_mul_ps(dmw, da), accm[j]);
        }
    }
    const __mmask16 keep = static_cast<__mmask16>((1u << rows) - 1u);
    for (int j = 0; j < NT; ++j)
        _mm512_mask_storeu_ps(y + static_cast<size_t>(t0 + j) * ldy, keep, _mm512_sub_ps(acc[j], accm[j]));
}

template <T Type, int NT>
void multiplyAny(const uint8_t *tile, int64_t K, int rows, const PackedActivation &act, int64_t t0, float *y, size_t ldy)
{
    if constexpr (Type == T::GGML_TYPE_Q2_K)
        multiplyTileQ2K<NT>(tile, K, rows, act, t0, y, ldy);
    else
        multiplyTile<Type, NT>(tile, K, rows, act, t0, y, ldy);
}

// The rest of a batch: one tile of n < 8 tokens.
template <T Type, int N>
void multiplyRest(const uint8_t *tile, int64_t K, int rows, const PackedActivation &act, int64_t t, int64_t n, float *y,
                  size_t ldy)
{
    if constexpr (N > 0) {
        if (n == N)
            multiplyAny<Type, N>(tile, K, rows, act, t, y, ldy);
        else
            multiplyRest<Type, N - 1>(tile, K, rows, act, t, n, y, ldy);
    }
}

// Tokens [t0, t1), t0 a multiple of 8, in tiles of up to 8.
template <T Type>
void multiplyAll(const uint8_t *tile, int64_t K, int rows, const PackedActivation &act, int64_t t0, int64_t t1, float *y,
                 size_t ldy)
{
    static_assert(kMaxTile == 8, "a tile's tokens share one group of the side");
    int64_t t = t0;
    for (; t + kMaxTile <= t1; t += kMaxTile)
        multiplyAny<Type, kMaxTile>(tile, K, rows, act, t, y, ldy);
    if (t < t1)
        multiplyRest<Type, kMaxTile - 1>(tile, K, rows, act, t, t1 - t, y, ldy);
}

} // namespace

void iqTileConvertAvx512(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K, int nRows, uint8_t *tile)
{
    switch (type) {
    case T::GGML_TYPE_IQ2_XXS: convertGroup<DecIQ2_XXS>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ2_XS: convertGroup<DecIQ2_XS>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ2_S: convertGroup<DecIQ2_S>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ3_XXS: convertGroup<DecIQ3_XXS>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ3_S: convertGroup<DecIQ3_S>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ1_S: convertGroup<DecIQ1_S>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ1_M: convertGroup<DecIQ1_M>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_Q2_K: convertGroup<DecQ2_K>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_Q3_K: convertGroup<DecQ3_K>(rows, rowBytes, K, nRows, tile); break;
    default: break;
    }
}

void iqTileMultiplyAvx512(GgmlType type, const uint8_t *tile, int64_t K, int rows, const PackedActivation &act, int64_t t0,
                          int64_t t1, float *y, size_t ldy)
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
    }
}

} // namespace burrow::quant::x86
