// AMX tile products for the lattice i-quants' prompt path (layout and
// contract: quant/iq_tiles.h), on CPUs where the avx512 path may use AMX and
// the tiles multiply bf16 (packed.h amxTilesActive, cpu_features.h
// amxBf16), for whole 16-token tiles.
//
// The rows keep their 8 lanes (lane m: elements 4m..4m + 3 of each 32-element
// sub-block), so lane m of a super-block is its own product over K = 32: A
// the 16 tokens' lane-m activations as bf16 (PackedActivation::amxTiles,
// filled by iqTilePrepareRow: 1 KiB together per lane and super-block) by B the
// lane's 32 weights of 16 rows. Each weight carries its scale as
// v = w * scale (an int16, |w| <= 62 and scale <= 31: |v| < 2^11), split
// v = l + 128 h with 0 <= l < 128, and B is two bf16 tiles, l and 128 h:
// every value and product is an integer a bf16 and a float hold exactly, and
// every partial sum stays below 2^24 (32 x 128 x 2^11 < 2^23), so the float
// tile C = A B_l + A B_h is the lane's exact integer, the one the VNNI tile
// converts. The float steps then are the VNNI tile's own (acc_m =
// fma(d_w d_a, lane, acc_m), iq_tiles_avx512_rows.h): results are
// bit-identical to vecDot (tst_quant_iq). (int8 tile products would need
// the two halves in separate C tiles and an integer combine per output: no
// faster than the VNNI tile, measured.)
//
// Cost per super-block of 16 rows by 32 tokens: 32 bf16 tile products of
// K = 32, 16 tile stores, and per token and lane one fused multiply-add of
// 16 rows; the B tiles (16 KiB per super-block of a group) are made once per
// group and call from the converted tile. IQ1_M's shift lanes and IQ1_S's
// shift term stay VNNI.
#include "quant/x86/iq_simd.h"

#include "quant/iq_tiles.h"
#include "quant/packed.h"
#include "quant/quant_blocks.h"
#include "quant/x86/amx_tiles.h"
#include "quant/x86/iq_tiles_avx512_rows.h"

#include <immintrin.h>

