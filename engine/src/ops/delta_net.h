// The kernels of a Gated DeltaNet layer (qwen35; runtime/forward.h has the
// layer): the short causal convolution, the L2 norm of query and key heads,
// and the gated delta rule, step by step (generation; the reference's CPU
// order for prompts too) and in chunks of kDeltaChunk tokens (prompts).
//
// The state of one value head is an S x S matrix stored transposed:
// M[j * S + i] = state(i, j) (runtime/recurrent_state.h). One step with
// query q, key k, value v (S each), decay a = exp(g) and rate beta:
//   state  *= a
//   d[j]    = (v[j] - sum_i state(i, j) k[i]) * beta
//   state(i, j) += k[i] d[j]
//   out[j]  = scale * sum_i state(i, j) q[i]
// (the reference's ggml_compute_forward_gated_delta_net). Cost: 4 S^2
// multiply-adds per head and token.
#pragma once

#include <cstdint>

namespace burrow::ops {

// Causal convolution of channels [c0, c1) over n tokens: for token t and
// channel c, y[t][c] = sum_{j < K} w[c][j] * u(t - K + 1 + j), where u is x
// for t >= 0 and the window's earlier inputs before (state[c][K - 1 + t'],
// t' < 0, oldest first); then state[c] holds channel c's last K - 1
// inputs. Sums in float in tap order, as the reference's ssm_conv. x and y
// are rows of `stride` floats; w is [C][K], state [C][K - 1].
void causalConv(const float *w, float *state, const float *x, float *y, int n, int64_t stride, int K, int64_t c0,
                int64_t c1);

// x *= 1 / max(sqrt(sum x^2), eps) (sum in double), in place; n elements.
void l2Norm(float *x, int64_t n, float eps);

// One step of the gated delta rule for one head (see above).
void deltaNetStep(float *M, const float *q, const float *k, const float *v, float decay, float beta, float scale,
                  float *out, int S);

// The same for n <= kDeltaChunk consecutive tokens of one head at once, in
// the chunked form: with G_t = g_0 + ... + g_t (log decays, a_t = exp g_t)
// and S0 the state before the chunk,
//   d_t = beta_t (v_t - e^G_t S0^T k_t) - sum_{s<t} beta_t e^(G_t - G_s) (k_t . k_s) d_s
//   o_t = scale (e^G_t S0^T q_t + sum_{s<=t} e^(G_t - G_s) (q_t . k_s) d_s)
//   S   = e^G_{n-1} S0 + sum_s e^(G_{n-1} - G_s) k_s d_s^T
// (a triangular solve instead of n rank-1 updates: 3 S^2 + 2 n S + n^2 S
// multiply-adds per token against 4 S^2). Equal to n deltaNetStep calls up
// to float rounding. Token t's q, k, v are q + t qkStride, k + t qkStride,
// v + t vStride; its g and beta g[t gStride], beta[t gStride]; its output
// out + t outStride. scratch: deltaNetChunkScratch(S) floats.
inline constexpr int kDeltaChunk = 16;
int64_t deltaNetChunkScratch(int S);
void deltaNetChunk(float *M, const float *q, const float *k, int64_t qkStride, const float *v, int64_t vStride,
                   const float *g, const float *beta, int64_t gStride, float scale, float *out, int64_t outStride,
                   int n, int S, float *scratch);

} // namespace burrow::ops
