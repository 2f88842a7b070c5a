// The Gated DeltaNet kernels (ops/delta_net.h) once, over a vector type:
// included by avx2_delta_net.cpp (8 floats) and avx512_delta_net.cpp (16),
// each compiled with its instruction set and supplying V:
//   using R = the register type; static constexpr int W = lanes;
//   R zero(); R set1(float); R load(const float *); void store(float *, R);
//   R mul(R, R); R fmadd(R a, R b, R c) = a b + c; float reduce(R) (sum of lanes).
// State sizes must be multiples of W (the fill functions check; other sizes
// keep the scalar twins). Same arithmetic as the twins in generic/delta_net.cpp
// except the order of each dot product's sum (W lanes, then across them)
// and fused multiply-adds.
//
// Everything here has internal linkage: the two including files are compiled
// with different instruction sets and must not share a definition.
#pragma once

#include "ops/delta_net.h"
#include "ops/generic/generic_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace burrow::ops::x86 {
namespace {

template <class V>
inline float dotW(const float *a, const float *b, int S)
{
    typename V::R acc = V::zero();
    for (int i = 0; i < S; i += V::W)
        acc = V::fmadd(V::load(a + i), V::load(b + i), acc);
    return V::reduce(acc);
}

// y += a x
template <class V>
inline void axpyW(float *y, float a, const float *x, int S)
{
    const typename V::R va = V::set1(a);
    for (int i = 0; i < S; i += V::W)
        V::store(y + i, V::fmadd(V::load(x + i), va, V::load(y + i)));
}

template <class V>
void deltaNetStepW(float *M, const float *q, const float *k, const float *v, float decay, float beta, float scale,
                   float *out, int S)
{
    using R = typename V::R;
    const R vdecay = V::set1(decay);
    for (int j = 0; j < S; ++j) {
        float *row = M + static_cast<int64_t>(j) * S;   // state(., j)
        R acc = V::zero();
        for (int i = 0; i < S; i += V::W) {
            const R r = V::mul(V::load(row + i), vdecay);
            V::store(row + i, r);
            acc = V::fmadd(r, V::load(k + i), acc);
        }
        const R d = V::set1((v[j] - V::reduce(acc)) * beta);
        R o = V::zero();
        for (int i = 0; i < S; i += V::W) {
            const R r = V::fmadd(V::load(k + i), d, V::load(row + i));
            V::store(row + i, r);
            o = V::fmadd(r, V::load(q + i), o);
        }
        out[j] = V::reduce(o) * scale;
    }
}

template <class V>
void deltaNetChunkW(float *M, const float *q, const float *k, int64_t qkStride, const float *v, int64_t vStride,
                    const float *g, const float *beta, int64_t gStride, float scale, float *out, int64_t outStride, int n,
                    int S, float *scratch)
{
    const int L = kDeltaChunk;
    float *d = scratch;                              // [L][S] the new values d_t
    float *w = d + static_cast<int64_t>(L) * S;      // [L][S] S0^T k_t, then S0^T q_t (column t of a row: w[t S + j])
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
            A[t * L + s] = dotW<V>(kt(t), kt(s), S);
            QK[t * L + s] = dotW<V>(qt(t), kt(s), S);
        }
    const auto stateTimes = [&](const auto &xt) {   // w_t = S0^T x_t
        for (int j = 0; j < S; ++j) {
            const float *row = M + static_cast<int64_t>(j) * S;
            for (int t = 0; t < n; ++t)
                w[static_cast<int64_t>(t) * S + j] = dotW<V>(row, xt(t), S);
        }
    };
    stateTimes(kt);
    for (int t = 0; t < n; ++t) {
        const float b = beta[t * gStride], gt = std::exp(G[t]);
        float *dt = d + static_cast<int64_t>(t) * S;
        const float *vt = v + t * vStride;
        const float *wt = w + static_cast<int64_t>(t) * S;
        for (int j = 0; j < S; ++j)
            dt[j] = b * (vt[j] - gt * wt[j]);
        for (int s = 0; s < t; ++s)
            axpyW<V>(dt, -(b * std::exp(G[t] - G[s]) * A[t * L + s]), d + static_cast<int64_t>(s) * S, S);
    }
    stateTimes(qt);
    const typename V::R vscale = V::set1(scale);
    for (int t = 0; t < n; ++t) {
        float *ot = out + t * outStride;
        const float gt = std::exp(G[t]);
        const float *wt = w + static_cast<int64_t>(t) * S;
        for (int j = 0; j < S; ++j)
            ot[j] = gt * wt[j];
        for (int s = 0; s <= t; ++s)
            axpyW<V>(ot, std::exp(G[t] - G[s]) * QK[t * L + s], d + static_cast<int64_t>(s) * S, S);
        for (int j = 0; j < S; j += V::W)
            V::store(ot + j, V::mul(V::load(ot + j), vscale));
    }
    const float last = G[n - 1];
    const typename V::R gl = V::set1(std::exp(last));
    float ws[kDeltaChunk];
    for (int s = 0; s < n; ++s)
        ws[s] = std::exp(last - G[s]);
    for (int j = 0; j < S; ++j) {
        float *row = M + static_cast<int64_t>(j) * S;
        for (int i = 0; i < S; i += V::W)
            V::store(row + i, V::mul(V::load(row + i), gl));
        for (int s = 0; s < n; ++s)
            axpyW<V>(row, ws[s] * d[static_cast<int64_t>(s) * S + j], kt(s), S);
    }
}

// The table entries: state sizes that are not a multiple of W keep the twins.
template <class V>
void deltaNetStepOrTwin(float *M, const float *q, const float *k, const float *v, float decay, float beta, float scale,
                        float *out, int S)
{
    if (S % V::W != 0)
        return generic::deltaNetStep(M, q, k, v, decay, beta, scale, out, S);
    deltaNetStepW<V>(M, q, k, v, decay, beta, scale, out, S);
}

template <class V>
void deltaNetChunkOrTwin(float *M, const float *q, const float *k, int64_t qkStride, const float *v, int64_t vStride,
                         const float *g, const float *beta, int64_t gStride, float scale, float *out, int64_t outStride,
                         int n, int S, float *scratch)
{
    if (S % V::W != 0)
        return generic::deltaNetChunk(M, q, k, qkStride, v, vStride, g, beta, gStride, scale, out, outStride, n, S,
                                      scratch);
    deltaNetChunkW<V>(M, q, k, qkStride, v, vStride, g, beta, gStride, scale, out, outStride, n, S, scratch);
}

} // namespace
} // namespace burrow::ops::x86
