// AMX-INT8 kernels for prompts and batches over packed weight groups
// (layout: quant/packed.h), for the types whose dot product reduces each
// block to one exact integer before its float steps: Q4_0, IQ4_NL (per
// 32-element block) and Q4_K's batch form (per 32-element sub-block, two
// per float step). The others keep 8 integer lanes per row into their
// float chains (Q8_0, Q5_0, Q5_K, Q6_K, IQ4_XS: the reference's AVX-512
// lanes), which a tile product's whole-block sums cannot reproduce; they
// stay on the VNNI kernels.
//
// One tile product C[t][r] = sum_k A[t][k] B[k][r] takes 16 tokens (A: the
// activation's tile rows, PackedActivation::amxTiles, 512 contiguous bytes)
// by the 16 rows of a group (B: 32 elements of the group in the VNNI
// layout, 8 rows of [16 rows][4 bytes]: the packed layout's runs, nibbles
// unpacked to bytes). Two groups' B tiles are unpacked once per call into a
// per-thread buffer (K x 16 bytes each) and serve every token tile; a step
// multiplies 2 token tiles by 2 groups (4 products from 2 A and 2 B loads).
// After each block the 16 x 16 sums are stored and go through the VNNI
// kernel's own float steps (per token one register of 16 rows), so the
// results are the VNNI path's bit for bit (tst_packed).
//
// Cost, measured (Xeon with AMX, one thread, 2048 x 2048 by 512 tokens):
// a K = 32 product takes as long as a full K = 64 one (~5.5 ns), and per
// block the tile stores and the float steps (one conversion, multiply and
// fused multiply-add per output) cost about as much again as the products,
// and do not overlap them: Q4_0 8.6 ms against the VNNI kernel's 13-14,
// Q4_K 11 against 15. The float steps per 32 elements are what the results'
// bits require.
//
// Tokens past the last whole 16-token tile (and Q4_K's one-token-form
// tokens) go to the VNNI kernels.
#include "quant/x86/x86_kernels.h"

#include "quant/packed.h"
#include "quant/x86/amx_tiles.h"
#include "quant/x86/packed_avx512_rows.h"
#include "quant/x86/q8k_pairs.h"
#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace burrow::quant::x86 {

namespace {

constexpr int kTile = 16;                 // tokens per tile product (A and C rows)
constexpr size_t kRun = 64;               // one 4-byte run of 16 rows
constexpr size_t kBTile = 8 * kRun;       // 32 elements of 16 rows as bytes
constexpr size_t kATile = kTile * 32;     // 32 elements of 16 tokens
constexpr size_t kQ4KSuper = 2368;
constexpr size_t kQ4KRuns = 320;          // offset of the qs runs in a Q4_K super-block

// One step's tile products over the 32 elements at A tiles a[ti] and B
// tiles b[gi] into zeroed C tiles (Signed: tdpbssd, signed weights;
// otherwise tdpbsud, unsigned weights), then the C tiles stored to c[2 gi + ti].
template <int NG, int NT, bool Signed>
inline void multiply(const uint8_t *const a[2], const uint8_t *const b[2])
{
    _tile_zero(0);
    if constexpr (NT == 2)
        _tile_zero(1);
    if constexpr (NG == 2)
        _tile_zero(2);
    if constexpr (NG == 2 && NT == 2)
        _tile_zero(3);
    _tile_loadd(4, a[0], 32);
    if constexpr (NT == 2)
        _tile_loadd(5, a[1], 32);
    _tile_loadd(6, b[0], kRun);
    if constexpr (NG == 2)
        _tile_loadd(7, b[1], kRun);
    // (the tile operands are part of the instruction: a macro per opcode)
#define BURROW_AMX_PRODUCTS(dp)                                                                                         \
    dp(0, 4, 6);                                                                                                        \
    if constexpr (NT == 2)                                                                                              \
        dp(1, 5, 6);                                                                                                    \
    if constexpr (NG == 2)                                                                                              \
        dp(2, 4, 7);                                                                                                    \
    if constexpr (NG == 2 && NT == 2)                                                                                   \
        dp(3, 5, 7);
    if constexpr (Signed) {
        BURROW_AMX_PRODUCTS(_tile_dpbssd)
    } else {
        BURROW_AMX_PRODUCTS(_tile_dpbsud)
    }
#undef BURROW_AMX_PRODUCTS
}

template <int NG, int NT>
inline void storeC(int32_t (*c)[kTile * 16])
{
    _tile_stored(0, c[0], 64);
    if constexpr (NT == 2)
        _tile_stored(1, c[1], 64);
    if constexpr (NG == 2)
        _tile_stored(2, c[2], 64);
    if constexpr (NG == 2 && NT == 2)
        _tile_stored(3, c[3], 64);
}

// The products of 32-element run k (of n32 per row): A tiles of token
// tiles tt, tt + 1 (act.amxTiles) by the B tiles of run k of the two
// unpacked groups at bt, bt + stride, into zeroed C tiles.
template <int NG, int NT, bool Signed>
inline void multiplyRun(const PackedActivation &act, int64_t tt, int64_t n32, int64_t k, const uint8_t *bt,
                        size_t stride)
{
    const uint8_t *a[2];
    a[0] = act.amxTiles + (static_cast<size_t>(tt) * static_cast<size_t>(n32) + static_cast<size_t>(k)) * kATile;
    a[1] = a[0] + static_cast<size_t>(n32) * kATile;
    const uint8_t *w[2] = {bt + static_cast<size_t>(k) * kBTile, bt + stride + static_cast<size_t>(k) * kBTile};
    multiply<NG, NT, Signed>(a, w);
}

// Q4_0 / IQ4_NL: block b's B tile at dst + b * kBTile, signed weights (Q4_0:
// code - 8; IQ4_NL: the table value). Rows 0-3 the low nibbles of runs 0-3
// (elements 4c..), rows 4-7 the high ones (elements 16 + 4c..).
template <bool Table>
void unpackQ4_0(const PackedMatrix &W, const uint8_t *g, uint8_t *dst)
{
    const int64_t nb = W.blocks;
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i values = Table ? _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i *>(packedCodeValues(W.type))))
                                 : _mm512_set1_epi8(8);
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *q = g + packedBlockOffsets(b, nb, 4 * kRun).runs;
        uint8_t *o = dst + static_cast<size_t>(b) * kBTile;
        for (size_t c = 0; c < 4; ++c) {
            const __m512i w = _mm512_loadu_si512(q + c * kRun);
            __m512i lo = _mm512_and_si512(w, low4);
            __m512i hi = _mm512_and_si512(_mm512_srli_epi16(w, 4), low4);
            if constexpr (Table) {
                lo = _mm512_shuffle_epi8(values, lo);
                hi = _mm512_shuffle_epi8(values, hi);
            } else {
                lo = _mm512_sub_epi8(lo, values);
                hi = _mm512_sub_epi8(hi, values);
            }
            _mm512_store_si512(o + c * kRun, lo);
            _mm512_store_si512(o + (4 + c) * kRun, hi);
        }
    }
}

