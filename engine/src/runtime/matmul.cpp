#include "runtime/matmul.h"

#include "runtime/thread_pool.h"
#include "quant/quant_traits.h"

#include <algorithm>

namespace burrow::runtime {

namespace {

// Rows per work block: a block of weight rows stays in cache while all the
// tokens pass over it.
constexpr int64_t kRowBlock = 16;

bool activationIsF32(const model::TensorView &W)
{
    return W.traits->vecDotType == GgmlType::GGML_TYPE_F32;
}

size_t activationRowBytes(const model::TensorView &W)
{
    size_t bytes = 0;
    ggmlRowBytes(W.traits->vecDotType, W.ne0, &bytes);
    return bytes;
}

} // namespace

size_t matmulScratchBytes(const model::TensorView &W, int64_t nTokens)
{
    if (activationIsF32(W))
        return 0;
    return activationRowBytes(W) * static_cast<size_t>(nTokens);
}

void matmul(ThreadPool &pool, const model::TensorView &W, const float *x, int64_t nTokens, float *y,
            uint8_t *scratch, const float *bias)
{
    const int64_t K = W.ne0, N = W.ne1;
    const quant::TypeTraits *traits = W.traits;
    const bool f32 = activationIsF32(W);
    const size_t actBytes = f32 ? K * sizeof(float) : activationRowBytes(W);
    const uint8_t *act = f32 ? reinterpret_cast<const uint8_t *>(x) : scratch;
    const quant::QuantizeRowFn quantize = f32 ? nullptr : quant::typeTraits(traits->vecDotType)->quantize;
    const quant::VecDotFn vecDot = traits->vecDot;
    const int64_t nBlocks = (N + kRowBlock - 1) / kRowBlock;

    if (!f32) {
        pool.run([&](int ith, int nth) {
            int64_t t0, t1;
            ThreadPool::split(nTokens, ith, nth, &t0, &t1);
            for (int64_t t = t0; t < t1; ++t)
                quantize(x + t * K, scratch + t * actBytes, K);
        }, nTokens > 1 ? nTokens * K * 4 : 0);
    }

    pool.run([&](int ith, int nth) {
        int64_t b0, b1;
        ThreadPool::split(nBlocks, ith, nth, &b0, &b1);
        for (int64_t b = b0; b < b1; ++b) {
            const int64_t r0 = b * kRowBlock, r1 = std::min(N, r0 + kRowBlock);
            for (int64_t t = 0; t < nTokens; ++t) {
                const uint8_t *a = act + t * actBytes;
                float *yt = y + t * N;
                for (int64_t r = r0; r < r1; ++r)
                    vecDot(K, &yt[r], W.row(r), a);
                if (bias)
                    for (int64_t r = r0; r < r1; ++r)
                        yt[r] += bias[r];
            }
        }
    }, N * K * nTokens);
}

void dequantizeRow(const model::TensorView &W, int64_t r, float *dst)
{
    W.traits->dequantize(W.row(r), dst, W.ne0);
}

} // namespace burrow::runtime
