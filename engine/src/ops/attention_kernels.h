// The inner loop of attention for one (token, head): scores against the
// cached keys, softmax, and the probability-weighted sum of the cached
// values, with kernels for the CPU path the trait table uses
// (quant::activeCpuPath(): scalar, AVX2 + F16C + FMA, AVX-512; see kernels.h).
//
//   s_j = dot(K_j, q)                      (keys and q as halves, products in float)
//   s_j = softcap ? c * tanh(s_j / c) : s_j;  s_j *= scale
//   m   = max(max_j s_j, sink)
//   p_j = f16(exp(s_j - m) / (sum_j exp(s_j - m) + exp(sink - m)))
//   out[d] = sum_j p_j * V_j[d]
// for j in [first, last]. The sink (gpt-oss: one learned logit per head) is
// neither scaled nor softcapped and has no value row; -infinity (the
// default) means none, and gives bit for bit the results without a sink (so
// does any value that is not greater than -infinity, NaN included). The
// scalar kernel sums the dot products, the exponentials and the output in
// double (the reference engine's order for short rows); the SIMD kernels keep
// float lanes (16 or 8 wide) and a polynomial exp (relative error < 3e-7),
// so their results differ from the scalar ones by float rounding only. The
// sink's exponential is expf on every path (as the reference).
//
// Shapes: K_j = k + j * kStride halves (dk of them), V_j = v + j * vStride
// (dv of them); q: dk floats that are exact halves; scores: last + 1 floats
// and probs: last + 1 halves of scratch (indices [first, last] are used);
// out: dv floats. Cost: (last - first + 1) * (dk + dv) multiply-adds.
//
// The SIMD files (x86/) never construct these structs (they only read them),
// so no inline constructor compiled for a wider instruction set can be picked
// by the linker for other callers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace burrow::ops {

inline constexpr float kNoSink = -__builtin_inff();

struct AttentionHead {
    const uint16_t *k = nullptr;
    size_t kStride = 0;
    const uint16_t *v = nullptr;
    size_t vStride = 0;
    int dk = 0;
    int dv = 0;
    uint32_t first = 0;
    uint32_t last = 0;          // inclusive
    float scale = 1.0f;
    float softcap = 0.0f;       // 0: none
    float sink = kNoSink;       // the head's sink logit; kNoSink: none
    // Paged cache: key/value of position j in cell blocks[j / 16] * 16 + j % 16
    // (flash_attention.h kvCell); null: cell j.
    const int32_t *blocks = nullptr;
};

// Computes out (dv floats) for one head; scores/probs are scratch (see above).
void attendHead(const AttentionHead &h, const float *q, float *scores, uint16_t *probs, float *out);

// Heads that share one KV head (grouped-query attention): the same keys,
// values and range for nHeads (1..kMaxGroupHeads) queries q[g] (dk floats),
// outputs out[g] (dv floats). scores/probs: nHeads rows of scratch,
// scoresStride/probsStride elements apart. sinks: nHeads sink logits, one
// per query head, or null for h.sink on every head. On the AVX-512 path, head
// sizes 64 (2-4 heads) and 128 (2 heads) have a kernel that converts each key
// and value row once for all heads; otherwise each head runs attendHead.
// Results equal attendHead's up to float summation order.
inline constexpr int kMaxGroupHeads = 4;
void attendHeads(const AttentionHead &h, int nHeads, const float *const *q, float *const *out, float *scores,
                 size_t scoresStride, uint16_t *probs, size_t probsStride, const float *sinks = nullptr);

// Several query vectors at once against one KV head (prompt processing:
// consecutive tokens x the heads that share the KV head): nq <= 16 (AVX-512)
// or 8 (AVX2) queries, query i sees keys [first[i], last[i]] (inclusive) and
// has sink logit sink[i] (kNoSink: none). Each key and value row is
// converted once for all queries, and the 16 query lanes are computed side by
// side (scores key-major: one vector per key), so no per-key horizontal sums.
// dk == dv == 64 or 128 and no softcap; AVX-512 and AVX2 paths.
// scratch: 32 * (max last + 1) + 16 floats (the kernel starts on its first
// 64-byte line, scratchLine). Returns false (nothing computed) when
// no kernel applies; the caller then runs attendHeads per token. Results equal
// attendHead's per query up to float summation order.
inline constexpr int kAttentionBlockQueries = 16;

struct AttentionBlock {
    const uint16_t *k = nullptr;
    size_t kStride = 0;
    const uint16_t *v = nullptr;
    size_t vStride = 0;
    int d = 0;                   // dk == dv
    float scale = 1.0f;
    int nq = 0;
    const float *q[kAttentionBlockQueries] = {};     // d floats each, exact halves
    float *out[kAttentionBlockQueries] = {};         // d floats each
    uint32_t first[kAttentionBlockQueries] = {};
    uint32_t last[kAttentionBlockQueries] = {};
    float sink[kAttentionBlockQueries] = {kNoSink, kNoSink, kNoSink, kNoSink, kNoSink, kNoSink, kNoSink, kNoSink,
                                          kNoSink, kNoSink, kNoSink, kNoSink, kNoSink, kNoSink, kNoSink, kNoSink};
    const int32_t *blocks = nullptr;   // block table (as AttentionHead::blocks) or null
};
static_assert(kAttentionBlockQueries == 16, "AttentionBlock::sink lists one kNoSink per query");
bool attendBlock(const AttentionBlock &b, float *scratch);
// The most queries attendBlock takes for head size d on the active path
// (16 on AVX-512, 8 on AVX2), 0 when it has no kernel.
int attendBlockQueries(int d);

// The scalar kernel, whatever the active path (tests compare against it).
void attendHeadScalar(const AttentionHead &h, const float *q, float *scores, uint16_t *probs, float *out);

} // namespace burrow::ops
