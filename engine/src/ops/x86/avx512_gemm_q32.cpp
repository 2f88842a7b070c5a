// The prompt-processing Q8_0/Q4_0 matrix multiply on AVX-512 F/BW/VL + VNNI
// (gemm_q32.h's contract; this file is compiled with those flags).
// Everything here has internal linkage except the fill function, and no
// std:: inline function is used, so no AVX-512 code can be picked by the
// linker for callers on other paths.
#include "ops/x86/x86_kernels.h"

#include "ops/gemm_q32.h"

#include <immintrin.h>

namespace burrow::ops::x86 {

namespace {

inline int64_t minI64(int64_t a, int64_t b) { return b < a ? b : a; }

constexpr size_t kQ8Block = 34;   // f16 d, int8 qs[32]
constexpr size_t kQ4Block = 18;   // f16 d, uint8 qs[16] (low nibbles: elements 0-15, high: 16-31)
constexpr int64_t kRowsPerPass = 16;

inline float halfAt(const uint8_t *p)
{
    uint16_t h;
    __builtin_memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}

// Scales of blocks b and b+1 in lanes 0-7 and 8-15.
inline __m512 scalePair(float a, float b)
{
    return _mm512_castpd_ps(
        _mm512_insertf64x4(_mm512_castps_pd(_mm512_set1_ps(a)), _mm256_castps_pd(_mm256_set1_ps(b)), 1));
}

// The 64 weights of blocks b, b+1 of a row as unsigned bytes (Q8_0: + 128;
// Q4_0: the nibble, value + 8), elements in order.
template <bool Four>
inline __m512i weightPair(const uint8_t *blk)
{
    if constexpr (Four) {
        const __m256i x = _mm256_set_m128i(_mm_loadu_si128(reinterpret_cast<const __m128i *>(blk + kQ4Block + 2)),
                                           _mm_loadu_si128(reinterpret_cast<const __m128i *>(blk + 2)));
        const __m256i low4 = _mm256_set1_epi8(0x0f);
        const __m256i lo = _mm256_and_si256(x, low4);                           // [lo_b, lo_b1]
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low4);     // [hi_b, hi_b1]
        const __m512i z = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
        return _mm512_shuffle_i64x2(z, z, 0xD8);                                 // [lo_b, hi_b, lo_b1, hi_b1]
    } else {
        const __m512i z = _mm512_inserti64x4(
            _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(blk + 2))),
            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(blk + kQ8Block + 2)), 1);
        return _mm512_xor_si512(z, _mm512_set1_epi8(static_cast<char>(0x80)));
    }
}

// The last block alone (upper 32 bytes zero).
template <bool Four>
inline __m512i weightSingle(const uint8_t *blk)
{
    if constexpr (Four) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(blk + 2));
        const __m128i low4 = _mm_set1_epi8(0x0f);
        const __m256i v = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(x, 4), low4), _mm_and_si128(x, low4));
        return _mm512_zextsi256_si512(v);
    } else {
        const __m256i v = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(blk + 2)),
                                           _mm256_set1_epi8(static_cast<char>(0x80)));
        return _mm512_zextsi256_si512(v);
    }
}

// ws: the weight rows' block scales (nb floats per row), as: the tokens'.
template <bool Four, int R, int T>
void tile(int64_t nb, const uint8_t *w, size_t wRowBytes, const float *ws, const uint8_t *a,
                             size_t aStride, const float *as, float *y, int64_t ldy)
{
    constexpr size_t wbs = Four ? kQ4Block : kQ8Block;
    const __m512i offset = _mm512_set1_epi8(Four ? 8 : static_cast<char>(0x80));
    __m512 acc[R][T];
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < T; ++t)
            acc[r][t] = _mm512_setzero_ps();
    int64_t b = 0;
    for (; b + 2 <= nb; b += 2) {
        __m512i wq[R];
        __m512 dw[R];
        for (int r = 0; r < R; ++r) {
            const uint8_t *blk = w + r * wRowBytes + b * wbs;
            wq[r] = weightPair<Four>(blk);
            dw[r] = scalePair(ws[r * nb + b], ws[r * nb + b + 1]);
        }
        for (int t = 0; t < T; ++t) {
            const uint8_t *q = a + t * aStride + b * kQ8Block;
            const __m512i za = _mm512_inserti64x4(
                _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(q + 2))),
                _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q + kQ8Block + 2)), 1);
            const __m512i corr = _mm512_dpbusd_epi32(_mm512_setzero_si512(), offset, za);
            const __m512 da = scalePair(as[t * nb + b], as[t * nb + b + 1]);
            for (int r = 0; r < R; ++r) {
                const __m512i dot = _mm512_sub_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), wq[r], za), corr);
                acc[r][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(dw[r], da), acc[r][t]);
            }
        }
    }
    if (b < nb) {
        __m512i wq[R];
        float dw[R];
        for (int r = 0; r < R; ++r) {
            const uint8_t *blk = w + r * wRowBytes + b * wbs;
            wq[r] = weightSingle<Four>(blk);
            dw[r] = ws[r * nb + b];
        }
        for (int t = 0; t < T; ++t) {
            const uint8_t *q = a + t * aStride + b * kQ8Block;
            const __m512i za =
                _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(q + 2)));
            const __m512i corr = _mm512_dpbusd_epi32(_mm512_setzero_si512(), offset, za);
            const float da = as[t * nb + b];
            for (int r = 0; r < R; ++r) {
                const __m512i dot = _mm512_sub_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), wq[r], za), corr);
                acc[r][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_set1_ps(dw[r] * da), acc[r][t]);
            }
        }
    }
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < T; ++t)
            y[t * ldy + r] = _mm512_reduce_add_ps(acc[r][t]);
}

