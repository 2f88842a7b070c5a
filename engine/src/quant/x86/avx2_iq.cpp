// AVX2 + FMA + F16C dot products of the lattice i-quants with Q8_K rows
// (this file is compiled with -mavx2 -mfma -mf16c). Each 32-element
// sub-block is decoded once into its magnitudes (the grid points), their
// signs (+-1 bytes) and the scales of its two 16s, then multiplied with up
// to 4 activation rows: |w| times the signed activation (vpmaddubsw pairs),
// times the scale (vpmaddwd), so lane m of the 8 int32 lanes holds elements
// 4m..4m+3 of every sub-block, as the reference's x86 kernels; the float
// steps are those of the scalar twins (generic/iq_kernels.h), bit for bit.
//
// Everything here has internal linkage except fillAvx2Iq, so no AVX2 code
// can be picked by the linker for scalar callers.
#include "quant/x86/iq_simd.h"

#include "quant/iq_grids.h"
#include "quant/quant_blocks.h"
#include "quant/x86/avx2_iq_decode.h"
#include "quant/x86/in_order.h"
#include "quant/x86/stream_prefetch.h"

#include <immintrin.h>

#include <cstring>

namespace burrow::quant::x86 {

namespace {

// The dot products of one weight row with NY activation rows.
template <typename D, int NY>
void iqCols(int64_t n, float *out, const uint8_t *x, const uint8_t *y, size_t stride)
{
    constexpr bool kM = D::kType == T::GGML_TYPE_IQ1_M;
    __m256 acc[NY], accShift[NY];
    float accShift1[NY];
    for (int j = 0; j < NY; ++j) {
        acc[j] = accShift[j] = _mm256_setzero_ps();
        accShift1[j] = 0.0f;
    }
    const __m256i ones = _mm256_set1_epi8(1);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const uint8_t *b = x + static_cast<size_t>(i) * D::kBytes;
        prefetchStreamAhead(b);   // a super-block spans at most two lines
        prefetchStreamAhead(b + 64);
        const BlockQ8_K *a[NY];
        __m256i lane[NY], shiftLane[NY];
        for (int j = 0; j < NY; ++j) {
            a[j] = reinterpret_cast<const BlockQ8_K *>(y + j * stride) + i;
            lane[j] = shiftLane[j] = _mm256_setzero_si256();
        }
        const Pairs pairs = D::prepare(b);
#pragma GCC unroll 8
        for (int ib = 0; ib < 8; ++ib) {
            const Sub s = D::sub(b, ib, pairs);
            for (int j = 0; j < NY; ++j) {
                const __m256i q8 = loadu256(a[j]->qs + 32 * ib);
                const __m256i pairs = _mm256_maddubs_epi16(s.mag, _mm256_sign_epi8(q8, s.sgn));
                lane[j] = inOrder(_mm256_add_epi32(lane[j], _mm256_madd_epi16(pairs, s.scale)));
                if constexpr (kM) {
                    const __m256i sp = _mm256_maddubs_epi16(ones, _mm256_sign_epi8(q8, s.shift));
                    shiftLane[j] = inOrder(_mm256_add_epi32(shiftLane[j], _mm256_madd_epi16(sp, s.scale)));
                }
            }
        }
        const float dw = D::d(b);
        for (int j = 0; j < NY; ++j) {
            const float d = dw * a[j]->d;
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(lane[j]), acc[j]);
            if constexpr (kM)
                accShift[j] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(shiftLane[j]), accShift[j]);
            if constexpr (D::kType == T::GGML_TYPE_IQ1_S)
                accShift1[j] = _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(d), _mm_set_ss(static_cast<float>(D::shiftSum(b, a[j]->bsums))),
                                                          _mm_set_ss(accShift1[j])));
        }
    }
    for (int j = 0; j < NY; ++j) {
        if constexpr (D::kType == T::GGML_TYPE_IQ1_S)
            out[j] = hsum8(acc[j]) + 0.125f * accShift1[j];
        else if constexpr (kM)
            out[j] = hsum8(acc[j]) + 0.125f * hsum8(accShift[j]);
        else if constexpr (D::kType == T::GGML_TYPE_IQ3_S)
            out[j] = hsum8(acc[j]);
        else
            out[j] = (D::kType == T::GGML_TYPE_IQ3_XXS ? 0.25f : 0.125f) * hsum8(acc[j]);
    }
}

template <typename D>
struct Entry {
    static void dot(int64_t n, float *s, const void *x, const void *y)
    {
        iqCols<D, 1>(n, s, static_cast<const uint8_t *>(x), static_cast<const uint8_t *>(y), 0);
    }
    static void multi(int64_t n, float *out, const void *x, const void *y, size_t stride, int ny)
    {
        const auto *w = static_cast<const uint8_t *>(x);
        const auto *base = static_cast<const uint8_t *>(y);
        int j = 0;
        for (; j + 4 <= ny; j += 4)
            iqCols<D, 4>(n, out + j, w, base + j * stride, stride);
        switch (ny - j) {
        case 3: iqCols<D, 3>(n, out + j, w, base + j * stride, stride); break;
        case 2: iqCols<D, 2>(n, out + j, w, base + j * stride, stride); break;
        case 1: iqCols<D, 1>(n, out + j, w, base + j * stride, stride); break;
        default: break;
        }
    }
};

template <typename D>
void set(TypeTraits *rows)
{
    TypeTraits &r = rows[static_cast<size_t>(D::kType)];
    r.vecDot = r.vecDotGemm = Entry<D>::dot;
    r.vecDotMulti = r.vecDotMultiGemm = Entry<D>::multi;
}

} // namespace

void fillAvx2Iq(TypeTraits *rows)
{
    set<DecIQ2_XXS>(rows);
    set<DecIQ2_XS>(rows);
    set<DecIQ2_S>(rows);
    set<DecIQ3_XXS>(rows);
    set<DecIQ3_S>(rows);
    set<DecIQ1_S>(rows);
    set<DecIQ1_M>(rows);
}

} // namespace burrow::quant::x86
