#include "runtime/matmul.h"

#include "ops/gemm_q32.h"
#include "runtime/thread_pool.h"
#include "quant/packed.h"
#include "quant/quant_traits.h"

#include <algorithm>
#include <atomic>

namespace burrow::runtime {

using namespace burrow::ops;   // the kernels (ops/)

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

// The packed kernels' side arrays start 64-aligned after the activation rows.
size_t sideOffset(size_t actBytes, int64_t nTokens)
{
    return (actBytes * static_cast<size_t>(nTokens) + 63) & ~size_t{63};
}

} // namespace

size_t matmulScratchBytes(const model::TensorView &W, int64_t nTokens)
{
    if (activationIsF32(W))
        return 0;
    const size_t act = activationRowBytes(W) * static_cast<size_t>(nTokens);
    if (!W.packed)
        return act;
    return sideOffset(activationRowBytes(W), nTokens) + quant::packedSideBytes(W.type, W.ne0, nTokens);
}

void matmulGroup(ThreadPool &pool, const MatmulJob *jobs, int nJobs, const float *x, int64_t nTokens,
                 uint8_t *scratch)
{
    if (nJobs < 1)
        return;
    const model::TensorView &W0 = *jobs[0].W;
    const int64_t K = W0.ne0;
    bool shared = true;   // one quantized activation serves every job
    for (int j = 1; j < nJobs; ++j)
        shared = shared && jobs[j].W->ne0 == K && jobs[j].W->traits->vecDotType == W0.traits->vecDotType;
    if (!shared) {
        for (int j = 0; j < nJobs; ++j)
            matmulGroup(pool, &jobs[j], 1, x, nTokens, scratch);
        return;
    }

    // Activations -> the dot partner, once (and the packed kernels' block
    // scales and sums when a job has packed weights).
    const bool f32 = activationIsF32(W0);
    const size_t actBytes = activationRowBytes(W0);
    const uint8_t *act = f32 ? reinterpret_cast<const uint8_t *>(x) : scratch;
    const model::TensorView *packedW = nullptr;   // a packed job (they share the partner)
    for (int j = 0; j < nJobs; ++j)
        if (jobs[j].W->packed && quant::packedKernelsActive(jobs[j].W->type))
            packedW = jobs[j].W;
    quant::PackedActivation packedAct;
    if (packedW)
        packedAct = quant::packedActivation(packedW->type, K, act, actBytes, nTokens,
                                            scratch + sideOffset(actBytes, nTokens));
    if (!f32) {
        const quant::TypeTraits *partner = quant::typeTraits(W0.traits->vecDotType);
        const quant::QuantizeRowFn quantize = partner->quantizeActivation ? partner->quantizeActivation
                                                                          : partner->quantize;
        pool.run([&](int ith, int nth) {
            int64_t t0, t1;
            ThreadPool::split(nTokens, ith, nth, &t0, &t1);
            for (int64_t t = t0; t < t1; ++t) {
                quantize(x + t * K, scratch + t * actBytes, K);
                if (packedW)
                    quant::preparePackedRow(packedW->type, K, packedAct, t);
            }
        }, nTokens > 1 ? nTokens * K * 4 : 0);
    }

    // Work: blocks of kRowBlock rows over all jobs.
    int64_t firstBlock[4] = {0, 0, 0, 0};
    int64_t nBlocks = 0, work = 0;
    for (int j = 0; j < nJobs && j < 4; ++j) {
        firstBlock[j] = nBlocks;
        nBlocks += (jobs[j].W->ne1 + kRowBlock - 1) / kRowBlock;
        work += jobs[j].W->ne1 * K * nTokens;
    }
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
        for (;;) {
            if (b0 >= nBlocks)
                break;
            const int64_t take = std::max<int64_t>(1, (nBlocks - b0) / divisor);
            if (!nextBlock.compare_exchange_weak(b0, b0 + take, std::memory_order_relaxed))
                continue;   // b0 now holds the current counter
            const int64_t b1 = std::min(nBlocks, b0 + take);
            for (int64_t b = b0; b < b1; ++b) {
                int j = 0;
                while (j + 1 < nJobs && b >= firstBlock[j + 1])
                    ++j;
                const model::TensorView &W = *jobs[j].W;
                const int64_t N = W.ne1;
                float *y = jobs[j].y;
                const float *bias = jobs[j].bias;
                const int64_t r0 = (b - firstBlock[j]) * kRowBlock, r1 = std::min(N, r0 + kRowBlock);
                if (packedW && W.packed && quant::packedKernelsActive(W.type)) {
                    // This job's run of groups in [b, b1) at once (16 rows per block).
                    const int64_t jobEnd = j + 1 < nJobs ? firstBlock[j + 1] : nBlocks;
                    const int64_t bEnd = std::min(b1, jobEnd);
                    const int64_t g0 = b - firstBlock[j], g1 = bEnd - firstBlock[j];
                    quant::packedMatmul(*W.packed, g0, g1, packedAct, nTokens, y, static_cast<size_t>(N));
                    if (bias)
                        for (int64_t t = 0; t < nTokens; ++t)
                            for (int64_t r = g0 * kRowBlock; r < std::min(N, g1 * kRowBlock); ++r)
                                y[t * N + r] += bias[r];
                    b = bEnd - 1;
                    continue;
                }
                if (nTokens == 1) {
                    for (int64_t r = r0; r < r1; ++r)
                        W.traits->vecDot(K, &y[r], W.row(r), act);
                } else if (gemmQ32Supported(W.type, K)) {
                    gemmQ32(W.type, K, W.data, W.rowBytes, r0, r1, act, actBytes, nTokens, y, N);
                } else {
                    for (int64_t t0 = 0; t0 < nTokens; t0 += kTokenChunk) {
                        const int nt = static_cast<int>(std::min<int64_t>(kTokenChunk, nTokens - t0));
                        const uint8_t *a = act + static_cast<size_t>(t0) * actBytes;
                        for (int64_t r = r0; r < r1; ++r) {
                            W.traits->vecDotMulti(K, tmp, W.row(r), a, actBytes, nt);
                            for (int t = 0; t < nt; ++t)
                                y[(t0 + t) * N + r] = tmp[t];
                        }
                    }
                }
                if (bias)
                    for (int64_t t = 0; t < nTokens; ++t)
                        for (int64_t r = r0; r < r1; ++r)
                            y[t * N + r] += bias[r];
            }
            b0 = nextBlock.load(std::memory_order_relaxed);
        }
    }, work);
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