// NG groups from g (their B tiles at bt, bt + stride) by NT token tiles
// from tt: per block the exact sums a * w, then the VNNI kernel's chain
// acc = fma(isum, d_w d_a, acc) for each of the (group, token) rows. The
// products of block b + 1 are issued before block b's float steps, so the
// tile unit and the vector units overlap.
template <int NG, int NT>
void q4_0Step(const PackedMatrix &W, int64_t g, const uint8_t *bt, size_t stride, const PackedActivation &act,
              int64_t tt, float *y, size_t ldy)
{
    const int64_t nb = W.blocks;
    alignas(64) int32_t c[4][kTile * 16];
    alignas(64) float acc[4][kTile][16] = {};
    const uint8_t *gp[2] = {W.group(g), NG == 2 ? W.group(g + 1) : nullptr};
    const auto issue = [&](int64_t b) { multiplyRun<NG, NT, true>(act, tt, nb, b, bt, stride); };
    issue(0);
    for (int64_t b = 0; b < nb; ++b) {
        storeC<NG, NT>(c);
        if (b + 1 < nb)
            issue(b + 1);
        for (int gi = 0; gi < NG; ++gi) {
            const __m512 dw = halves16(gp[gi] + packedBlockOffsets(b, nb, 4 * kRun).scales);
            for (int ti = 0; ti < NT; ++ti) {
                const float *ad = act.scale + (tt + ti) * kTile * nb + b;
                const int32_t *cb = c[2 * gi + ti];
                float(*ac)[16] = acc[2 * gi + ti];
#pragma GCC unroll 16
                for (int j = 0; j < kTile; ++j) {
                    const __m512 s = _mm512_cvtepi32_ps(_mm512_load_si512(cb + 16 * j));
                    _mm512_store_ps(ac[j], _mm512_fmadd_ps(s, _mm512_mul_ps(dw, _mm512_set1_ps(ad[j * nb])),
                                                           _mm512_load_ps(ac[j])));
                }
            }
        }
    }
    for (int gi = 0; gi < NG; ++gi) {
        const int rows = static_cast<int>(std::min<int64_t>(kPackRows, W.N - (g + gi) * kPackRows));
        for (int ti = 0; ti < NT; ++ti)
            for (int j = 0; j < kTile; ++j)
                storeRows(y + static_cast<size_t>((tt + ti) * kTile + j) * ldy + static_cast<size_t>(g + gi) * kPackRows,
                          _mm512_load_ps(acc[2 * gi + ti][j]), rows);
    }
}

