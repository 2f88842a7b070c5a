// Scalar elementwise and per-row kernels (see generic_kernels.h).
#include "ops/generic/generic_kernels.h"

#include "ops/expf.h"
#include "ops/f16.h"

#include <cmath>
#include <vector>

namespace burrow::ops::generic {

void rmsNorm(const float *x, const float *w, float *y, int64_t n, float eps)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i)
        sum += static_cast<double>(x[i] * x[i]);   // float product, double sum (as the reference)
    const float mean = static_cast<float>(sum / static_cast<double>(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    for (int64_t i = 0; i < n; ++i)
        y[i] = (x[i] * scale) * w[i];
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

// The reference's rotate_pairs as GCC contracts it (-march=native): both
// outputs fuse the x0 product, dst0 = fma(x0, cos, -(x1 sin)),
// dst1 = fma(x0, sin, x1 cos).
void ropeApply(float *x, int nHeads, int headDim, int nRot, model::RopeType type, const float *cs)
{
    for (int h = 0; h < nHeads; ++h) {
        float *v = x + static_cast<int64_t>(h) * headDim;
        if (type == model::RopeType::ROPE_TYPE_NORM) {
            for (int i0 = 0; i0 < nRot; i0 += 2) {
                const float c = cs[i0], s = cs[i0 + 1];
                const float x0 = v[i0], x1 = v[i0 + 1];
                v[i0] = std::fma(x0, c, -(x1 * s));
                v[i0 + 1] = std::fma(x0, s, x1 * c);
            }
        } else {
            const int half = nRot / 2;
            for (int i0 = 0; i0 < nRot; i0 += 2) {
                const float c = cs[i0], s = cs[i0 + 1];
                const int ic = i0 / 2;
                const float x0 = v[ic], x1 = v[ic + half];
                v[ic] = std::fma(x0, c, -(x1 * s));
                v[ic + half] = std::fma(x0, s, x1 * c);
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

// The reference's ggml_vec_swiglu_f32 (AVX-512 build): the first n & ~15
// elements with its vector exp (vexpf, ops/expf.h) as (g / (1 + e^(0 - g))) * u,
// the rest with libm's expf as g / (1 + expf(-g)) * u.
void swiglu(const float *gate, const float *up, float *out, int64_t n)
{
    const int64_t nv = n & ~int64_t{15};
    for (int64_t i = 0; i < nv; ++i) {
        const float g = gate[i];
        out[i] = (g / (1.0f + vexpf(0.0f - g))) * up[i];
    }
    swigluTail(gate + nv, up + nv, out + nv, n - nv);
}

void swigluTail(const float *gate, const float *up, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; ++i) {
        const float g = gate[i];
        out[i] = g / (1.0f + std::exp(-g)) * up[i];
    }
}

// The reference's ggml_compute_forward_swiglu_oai_f32, step for step:
// x = min(g, limit) and y = clamp(u, -limit, limit) as std::min/std::clamp
// compare (a NaN gate or up passes through), then x / (1 + e^(alpha * -x)) * (y + 1).
void swigluOai(const float *gate, const float *up, float *out, int64_t n)
{
    constexpr float kAlpha = 1.702f, kLimit = 7.0f;
    for (int64_t i = 0; i < n; ++i) {
        const float g = gate[i], u = up[i];
        const float x = kLimit < g ? kLimit : g;
        const float y = u < -kLimit ? -kLimit : (kLimit < u ? kLimit : u);
        const float glu = x / (1.0f + std::exp(kAlpha * (-x)));
        out[i] = glu * (y + 1.0f);
    }
}

namespace {

// The reference's ggml_gelu_f32 as its x86 builds compute it: float steps and
// tanhf, with 1 + GELU_COEF_A * x * x fused into one multiply-add (built with
// -march=native, FMA available, and the compilers' default contraction). Of
// the 65536 table entries only x = -1.9990234375 (0xbfff) comes out
// differently unfused; std::fma is exact on every CPU.
float geluExact(float x)
{
    constexpr float kCoefA = 0.044715f;
    constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
    const float inner = std::fma(kCoefA * x, x, 1.0f);
    return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * inner));
}

} // namespace

// gelu of every half value, rounded to half (the reference's lookup table,
// ggml_table_gelu_f16, built from the half's exact float value).
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

float geluTanh(float x)
{
    if (x <= -10.0f)
        return 0.0f;
    if (x >= 10.0f)
        return x;
    return geluTable()[f32ToF16(x)];
}

// The reference's ggml_vec_geglu_f32 (GGML_GELU_FP16): gate <= -10 gives
// exactly +0 (not 0 * up), gate >= 10 gives gate * up, otherwise the table
// entry of the gate rounded to half, times up.
void geglu(const float *gate, const float *up, float *out, int64_t n)
{
    const float *table = geluTable();
    for (int64_t i = 0; i < n; ++i) {
        const float g = gate[i];
        if (g <= -10.0f)
            out[i] = 0.0f;
        else if (g >= 10.0f)
            out[i] = g * up[i];
        else
            out[i] = table[f32ToF16(g)] * up[i];
    }
}

void f32ToF16Row(const float *src, uint16_t *dst, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        dst[i] = f32ToF16(src[i]);
}

} // namespace burrow::ops::generic
