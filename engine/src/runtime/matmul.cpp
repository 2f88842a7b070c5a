#include "runtime/matmul.h"

#include "common/cache_line.h"
#include "runtime/batch_invariance.h"
#include "runtime/thread_pool.h"
#include "quant/iq_tiles.h"
#include "quant/packed.h"
#include "quant/quant_traits.h"

#include <algorithm>
#include <atomic>
#include <vector>

namespace burrow::runtime {

namespace {

// Rows per work block: a block of weight rows stays in cache while the
// tokens pass over it.
constexpr int64_t kRowBlock = 16;
static_assert(kRowBlock == quant::kPackRows, "a work block is one packed group");
// Tokens per multi-column vecDot call (the activation chunk stays in L2).
constexpr int kTokenChunk = 64;

bool activationIsF32(const model::TensorView &W)
{
    return W.traits->vecDotType == GgmlType::GGML_TYPE_F32;
}

size_t activationRowBytes(const model::TensorView &W)
{
    if (activationIsF32(W))
        return static_cast<size_t>(W.ne0) * sizeof(float);
    size_t bytes = 0;
    ggmlRowBytes(W.traits->vecDotType, W.ne0, &bytes);
    return bytes;
}

} // namespace

size_t matmulScratchBytes(const model::TensorView &W, int64_t nTokens, int64_t nInputs)
{
    if (activationIsF32(W))
        return 0;
    const size_t act = activationRowBytes(W) * static_cast<size_t>(nTokens);
    const size_t perInput = 128;   // alignment of each input block and its side arrays
    if (!W.packed && !quant::iqTileType(W.type))
        return act + perInput * static_cast<size_t>(nInputs);
    return act + quant::packedSideBytes(W.type, W.ne0, nTokens) + perInput * static_cast<size_t>(nInputs);
}

namespace {

// One quantized activation block: the dot partner of `x` for a weight type
// (and the packed kernels' side arrays when a packed matrix reads it).
struct InputSlot {
    const float *x = nullptr;
    int64_t nTokens = 0;
    int64_t K = 0;
    GgmlType partner = GgmlType::GGML_TYPE_F32;
    GgmlType packedType = GgmlType::GGML_TYPE_F32;   // F32: no packed reader
    size_t actBytes = 0;                             // bytes of one row
    const uint8_t *act = nullptr;                    // rows (x itself for F32)
    uint8_t *rows = nullptr;                         // where they are written (null for F32)
    quant::PackedActivation packed;
};

// What the reference does after a multiply: the matrix's per-tensor scale
// (ggml_mul by its .scale tensor), then the bias; rows [r0, r1) of every token.
void finishRows(float *y, int64_t N, int64_t nTokens, int64_t r0, int64_t r1, float scale, const float *bias)
{
    if (scale != 1.0f)
        for (int64_t t = 0; t < nTokens; ++t)
            for (int64_t r = r0; r < r1; ++r)
                y[t * N + r] *= scale;
    if (bias)
        for (int64_t t = 0; t < nTokens; ++t)
            for (int64_t r = r0; r < r1; ++r)
                y[t * N + r] += bias[r];
}

// Batch-invariant: one form per type whatever nTokens (both forms compute
// each row alone). Q4_K and F32 take their batch forms on every row: the
// reference computes prompts with them, and with the one-token forms for
// prompts the Gemma 4 fixtures leave the parity tolerance (Q4_K) or an
// expert router's logits (F32, ffn_gate_inp) differ by rounding, which
// flips the choice of an expert on a near tie and moves a prompt's logits
// by 0.01-0.03 (gemma4moe's 9-token prompt: 0.022 -> 0.000001); their
// generation rows then differ from the reference's one-token kernels by
// float rounding. Every other type takes its one-token form (the
// reference's for generation; for prompts the F16 / BF16 tinyBLAS and Q2_K
// forms differ by rounding only).
int64_t invariantGemmTokens(GgmlType type, int64_t K, int64_t nTokens, bool expertRows)
{
    if ((type == GgmlType::GGML_TYPE_Q4_K || type == GgmlType::GGML_TYPE_F32) && quant::gemmFormTokens(type, K, 4, expertRows) > 0)
        return nTokens;
    return 0;
}

// Tokens of `task` below which the reference's batch-kernel form is taken
// (the rest take the one-token form).
int64_t gemmTokens(const MatmulTask &task, bool invariant)
{
    const model::TensorView &W = *task.W;
    return invariant ? invariantGemmTokens(W.type, W.ne0, task.nTokens, task.expertRows)
                     : quant::gemmFormTokens(W.type, W.ne0, task.nTokens, task.expertRows);
}

// Packed at load (quant/packed.h), or converted tile by tile for a batch of
// at least kIqTileMinTokens (the lattice i-quants, Q2_K, Q3_K:
// quant/iq_tiles.h). The tiles compute the one-token form, so they serve a
// batch only where no token takes a batch form (Q2_K has one, which
// batch-invariant mode does not take).
bool usesPacked(const MatmulTask &task, bool invariant)
{
    const model::TensorView &W = *task.W;
    return (W.packed && quant::packedKernelsActive(W.type))
        || (!W.packed && task.nTokens >= quant::kIqTileMinTokens && quant::iqTilesActive(W.type)
            && gemmTokens(task, invariant) == 0);
}

} // namespace

void matmulTasks(ThreadPool &pool, const MatmulTask *tasks, int nTasks, uint8_t *scratch)
{
    if (nTasks < 1)
        return;
    // Inputs: one slot per distinct (x, tokens, row length, partner, packed
    // type). The bookkeeping vectors are kept per thread and only grow, so a
    // forward pass does not allocate once they have reached their size.
    // (References to the calling thread's vectors: the workers' lambdas below
    // must see these, not their own thread_local instances.)
    thread_local std::vector<InputSlot> tlsSlots;
    thread_local std::vector<int> tlsSlotOf;
    thread_local std::vector<int64_t> tlsFirstBlock;
    std::vector<InputSlot> &slots = tlsSlots;
    std::vector<int> &slotOf = tlsSlotOf;
    std::vector<int64_t> &firstBlock = tlsFirstBlock;
    slots.clear();
    slotOf.assign(static_cast<size_t>(nTasks), 0);
    const bool invariant = batchInvariant();
    size_t offset = 0;
    for (int i = 0; i < nTasks; ++i) {
        const model::TensorView &W = *tasks[i].W;
        const GgmlType partner = W.traits->vecDotType;
        const GgmlType packedType = usesPacked(tasks[i], invariant) ? W.type : GgmlType::GGML_TYPE_F32;
        int found = -1;
        for (size_t j = 0; j < slots.size() && found < 0; ++j) {
            const InputSlot &sl = slots[j];
            if (sl.x == tasks[i].x && sl.nTokens == tasks[i].nTokens && sl.K == W.ne0 && sl.partner == partner &&
                sl.packedType == packedType)
                found = static_cast<int>(j);
        }
        if (found < 0) {
            InputSlot sl;
            sl.x = tasks[i].x;
            sl.nTokens = tasks[i].nTokens;
            sl.K = W.ne0;
            sl.partner = partner;
            sl.packedType = packedType;
            sl.actBytes = activationRowBytes(W);
            if (activationIsF32(W)) {
                sl.act = reinterpret_cast<const uint8_t *>(sl.x);
            } else {
                offset = alignToLine(offset);
                sl.rows = scratch + offset;
                sl.act = sl.rows;
                offset += sl.actBytes * static_cast<size_t>(sl.nTokens);
                if (packedType != GgmlType::GGML_TYPE_F32) {
                    offset = alignToLine(offset);
                    sl.packed = quant::packedActivation(packedType, sl.K, sl.act, sl.actBytes, sl.nTokens,
                                                        scratch + offset);
                    offset += quant::packedSideBytes(packedType, sl.K, sl.nTokens);
                }
            }
            found = static_cast<int>(slots.size());
            slots.push_back(sl);
        }
        slotOf[static_cast<size_t>(i)] = found;
    }

    // Activations -> their dot partner, once per slot (rows split across threads).
    int64_t rowsToQuantize = 0, quantWork = 0;
    for (const InputSlot &sl : slots)
        if (sl.rows) {
            rowsToQuantize += sl.nTokens;
            quantWork += sl.nTokens * sl.K;
        }
    if (rowsToQuantize > 0) {
        pool.run([&](int ith, int nth) {
            int64_t r0, r1;
            ThreadPool::split(rowsToQuantize, ith, nth, &r0, &r1);
            int64_t base = 0;
            for (const InputSlot &sl : slots) {
                if (!sl.rows)
                    continue;
                const int64_t lo = std::max(r0, base), hi = std::min(r1, base + sl.nTokens);
                if (lo < hi) {
                    const quant::TypeTraits *p = quant::typeTraits(sl.partner);
                    const quant::QuantizeRowFn quantize = p->quantizeActivation ? p->quantizeActivation : p->quantize;
                    for (int64_t r = lo; r < hi; ++r) {
                        const int64_t t = r - base;
                        quantize(sl.x + t * sl.K, sl.rows + static_cast<size_t>(t) * sl.actBytes, sl.K);
                        if (sl.packedType != GgmlType::GGML_TYPE_F32)
                            quant::preparePackedRow(sl.packedType, sl.K, sl.packed, t);
                    }
                }
                base += sl.nTokens;
            }
        }, rowsToQuantize > 1 || slots.size() > 1 ? quantWork * 4 : 0);
    }

    // Work: blocks of kRowBlock rows over all tasks.
    firstBlock.assign(static_cast<size_t>(nTasks) + 1, 0);
    int64_t work = 0;
    for (int i = 0; i < nTasks; ++i) {
        const model::TensorView &W = *tasks[i].W;
        firstBlock[static_cast<size_t>(i) + 1] = firstBlock[static_cast<size_t>(i)] + (W.ne1 + kRowBlock - 1) / kRowBlock;
        work += W.ne1 * W.ne0 * tasks[i].nTokens;
    }
    const int64_t nBlocks = firstBlock.back();
    // Threads take chunks of blocks from a shared counter, each chunk a
    // share of what is left (guided scheduling: large contiguous runs first,
    // single groups at the end): a thread slowed by the memory system or the
    // OS does less, and the last chunks are small, so nobody waits long for
    // the slowest. Which thread computes a block never changes its result.
    std::atomic<int64_t> nextBlock{0};
    const int64_t divisor = 2 * pool.size();
    pool.run([&](int, int) {
        float tmp[kTokenChunk];
        int64_t b0 = nextBlock.load(std::memory_order_relaxed);
        int j = 0;
        for (;;) {
            if (b0 >= nBlocks)
                break;
            const int64_t take = std::max<int64_t>(1, (nBlocks - b0) / divisor);
            if (!nextBlock.compare_exchange_weak(b0, b0 + take, std::memory_order_relaxed))
                continue;   // b0 now holds the current counter
            const int64_t b1 = std::min(nBlocks, b0 + take);
            for (int64_t b = b0; b < b1; ++b) {
                while (j > 0 && b < firstBlock[static_cast<size_t>(j)])
                    --j;
                while (j + 1 < nTasks && b >= firstBlock[static_cast<size_t>(j) + 1])
                    ++j;
                const MatmulTask &task = tasks[j];
                const InputSlot &sl = slots[static_cast<size_t>(slotOf[static_cast<size_t>(j)])];
                const model::TensorView &W = *task.W;
                const int64_t N = W.ne1, K = W.ne0, nTokens = task.nTokens;
                float *y = task.y;
                const float *bias = task.bias;
                const int64_t jobEnd = firstBlock[static_cast<size_t>(j) + 1];
                const int64_t r0 = (b - firstBlock[static_cast<size_t>(j)]) * kRowBlock, r1 = std::min(N, r0 + kRowBlock);
                // Tokens below nGemm take the reference's batch-kernel form.
                const int64_t nGemm = gemmTokens(task, invariant);
                if (sl.packedType != GgmlType::GGML_TYPE_F32) {
                    // This task's run of groups in [b, b1) at once (16 rows per block).
                    const int64_t bEnd = std::min(b1, jobEnd);
                    const int64_t g0 = b - firstBlock[static_cast<size_t>(j)], g1 = bEnd - firstBlock[static_cast<size_t>(j)];
                    if (W.packed)
                        quant::packedMatmul(*W.packed, g0, g1, sl.packed, nTokens, nGemm, y, static_cast<size_t>(N));
                    else
                        quant::iqTileMatmul(W.type, W.data, W.rowBytes, K, N, g0, g1, sl.packed, nTokens, y,
                                            static_cast<size_t>(N));
                    finishRows(y, N, nTokens, g0 * kRowBlock, std::min(N, g1 * kRowBlock), W.outScale, bias);
                    b = bEnd - 1;
                    continue;
                }
                if (nTokens == 1) {
                    const quant::VecDotFn dot = nGemm > 0 ? W.traits->vecDotGemm : W.traits->vecDot;
                    for (int64_t r = r0; r < r1; ++r)
                        dot(K, &y[r], W.row(r), sl.act);
                } else {
                    for (int64_t t0 = 0; t0 < nTokens; t0 += kTokenChunk) {
                        const int nt = static_cast<int>(std::min<int64_t>(kTokenChunk, nTokens - t0));
                        const int ng = static_cast<int>(std::clamp<int64_t>(nGemm - t0, 0, nt));
                        const uint8_t *a = sl.act + static_cast<size_t>(t0) * sl.actBytes;
                        for (int64_t r = r0; r < r1; ++r) {
                            if (ng > 0)
                                W.traits->vecDotMultiGemm(K, tmp, W.row(r), a, sl.actBytes, ng);
                            if (ng < nt)
                                W.traits->vecDotMulti(K, tmp + ng, W.row(r), a + static_cast<size_t>(ng) * sl.actBytes,
                                                      sl.actBytes, nt - ng);
                            for (int t = 0; t < nt; ++t)
                                y[(t0 + t) * N + r] = tmp[t];
                        }
                    }
                }
                finishRows(y, N, nTokens, r0, r1, W.outScale, bias);
            }
            b0 = nextBlock.load(std::memory_order_relaxed);
        }
    }, work);
}

void matmulGroup(ThreadPool &pool, const MatmulJob *jobs, int nJobs, const float *x, int64_t nTokens,
                 uint8_t *scratch)
{
    MatmulTask tasks[8];
    for (int i = 0; i < nJobs; i += 8) {
        const int n = std::min(8, nJobs - i);
        for (int j = 0; j < n; ++j)
            tasks[j] = {jobs[i + j].W, x, nTokens, jobs[i + j].y, jobs[i + j].bias};
        matmulTasks(pool, tasks, n, scratch);
    }
}

void matmul(ThreadPool &pool, const model::TensorView &W, const float *x, int64_t nTokens, float *y,
            uint8_t *scratch, const float *bias)
{
    const MatmulJob job{&W, y, bias};
    matmulGroup(pool, &job, 1, x, nTokens, scratch);
}

void dequantizeRow(const model::TensorView &W, int64_t r, float *dst)
{
    W.traits->dequantize(W.row(r), dst, W.ne0);
}

} // namespace burrow::runtime
