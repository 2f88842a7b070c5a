// AVX-512 F/BW/VL + VNNI kernels of Q1_0, Q2_0, TQ1_0, TQ2_0 and NVFP4
// (compiled with those flags; see x86_lowbit.h): two Q8_0 blocks per
// 512-bit register where the partner is Q8_0, vpdpbusd for the u8 x s8
// sums. Integer sums are exact and the float steps are the scalar twins'
// (generic/lowbit.cpp), in 256-bit halves where the twin keeps 8 lanes, so
// results are bit-identical. Internal linkage but for the fill function.
#include "quant/x86/x86_lowbit.h"

#include "quant/x86/lowbit_decode.h"
#include "quant/x86/simd_columns.h"

#include <immintrin.h>

#include <cstring>

namespace burrow::quant::x86 {

namespace {

inline float halfToFloat(fp16_t h) { return _cvtsh_ss(h); }
inline __m512i join256(__m256i lo, __m256i hi) { return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); }
inline __m256i high256(__m512i v) { return _mm512_extracti64x4_epi64(v, 1); }

inline float hsum(__m256 v)
{
    __m128 r = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

inline int hsumI32(__m256i v)
{
    __m128i r = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    r = _mm_add_epi32(r, _mm_unpackhi_epi64(r, r));
    r = _mm_add_epi32(r, _mm_shuffle_epi32(r, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(r);
}

// The activations of two consecutive Q8_0 blocks as one register.
inline __m512i pairQs(const BlockQ8_0 *a) { return join256(loadu256(a[0].qs), loadu256(a[1].qs)); }

// Q1_0: the bits of two Q8_0 blocks (64 elements) are one mask; activations
// negated where the bit is clear, summed in lanes of 4 (vpdpbusd with ones).
template <int NY>
struct Q1_0K {
    static void run(int64_t n, float *out, const BlockQ1_0 *x, const Columns<BlockQ8_0> &c)
    {
        const __m512i ones = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
        __m256 acc[NY];
        for (int j = 0; j < NY; ++j)
            acc[j] = _mm256_setzero_ps();
        for (int64_t ib = 0; ib < n / QK1_0; ++ib) {
            __m256 b[NY];
            for (int k = 0; k < 4; k += 2) {
                uint64_t bits;
                std::memcpy(&bits, x[ib].qs + 4 * k, 8);
                const __mmask64 neg = _cvtu64_mask64(~bits);
                for (int j = 0; j < NY; ++j) {
                    const BlockQ8_0 *a = &c.y[j][4 * ib + k];
                    const __m512i y = pairQs(a);
                    const __m512i s = _mm512_dpbusd_epi32(zero, ones, _mm512_mask_sub_epi8(y, neg, zero, y));
                    const __m256 l0 = _mm256_cvtepi32_ps(_mm512_castsi512_si256(s));
                    const __m256 l1 = _mm256_cvtepi32_ps(high256(s));
                    const __m256 d0 = _mm256_set1_ps(halfToFloat(a[0].d)), d1 = _mm256_set1_ps(halfToFloat(a[1].d));
                    b[j] = k == 0 ? _mm256_mul_ps(d0, l0) : _mm256_fmadd_ps(d0, l0, b[j]);
                    b[j] = _mm256_fmadd_ps(d1, l1, b[j]);
                }
            }
            const __m256 dw = _mm256_set1_ps(halfToFloat(x[ib].d));
            for (int j = 0; j < NY; ++j)
                acc[j] = _mm256_fmadd_ps(dw, b[j], acc[j]);
        }
        for (int j = 0; j < NY; ++j)
            out[j] = hsum(acc[j]);
    }
};

// Q2_0: codes 0..3 of both Q8_0 blocks in one register; isum = codes . a -
// sum(a) per block (two vpdpbusd), then the twin's scalar fma chain.
template <int NY>
struct Q2_0K {
    static void run(int64_t n, float *out, const BlockQ2_0 *x, const Columns<BlockQ8_0> &c)
    {
        const __m512i ones = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
        float sum[NY];
        for (int j = 0; j < NY; ++j)
            sum[j] = 0.0f;
        for (int64_t ib = 0; ib < n / QK2_0; ++ib) {
            __m256i lo, hi;
            q2Codes(x[ib].qs, &lo, &hi);
            const __m512i codes = join256(lo, hi);
            const float dw = halfToFloat(x[ib].d);
            for (int j = 0; j < NY; ++j) {
                const BlockQ8_0 *a = &c.y[j][2 * ib];
                const __m512i y = pairQs(a);
                const __m512i s = _mm512_sub_epi32(_mm512_dpbusd_epi32(zero, codes, y), _mm512_dpbusd_epi32(zero, ones, y));
                float sumi = __builtin_fmaf(halfToFloat(a[0].d), static_cast<float>(hsumI32(_mm512_castsi512_si256(s))), 0.0f);
                sumi = __builtin_fmaf(halfToFloat(a[1].d), static_cast<float>(hsumI32(high256(s))), sumi);
                sum[j] = __builtin_fmaf(dw, sumi, sum[j]);
            }
        }
        for (int j = 0; j < NY; ++j)
            out[j] = sum[j];
    }
};

// TQ1_0 / TQ2_0: the twin's 8 lanes as one 256-bit vpdpbusd chain over the
// 8 segments, started at -(bsums 2m + bsums 2m+1); acc = fma(float(lane),
// d_a d_w, acc); hsum8.
template <typename Block, int NY>
void ternaryCols(int64_t n, float *out, const Block *x, const Columns<BlockQ8_K> &c)
{
    __m256 acc[NY];
    for (int j = 0; j < NY; ++j)
        acc[j] = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        __m256i seg[8];
        ternarySegments(x[i], seg);
        const float dw = halfToFloat(x[i].d);
        for (int j = 0; j < NY; ++j) {
            const BlockQ8_K &a = c.y[j][i];
            __m256i lane = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_madd_epi16(loadu256(a.bsums), _mm256_set1_epi16(1)));
            for (int k = 0; k < 8; ++k)
                lane = _mm256_dpbusd_epi32(lane, seg[k], loadu256(a.qs + 32 * k));
            acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(lane), _mm256_set1_ps(a.d * dw), acc[j]);
        }
    }
    for (int j = 0; j < NY; ++j)
        out[j] = hsum(acc[j]);
}

template <int NY>
struct TQ1_0K {
    static void run(int64_t n, float *out, const BlockTQ1_0 *x, const Columns<BlockQ8_K> &c) { ternaryCols<BlockTQ1_0, NY>(n, out, x, c); }
};
template <int NY>
struct TQ2_0K {
    static void run(int64_t n, float *out, const BlockTQ2_0 *x, const Columns<BlockQ8_K> &c) { ternaryCols<BlockTQ2_0, NY>(n, out, x, c); }
};

// NVFP4: the block's 64 values in one register, signs moved onto the
// activations, vpdpbusd in lanes of 4 (low half: the first Q8_0 block);
// acc = fma(scales, lanes, acc) per half as the twin.
template <int NY>
struct NVFP4K {
    static void run(int64_t n, float *out, const BlockNVFP4 *x, const Columns<BlockQ8_0> &c)
    {
        const __m512i zero = _mm512_setzero_si512();
        __m256 acc[NY];
        for (int j = 0; j < NY; ++j)
            acc[j] = _mm256_setzero_ps();
        for (int64_t ib = 0; ib < n / QK_NVFP4; ++ib) {
            __m256i v01, v23;
            nvfp4Values(x[ib], &v01, &v23);
            const __m512i v = join256(v01, v23);
            const __mmask64 neg = _mm512_movepi8_mask(v);
            const __m512i mag = _mm512_abs_epi8(v);
            float dx[4];
            for (int k = 0; k < 4; ++k)
                dx[k] = ue4m3ToFp32Half(x[ib].d[k]);
            for (int j = 0; j < NY; ++j) {
                const BlockQ8_0 *a = &c.y[j][2 * ib];
                const __m512i y = pairQs(a);
                const __m512i s = _mm512_dpbusd_epi32(zero, mag, _mm512_mask_sub_epi8(y, neg, zero, y));
                const float da0 = halfToFloat(a[0].d), da1 = halfToFloat(a[1].d);
                const __m256 sc01 = _mm256_set_m128(_mm_set1_ps(dx[1] * da0), _mm_set1_ps(dx[0] * da0));
                const __m256 sc23 = _mm256_set_m128(_mm_set1_ps(dx[3] * da1), _mm_set1_ps(dx[2] * da1));
                acc[j] = _mm256_fmadd_ps(sc01, _mm256_cvtepi32_ps(_mm512_castsi512_si256(s)), acc[j]);
                acc[j] = _mm256_fmadd_ps(sc23, _mm256_cvtepi32_ps(high256(s)), acc[j]);
            }
        }
        for (int j = 0; j < NY; ++j)
            out[j] = hsum(acc[j]);
    }
};

} // namespace

