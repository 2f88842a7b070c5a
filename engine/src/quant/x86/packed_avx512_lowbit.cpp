// AVX-512 VNNI kernels for packed groups of Q1_0, Q2_0, TQ1_0/TQ2_0 and NVFP4
// (layouts: quant/packed_lowbit.h). A register holds one 4-element run of 16
// rows, decoded to unsigned bytes (Q1_0: 128 +- 1 from a 64-bit mask; Q2_0:
// code + 7; TQ: the code; NVFP4: 128 + the doubled E2M1 value) and
// multiplied by the activations' run broadcast to every lane (vpdpbusd),
// starting from the side array's offset correction. Tiles of up to 2 tokens
// (Q1_0, NVFP4: 8 lane accumulators per token), 4 (TQ: the lanes summed over
// a super-block first) or 8 (Q2_0: one chain) share each decoded register;
// one token is the generation case, with a prefetch ahead.
//
// Every integer sum is exact and each row's float steps are its type's dot
// product (generic/lowbit.cpp), so results equal packedMatmulScalar's bit
// for bit. Internal linkage for all but the entry point.
#include "quant/x86/x86_lowbit.h"

#include "quant/lowbit_blocks.h"
#include "quant/packed.h"
#include "quant/x86/packed_avx512_rows.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace burrow::quant::x86 {

namespace {

constexpr size_t kRun = 64;
constexpr int64_t kTokenChunk = 128;
constexpr size_t kPrefetchAhead = 4096;   // as the other packed kernels (packed_avx512.cpp)
constexpr size_t kQ1Block = 288, kQ2Block = 288, kTernaryBlock = 1056, kNvfp4Block = 576;
constexpr size_t kQ8_0Bytes = sizeof(BlockQ8_0);

template <int NT>
inline void prefetchAhead(const uint8_t *p)
{
    if constexpr (NT == 1)
        _mm_prefetch(reinterpret_cast<const char *>(p + kPrefetchAhead), _MM_HINT_T0);
}

inline __m512i load512(const uint8_t *p) { return _mm512_loadu_si512(p); }
inline __m512i bcast32(const void *p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

// hsum8 over 8 lane registers, row by row: ((a4 + a0) + (a6 + a2)) + ((a5 + a1) + (a7 + a3)).
inline __m512 hsum8Rows(const __m512 a[8])
{
    const __m512 r0 = _mm512_add_ps(a[4], a[0]), r1 = _mm512_add_ps(a[5], a[1]);
    const __m512 r2 = _mm512_add_ps(a[6], a[2]), r3 = _mm512_add_ps(a[7], a[3]);
    return _mm512_add_ps(_mm512_add_ps(r0, r2), _mm512_add_ps(r1, r3));
}

// The activation rows of a tile: Q8_0 rows (qs of block 0), their block
// scales and side sums (packed.h PackedActivation), or Q8_K rows.
template <int NT>
struct Q8_0Tile {
    const uint8_t *qs[NT];
    const float *scale[NT];
    const int32_t *sum[NT];
    Q8_0Tile(const PackedActivation &act, int64_t t0, int64_t nq, int64_t sumsPerBlock)
    {
        #pragma GCC unroll 8
        for (int j = 0; j < NT; ++j) {
            qs[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;
            scale[j] = act.scale + (t0 + j) * nq;
            sum[j] = act.sum + (t0 + j) * nq * sumsPerBlock;
        }
    }
};

// Q1_0: lane m of a row = run m of each Q8_0 block k; b = d_a0 lane (k = 0),
// then fma(d_ak, lane, b); acc[m] = fma(d_w, b, acc[m]); hsum8.
template <int NT>
void q1Tile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
            int rows)
{
    const int64_t nq = W.blocks * 4;
    const Q8_0Tile<NT> a(act, t0, nq, 8);
    const __m512i plus = _mm512_set1_epi8(static_cast<char>(0x81)), minus = _mm512_set1_epi8(0x7f);
    __m512 acc[NT][8];
    #pragma GCC unroll 8
    for (int j = 0; j < NT; ++j)
        #pragma GCC unroll 8
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm512_setzero_ps();
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ1Block;
        prefetchAhead<NT>(o);
        prefetchAhead<NT>(o + 64);
        prefetchAhead<NT>(o + 128);
        prefetchAhead<NT>(o + 192);
        prefetchAhead<NT>(o + 256);
        const __m512 dw = halves16(o);
        #pragma GCC unroll 8
        for (int m = 0; m < 8; ++m) {
            __m512 part[NT];
            #pragma GCC unroll 8
            for (int k = 0; k < 4; ++k) {
                uint64_t bits;
                std::memcpy(&bits, o + 32 + static_cast<size_t>(4 * m + k) * 8, 8);
                const __m512i w = _mm512_mask_blend_epi8(_cvtu64_mask64(bits), minus, plus);
                const int64_t qb = 4 * b + k;
                #pragma GCC unroll 8
                for (int j = 0; j < NT; ++j) {
                    const __m512i lane = _mm512_dpbusd_epi32(_mm512_set1_epi32(a.sum[j][qb * 8 + m]), w,
                                                             bcast32(a.qs[j] + static_cast<size_t>(qb) * kQ8_0Bytes + 4 * m));
                    const __m512 da = _mm512_set1_ps(a.scale[j][qb]), f = _mm512_cvtepi32_ps(lane);
                    part[j] = k == 0 ? _mm512_mul_ps(da, f) : _mm512_fmadd_ps(da, f, part[j]);
                }
            }
            #pragma GCC unroll 8
            for (int j = 0; j < NT; ++j)
                acc[j][m] = _mm512_fmadd_ps(dw, part[j], acc[j][m]);
        }
    }
    #pragma GCC unroll 8
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, hsum8Rows(acc[j]), rows);
}

