#include "ops/ops.h"

#include "ops/f16.h"
#include "ops/vec_exp.h"
#include "quant/cpu_features.h"

#include <cmath>
#include <limits>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
// GCC 12 warns inside its own AVX-512 headers about deliberately undefined lanes.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace burrow::ops {

namespace {

void rmsNormScalar(const float *x, const float *w, float *y, int64_t n, float eps)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i)
        sum += static_cast<double>(x[i] * x[i]);   // float product, double sum (as the reference)
    const float mean = static_cast<float>(sum / static_cast<double>(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    for (int64_t i = 0; i < n; ++i)
        y[i] = (x[i] * scale) * w[i];
}

#if defined(__x86_64__) || defined(_M_X64)
// The same sums in 8 double lanes (float products widened exactly), then the
// same float steps 16 lanes at a time.
__attribute__((target("avx512f,avx2,fma"))) void rmsNormAvx512(const float *x, const float *w, float *y, int64_t n,
                                                                 float eps)
{
    __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        const __m512 sq = _mm512_mul_ps(v, v);
        acc0 = _mm512_add_pd(acc0, _mm512_cvtps_pd(_mm512_castps512_ps256(sq)));
        acc1 = _mm512_add_pd(acc1, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(sq), 1))));
    }
    double sum = _mm512_reduce_add_pd(_mm512_add_pd(acc0, acc1));
    for (int64_t k = i; k < n; ++k)
        sum += static_cast<double>(x[k] * x[k]);
    const float mean = static_cast<float>(sum / static_cast<double>(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    const __m512 s = _mm512_set1_ps(scale);
    for (i = 0; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(x + i), s), _mm512_loadu_ps(w + i)));
    for (; i < n; ++i)
        y[i] = (x[i] * scale) * w[i];
}

// The same with 4 double lanes and 8 float lanes.
__attribute__((target("avx2,fma"))) void rmsNormAvx2(const float *x, const float *w, float *y, int64_t n, float eps)
{
    __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256 sq = _mm256_mul_ps(v, v);
        acc0 = _mm256_add_pd(acc0, _mm256_cvtps_pd(_mm256_castps256_ps128(sq)));
        acc1 = _mm256_add_pd(acc1, _mm256_cvtps_pd(_mm256_extractf128_ps(sq, 1)));
    }
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, _mm256_add_pd(acc0, acc1));
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (int64_t k = i; k < n; ++k)
        sum += static_cast<double>(x[k] * x[k]);
    const float mean = static_cast<float>(sum / static_cast<double>(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    const __m256 s = _mm256_set1_ps(scale);
    for (i = 0; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), s), _mm256_loadu_ps(w + i)));
    for (; i < n; ++i)
        y[i] = (x[i] * scale) * w[i];
}
#endif

} // namespace

void rmsNorm(const float *x, const float *w, float *y, int64_t n, float eps)
{
#if defined(__x86_64__) || defined(_M_X64)
    switch (quant::activeCpuPath()) {
    case quant::CpuPath::CPU_PATH_AVX512: rmsNormAvx512(x, w, y, n, eps); return;
    case quant::CpuPath::CPU_PATH_AVX2: rmsNormAvx2(x, w, y, n, eps); return;
    default: break;
    }
#endif
    rmsNormScalar(x, w, y, n, eps);
}

void ropeCache(float pos, int nRot, float freqBase, float freqScale, const float *factors, float *cs)
{
    const float thetaScale = std::pow(freqBase, -2.0f / static_cast<float>(nRot));
    float theta = pos;
    for (int i0 = 0; i0 < nRot; i0 += 2) {
        const float ff = factors ? factors[i0 / 2] : 1.0f;
        const float t = freqScale * (theta / ff);
        cs[i0] = std::cos(t);
        cs[i0 + 1] = std::sin(t);
        theta *= thetaScale;
    }
}

