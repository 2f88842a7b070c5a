// The 256-bit kernels for packed weight groups (layout: quant/packed.h),
// shared by the AVX2 file (packed_avx2.cpp: vpmaddubsw + vpmaddwd, exact for
// 4- and 6-bit codes) and the AVX-VNNI file (packed_avxvnni.cpp: vpdpbusd,
// exact for 8-bit codes too), each compiled with its own instruction-set
// flags. A 256-bit register holds 8 rows x 4 weights, so a group of 16 rows
// is two halves, computed one after the other. Everything here has internal
// linkage: each including file gets its own copy built for its flags.
//
// Every integer sum is exact, and the float steps are those of the scalar
// twin (packedMatmulScalar) lane for lane, so the results are bit-identical.
#pragma once

#include "quant/x86/x86_kernels.h"

#include "quant/packed.h"
#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace burrow::quant::x86 {

namespace {

constexpr size_t kRun = 64;            // one 4-byte run of 16 rows; a half is 32 bytes
constexpr size_t kQ4KSuper = 2368;
constexpr size_t kQ6KSuper = 3392;
constexpr int64_t kTokenChunk = 128;
constexpr size_t kPrefetchAhead = 2048;

template <int NT>
inline void prefetchAhead(const uint8_t *p)
{
    if constexpr (NT == 1)
        _mm_prefetch(reinterpret_cast<const char *>(p + kPrefetchAhead), _MM_HINT_T0);
}

inline __m256i load256(const uint8_t *p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)); }
inline __m256i bcast32(const void *p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}
inline __m256 halves8(const uint8_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))); }


inline void storeRows(float *dst, __m256 v, int rows)
{
    if (rows >= 8) {
        _mm256_storeu_ps(dst, v);
        return;
    }
    alignas(32) float tmp[8];
    _mm256_store_ps(tmp, v);
    std::memcpy(dst, tmp, static_cast<size_t>(rows) * sizeof(float));
}

// Half `h` (rows 8h..8h+7) of a group; `rows`: valid rows in this half.
// Dot::dot4(acc, w, a): acc + the 4-element dot products of unsigned w and
// signed a in each 32-bit lane.
template <bool Four, int NT, typename Dot>
void q32Half(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
             size_t ldy, int rows)
{
    constexpr size_t runs = Four ? 4 : 8;
    const int64_t nb = W.blocks;
    const uint8_t *scales = g + static_cast<size_t>(nb) * runs * kRun + 16 * h;
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const uint8_t *a[NT];
    const float *ad[NT];
    const int32_t *as[NT];
    __m256 acc[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;
        ad[j] = act.scale + (t0 + j) * nb;
        as[j] = act.sum + (t0 + j) * nb;
        acc[j] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *q = g + static_cast<size_t>(b) * runs * kRun + 32 * h;
        const size_t ab = static_cast<size_t>(b) * sizeof(BlockQ8_0);
        __m256i sA[NT], sB[NT];
        for (int j = 0; j < NT; ++j)
            sA[j] = sB[j] = _mm256_setzero_si256();
        if constexpr (Four) {
            for (size_t c = 0; c < runs; ++c) {
                prefetchAhead<NT>(q + c * kRun);
                const __m256i w = load256(q + c * kRun);
                const __m256i lo = _mm256_and_si256(w, low4);
                const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), low4);
                for (int j = 0; j < NT; ++j) {
                    sA[j] = Dot::dot4(sA[j], lo, bcast32(a[j] + ab + 4 * c));
                    sB[j] = Dot::dot4(sB[j], hi, bcast32(a[j] + ab + 16 + 4 * c));
                }
            }
        } else {
            for (size_t c = 0; c < runs; c += 2) {
                prefetchAhead<NT>(q + c * kRun);
                prefetchAhead<NT>(q + (c + 1) * kRun);
                const __m256i w0 = load256(q + c * kRun), w1 = load256(q + (c + 1) * kRun);
                for (int j = 0; j < NT; ++j) {
                    sA[j] = Dot::dot4(sA[j], w0, bcast32(a[j] + ab + 4 * c));
                    sB[j] = Dot::dot4(sB[j], w1, bcast32(a[j] + ab + 4 * c + 4));
                }
            }
        }
        const __m256 dw = halves8(scales + static_cast<size_t>(b) * 2 * kPackRows);
        for (int j = 0; j < NT; ++j) {
            const __m256i sumi = _mm256_sub_epi32(_mm256_add_epi32(sA[j], sB[j]), _mm256_set1_epi32((Four ? 8 : 128) * as[j][b]));
            acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_mul_ps(dw, _mm256_set1_ps(ad[j][b])), acc[j]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, acc[j], rows);
}