// Q2_0: per Q8_0 block isum = codes+7 . a - 8 sum(a); sumi = fma(d_a,
// isum, sumi); per Q2_0 block acc = fma(d_w, sumi, acc): one chain a row.
template <int NT>
void q2Tile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
            int rows)
{
    const int64_t nq = W.blocks * 2;
    const Q8_0Tile<NT> a(act, t0, nq, 1);
    const __m512i three = _mm512_set1_epi8(3), seven = _mm512_set1_epi8(7);
    __m512 acc[NT];
    #pragma GCC unroll 8
    for (int j = 0; j < NT; ++j)
        acc[j] = _mm512_setzero_ps();
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ2Block;
        const __m512 dw = halves16(o);
        __m512 sumi[NT];
        #pragma GCC unroll 8
        for (int j = 0; j < NT; ++j)
            sumi[j] = _mm512_setzero_ps();
        #pragma GCC unroll 8
        for (int k = 0; k < 2; ++k) {
            const int64_t qb = 2 * b + k;
            __m512i isum[NT];
            #pragma GCC unroll 8
            for (int j = 0; j < NT; ++j)
                isum[j] = _mm512_set1_epi32(a.sum[j][qb]);
            #pragma GCC unroll 8
            for (int p = 0; p < 2; ++p) {
                const uint8_t *run = o + 32 + static_cast<size_t>(2 * k + p) * kRun;
                prefetchAhead<NT>(run);
                const __m512i w = load512(run);
                #pragma GCC unroll 8
                for (int l = 0; l < 4; ++l) {
                    const __m512i v = _mm512_add_epi8(_mm512_and_si512(_mm512_srli_epi32(w, 2 * l), three), seven);
                    #pragma GCC unroll 8
                    for (int j = 0; j < NT; ++j)
                        isum[j] = _mm512_dpbusd_epi32(isum[j], v,
                                                      bcast32(a.qs[j] + static_cast<size_t>(qb) * kQ8_0Bytes + 16 * p + 4 * l));
                }
            }
            #pragma GCC unroll 8
            for (int j = 0; j < NT; ++j)
                sumi[j] = _mm512_fmadd_ps(_mm512_set1_ps(a.scale[j][qb]), _mm512_cvtepi32_ps(isum[j]), sumi[j]);
        }
        #pragma GCC unroll 8
        for (int j = 0; j < NT; ++j)
            acc[j] = _mm512_fmadd_ps(dw, sumi[j], acc[j]);
    }
    #pragma GCC unroll 8
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, acc[j], rows);
}

