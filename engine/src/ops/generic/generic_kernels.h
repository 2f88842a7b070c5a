// Scalar kernels of ops/: the kernels of the scalar path, and the twins every
// SIMD kernel in x86/ is tested against. Compiled without floating-point
// contraction (the reference engine's generic code rounds every product).
// Contracts and costs: as the public functions they stand behind (ops.h,
// f16.h, attention_kernels.h).
#pragma once

#include "model/model_config.h"
#include "ops/attention_kernels.h"
#include "ops/flash_attention.h"

#include <cstddef>
#include <cstdint>

namespace burrow::quant {
struct BlockQ8_0;
}

namespace burrow::ops::generic {

// --- elementwise.cpp ---
void rmsNorm(const float *x, const float *w, float *y, int64_t n, float eps);
void ropeCache(float pos, int nRot, float freqBase, float freqScale, const float *factors, float *cs);
void ropeApply(float *x, int nHeads, int headDim, int nRot, model::RopeType type, const float *cs);
void softcap(float *x, int64_t n, float c);
void swiglu(const float *gate, const float *up, float *out, int64_t n);
// The reference's scalar leftover form, g / (1 + expf(-g)) * u, for every
// element (the SIMD swiglu kernels finish rows with it).
void swigluTail(const float *gate, const float *up, float *out, int64_t n);
void swigluOai(const float *gate, const float *up, float *out, int64_t n);
void geglu(const float *gate, const float *up, float *out, int64_t n);
// The reference's ggml_table_gelu_f16 as floats: entry h is gelu of the half
// h, rounded to half (65536 entries, 256 KiB, built on first use; thread-safe).
// The SIMD geglu kernels gather from it.
const float *geluTable();
float geluTanh(float x);
void f32ToF16Row(const float *src, uint16_t *dst, int64_t n);

// --- delta_net.cpp (causalConv and l2Norm have no SIMD twins: ops/delta_net.h) ---
void deltaNetStep(float *M, const float *q, const float *k, const float *v, float decay, float beta, float scale,
                  float *out, int S);
void deltaNetChunk(float *M, const float *q, const float *k, int64_t qkStride, const float *v, int64_t vStride,
                   const float *g, const float *beta, int64_t gStride, float scale, float *out, int64_t outStride,
                   int n, int S, float *scratch);

// --- attention.cpp ---
void attendHead(const AttentionHead &h, const float *q, float *scores, uint16_t *probs, float *out);
// attendHead per head (sinks: as attention_kernels.h).
void attendHeads(const AttentionHead &h, int nHeads, const float *const *q, float *const *out, float *scores,
                 size_t scoresStride, uint16_t *probs, size_t probsStride, const float *sinks);

// --- flash_attention.cpp ---
// K . q of attendOnline (flash_attention.h): the reference's ggml_vec_dot_f16
// order on its AVX-512 build (k and q hold half values as floats).
float dotF16Ref(const float *k, const float *q, int n);
// 16 floats summed as the reference's _mm512_reduce_add_ps (GCC's: the
// halves added 16 -> 8 -> 4, then (x0 + x2) + (x1 + x3)): its softmax sums
// 16 exponentials at a time so.
float sum16Ref(const float *x);
void attendOnline(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                  float *const *out, const float *sinks);
void attendTiled(const KvView &kv, const TileQuery *queries, int nq, float *scratch);
// attendTiled's recipe over a Q8_0 cache (flash_attention.h attendTiledQ8_0).
void attendTiledQ8_0(const KvView &kv, const TileQuery *queries, int nq, float *scratch);
// Its score: sum over the blocks b, in order, of
// fma(f32(sum of the 32 int8 products), f16(k_b.d) * f16(q_b.d), s) from s = 0.
float dotQ8_0Tiled(const quant::BlockQ8_0 *k, const quant::BlockQ8_0 *q, int nb);
void attendOnlineQ8_0(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                      float *const *out, const float *sinks);
// The trait table's Q8_0 activation quantizer and Q8_0 x Q8_0 multi-column
// dot product on the active CPU path (quant_traits.h), for the Q8_0
// attention kernels (the SIMD files take them from here rather than
// including the trait table's header).
struct Q8_0Ops {
    void (*quantize)(const float *src, void *dst, int64_t n);
    void (*dotMulti)(int64_t n, float *out, const void *x, const void *y, size_t yStride, int ny);
};
Q8_0Ops q8_0Ops();

} // namespace burrow::ops::generic