void fillAvx512Lowbit(TypeTraits *rows)
{
    auto set = [rows](GgmlType t, VecDotFn dot, VecDotMultiFn multi) {
        TypeTraits &r = rows[static_cast<size_t>(t)];
        r.vecDot = r.vecDotGemm = dot;
        r.vecDotMulti = r.vecDotMultiGemm = multi;
    };
    using Q1_0E = Entry<BlockQ1_0, BlockQ8_0, Q1_0K>;
    using Q2_0E = Entry<BlockQ2_0, BlockQ8_0, Q2_0K>;
    using TQ1_0E = Entry<BlockTQ1_0, BlockQ8_K, TQ1_0K>;
    using TQ2_0E = Entry<BlockTQ2_0, BlockQ8_K, TQ2_0K>;
    using NVFP4E = Entry<BlockNVFP4, BlockQ8_0, NVFP4K>;
    set(GgmlType::GGML_TYPE_Q1_0, Q1_0E::dot, Q1_0E::multi);
    set(GgmlType::GGML_TYPE_Q2_0, Q2_0E::dot, Q2_0E::multi);
    set(GgmlType::GGML_TYPE_TQ1_0, TQ1_0E::dot, TQ1_0E::multi);
    set(GgmlType::GGML_TYPE_TQ2_0, TQ2_0E::dot, TQ2_0E::multi);
    set(GgmlType::GGML_TYPE_NVFP4, NVFP4E::dot, NVFP4E::multi);
}

} // namespace burrow::quant::x86