template <int NT, typename Dot>
void q4KHalf(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
             size_t ldy, int rows)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const BlockQ8_K *a[NT];
    __m256 acc[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        acc[j] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ4KSuper;
        __m256i tot[NT];
        for (int j = 0; j < NT; ++j)
            tot[j] = _mm256_setzero_si256();
        for (int ch = 0; ch < 4; ++ch) {
            __m256i sLo[NT], sHi[NT];
            for (int j = 0; j < NT; ++j)
                sLo[j] = sHi[j] = _mm256_setzero_si256();
            for (int r = 0; r < 8; ++r) {
                const uint8_t *run = o + 320 + static_cast<size_t>(ch * 8 + r) * kRun + 32 * h;
                prefetchAhead<NT>(run);
                const __m256i w = load256(run);
                const __m256i lo = _mm256_and_si256(w, low4);
                const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), low4);
                for (int j = 0; j < NT; ++j) {
                    sLo[j] = Dot::dot4(sLo[j], lo, bcast32(a[j][b].qs + 64 * ch + 4 * r));
                    sHi[j] = Dot::dot4(sHi[j], hi, bcast32(a[j][b].qs + 64 * ch + 32 + 4 * r));
                }
            }
            const __m256i scLo = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(o + 64 + 32 * ch + 8 * h)));
            const __m256i scHi = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(o + 80 + 32 * ch + 8 * h)));
            for (int j = 0; j < NT; ++j)
                tot[j] = _mm256_add_epi32(tot[j], _mm256_add_epi32(_mm256_mullo_epi32(sLo[j], scLo),
                                                                   _mm256_mullo_epi32(sHi[j], scHi)));
        }
        const __m256 d = halves8(o + 16 * h), dmin = halves8(o + 32 + 16 * h);
        for (int j = 0; j < NT; ++j) {
            const __m128i pairs = _mm_hadd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(a[j][b].bsums)),
                                                 _mm_loadu_si128(reinterpret_cast<const __m128i *>(a[j][b].bsums + 8)));
            const auto minTerm = [o, h](int p, int32_t pair) {
                const __m256i m = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 192 + 32 * p + 16 * h)));
                return _mm256_madd_epi16(m, _mm256_set1_epi32(pair));
            };
            const __m256i mn = _mm256_add_epi32(
                _mm256_add_epi32(minTerm(0, _mm_extract_epi32(pairs, 0)), minTerm(1, _mm_extract_epi32(pairs, 1))),
                _mm256_add_epi32(minTerm(2, _mm_extract_epi32(pairs, 2)), minTerm(3, _mm_extract_epi32(pairs, 3))));
            const __m256 da = _mm256_set1_ps(a[j][b].d);
            acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(tot[j]), _mm256_mul_ps(d, da), acc[j]);
            acc[j] = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(mn), _mm256_mul_ps(dmin, da), acc[j]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, acc[j], rows);
}