template <bool Four, int T>
void rowsOf(int rows, int64_t nb, const uint8_t *w, size_t wRowBytes, const float *ws, const uint8_t *a,
            size_t aStride, const float *as, float *y, int64_t ldy)
{
    switch (rows) {
    case 4: tile<Four, 4, T>(nb, w, wRowBytes, ws, a, aStride, as, y, ldy); break;
    case 3: tile<Four, 3, T>(nb, w, wRowBytes, ws, a, aStride, as, y, ldy); break;
    case 2: tile<Four, 2, T>(nb, w, wRowBytes, ws, a, aStride, as, y, ldy); break;
    default: tile<Four, 1, T>(nb, w, wRowBytes, ws, a, aStride, as, y, ldy); break;
    }
}

// The block scales of `rows` rows of blocks `blockBytes` apart (the half at
// the start of each block), as floats: out[r * nb + b].
// 16 blocks at a time with a gather (4 bytes at each block start: the half
// and the first 2 bytes of its values, inside the block).
void blockScales(const uint8_t *p, size_t rowBytes, size_t blockBytes, int rows, int64_t nb, float *out)
{
    const __m512i index = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                             _mm512_set1_epi32(static_cast<int>(blockBytes)));
    for (int r = 0; r < rows; ++r) {
        const uint8_t *row = p + r * rowBytes;
        int64_t b = 0;
        for (; b + 16 <= nb; b += 16) {
            const __m512i words = _mm512_i32gather_epi32(index, row + static_cast<size_t>(b) * blockBytes, 1);
            _mm512_storeu_ps(out + r * nb + b, _mm512_cvtph_ps(_mm512_cvtepi32_epi16(words)));
        }
        for (; b < nb; ++b)
            out[r * nb + b] = halfAt(row + static_cast<size_t>(b) * blockBytes);
    }
}

template <bool Four>
void run(int64_t K, const uint8_t *w, size_t wRowBytes, int64_t r0, int64_t r1, const uint8_t *act,
         size_t actStride, int64_t nTokens, float *y, int64_t ldy)
{
    const int64_t nb = K / 32;
    const size_t wbs = Four ? kQ4Block : kQ8Block;
    float ws[kRowsPerPass * kGemmQ32MaxBlocks];
    float as[4 * kGemmQ32MaxBlocks];
    for (int64_t rc = r0; rc < r1; rc += kRowsPerPass) {
        const int64_t rEnd = minI64(r1, rc + kRowsPerPass);
        blockScales(w + static_cast<size_t>(rc) * wRowBytes, wRowBytes, wbs, static_cast<int>(rEnd - rc), nb, ws);
        for (int64_t t0 = 0; t0 < nTokens; t0 += 4) {
            const int nt = static_cast<int>(minI64(4, nTokens - t0));
            const uint8_t *a = act + static_cast<size_t>(t0) * actStride;
            blockScales(a, actStride, kQ8Block, nt, nb, as);
            for (int64_t r = rc; r < rEnd; r += 4) {
                const int nr = static_cast<int>(minI64(4, rEnd - r));
                const uint8_t *wr = w + static_cast<size_t>(r) * wRowBytes;
                const float *wsr = ws + (r - rc) * nb;
                float *yr = y + t0 * ldy + r;
                switch (nt) {
                case 4: rowsOf<Four, 4>(nr, nb, wr, wRowBytes, wsr, a, actStride, as, yr, ldy); break;
                case 3: rowsOf<Four, 3>(nr, nb, wr, wRowBytes, wsr, a, actStride, as, yr, ldy); break;
                case 2: rowsOf<Four, 2>(nr, nb, wr, wRowBytes, wsr, a, actStride, as, yr, ldy); break;
                default: rowsOf<Four, 1>(nr, nb, wr, wRowBytes, wsr, a, actStride, as, yr, ldy); break;
                }
            }
        }
    }
}

} // namespace

void fillAvx512Gemm(Kernels &k)
{
    k.gemmQ32 = [](GgmlType type, int64_t K, const uint8_t *w, size_t wRowBytes, int64_t r0, int64_t r1,
                   const uint8_t *act, size_t actStride, int64_t nTokens, float *y, int64_t ldy) {
        if (type == GgmlType::GGML_TYPE_Q4_0)
            run<true>(K, w, wRowBytes, r0, r1, act, actStride, nTokens, y, ldy);
        else
            run<false>(K, w, wRowBytes, r0, r1, act, actStride, nTokens, y, ldy);
    };
}

} // namespace burrow::ops::x86