namespace burrow::quant::x86 {

namespace {

using T = GgmlType;

constexpr int kTile = 16;          // tokens per tile product
constexpr size_t kPlane = 1024;    // one B tile: 32 bf16 elements (16 pairs) of 16 rows

// int16 pairs (as dwords) to bf16 pairs: exact for the integers here.
inline __m512i bf16Pairs(__m512i x)
{
    const __m512i lo = _mm512_srai_epi32(_mm512_slli_epi32(x, 16), 16), hi = _mm512_srai_epi32(x, 16);
    const __m512i blo = _mm512_srli_epi32(_mm512_castps_si512(_mm512_cvtepi32_ps(lo)), 16);
    const __m512i bhi = _mm512_and_si512(_mm512_castps_si512(_mm512_cvtepi32_ps(hi)), _mm512_set1_epi32(static_cast<int>(0xffff0000u)));
    return _mm512_or_si512(blo, bhi);
}

// The B tiles of every (lane m, super-block b) at ((m nb + b) 2 + p) kPlane
// (p = 0: l, 1: 128 h): row 2 ib + q holds, for each of the 16 rows, lane
// m's elements 4 ib + 2q, 4 ib + 2q + 1 (those of sub-block ib's run).
void makeB(const uint8_t *tile, size_t superBytes, int64_t nb, uint8_t *planes)
{
    const __m512i firstRows = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    const __m512i lastRows = _mm512_add_epi32(firstRows, _mm512_set1_epi32(8));
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512i low7 = _mm512_set1_epi16(127);
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
        for (int m = 0; m < 8; ++m) {
            uint8_t *dst = planes + static_cast<size_t>(m * nb + b) * 2 * kPlane;
            for (int ib = 0; ib < 8; ++ib) {
                const __m512i w = _mm512_loadu_si512(o + kIqTileOffWeights + 64 * static_cast<size_t>(8 * m + ib));
                // the rows' (s, s) int16 pairs, each row's twice: its 4 weights' scales
                const __m512i sc = _mm512_loadu_si512(o + kIqTileOffScale + 64 * static_cast<size_t>(2 * ib + m / 4));
                // v0: rows 0-7, v1: rows 8-15, 4 int16 each (dword 2r + q: the pair q of row r)
                const __m512i v0 = _mm512_mullo_epi16(_mm512_cvtepi8_epi16(_mm512_castsi512_si256(w)),
                                                      _mm512_permutexvar_epi32(firstRows, sc));
                const __m512i v1 = _mm512_mullo_epi16(_mm512_cvtepi8_epi16(_mm512_extracti64x4_epi64(w, 1)),
                                                      _mm512_permutexvar_epi32(lastRows, sc));
                const __m512i l0 = _mm512_and_si512(v0, low7), l1 = _mm512_and_si512(v1, low7);
                const __m512i h0 = _mm512_sub_epi16(v0, l0), h1 = _mm512_sub_epi16(v1, l1);
                for (int q = 0; q < 2; ++q) {
                    const __m512i pick = q == 0 ? even : odd;
                    uint8_t *row = dst + 64 * static_cast<size_t>(2 * ib + q);
                    _mm512_store_si512(row, bf16Pairs(_mm512_permutex2var_epi32(l0, pick, l1)));
                    _mm512_store_si512(row + kPlane, bf16Pairs(_mm512_permutex2var_epi32(h0, pick, h1)));
                }
            }
        }
    }
}

// Tokens [t0, t1) (whole tiles) by one converted group (its B tiles): for
// each lane m and super-block b the two B tiles are loaded once and serve
// every token tile, two at a time (C tile ti for token tile ti); the lane
// accumulators of every token (part, [m][token], a per-thread buffer) take
// the float steps after each product pair, while the next pair's products run.
template <T Type>
void multiplyAll(const uint8_t *tile, const uint8_t *planes, int64_t nb, int rows, const PackedActivation &act,
                 int64_t t0, int64_t t1, float *y, size_t ldy, __m512 *part, __m512 *partShift)
{
    constexpr bool kM = Type == T::GGML_TYPE_IQ1_M;
    const int64_t nTok = t1 - t0, nTiles = nTok / kTile;
    const size_t superBytes = iqTileSuperBytes(Type);
    const size_t sideStride = static_cast<size_t>(nb) * kIqTileActBytes;
    const size_t aRun = static_cast<size_t>(act.amxTokens / kTile) * 1024;   // one (m, b)'s tiles of every token
    const uint8_t *side0 = act.tileSide + static_cast<size_t>(t0) * sideStride;
    const uint8_t *a0 = act.amxTiles + static_cast<size_t>(t0 / kTile) * 1024;
    const auto row = [&](int64_t t) {
        return reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + t) * act.stride);
    };
    for (size_t i = 0; i < static_cast<size_t>(8 * nTok); ++i) {
        part[i] = _mm512_setzero_ps();
        if constexpr (kM)
            partShift[i] = _mm512_setzero_ps();
    }
    alignas(64) float c[2][kTile * 16];
    // job (m, b, tt): token tiles tt, tt + 1 (one where tt is the last)
    const auto issue = [&](int m, int64_t b, int64_t tt) {
        if (tt == 0) {
            const uint8_t *bp = planes + static_cast<size_t>(m * nb + b) * 2 * kPlane;
            _tile_loadd(6, bp, 64);
            _tile_loadd(7, bp + kPlane, 64);
        }
        const bool two = tt + 1 < nTiles;
        const uint8_t *ap = a0 + static_cast<size_t>(m * nb + b) * aRun + static_cast<size_t>(tt) * 1024;
        _tile_zero(0);
        _tile_loadd(4, ap, 64);
        if (two) {
            _tile_zero(1);
            _tile_loadd(5, ap + 1024, 64);
        }
        _tile_dpbf16ps(0, 4, 6);
        if (two)
            _tile_dpbf16ps(1, 5, 6);
        _tile_dpbf16ps(0, 4, 7);
        if (two)
            _tile_dpbf16ps(1, 5, 7);
        // the next job's A rows into L1 meanwhile (a tile load from L2 waits row by row)
        const uint8_t *next = tt + 2 < nTiles ? ap + 2048 : ap + aRun - static_cast<size_t>(tt) * 1024;
        for (int l = 0; l < 32; ++l)
            _mm_prefetch(reinterpret_cast<const char *>(next + 64 * l), _MM_HINT_T0);
    };
    issue(0, 0, 0);
    for (int m = 0; m < 8; ++m)
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
            const __m512 dw = _mm512_loadu_ps(o);
            for (int64_t tt = 0; tt < nTiles; tt += 2) {
                const int nt = tt + 1 < nTiles ? 2 : 1;
                _tile_stored(0, c[0], 64);
                if (nt == 2)
                    _tile_stored(1, c[1], 64);
                if (tt + 2 < nTiles)
                    issue(m, b, tt + 2);
                else if (b + 1 < nb)
                    issue(m, b + 1, 0);
                else if (m + 1 < 8)
                    issue(m + 1, 0, 0);
                for (int ti = 0; ti < nt; ++ti) {
#pragma GCC unroll 4
                    for (int j = 0; j < kTile; ++j) {
                        const int64_t t = kTile * (tt + ti) + j;
                        const __m512 d = _mm512_mul_ps(dw, _mm512_set1_ps(row(t)[b].d));
                        __m512 &acc = part[static_cast<size_t>(m) * static_cast<size_t>(nTok) + static_cast<size_t>(t)];
                        acc = _mm512_fmadd_ps(d, _mm512_load_ps(c[ti] + 16 * j), acc);
                        if constexpr (kM) {
                            __m512 &sh = partShift[static_cast<size_t>(m) * static_cast<size_t>(nTok) + static_cast<size_t>(t)];
                            sh = _mm512_fmadd_ps(
                                d, _mm512_cvtepi32_ps(iq1mShiftLane(o, side0 + static_cast<size_t>(t) * sideStride, nb, m, b)), sh);
                        }
                    }
                }
            }
        }
    const __mmask16 keep = static_cast<__mmask16>((1u << rows) - 1u);
    for (int64_t t = 0; t < nTok; ++t) {
        __m512 lanes[8], shift[8];
        for (int m = 0; m < 8; ++m) {
            lanes[m] = part[static_cast<size_t>(m) * static_cast<size_t>(nTok) + static_cast<size_t>(t)];
            if constexpr (kM)
                shift[m] = partShift[static_cast<size_t>(m) * static_cast<size_t>(nTok) + static_cast<size_t>(t)];
        }
        _mm512_mask_storeu_ps(y + static_cast<size_t>(t0 + t) * ldy, keep,
                              iqTileRowsOut<Type>(tile, nb, side0 + static_cast<size_t>(t) * sideStride, row(t), lanes, shift));
    }
}

} // namespace

