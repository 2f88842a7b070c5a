// AVX2 + FMA + F16C kernels of Q1_0, Q2_0, TQ1_0, TQ2_0 and NVFP4 (compiled
// with -mavx2 -mfma -mf16c; see x86_lowbit.h). Integer sums are exact and
// the float steps are the scalar twins' (generic/lowbit.cpp: the
// reference's x86 kernels), lane for lane, so results are bit-identical.
// Internal linkage for everything but the fill function.
#include "quant/x86/x86_lowbit.h"

#include "quant/x86/lowbit_decode.h"
#include "quant/x86/simd_columns.h"

#include <immintrin.h>

namespace burrow::quant::x86 {

namespace {

inline float halfToFloat(fp16_t h) { return _cvtsh_ss(h); }

// hsum8 ((a4 + a0) + (a6 + a2)) + ((a5 + a1) + (a7 + a3)).
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

// 8 int32 sums of 4 products x*y each; x any int8, y in [-127, 127].
inline __m256i dotI8(__m256i x, __m256i y)
{
    const __m256i pairs = _mm256_maddubs_epi16(_mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x));
    return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
}

// --- Q1_0 ------------------------------------------------------------------

// Lanes of 4: the activations negated where the weight is -d, summed.
inline __m256i signedSum(__m256i y, __m256i negate)
{
    const __m256i sy = _mm256_sub_epi8(_mm256_xor_si256(y, negate), negate);
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), sy), _mm256_set1_epi16(1));
}

template <int NY>
struct Q1_0K {
    static void run(int64_t n, float *out, const BlockQ1_0 *x, const Columns<BlockQ8_0> &c)
    {
        __m256 acc[NY];
        for (int j = 0; j < NY; ++j)
            acc[j] = _mm256_setzero_ps();
        for (int64_t ib = 0; ib < n / QK1_0; ++ib) {
            __m256 b[NY];
            for (int k = 0; k < 4; ++k) {
                const __m256i neg = clearBits32(x[ib].qs + 4 * k);
                for (int j = 0; j < NY; ++j) {
                    const BlockQ8_0 &a = c.y[j][4 * ib + k];
                    const __m256 lane = _mm256_cvtepi32_ps(signedSum(loadu256(a.qs), neg));
                    const __m256 da = _mm256_set1_ps(halfToFloat(a.d));
                    b[j] = k == 0 ? _mm256_mul_ps(da, lane) : _mm256_fmadd_ps(da, lane, b[j]);
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

// --- Q2_0 ------------------------------------------------------------------

template <int NY>
struct Q2_0K {
    static void run(int64_t n, float *out, const BlockQ2_0 *x, const Columns<BlockQ8_0> &c)
    {
        float sum[NY];
        for (int j = 0; j < NY; ++j)
            sum[j] = 0.0f;
        for (int64_t ib = 0; ib < n / QK2_0; ++ib) {
            __m256i v[2];
            q2Codes(x[ib].qs, &v[0], &v[1]);
            v[0] = _mm256_sub_epi8(v[0], _mm256_set1_epi8(1));   // values -1..2
            v[1] = _mm256_sub_epi8(v[1], _mm256_set1_epi8(1));
            const float dw = halfToFloat(x[ib].d);
            for (int j = 0; j < NY; ++j) {
                float sumi = 0.0f;
                for (int k = 0; k < 2; ++k) {
                    const BlockQ8_0 &a = c.y[j][2 * ib + k];
                    const int isum = hsumI32(dotI8(v[k], loadu256(a.qs)));
                    sumi = __builtin_fmaf(halfToFloat(a.d), static_cast<float>(isum), sumi);
                }
                sum[j] = __builtin_fmaf(dw, sumi, sum[j]);
            }
        }
        for (int j = 0; j < NY; ++j)
            out[j] = sum[j];
    }
};

// --- TQ1_0, TQ2_0 ----------------------------------------------------------

// Per block: 16-bit sums of code * activation by byte position (codes 0..3:
// at most 8 * 762 in magnitude), the bsums taken off, pairs added into the
// twin's 8 lanes; acc = fma(float(lane), d_a d_w, acc); hsum8.
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
            __m256i s = _mm256_setzero_si256();
            for (int k = 0; k < 8; ++k)
                s = _mm256_add_epi16(s, _mm256_maddubs_epi16(seg[k], loadu256(a.qs + 32 * k)));
            s = _mm256_sub_epi16(s, loadu256(a.bsums));
            const __m256i lane = _mm256_madd_epi16(s, _mm256_set1_epi16(1));
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

// --- NVFP4 -----------------------------------------------------------------

template <int NY>
struct NVFP4K {
    static void run(int64_t n, float *out, const BlockNVFP4 *x, const Columns<BlockQ8_0> &c)
    {
        __m256 acc[NY];
        for (int j = 0; j < NY; ++j)
            acc[j] = _mm256_setzero_ps();
        for (int64_t ib = 0; ib < n / QK_NVFP4; ++ib) {
            __m256i v[2];
            nvfp4Values(x[ib], &v[0], &v[1]);
            float dx[4];
            for (int k = 0; k < 4; ++k)
                dx[k] = ue4m3ToFp32Half(x[ib].d[k]);
            for (int j = 0; j < NY; ++j) {
                for (int h = 0; h < 2; ++h) {
                    const BlockQ8_0 &a = c.y[j][2 * ib + h];
                    const float da = halfToFloat(a.d);
                    const __m256 sc = _mm256_set_m128(_mm_set1_ps(dx[2 * h + 1] * da), _mm_set1_ps(dx[2 * h] * da));
                    acc[j] = _mm256_fmadd_ps(sc, _mm256_cvtepi32_ps(dotI8(v[h], loadu256(a.qs))), acc[j]);
                }
            }
        }
        for (int j = 0; j < NY; ++j)
            out[j] = hsum(acc[j]);
    }
};

} // namespace

void fillAvx2Lowbit(TypeTraits *rows)
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