// Q4_K: super-block b's sub-block s at dst + (8b + s) * kBTile, the 4-bit
// codes as unsigned bytes (the mins are taken out through the bsums).
// Runs 8 ch + r hold sub-block 2 ch in their low nibbles, 2 ch + 1 high.
void unpackQ4K(const PackedMatrix &W, const uint8_t *g, uint8_t *dst)
{
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *q = g + static_cast<size_t>(b) * kQ4KSuper + kQ4KRuns;
        uint8_t *o = dst + static_cast<size_t>(b) * 8 * kBTile;
        for (size_t ch = 0; ch < 4; ++ch)
            for (size_t r = 0; r < 8; ++r) {
                const __m512i w = _mm512_loadu_si512(q + (8 * ch + r) * kRun);
                _mm512_store_si512(o + 2 * ch * kBTile + r * kRun, _mm512_and_si512(w, low4));
                _mm512_store_si512(o + (2 * ch + 1) * kBTile + r * kRun, _mm512_and_si512(_mm512_srli_epi16(w, 4), low4));
            }
    }
}

// Q4_K's batch form, NG groups by NT token tiles: per 64-element chunk the
// exact t = sum_lo sc_lo + sum_hi sc_hi (in float: every product and the
// sum stay below 2^24, so it is the integer's own conversion) and min term,
// acc = fma(t, d_w d_a, acc), accm = fma(min, dmin_w d_a, accm); acc - accm
// (the VNNI q4KTile<true>). The low sub-block's products are stored while
// the high one's run; a chunk's float steps overlap the next chunk's
// low products.
template <int NG, int NT>
void q4KStep(const PackedMatrix &W, int64_t g, const uint8_t *bt, size_t stride, const PackedActivation &act,
             int64_t tt, float *y, size_t ldy)
{
    const int64_t n32 = W.blocks * 8;
    alignas(64) int32_t cLo[4][kTile * 16], cHi[4][kTile * 16];
    alignas(64) float acc[4][kTile][16] = {}, accm[4][kTile][16] = {};
    alignas(64) float dd[4][kTile][16], dm[4][kTile][16];
    int32_t pair[2][kTile][4];   // (bsums[4p] + bsums[4p+1], bsums[4p+2] + bsums[4p+3]) as two int16
    float da[2][kTile];
    const uint8_t *gp[2] = {W.group(g), NG == 2 ? W.group(g + 1) : nullptr};
    const auto issue = [&](int64_t k) { multiplyRun<NG, NT, false>(act, tt, n32, k, bt, stride); };
    issue(0);
    for (int64_t b = 0; b < W.blocks; ++b) {
        for (int ti = 0; ti < NT; ++ti)
            for (int j = 0; j < kTile; ++j) {
                const auto *a = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>((tt + ti) * kTile + j) * act.stride) + b;
                da[ti][j] = a->d;
                bsumPairs(*a, pair[ti][j]);
            }
        for (int gi = 0; gi < NG; ++gi) {
            const uint8_t *o = gp[gi] + static_cast<size_t>(b) * kQ4KSuper;
            const __m512 d = halves16(o), dmin = halves16(o + 32);
            for (int ti = 0; ti < NT; ++ti)
                for (int j = 0; j < kTile; ++j) {
                    const __m512 va = _mm512_set1_ps(da[ti][j]);
                    _mm512_store_ps(dd[2 * gi + ti][j], _mm512_mul_ps(d, va));
                    _mm512_store_ps(dm[2 * gi + ti][j], _mm512_mul_ps(dmin, va));
                }
        }
        for (int ch = 0; ch < 4; ++ch) {
            const int64_t k = 8 * b + 2 * ch;
            storeC<NG, NT>(cLo);
            issue(k + 1);
            storeC<NG, NT>(cHi);
            if (k + 2 < n32)
                issue(k + 2);
            for (int gi = 0; gi < NG; ++gi) {
                const uint8_t *o = gp[gi] + static_cast<size_t>(b) * kQ4KSuper;
                const __m512 scLo = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 64 + 32 * ch))));
                const __m512 scHi = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 80 + 32 * ch))));
                const __m512i mins = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(o + 192 + 32 * ch)));
                for (int ti = 0; ti < NT; ++ti) {
                    const int q = 2 * gi + ti;
#pragma GCC unroll 16
                    for (int j = 0; j < kTile; ++j) {
                        const __m512 lo = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_load_si512(cLo[q] + 16 * j)), scLo);
                        const __m512 t = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_load_si512(cHi[q] + 16 * j)), scHi, lo);
                        const __m512i m = _mm512_madd_epi16(mins, _mm512_set1_epi32(pair[ti][j][ch]));
                        _mm512_store_ps(acc[q][j], _mm512_fmadd_ps(t, _mm512_load_ps(dd[q][j]), _mm512_load_ps(acc[q][j])));
                        _mm512_store_ps(accm[q][j], _mm512_fmadd_ps(_mm512_cvtepi32_ps(m), _mm512_load_ps(dm[q][j]),
                                                                    _mm512_load_ps(accm[q][j])));
                    }
                }
            }
        }
    }
    for (int gi = 0; gi < NG; ++gi) {
        const int rows = static_cast<int>(std::min<int64_t>(kPackRows, W.N - (g + gi) * kPackRows));
        for (int ti = 0; ti < NT; ++ti)
            for (int j = 0; j < kTile; ++j)
                storeRows(y + static_cast<size_t>((tt + ti) * kTile + j) * ldy + static_cast<size_t>(g + gi) * kPackRows,
                          _mm512_sub_ps(_mm512_load_ps(acc[2 * gi + ti][j]), _mm512_load_ps(accm[2 * gi + ti][j])), rows);
    }
}