bool iqTileMultiplyAmx(GgmlType type, const uint8_t *tile, int64_t K, int rows, const PackedActivation &act, int64_t t0,
                       int64_t t1, float *y, size_t ldy)
{
    const int64_t nb = K / QK_K;
    // the B tiles, then the lane accumulators (IQ1_M: and its shift lanes)
    const size_t planeBytes = static_cast<size_t>(nb) * 16 * kPlane;
    const size_t partCount = 8 * static_cast<size_t>(t1 - t0);
    uint8_t *planes = amxThreadBuffer(planeBytes + 2 * partCount * sizeof(__m512));
    if (!planes)
        return false;
    auto *part = reinterpret_cast<__m512 *>(planes + planeBytes);
    __m512 *partShift = part + partCount;
    makeB(tile, iqTileSuperBytes(type), nb, planes);
    AmxTileScope scope(64, 16);
    switch (type) {
    case T::GGML_TYPE_IQ2_XXS: multiplyAll<T::GGML_TYPE_IQ2_XXS>(tile, planes, nb, rows, act, t0, t1, y, ldy, part, partShift); break;
    case T::GGML_TYPE_IQ2_XS: multiplyAll<T::GGML_TYPE_IQ2_XS>(tile, planes, nb, rows, act, t0, t1, y, ldy, part, partShift); break;
    case T::GGML_TYPE_IQ2_S: multiplyAll<T::GGML_TYPE_IQ2_S>(tile, planes, nb, rows, act, t0, t1, y, ldy, part, partShift); break;
    case T::GGML_TYPE_IQ3_XXS: multiplyAll<T::GGML_TYPE_IQ3_XXS>(tile, planes, nb, rows, act, t0, t1, y, ldy, part, partShift); break;
    case T::GGML_TYPE_IQ3_S: multiplyAll<T::GGML_TYPE_IQ3_S>(tile, planes, nb, rows, act, t0, t1, y, ldy, part, partShift); break;
    case T::GGML_TYPE_IQ1_S: multiplyAll<T::GGML_TYPE_IQ1_S>(tile, planes, nb, rows, act, t0, t1, y, ldy, part, partShift); break;
    case T::GGML_TYPE_IQ1_M: multiplyAll<T::GGML_TYPE_IQ1_M>(tile, planes, nb, rows, act, t0, t1, y, ldy, part, partShift); break;
    default: return false;
    }
    return true;
}

} // namespace burrow::quant::x86
