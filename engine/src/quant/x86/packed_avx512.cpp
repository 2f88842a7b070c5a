// AVX-512 VNNI kernels for packed weight groups (layout: quant/packed.h).
// One register holds 16 rows x 4 weights; the activations' 4-byte runs are
// broadcast to every lane (vpdpbusd's embedded broadcast), so a dot product
// step serves 16 rows. Tiles of up to 4 (K-quants) or 8 tokens share each unpacked weight
// register (prompt processing); one token is the generation case.
//
// Every integer sum is exact, and the float steps are those of the scalar
// twin (packedMatmulScalar) lane for lane, so the results are bit-identical.
#include "quant/x86/x86_kernels.h"

#include "quant/packed.h"
#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace burrow::quant::x86 {

namespace {

constexpr size_t kRun = 64;            // one 4-byte run of 16 rows
constexpr size_t kQ4KSuper = 2368;
constexpr size_t kQ6KSuper = 3392;
constexpr int64_t kTokenChunk = 128;   // activation rows kept in L2 while the groups pass
// Generation (one token) streams every weight once: each run loaded also
// prefetches the line this far ahead (groups lie back to back, so the stream
// continues into the next group).
constexpr size_t kPrefetchAhead = 2048;

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
inline __m512 halves16(const uint8_t *p) { return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p))); }

inline void storeRows(float *dst, __m512 v, int rows)
{
    if (rows == kPackRows)
        _mm512_storeu_ps(dst, v);
    else
        _mm512_mask_storeu_ps(dst, static_cast<__mmask16>((1u << rows) - 1u), v);
}

// Q8_0 / Q4_0 weights against Q8_0 activations.
template <bool Four, int NT>
void q32Tile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
             int rows)
{
    constexpr size_t runs = Four ? 4 : 8;
    const int64_t nb = W.blocks;
    const uint8_t *scales = g + static_cast<size_t>(nb) * runs * kRun;
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const uint8_t *a[NT];
    const float *ad[NT];
    const int32_t *as[NT];
    __m512 acc[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;   // qs of block 0
        ad[j] = act.scale + (t0 + j) * nb;
        as[j] = act.sum + (t0 + j) * nb;
        acc[j] = _mm512_setzero_ps();
    }
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *q = g + static_cast<size_t>(b) * runs * kRun;
        const size_t ab = static_cast<size_t>(b) * sizeof(BlockQ8_0);
        __m512i sA[NT], sB[NT];
        for (int j = 0; j < NT; ++j)
            sA[j] = sB[j] = _mm512_setzero_si512();
        if constexpr (Four) {
            for (size_t c = 0; c < runs; ++c) {
                prefetchAhead<NT>(q + c * kRun);
                const __m512i w = load512(q + c * kRun);
                const __m512i lo = _mm512_and_si512(w, low4);
                const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(w, 4), low4);
                for (int j = 0; j < NT; ++j) {
                    sA[j] = _mm512_dpbusd_epi32(sA[j], lo, bcast32(a[j] + ab + 4 * c));
                    sB[j] = _mm512_dpbusd_epi32(sB[j], hi, bcast32(a[j] + ab + 16 + 4 * c));
                }
            }
        } else {
            for (size_t c = 0; c < runs; c += 2) {
                prefetchAhead<NT>(q + c * kRun);
                prefetchAhead<NT>(q + (c + 1) * kRun);
                const __m512i w0 = load512(q + c * kRun), w1 = load512(q + (c + 1) * kRun);
                for (int j = 0; j < NT; ++j) {
                    sA[j] = _mm512_dpbusd_epi32(sA[j], w0, bcast32(a[j] + ab + 4 * c));
                    sB[j] = _mm512_dpbusd_epi32(sB[j], w1, bcast32(a[j] + ab + 4 * c + 4));
                }
            }
        }
        const __m512 dw = halves16(scales + static_cast<size_t>(b) * 2 * kPackRows);
        for (int j = 0; j < NT; ++j) {
            const __m512i off = _mm512_set1_epi32((Four ? 8 : 128) * as[j][b]);
            const __m512i sumi = _mm512_sub_epi32(_mm512_add_epi32(sA[j], sB[j]), off);
            acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sumi), _mm512_mul_ps(dw, _mm512_set1_ps(ad[j][b])), acc[j]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, acc[j], rows);
}

