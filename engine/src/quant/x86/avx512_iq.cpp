// AVX-512 (F/BW/VL + VNNI) dot products of the lattice i-quants with Q8_K
// rows (this file is compiled with the AVX-512 flags). A super-block is
// decoded once (avx512_iq_decode.h: magnitudes, 64-bit masks of negative
// elements and the scales of its 16 halves) and multiplied with up to 4
// activation rows: each row negated where the mask says (masked vpsubb),
// times the magnitudes (vpmaddubsw pairs), times the scale (vpdpwssd), so
// int32 lane l of part k holds 4 products of sub-block 2k + l / 8; the two
// halves are added (exact) into the reference's 8 lanes, and the float steps
// are those of the scalar twins (generic/iq_kernels.h), bit for bit.
//
// Everything here has internal linkage except fillAvx512Iq.
#include "quant/x86/iq_simd.h"

#include "quant/x86/avx512_iq_decode.h"

#include <immintrin.h>

#include <cstring>

namespace burrow::quant::x86 {

namespace {

using T = GgmlType;

// The reference's hsum_float_8 (see avx2_iq.cpp).
inline float hsum8(__m256 v)
{
    __m128 r = _mm_add_ps(_mm256_extractf128_ps(v, 1), _mm256_castps256_ps128(v));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

// The 8 reference lanes from 16 (lane l + lane l + 8, exact).
inline __m256i fold(__m512i v) { return _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1)); }

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
    const __m512i zero = _mm512_setzero_si512();
    const __m512i ones = _mm512_set1_epi8(1);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const uint8_t *b = x + static_cast<size_t>(i) * D::kBytes;
        iqPrefetchRow(b);
        const BlockQ8_K *a[NY];
        __m512i lane[NY], shiftLane[NY];
        for (int j = 0; j < NY; ++j) {
            a[j] = reinterpret_cast<const BlockQ8_K *>(y + j * stride) + i;
            lane[j] = shiftLane[j] = zero;
        }
        IqSuper s;
        D::decode(b, s);
        for (int k = 0; k < 4; ++k)
            for (int j = 0; j < NY; ++j) {
                const __m512i q8 = _mm512_loadu_si512(a[j]->qs + 64 * k);
                const __m512i pairs = _mm512_maddubs_epi16(s.mag[k], _mm512_mask_sub_epi8(q8, s.neg[k], zero, q8));
                lane[j] = _mm512_dpwssd_epi32(lane[j], pairs, s.scale[k]);
                if constexpr (kM) {
                    const __m512i sp = _mm512_maddubs_epi16(ones, _mm512_mask_sub_epi8(q8, s.shiftNeg[k], zero, q8));
                    shiftLane[j] = _mm512_dpwssd_epi32(shiftLane[j], sp, s.scale[k]);
                }
            }
        const float dw = s.d;
        for (int j = 0; j < NY; ++j) {
            const float d = dw * a[j]->d;
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(fold(lane[j])), acc[j]);
            if constexpr (kM)
                accShift[j] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(fold(shiftLane[j])), accShift[j]);
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

