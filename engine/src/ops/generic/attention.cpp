// The scalar attention kernel (see attention_kernels.h and generic_kernels.h).
#include "ops/generic/generic_kernels.h"

#include "ops/f16.h"
#include "ops/flash_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace burrow::ops::generic {

void attendHead(const AttentionHead &h, const float *q, float *scores, uint16_t *probs, float *out)
{
    const float *f16 = f16Table();
    const float capInv = h.softcap != 0.0f ? 1.0f / h.softcap : 0.0f;
    float maxScore = -std::numeric_limits<float>::infinity();
    for (uint32_t j = h.first; j <= h.last; ++j) {
        const uint16_t *kj = h.k + kvCell(h.blocks, j) * h.kStride;
        // float products summed in double, as the reference's F16 dot for short rows
        double sd = 0.0;
        for (int d = 0; d < h.dk; ++d)
            sd += static_cast<double>(f16[kj[d]] * q[d]);
        float s = static_cast<float>(sd);
        if (h.softcap != 0.0f)
            s = std::tanh(s * capInv) * h.softcap;
        s *= h.scale;
        scores[j] = s;
        maxScore = std::max(maxScore, s);
    }
    // The sink joins the maximum and the denominator (the reference's
    // soft_max with sinks: max first, then expf(sink - max) added to the sum).
    const bool hasSink = h.sink > kNoSink;
    if (hasSink)
        maxScore = std::max(maxScore, h.sink);
    double sum = 0.0;
    for (uint32_t j = h.first; j <= h.last; ++j) {
        const float e = std::exp(scores[j] - maxScore);
        scores[j] = e;
        sum += e;
    }
    if (hasSink)
        sum += static_cast<double>(std::exp(h.sink - maxScore));
    const float inv = static_cast<float>(1.0 / sum);
    for (uint32_t j = h.first; j <= h.last; ++j)
        probs[j] = f32ToF16(scores[j] * inv);

    double acc[512];
    for (int d0 = 0; d0 < h.dv; d0 += 512) {   // head sizes are far below 512; chunked to stay general
        const int nd = std::min(512, h.dv - d0);
        std::fill(acc, acc + nd, 0.0);
        for (uint32_t j = h.first; j <= h.last; ++j) {
            const float p = f16[probs[j]];
            if (p == 0.0f)
                continue;
            const uint16_t *vj = h.v + kvCell(h.blocks, j) * h.vStride + d0;
            for (int d = 0; d < nd; ++d)
                acc[d] += static_cast<double>(p * f16[vj[d]]);
        }
        for (int d = 0; d < nd; ++d)
            out[d0 + d] = static_cast<float>(acc[d]);
    }
}

void attendHeads(const AttentionHead &h, int nHeads, const float *const *q, float *const *out, float *scores,
                 size_t scoresStride, uint16_t *probs, size_t probsStride, const float *sinks)
{
    AttentionHead one = h;
    for (int g = 0; g < nHeads; ++g) {
        if (sinks)
            one.sink = sinks[g];
        generic::attendHead(one, q[g], scores + g * scoresStride, probs + g * probsStride, out[g]);
    }
}

} // namespace burrow::ops::generic
