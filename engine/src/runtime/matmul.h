// Matrix multiply of a weight matrix (any supported type) with a batch of F32
// activation rows, through the quant trait table.
//
// Scheme (as the reference engine): the activation rows are quantized once to
// the weight type's vecDotType (Q8_0 / Q8_1 / Q8_K / F16 / BF16; F32 is used
// as it is), then each output is one vecDot of a weight row against a
// quantized activation row. Outputs are split across the pool's threads in
// blocks of rows; every thread walks all tokens of its rows (GEMM for
// prompts, GEMV for one token). The split never changes a result: each
// output is one vecDot call whatever the thread count.
//
// Cost: W.ne1 * nTokens vecDots of W.ne0 elements + nTokens quantizations.
#pragma once

#include "model/weights.h"

#include <cstddef>
#include <cstdint>

namespace burrow::runtime {

class ThreadPool;

// Bytes of scratch matmul() needs for nTokens activation rows of W; with
// nInputs > 1, an upper bound for matmulTasks() over tasks of W's row length
// and types whose inputs are nInputs different activation blocks holding
// nTokens rows in all.
size_t matmulScratchBytes(const model::TensorView &W, int64_t nTokens, int64_t nInputs = 1);

// y[t * W.ne1 + r] = dot(W.row(r), x[t * W.ne0 ...]) for t < nTokens, r < W.ne1.
// scratch: at least matmulScratchBytes(W, nTokens) bytes, aligned to 64.
// bias (optional, W.ne1 floats) is added to every output row.
void matmul(ThreadPool &pool, const model::TensorView &W, const float *x, int64_t nTokens, float *y,
            uint8_t *scratch, const float *bias = nullptr);

// Up to 4 matrices applied to the same input (Q, K, V; gate, up): the input
// is quantized once when they share the row length and dot partner, and all
// their rows are split across the threads in one dispatch. Same results as
// separate matmul() calls.
struct MatmulJob {
    const model::TensorView *W;
    float *y;                 // [nTokens, W->ne1]
    const float *bias;        // null or W->ne1 floats
};
void matmulGroup(ThreadPool &pool, const MatmulJob *jobs, int nJobs, const float *x, int64_t nTokens,
                 uint8_t *scratch);

// Independent multiplies in one dispatch, each with its own input (the
// experts of a mixture-of-experts layer: every selected expert's gate and up
// matrices over the tokens routed to it, then every down matrix): tasks with
// the same input pointer, token count and activation format share one
// quantized copy; the rows of all tasks are split across the threads
// together. Results equal separate matmul() calls.
struct MatmulTask {
    const model::TensorView *W;
    const float *x;           // [nTokens, W->ne0]
    int64_t nTokens;          // >= 1
    float *y;                 // [nTokens, W->ne1]
    const float *bias;        // null or W->ne1 floats
    // Rows routed to one expert: computed as the reference's mul_mat_id does,
    // every row with the one-token dot product form (quant::gemmFormTokens).
    bool expertRows = false;
};
// scratch: at least the sum of matmulScratchBytes(W, nTokens) over the tasks'
// distinct inputs (matmulScratchBytes(W, total tokens, inputs) bounds it).
void matmulTasks(ThreadPool &pool, const MatmulTask *tasks, int nTasks, uint8_t *scratch);

// dst = row `r` of W as floats (W.ne0 of them): embedding lookup.
void dequantizeRow(const model::TensorView &W, int64_t r, float *dst);

} // namespace burrow::runtime