template <int NT>
void q4KTile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
             int rows)
{
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const BlockQ8_K *a[NT];
    __m512 acc[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        acc[j] = _mm512_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ4KSuper;
        __m512i tot[NT];
        for (int j = 0; j < NT; ++j)
            tot[j] = _mm512_setzero_si512();
        for (int ch = 0; ch < 4; ++ch) {
            __m512i sLo[NT], sHi[NT];
            for (int j = 0; j < NT; ++j)
                sLo[j] = sHi[j] = _mm512_setzero_si512();
            for (int r = 0; r < 8; ++r) {
                prefetchAhead<NT>(o + 320 + static_cast<size_t>(ch * 8 + r) * kRun);
                const __m512i w = load512(o + 320 + static_cast<size_t>(ch * 8 + r) * kRun);
                const __m512i lo = _mm512_and_si512(w, low4);
                const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(w, 4), low4);
                for (int j = 0; j < NT; ++j) {
                    sLo[j] = _mm512_dpbusd_epi32(sLo[j], lo, bcast32(a[j][b].qs + 64 * ch + 4 * r));
                    sHi[j] = _mm512_dpbusd_epi32(sHi[j], hi, bcast32(a[j][b].qs + 64 * ch + 32 + 4 * r));
                }
            }
            const __m512i scLo = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 64 + 32 * ch)));
            const __m512i scHi = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 80 + 32 * ch)));
            for (int j = 0; j < NT; ++j)
                tot[j] = _mm512_add_epi32(tot[j], _mm512_add_epi32(_mm512_mullo_epi32(sLo[j], scLo),
                                                                   _mm512_mullo_epi32(sHi[j], scHi)));
        }
        const __m512 d = halves16(o), dmin = halves16(o + 32);
        for (int j = 0; j < NT; ++j) {
            // (bsums[2s] + bsums[2s+1]) for s = 0..7 as int16; int32 lane p = the pair (2p, 2p+1).
            const __m128i pairs = _mm_hadd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(a[j][b].bsums)),
                                                 _mm_loadu_si128(reinterpret_cast<const __m128i *>(a[j][b].bsums + 8)));
            const auto minTerm = [o](int p, int32_t pair) {
                const __m512i m = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(o + 192 + 32 * p)));
                return _mm512_madd_epi16(m, _mm512_set1_epi32(pair));
            };
            const __m512i mn = _mm512_add_epi32(
                _mm512_add_epi32(minTerm(0, _mm_extract_epi32(pairs, 0)), minTerm(1, _mm_extract_epi32(pairs, 1))),
                _mm512_add_epi32(minTerm(2, _mm_extract_epi32(pairs, 2)), minTerm(3, _mm_extract_epi32(pairs, 3))));
            const __m512 da = _mm512_set1_ps(a[j][b].d);
            acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(tot[j]), _mm512_mul_ps(d, da), acc[j]);
            acc[j] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(mn), _mm512_mul_ps(dmin, da), acc[j]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, acc[j], rows);
}

