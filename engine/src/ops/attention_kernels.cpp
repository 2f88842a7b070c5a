#include "ops/attention_kernels.h"

#include "ops/flash_attention.h"

#include "ops/generic/generic_kernels.h"
#include "ops/kernels.h"

namespace burrow::ops {

void attendHeadScalar(const AttentionHead &h, const float *q, float *scores, uint16_t *probs, float *out)
{
    generic::attendHead(h, q, scores, probs, out);
}

void attendHead(const AttentionHead &h, const float *q, float *scores, uint16_t *probs, float *out)
{
    kernels().attendHead(h, q, scores, probs, out);
}

void attendHeads(const AttentionHead &h, int nHeads, const float *const *q, float *const *out, float *scores,
                 size_t scoresStride, uint16_t *probs, size_t probsStride, const float *sinks)
{
    kernels().attendHeads(h, nHeads, q, out, scores, scoresStride, probs, probsStride, sinks);
}

int attendBlockQueries(int d)
{
    if (d != 64 && d != 128)
        return 0;
    return kernels().attendBlockQueries;
}

bool attendBlock(const AttentionBlock &b, float *scratch)
{
    const Kernels &k = kernels();
    if (!k.attendBlock || (b.d != 64 && b.d != 128) || b.nq < 1 || b.nq > k.attendBlockQueries)
        return false;
    k.attendBlock(b, scratchLine(scratch));   // 16 floats of slack: see attention_kernels.h
    return true;
}

} // namespace burrow::ops