using StepFn = void (*)(const PackedMatrix &, int64_t, const uint8_t *, size_t, const PackedActivation &, int64_t,
                        float *, size_t);

// The activation view from token t on (the side arrays of Q4_0 / IQ4_NL:
// one scale and one sum per block and token).
PackedActivation fromToken(const PackedMatrix &W, const PackedActivation &act, int64_t t)
{
    PackedActivation out = act;
    out.rows = act.rows + static_cast<size_t>(t) * act.stride;
    if (W.type != GgmlType::GGML_TYPE_Q4_K) {
        out.scale = act.scale + t * W.blocks;
        out.sum = act.sum + t * W.blocks;
    }
    out.amxTiles = nullptr;
    out.amxTokens = 0;
    return out;
}

} // namespace

bool packedAmxSupports(GgmlType type)
{
    return type == GgmlType::GGML_TYPE_Q4_0 || type == GgmlType::GGML_TYPE_IQ4_NL || type == GgmlType::GGML_TYPE_MXFP4 ||
           type == GgmlType::GGML_TYPE_Q4_K;
}

void packedMatmulAmx(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                     int64_t nGemm, float *y, size_t ldy)
{
    const bool q4K = W.type == GgmlType::GGML_TYPE_Q4_K;
    // Q4_K: only its batch-form tokens have per-chunk float steps.
    const int64_t formTokens = std::min(q4K ? std::min(nGemm, nTokens) : nTokens, act.amxTokens);
    const int64_t tiles = formTokens / kTile;
    const size_t stride = static_cast<size_t>(W.K) * kPackRows;   // one group's B tiles
    uint8_t *bt = tiles > 0 ? threadScratch(2 * stride) : nullptr;
    if (!bt) {
        packedMatmulAvx512(W, g0, g1, act, nTokens, nGemm, y, ldy);
        return;
    }
    {
        AmxTileScope scope;
        static constexpr StepFn q4_0Steps[4] = {q4_0Step<1, 1>, q4_0Step<1, 2>, q4_0Step<2, 1>, q4_0Step<2, 2>};
        static constexpr StepFn q4KSteps[4] = {q4KStep<1, 1>, q4KStep<1, 2>, q4KStep<2, 1>, q4KStep<2, 2>};
        const StepFn *steps = q4K ? q4KSteps : q4_0Steps;
        for (int64_t g = g0; g < g1; g += 2) {
            const int ng = g + 1 < g1 ? 2 : 1;
            for (int gi = 0; gi < ng; ++gi) {
                uint8_t *dst = bt + static_cast<size_t>(gi) * stride;
                switch (W.type) {
                case GgmlType::GGML_TYPE_Q4_0: unpackQ4_0<false>(W, W.group(g + gi), dst); break;
                case GgmlType::GGML_TYPE_IQ4_NL:
                case GgmlType::GGML_TYPE_MXFP4: unpackQ4_0<true>(W, W.group(g + gi), dst); break;
                default: unpackQ4K(W, W.group(g + gi), dst); break;
                }
            }
            for (int64_t tt = 0; tt < tiles; tt += 2) {
                const int nt = tt + 1 < tiles ? 2 : 1;
                steps[2 * (ng - 1) + (nt - 1)](W, g, bt, stride, act, tt, y, ldy);
            }
        }
    }
    const int64_t tiled = tiles * kTile;
    if (tiled < nTokens)
        packedMatmulAvx512(W, g0, g1, fromToken(W, act, tiled), nTokens - tiled, std::max<int64_t>(0, nGemm - tiled),
                           y + static_cast<size_t>(tiled) * ldy, ldy);
}

} // namespace burrow::quant::x86