template <int NT>
void q6KTile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
             int rows)
{
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i bits45 = _mm512_set1_epi8(0x30);
    const BlockQ8_K *a[NT];
    __m512 acc[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        acc[j] = _mm512_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ6KSuper;
        __m512i tot[NT];
        for (int j = 0; j < NT; ++j)
            tot[j] = _mm512_setzero_si512();
        for (int h = 0; h < 2; ++h) {
            for (int quarter = 0; quarter < 2; ++quarter) {
                // Runs 4*quarter .. +3 touch sub-blocks 8h + quarter + 2k, k = 0..3.
                __m512i S[NT][4];
                for (int j = 0; j < NT; ++j)
                    for (int k = 0; k < 4; ++k)
                        S[j][k] = _mm512_setzero_si512();
                for (int r = 4 * quarter; r < 4 * quarter + 4; ++r) {
                    const uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + r) * 3 * kRun;
                    prefetchAhead<NT>(run);
                    prefetchAhead<NT>(run + kRun);
                    prefetchAhead<NT>(run + 2 * kRun);
                    const __m512i la = load512(run), lb = load512(run + kRun), qh = load512(run + 2 * kRun);
                    const __m512i v[4] = {
                        _mm512_or_si512(_mm512_and_si512(la, low4), _mm512_and_si512(_mm512_slli_epi16(qh, 4), bits45)),
                        _mm512_or_si512(_mm512_and_si512(lb, low4), _mm512_and_si512(_mm512_slli_epi16(qh, 2), bits45)),
                        _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(la, 4), low4), _mm512_and_si512(qh, bits45)),
                        _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(lb, 4), low4),
                                        _mm512_and_si512(_mm512_srli_epi16(qh, 2), bits45)),
                    };
                    for (int j = 0; j < NT; ++j)
                        for (int k = 0; k < 4; ++k)
                            S[j][k] = _mm512_dpbusd_epi32(S[j][k], v[k], bcast32(a[j][b].qs + 128 * h + 32 * k + 4 * r));
                }
                for (int k = 0; k < 4; ++k) {
                    const int s = 8 * h + quarter + 2 * k;
                    const __m512i sc = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 16 * s)));
                    for (int j = 0; j < NT; ++j) {
                        const __m512i centred = _mm512_sub_epi32(S[j][k], _mm512_set1_epi32(32 * a[j][b].bsums[s]));
                        tot[j] = _mm512_add_epi32(tot[j], _mm512_mullo_epi32(centred, sc));
                    }
                }
            }
        }
        const __m512 d = halves16(o + 256);
        for (int j = 0; j < NT; ++j)
            acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(tot[j]), _mm512_mul_ps(d, _mm512_set1_ps(a[j][b].d)), acc[j]);
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, acc[j], rows);
}

using TileFn = void (*)(const PackedMatrix &, const uint8_t *, const PackedActivation &, int64_t, float *, size_t, int);

// Tile kernels by token count 1..8; the K-quants stop at 4 (their per-token
// sub-block sums need more registers), the 32-element types go to 8 (fewer
// passes over the weights from L2 per token).
template <template <int> class K, int Max>
struct Tiles {
    static constexpr TileFn fns[8] = {K<1>::run, K<2>::run, K<3>::run, K<4>::run,
                                      K<Max >= 5 ? 5 : 4>::run, K<Max >= 6 ? 6 : 4>::run,
                                      K<Max >= 7 ? 7 : 4>::run, K<Max >= 8 ? 8 : 4>::run};
    static constexpr int64_t max = Max;
};
template <int NT> struct Q8_0T { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q32Tile<false, NT>(W, g, a, t, y, l, r); } };
template <int NT> struct Q4_0T { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q32Tile<true, NT>(W, g, a, t, y, l, r); } };
template <int NT> struct Q4_KT { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q4KTile<NT>(W, g, a, t, y, l, r); } };
template <int NT> struct Q6_KT { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q6KTile<NT>(W, g, a, t, y, l, r); } };

} // namespace

void packedMatmulAvx512(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                        float *y, size_t ldy)
{
    const TileFn *fns = nullptr;
    int64_t maxTile = 4;
    switch (W.type) {
    case GgmlType::GGML_TYPE_Q8_0: fns = Tiles<Q8_0T, 8>::fns; maxTile = 8; break;
    case GgmlType::GGML_TYPE_Q4_0: fns = Tiles<Q4_0T, 8>::fns; maxTile = 8; break;
    case GgmlType::GGML_TYPE_Q4_K: fns = Tiles<Q4_KT, 4>::fns; break;
    case GgmlType::GGML_TYPE_Q6_K: fns = Tiles<Q6_KT, 4>::fns; break;
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