template <int NT, typename Dot>
void q6KHalf(const PackedMatrix &W, const uint8_t *g, int h8, const PackedActivation &act, int64_t t0, float *y,
             size_t ldy, int rows)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i bits45 = _mm256_set1_epi8(0x30);
    const BlockQ8_K *a[NT];
    __m256 acc[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        acc[j] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ6KSuper;
        __m256i tot[NT];
        for (int j = 0; j < NT; ++j)
            tot[j] = _mm256_setzero_si256();
        for (int h = 0; h < 2; ++h) {
            for (int quarter = 0; quarter < 2; ++quarter) {
                __m256i S[NT][4];
                for (int j = 0; j < NT; ++j)
                    for (int k = 0; k < 4; ++k)
                        S[j][k] = _mm256_setzero_si256();
                for (int r = 4 * quarter; r < 4 * quarter + 4; ++r) {
                    const uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + r) * 3 * kRun + 32 * h8;
                    prefetchAhead<NT>(run);
                    prefetchAhead<NT>(run + kRun);
                    prefetchAhead<NT>(run + 2 * kRun);
                    const __m256i la = load256(run), lb = load256(run + kRun), qh = load256(run + 2 * kRun);
                    const __m256i v[4] = {
                        _mm256_or_si256(_mm256_and_si256(la, low4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), bits45)),
                        _mm256_or_si256(_mm256_and_si256(lb, low4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), bits45)),
                        _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(la, 4), low4), _mm256_and_si256(qh, bits45)),
                        _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(lb, 4), low4),
                                        _mm256_and_si256(_mm256_srli_epi16(qh, 2), bits45)),
                    };
                    for (int j = 0; j < NT; ++j)
                        for (int k = 0; k < 4; ++k)
                            S[j][k] = Dot::dot4(S[j][k], v[k], bcast32(a[j][b].qs + 128 * h + 32 * k + 4 * r));
                }
                for (int k = 0; k < 4; ++k) {
                    const int s = 8 * h + quarter + 2 * k;
                    const __m256i sc = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(o + 16 * s + 8 * h8)));
                    for (int j = 0; j < NT; ++j) {
                        const __m256i centred = _mm256_sub_epi32(S[j][k], _mm256_set1_epi32(32 * a[j][b].bsums[s]));
                        tot[j] = _mm256_add_epi32(tot[j], _mm256_mullo_epi32(centred, sc));
                    }
                }
            }
        }
        const __m256 d = halves8(o + 256 + 16 * h8);
        for (int j = 0; j < NT; ++j)
            acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(tot[j]), _mm256_mul_ps(d, _mm256_set1_ps(a[j][b].d)), acc[j]);
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h8, acc[j], rows);
}

using HalfFn = void (*)(const PackedMatrix &, const uint8_t *, int, const PackedActivation &, int64_t, float *, size_t,
                        int);

// The packedMatmul loop over groups, halves and token tiles of 1 or 2 tokens
// (16 ymm registers hold the sums of 2). Q8_0 only with a Dot that is exact
// for 8-bit codes (VNNI).
template <typename Dot>
void packedMatmulHalves(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                        float *y, size_t ldy)
{
    HalfFn fns[2] = {nullptr, nullptr};
    switch (W.type) {
    case GgmlType::GGML_TYPE_Q8_0: fns[0] = q32Half<false, 1, Dot>; fns[1] = q32Half<false, 2, Dot>; break;
    case GgmlType::GGML_TYPE_Q4_0: fns[0] = q32Half<true, 1, Dot>; fns[1] = q32Half<true, 2, Dot>; break;
    case GgmlType::GGML_TYPE_Q4_K: fns[0] = q4KHalf<1, Dot>; fns[1] = q4KHalf<2, Dot>; break;
    case GgmlType::GGML_TYPE_Q6_K: fns[0] = q6KHalf<1, Dot>; fns[1] = q6KHalf<1, Dot>; break;   // one token: 4 sub-block sums each
    default: return;
    }
    const int64_t tile = W.type == GgmlType::GGML_TYPE_Q6_K ? 1 : 2;
    for (int64_t c0 = 0; c0 < nTokens; c0 += kTokenChunk) {
        const int64_t c1 = std::min(nTokens, c0 + kTokenChunk);
        for (int64_t g = g0; g < g1; ++g) {
            const int rows = static_cast<int>(std::min<int64_t>(kPackRows, W.N - g * kPackRows));
            float *yg = y + static_cast<size_t>(g) * kPackRows;
            for (int h = 0; h < 2 && 8 * h < rows; ++h)
                for (int64_t t = c0; t < c1; t += tile)
                    fns[std::min<int64_t>(tile, c1 - t) - 1](W, W.group(g), h, act, t, yg, ldy, rows - 8 * h);
        }
    }
}

} // namespace

} // namespace burrow::quant::x86