// IQ1_S one 32-element sub-block at a time in 256-bit registers (the same
// lanes: int32 lane m = 4 products of the sub-block), where the decoders
// gather (Intel: what the Xeon measurements of benchmarks.md ran). Without
// gathers iqCols<DecIQ1_S> runs it, its indices taken apart in general
// registers as here (Zen 4, one-token kernel: 16.7 -> 15.5 ns a super-block).
template <int NY>
void iq1sCols(int64_t n, float *out, const uint8_t *x, const uint8_t *y, size_t stride)
{
    const auto &g = kIq1sGrid;
    const __m256i zero = _mm256_setzero_si256();
    __m256 acc[NY];
    float accShift1[NY];
    for (int j = 0; j < NY; ++j) {
        acc[j] = _mm256_setzero_ps();
        accShift1[j] = 0.0f;
    }
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const uint8_t *b = x + static_cast<size_t>(i) * sizeof(BlockIQ1_S);
        iqPrefetchRow(b);
        const auto *bs = reinterpret_cast<const BlockIQ1_S *>(b);
        const BlockQ8_K *a[NY];
        __m256i lane[NY];
        for (int j = 0; j < NY; ++j) {
            a[j] = reinterpret_cast<const BlockQ8_K *>(y + j * stride) + i;
            lane[j] = zero;
        }
#pragma GCC unroll 8
        for (int ib = 0; ib < 8; ++ib) {
            const unsigned qh = bs->qh[ib];
            const __m256i w = _mm256_set_epi64x(static_cast<int64_t>(g[iq1sPointIndex(*bs, ib, 3)]),
                                                static_cast<int64_t>(g[iq1sPointIndex(*bs, ib, 2)]),
                                                static_cast<int64_t>(g[iq1sPointIndex(*bs, ib, 1)]),
                                                static_cast<int64_t>(g[iq1sPointIndex(*bs, ib, 0)]));
            const __m256i sc = _mm256_set1_epi16(static_cast<int16_t>(2 * ((qh >> 12) & 7) + 1));
            const __m256i mag = _mm256_abs_epi8(w);
            const __mmask32 neg = _mm256_movepi8_mask(w);
            for (int j = 0; j < NY; ++j) {
                const __m256i q8 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(a[j]->qs + 32 * ib));
                lane[j] = _mm256_dpwssd_epi32(lane[j], _mm256_maddubs_epi16(mag, _mm256_mask_sub_epi8(q8, neg, zero, q8)), sc);
            }
        }
        const float dw = _cvtsh_ss(bs->d);
        for (int j = 0; j < NY; ++j) {
            const float d = dw * a[j]->d;
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(lane[j]), acc[j]);
            accShift1[j] = _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(d), _mm_set_ss(static_cast<float>(DecIQ1_S::shiftSum(b, a[j]->bsums))),
                                                      _mm_set_ss(accShift1[j])));
        }
    }
    for (int j = 0; j < NY; ++j)
        out[j] = hsum8(acc[j]) + 0.125f * accShift1[j];
}

struct Iq1sEntry {
    static void dot(int64_t n, float *s, const void *x, const void *y)
    {
        iq1sCols<1>(n, s, static_cast<const uint8_t *>(x), static_cast<const uint8_t *>(y), 0);
    }
    static void multi(int64_t n, float *out, const void *x, const void *y, size_t stride, int ny)
    {
        const auto *w = static_cast<const uint8_t *>(x);
        const auto *base = static_cast<const uint8_t *>(y);
        int j = 0;
        for (; j + 4 <= ny; j += 4)
            iq1sCols<4>(n, out + j, w, base + j * stride, stride);
        switch (ny - j) {
        case 3: iq1sCols<3>(n, out + j, w, base + j * stride, stride); break;
        case 2: iq1sCols<2>(n, out + j, w, base + j * stride, stride); break;
        case 1: iq1sCols<1>(n, out + j, w, base + j * stride, stride); break;
        default: break;
        }
    }
};

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

void fillAvx512Iq(TypeTraits *rows)
{
    set<DecIQ2_XXS>(rows);
    set<DecIQ2_XS>(rows);
    set<DecIQ2_S>(rows);
    set<DecIQ3_XXS>(rows);
    set<DecIQ3_S>(rows);
    set<DecIQ1_M>(rows);
    if (!iqGather()) {
        set<DecIQ1_S>(rows);
        return;
    }
    TypeTraits &r = rows[static_cast<size_t>(T::GGML_TYPE_IQ1_S)];
    r.vecDot = r.vecDotGemm = Iq1sEntry::dot;
    r.vecDotMulti = r.vecDotMultiGemm = Iq1sEntry::multi;
}

} // namespace burrow::quant::x86
