#include "ops/delta_net.h"

#include <cmath>

namespace burrow::ops {

void causalConv(const float *w, float *state, const float *x, float *y, int n, int64_t stride, int K, int64_t c0,
                int64_t c1)
{
    const int W = K - 1;
    for (int64_t c = c0; c < c1; ++c) {
        const float *wc = w + c * K;
        float *sc = state + c * W;
        float window[32];   // K <= 16 (ModelConfig): the K - 1 earlier inputs, then the new one
        for (int j = 0; j < W; ++j)
            window[j] = sc[j];
        for (int t = 0; t < n; ++t) {
            window[W] = x[t * stride + c];
            float sum = 0.0f;
            for (int j = 0; j < K; ++j)
                sum += window[j] * wc[j];
            y[t * stride + c] = sum;
            for (int j = 0; j < W; ++j)
                window[j] = window[j + 1];
        }
        for (int j = 0; j < W; ++j)
            sc[j] = window[j];
    }
}

void l2Norm(float *x, int64_t n, float eps)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i)
        sum += static_cast<double>(x[i] * x[i]);
    const float scale = 1.0f / std::fmax(std::sqrt(static_cast<float>(sum)), eps);
    for (int64_t i = 0; i < n; ++i)
        x[i] *= scale;
}

void deltaNetStep(float *M, const float *q, const float *k, const float *v, float decay, float beta, float scale,
                  float *out, int S)
{
    const int64_t SS = static_cast<int64_t>(S) * S;
    for (int64_t e = 0; e < SS; ++e)
        M[e] *= decay;
    for (int j = 0; j < S; ++j) {
        float *row = M + static_cast<int64_t>(j) * S;   // state(., j)
        float dot = 0.0f;
        for (int i = 0; i < S; ++i)
            dot += row[i] * k[i];
        const float d = (v[j] - dot) * beta;
        float o = 0.0f;
        for (int i = 0; i < S; ++i) {
            row[i] += k[i] * d;
            o += row[i] * q[i];
        }
        out[j] = o * scale;
    }
}

} // namespace burrow::ops
