// The kernels of a Gated DeltaNet layer (qwen35; runtime/forward.h has the
// layer): the short causal convolution, the L2 norm of query and key heads,
// and the gated delta rule, step by step (generation, and the reference's
// CPU order for prompts) and in chunks (prompts).
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

} // namespace burrow::ops