// TQ1_0 / TQ2_0: lane m = run m of all 8 segments, from -(bsums 2m + 2m+1);
// acc[m] = fma(float(lane), d_a d_w, acc[m]) per super-block; hsum8.
template <int NT>
void ternaryTile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y,
                 size_t ldy, int rows)
{
    const __m512i three = _mm512_set1_epi8(3);
    const BlockQ8_K *a[NT];
    __m512 acc[NT][8];
    #pragma GCC unroll 8
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        #pragma GCC unroll 8
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm512_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kTernaryBlock;
        const __m512 dw = halves16(o);
        __m512 dd[NT];
        #pragma GCC unroll 8
        for (int j = 0; j < NT; ++j)
            dd[j] = _mm512_mul_ps(dw, _mm512_set1_ps(a[j][b].d));
        #pragma GCC unroll 8
        for (int m = 0; m < 8; ++m) {
            __m512i lane[NT];
            #pragma GCC unroll 8
            for (int j = 0; j < NT; ++j)
                lane[j] = _mm512_set1_epi32(-(a[j][b].bsums[2 * m] + a[j][b].bsums[2 * m + 1]));
            #pragma GCC unroll 8
            for (int h = 0; h < 2; ++h) {
                const uint8_t *run = o + 32 + static_cast<size_t>(2 * m + h) * kRun;
                prefetchAhead<NT>(run);
                const __m512i w = load512(run);
                #pragma GCC unroll 8
                for (int l = 0; l < 4; ++l) {
                    const __m512i v = _mm512_and_si512(_mm512_srli_epi32(w, 2 * l), three);
                    #pragma GCC unroll 8
                    for (int j = 0; j < NT; ++j)
                        lane[j] = _mm512_dpbusd_epi32(lane[j], v, bcast32(a[j][b].qs + 128 * h + 32 * l + 4 * m));
                }
            }
            #pragma GCC unroll 8
            for (int j = 0; j < NT; ++j)
                acc[j][m] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(lane[j]), dd[j], acc[j][m]);
        }
    }
    #pragma GCC unroll 8
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, hsum8Rows(acc[j]), rows);
}

// Half the UE4M3 values of 16 rows from their packed scale codes
// (packed_lowbit.h): the float (c << 20) + (116 << 23), zero for code 0.
inline __m512 ue4m3Half16(const uint8_t *p)
{
    const __m512i c = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
    const __mmask16 nonzero = _mm512_test_epi32_mask(c, c);
    return _mm512_castsi512_ps(_mm512_maskz_add_epi32(nonzero, _mm512_slli_epi32(c, 20), _mm512_set1_epi32(116 << 23)));
}

