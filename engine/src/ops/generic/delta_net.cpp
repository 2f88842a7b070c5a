// The scalar Gated DeltaNet kernels: the scalar path's, and the twins of
// x86/delta_net_simd.h. Contracts: ops/delta_net.h.
#include "ops/delta_net.h"
#include "ops/generic/generic_kernels.h"

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

namespace generic {

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

void deltaNetChunk(float *M, const float *q, const float *k, int64_t qkStride, const float *v, int64_t vStride,
                   const float *g, const float *beta, int64_t gStride, float scale, float *out, int64_t outStride,
                   int n, int S, float *scratch)
{
    const int L = kDeltaChunk;
    float *d = scratch;                              // [L][S] the new values d_t
    float *w = d + static_cast<int64_t>(L) * S;      // [L][S] S0^T k_t, then S0^T q_t
    float *A = w + static_cast<int64_t>(L) * S;      // [L][L] k_t . k_s
    float *QK = A + L * L;                           // [L][L] q_t . k_s
    float *G = QK + L * L;                           // [L] cumulative log decay
    const auto kt = [&](int t) { return k + t * qkStride; };
    const auto qt = [&](int t) { return q + t * qkStride; };
    float acc = 0.0f;
    for (int t = 0; t < n; ++t) {
        acc += g[t * gStride];
        G[t] = acc;
    }
    for (int t = 0; t < n; ++t)
        for (int s = 0; s <= t; ++s) {
            float kk = 0.0f, qk = 0.0f;
            for (int i = 0; i < S; ++i) {
                kk += kt(t)[i] * kt(s)[i];
                qk += qt(t)[i] * kt(s)[i];
            }
            A[t * L + s] = kk;
            QK[t * L + s] = qk;
        }
    // w_t = S0^T x_t for the chunk's keys, later its queries: row j of M is state(., j).
    const auto stateTimes = [&](const auto &xt) {
        for (int j = 0; j < S; ++j) {
            const float *row = M + static_cast<int64_t>(j) * S;
            for (int t = 0; t < n; ++t) {
                float dot = 0.0f;
                for (int i = 0; i < S; ++i)
                    dot += row[i] * xt(t)[i];
                w[static_cast<int64_t>(t) * S + j] = dot;
            }
        }
    };
    stateTimes(kt);
    // The triangular solve, token by token.
    for (int t = 0; t < n; ++t) {
        const float b = beta[t * gStride], gt = std::exp(G[t]);
        float *dt = d + static_cast<int64_t>(t) * S;
        const float *vt = v + t * vStride;
        for (int j = 0; j < S; ++j)
            dt[j] = b * (vt[j] - gt * w[static_cast<int64_t>(t) * S + j]);
        for (int s = 0; s < t; ++s) {
            const float c = b * std::exp(G[t] - G[s]) * A[t * L + s];
            const float *ds = d + static_cast<int64_t>(s) * S;
            for (int j = 0; j < S; ++j)
                dt[j] -= c * ds[j];
        }
    }
    // Outputs: w_t = S0^T q_t, then the chunk's own contributions.
    stateTimes(qt);
    for (int t = 0; t < n; ++t) {
        float *ot = out + t * outStride;
        const float gt = std::exp(G[t]);
        for (int j = 0; j < S; ++j)
            ot[j] = gt * w[static_cast<int64_t>(t) * S + j];
        for (int s = 0; s <= t; ++s) {
            const float c = std::exp(G[t] - G[s]) * QK[t * L + s];
            const float *ds = d + static_cast<int64_t>(s) * S;
            for (int j = 0; j < S; ++j)
                ot[j] += c * ds[j];
        }
        for (int j = 0; j < S; ++j)
            ot[j] *= scale;
    }
    // The state after the chunk: M[j][i] = e^G_last M[j][i] + sum_s e^(G_last - G_s) d_s[j] k_s[i].
    const float last = G[n - 1], gl = std::exp(last);
    float ws[kDeltaChunk];
    for (int s = 0; s < n; ++s)
        ws[s] = std::exp(last - G[s]);
    for (int j = 0; j < S; ++j) {
        float *row = M + static_cast<int64_t>(j) * S;
        for (int i = 0; i < S; ++i)
            row[i] *= gl;
        for (int s = 0; s < n; ++s) {
            const float c = ws[s] * d[static_cast<int64_t>(s) * S + j];
            const float *ks = kt(s);
            for (int i = 0; i < S; ++i)
                row[i] += c * ks[i];
        }
    }
}

} // namespace generic

int64_t deltaNetChunkScratch(int S)
{
    // d [L][S], w = S0^T k [L][S], A [L][L], QK [L][L], G [L]
    return 2 * static_cast<int64_t>(kDeltaChunk) * S + 2 * kDeltaChunk * kDeltaChunk + kDeltaChunk;
}

} // namespace burrow::ops
