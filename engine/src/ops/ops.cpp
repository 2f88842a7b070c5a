#include "ops/ops.h"

#include "ops/delta_net.h"
#include "ops/generic/generic_kernels.h"
#include "ops/kernels.h"

#include <cmath>

namespace burrow::ops {

void rmsNorm(const float *x, const float *w, float *y, int64_t n, float eps) { kernels().rmsNorm(x, w, y, n, eps); }

void ropeCache(float pos, int nRot, float freqBase, float freqScale, const float *factors, float *cs)
{
    generic::ropeCache(pos, nRot, freqBase, freqScale, factors, cs);
}

void ropeApply(float *x, int nHeads, int headDim, int nRot, model::RopeType type, const float *cs)
{
    generic::ropeApply(x, nHeads, headDim, nRot, type, cs);
}

void softcap(float *x, int64_t n, float c) { generic::softcap(x, n, c); }

void hadamardBlocks(float *x, int64_t n, int block)
{
    const float scale = 1.0f / std::sqrt(static_cast<float>(block));
    for (int64_t b0 = 0; b0 < n; b0 += block) {
        float *r = x + b0;
        for (int j = 0; j < block; ++j)
            r[j] *= scale;
        for (int len = 1; len < block; len <<= 1)
            for (int i = 0; i < block; i += 2 * len)
                for (int j = 0; j < len; ++j) {
                    const float u = r[i + j], v = r[i + len + j];
                    r[i + j] = u + v;
                    r[i + len + j] = u - v;
                }
    }
}

void swiglu(const float *gate, const float *up, float *out, int64_t n) { kernels().swiglu(gate, up, out, n); }

void swigluOai(const float *gate, const float *up, float *out, int64_t n) { kernels().swigluOai(gate, up, out, n); }

void geglu(const float *gate, const float *up, float *out, int64_t n) { kernels().geglu(gate, up, out, n); }

float geluTanh(float x) { return generic::geluTanh(x); }

void deltaNetStep(float *M, const float *q, const float *k, const float *v, float decay, float beta, float scale,
                  float *out, int S)
{
    kernels().deltaNetStep(M, q, k, v, decay, beta, scale, out, S);
}

void deltaNetChunk(float *M, const float *q, const float *k, int64_t qkStride, const float *v, int64_t vStride,
                   const float *g, const float *beta, int64_t gStride, float scale, float *out, int64_t outStride,
                   int n, int S, float *scratch)
{
    kernels().deltaNetChunk(M, q, k, qkStride, v, vStride, g, beta, gStride, scale, out, outStride, n, S, scratch);
}

} // namespace burrow::ops