// NVFP4: lane m of a row = run m of each Q8_0 block; per half h the
// sub-block scales s = ue4m3(d) d_a, acc[m] = fma(s, lane, acc[m]); hsum8.
template <int NT>
void nvfp4Tile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y,
               size_t ldy, int rows)
{
    const int64_t nq = W.blocks * 2;
    const Q8_0Tile<NT> a(act, t0, nq, 8);
    alignas(16) int8_t biased[16];
    for (int i = 0; i < 16; ++i)
        biased[i] = static_cast<int8_t>(128 + kValuesMxfp4[i]);
    const __m512i table = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i *>(biased)));
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    __m512 acc[NT][8];
    #pragma GCC unroll 8
    for (int j = 0; j < NT; ++j)
        #pragma GCC unroll 8
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm512_setzero_ps();
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kNvfp4Block;
        prefetchAhead<NT>(o);
        #pragma GCC unroll 8
        for (int s = 0; s < 4; ++s) {
            const int64_t qb = 2 * b + s / 2;
            const __m512 sc = ue4m3Half16(o + 16 * s);
            __m512 ss[NT];
            #pragma GCC unroll 8
            for (int j = 0; j < NT; ++j)
                ss[j] = _mm512_mul_ps(sc, _mm512_set1_ps(a.scale[j][qb]));
            #pragma GCC unroll 8
            for (int c = 0; c < 2; ++c) {
                const uint8_t *run = o + 64 + static_cast<size_t>(2 * s + c) * kRun;
                prefetchAhead<NT>(run);
                const __m512i w = load512(run);
                const __m512i v[2] = {_mm512_shuffle_epi8(table, _mm512_and_si512(w, low4)),
                                      _mm512_shuffle_epi8(table, _mm512_and_si512(_mm512_srli_epi16(w, 4), low4))};
                #pragma GCC unroll 8
                for (int half = 0; half < 2; ++half) {
                    const int m = 4 * (s % 2) + 2 * half + c;
                    #pragma GCC unroll 8
                    for (int j = 0; j < NT; ++j) {
                        const __m512i lane = _mm512_dpbusd_epi32(_mm512_set1_epi32(a.sum[j][qb * 8 + m]), v[half],
                                                                 bcast32(a.qs[j] + static_cast<size_t>(qb) * kQ8_0Bytes + 4 * m));
                        acc[j][m] = _mm512_fmadd_ps(ss[j], _mm512_cvtepi32_ps(lane), acc[j][m]);
                    }
                }
            }
        }
    }
    #pragma GCC unroll 8
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, hsum8Rows(acc[j]), rows);
}

using TileFn = void (*)(const PackedMatrix &, const uint8_t *, const PackedActivation &, int64_t, float *, size_t, int);

template <int NT> struct Q1T { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q1Tile<NT>(W, g, a, t, y, l, r); } };
template <int NT> struct Q2T { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q2Tile<NT>(W, g, a, t, y, l, r); } };
template <int NT> struct TernaryT { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { ternaryTile<NT>(W, g, a, t, y, l, r); } };
template <int NT> struct NVFP4T { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { nvfp4Tile<NT>(W, g, a, t, y, l, r); } };

// Tile kernels by token count 1..Max (Max <= 8).
template <template <int> class K, int Max>
struct Tiles {
    static constexpr TileFn fns[8] = {K<1>::run, K<Max >= 2 ? 2 : 1>::run, K<Max >= 3 ? 3 : 1>::run,
                                      K<Max >= 4 ? 4 : 1>::run, K<Max >= 5 ? 5 : 1>::run, K<Max >= 6 ? 6 : 1>::run,
                                      K<Max >= 7 ? 7 : 1>::run, K<Max >= 8 ? 8 : 1>::run};
};

} // namespace

void packedMatmulAvx512Lowbit(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                              int64_t nTokens, float *y, size_t ldy)
{
    const TileFn *fns = nullptr;
    int64_t maxTile = 1;
    switch (W.type) {
    case GgmlType::GGML_TYPE_Q1_0: fns = Tiles<Q1T, 2>::fns; maxTile = 2; break;
    case GgmlType::GGML_TYPE_Q2_0: fns = Tiles<Q2T, 8>::fns; maxTile = 8; break;
    case GgmlType::GGML_TYPE_TQ1_0:
    case GgmlType::GGML_TYPE_TQ2_0: fns = Tiles<TernaryT, 4>::fns; maxTile = 4; break;
    case GgmlType::GGML_TYPE_NVFP4: fns = Tiles<NVFP4T, 2>::fns; maxTile = 2; break;
    default: return;
    }
    for (int64_t c0 = 0; c0 < nTokens; c0 += kTokenChunk) {
        const int64_t c1 = std::min(nTokens, c0 + kTokenChunk);
        for (int64_t g = g0; g < g1; ++g) {
            const int rows = static_cast<int>(std::min<int64_t>(kPackRows, W.N - g * kPackRows));
            float *yg = y + static_cast<size_t>(g) * kPackRows;
            for (int64_t t = c0; t < c1; t += maxTile)
                fns[std::min<int64_t>(maxTile, c1 - t) - 1](W, W.group(g), act, t, yg, ldy, rows);
        }
    }
}

} // namespace burrow::quant::x86
