// The dispatch table of ops/: one function pointer per kernel that has
// per-instruction-set variants, filled once per CPU path after feature
// detection (quant/cpu_features.h) and selected by the path the quant trait
// table uses, so quant::setCpuPath() and BURROW_CPU_PATH switch these kernels
// together with the quantized dot products.
//
// The free functions of ops.h, f16.h and attention_kernels.h
// forward through kernels(); callers normally use those. Each path has its
// own table, built on first use and never rewritten afterwards.
#pragma once

#include "common/ggml_types.h"
#include "ops/attention_kernels.h"
#include "ops/flash_attention.h"
#include "quant/cpu_features.h"

#include <cstddef>
#include <cstdint>

namespace burrow::ops {

struct Kernels {
    quant::CpuPath path = quant::CpuPath::CPU_PATH_SCALAR;

    // ops.h
    void (*rmsNorm)(const float *x, const float *w, float *y, int64_t n, float eps) = nullptr;
    void (*swiglu)(const float *gate, const float *up, float *out, int64_t n) = nullptr;
    void (*swigluOai)(const float *gate, const float *up, float *out, int64_t n) = nullptr;
    void (*geglu)(const float *gate, const float *up, float *out, int64_t n) = nullptr;

    // f16.h
    void (*f32ToF16Row)(const float *src, uint16_t *dst, int64_t n) = nullptr;

    // attention_kernels.h
    void (*attendHead)(const AttentionHead &h, const float *q, float *scores, uint16_t *probs, float *out) = nullptr;
    void (*attendHeads)(const AttentionHead &h, int nHeads, const float *const *q, float *const *out, float *scores,
                        size_t scoresStride, uint16_t *probs, size_t probsStride, const float *sinks) = nullptr;
    // Null, and attendBlockQueries 0, when the path has no blocked kernel.
    void (*attendBlock)(const AttentionBlock &b, float *scratch) = nullptr;
    int attendBlockQueries = 0;

    // flash_attention.h
    void (*attendOnline)(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                         float *const *out, const float *sinks) = nullptr;
    void (*attendTiled)(const KvView &kv, const TileQuery *queries, int nq, float *scratch) = nullptr;
    // attendTiled itself where the path has no decode kernel; the kernel
    // takes up to attendDecodeQueries queries (0: none, attendTiled runs).
    void (*attendDecode)(const KvView &kv, const TileQuery *queries, int nq, float *scratch) = nullptr;
    int attendDecodeQueries = 0;
    void (*attendOnlineQ8_0)(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                             float *const *out, const float *sinks) = nullptr;
    // Null where the path has no SIMD kernel (a Q8_0 cache then runs
    // attendOnlineQ8_0 for every query: ops::hasTiledQ8_0).
    void (*attendTiledQ8_0)(const KvView &kv, const TileQuery *queries, int nq, float *scratch) = nullptr;

    // delta_net.h
    void (*deltaNetStep)(float *M, const float *q, const float *k, const float *v, float decay, float beta,
                         float scale, float *out, int S) = nullptr;
    void (*deltaNetChunk)(float *M, const float *q, const float *k, int64_t qkStride, const float *v, int64_t vStride,
                          const float *g, const float *beta, int64_t gStride, float scale, float *out,
                          int64_t outStride, int n, int S, float *scratch) = nullptr;

};

// The table of the active CPU path (quant::activeCpuPath()).
const Kernels &kernels();

} // namespace burrow::ops