void ropeApply(float *x, int nHeads, int headDim, int nRot, model::RopeType type, const float *cs)
{
    for (int h = 0; h < nHeads; ++h) {
        float *v = x + static_cast<int64_t>(h) * headDim;
        if (type == model::RopeType::ROPE_TYPE_NORM) {
            for (int i0 = 0; i0 < nRot; i0 += 2) {
                const float c = cs[i0], s = cs[i0 + 1];
                const float x0 = v[i0], x1 = v[i0 + 1];
                v[i0] = x0 * c - x1 * s;
                v[i0 + 1] = x0 * s + x1 * c;
            }
        } else {
            const int half = nRot / 2;
            for (int i0 = 0; i0 < nRot; i0 += 2) {
                const float c = cs[i0], s = cs[i0 + 1];
                const int ic = i0 / 2;
                const float x0 = v[ic], x1 = v[ic + half];
                v[ic] = x0 * c - x1 * s;
                v[ic + half] = x0 * s + x1 * c;
            }
        }
    }
}

void softcap(float *x, int64_t n, float c)
{
    const float inv = 1.0f / c;
    for (int64_t i = 0; i < n; ++i)
        x[i] = std::tanh(x[i] * inv) * c;
}

namespace {

void swigluScalar(const float *gate, const float *up, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; ++i) {
        const float g = gate[i];
        out[i] = g / (1.0f + std::exp(-g)) * up[i];
    }
}

#if defined(__x86_64__) || defined(_M_X64)
#define BURROW_OPS_AVX512 __attribute__((target("avx512f,avx2,fma")))

BURROW_OPS_AVX512 void swigluAvx512(const float *gate, const float *up, float *out, int64_t n)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 g = _mm512_loadu_ps(gate + i);
        const __m512 e = simd::exp512(_mm512_sub_ps(_mm512_setzero_ps(), g));
        const __m512 silu = _mm512_div_ps(g, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
        _mm512_storeu_ps(out + i, _mm512_mul_ps(silu, _mm512_loadu_ps(up + i)));
    }
    swigluScalar(gate + i, up + i, out + i, n - i);
}

#define BURROW_OPS_AVX2 __attribute__((target("avx2,fma")))

BURROW_OPS_AVX2 void swigluAvx2(const float *gate, const float *up, float *out, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 g = _mm256_loadu_ps(gate + i);
        const __m256 e = simd::exp256(_mm256_sub_ps(_mm256_setzero_ps(), g));
        const __m256 silu = _mm256_div_ps(g, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
        _mm256_storeu_ps(out + i, _mm256_mul_ps(silu, _mm256_loadu_ps(up + i)));
    }
    swigluScalar(gate + i, up + i, out + i, n - i);
}
#endif

} // namespace

void swiglu(const float *gate, const float *up, float *out, int64_t n)
{
#if defined(__x86_64__) || defined(_M_X64)
    switch (quant::activeCpuPath()) {
    case quant::CpuPath::CPU_PATH_AVX512: swigluAvx512(gate, up, out, n); return;
    case quant::CpuPath::CPU_PATH_AVX2: swigluAvx2(gate, up, out, n); return;
    default: break;
    }
#endif
    swigluScalar(gate, up, out, n);
}

namespace {

float geluExact(float x)
{
    constexpr float kCoefA = 0.044715f;
    constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
    return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + kCoefA * x * x)));
}

// gelu of every half value, rounded to half (the reference's lookup table).
const float *geluTable()
{
    static const std::vector<float> table = [] {
        std::vector<float> t(65536);
        for (uint32_t i = 0; i < 65536; ++i)
            t[i] = f16ToF32(f32ToF16(geluExact(f16ToF32(static_cast<uint16_t>(i)))));
        return t;
    }();
    return table.data();
}

} // namespace

float geluTanh(float x)
{
    if (x <= -10.0f)
        return 0.0f;
    if (x >= 10.0f)
        return x;
    return geluTable()[f32ToF16(x)];
}

void geglu(const float *gate, const float *up, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        out[i] = geluTanh(gate[i]) * up[i];
}

} // namespace burrow::ops
