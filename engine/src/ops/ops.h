// The element-wise and per-row operations of the forward pass, in F32, with
// the reference engine's order of operations (so rounding matches closely).
// Kernels per CPU path behind one dispatch table (kernels.h); the scalar
// twins are in generic/.
#pragma once

#include "model/model_config.h"

#include <cstdint>

namespace burrow::ops {

// y[i] = x[i] / sqrt(mean(x^2) + eps) * w[i]  (squares in float, summed in double). y may equal x.
void rmsNorm(const float *x, const float *w, float *y, int64_t n, float eps);

// RoPE tables for one position: cs[2i] = cos(theta_i), cs[2i+1] = sin(theta_i)
// for i < nRot/2, theta_i = pos * freqScale * base^(-2i/nRot) / factors[i].
// theta is advanced by repeated multiplication, as the reference does.
// cs has nRot floats; factors may be null.
void ropeCache(float pos, int nRot, float freqBase, float freqScale, const float *factors, float *cs);

// Rotates the first nRot elements of each of nHeads heads (headDim apart) in place.
void ropeApply(float *x, int nHeads, int headDim, int nRot, model::RopeType type, const float *cs);

// x[i] = c * tanh(x[i] / c)
void softcap(float *x, int64_t n, float c);

// The orthonormal Walsh-Hadamard transform (its own inverse) of each block of
// `block` elements (a power of 2) of x[0, n) (n % block == 0), in place, as
// the reference's fast transform computes it (ggml-cpu fwht, the product
// with a Hadamard matrix that a quantized KV cache applies to q, k and v):
// x *= 1 / sqrtf(block), then butterflies (u, v) -> (u + v, u - v) for
// strides 1, 2, 4, ... Every step is exact float arithmetic (one rounding),
// so no SIMD form differs. Cost: n log2(block) additions.
void hadamardBlocks(float *x, int64_t n, int block);

// Gated activations: out[i] = act(gate[i]) * up[i]; out may equal gate or up.
// swiglu on the AVX-512 and AVX2 path computes e^-g with a polynomial (within
// 2 ulp of expf; tests compare).
void swiglu(const float *gate, const float *up, float *out, int64_t n);
// gpt-oss's clamped SwiGLU: g = min(gate, 7), u = clamp(up, -7, 7),
// out = g * sigmoid(1.702 g) * (u + 1), as g / (1 + e^(-1.702 g)) * (u + 1)
// (the reference's order). e^x by expf on the scalar path, by the polynomial
// of swiglu on the SIMD paths.
void swigluOai(const float *gate, const float *up, float *out, int64_t n);
// gemma's tanh GELU as the reference's CPU code evaluates it: the gate
// rounded to half looks up gelu(half) rounded to half (the table is built in
// float with tanhf, 1 + 0.044715 x^2 as one fma), |gate| >= 10 bypasses the
// table: out = +0 for gate <= -10, gate * up for gate >= 10.
void geglu(const float *gate, const float *up, float *out, int64_t n);
float geluTanh(float x);   // the activation alone (0 for x <= -10, x for x >= 10), exposed for tests

} // namespace burrow::ops
