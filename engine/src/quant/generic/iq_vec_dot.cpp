// Scalar dot products of the lattice i-quants with Q8_K rows: the integer
// lanes and float steps of the reference's x86 kernels (iq_kernels.h states
// them). This file is compiled with -ffp-contract=off; the fused
// multiply-adds are written out.
#include "quant/generic/iq_kernels.h"

#include "quant/generic/generic_kernels.h"
#include "quant/quant_blocks.h"

#include <cmath>

namespace burrow::quant::generic {

void iqLanes(const IqSuperBlock &b, const int8_t *q8, int32_t lane[8], int32_t shiftLane[8])
{
    for (int m = 0; m < 8; ++m)
        lane[m] = shiftLane[m] = 0;
    for (int e = 0; e < QK_K; ++e) {
        const int m = (e / 4) % 8;
        const int s = b.scale[e / 16];
        lane[m] += s * (b.w[e] * q8[e]);
        shiftLane[m] += s * (b.shift[e / 8] * q8[e]);
    }
}

void iqAccumulate(GgmlType type, IqAccumulator &a, float dw, float da, const int32_t lane[8], const int32_t shiftLane[8])
{
    const float d = dw * da;
    for (int m = 0; m < 8; ++m)
        a.acc[m] = std::fma(d, static_cast<float>(lane[m]), a.acc[m]);
    if (type == GgmlType::GGML_TYPE_IQ1_S) {
        int32_t total = 0;
        for (int m = 0; m < 8; ++m)
            total += shiftLane[m];
        a.accShift1 = std::fma(d, static_cast<float>(total), a.accShift1);
    } else if (type == GgmlType::GGML_TYPE_IQ1_M) {
        for (int m = 0; m < 8; ++m)
            a.accShift[m] = std::fma(d, static_cast<float>(shiftLane[m]), a.accShift[m]);
    }
}

float iqFinish(GgmlType type, const IqAccumulator &a)
{
    const float h = hsum8(a.acc);
    if (type == GgmlType::GGML_TYPE_IQ1_S)
        return h + 0.125f * a.accShift1;
    if (type == GgmlType::GGML_TYPE_IQ1_M)
        return h + 0.125f * hsum8(a.accShift);
    return iqFinalScale(type) * h;
}

namespace {

// IQ1_S's shift term as the reference takes it, from the activations' sums
// of 16 (equal to the lanes' total for any Q8_K row whose sums are right):
// shiftLane[0] = sum over 32s of scale * sign * (bsums[2ib] + bsums[2ib + 1]).
void iq1sShiftFromSums(const IqSuperBlock &b, const int16_t *bsums, int32_t shiftLane[8])
{
    int32_t total = 0;
    for (int ib = 0; ib < 8; ++ib)
        total += b.scale[2 * ib] * b.shift[4 * ib] * (bsums[2 * ib] + bsums[2 * ib + 1]);
    shiftLane[0] = total;
    for (int m = 1; m < 8; ++m)
        shiftLane[m] = 0;
}

template <GgmlType Type>
void iqDot(int64_t n, float *s, const void *vx, const void *vy)
{
    const IqDecodeFn decode = iqDecoder(Type);
    const size_t blockBytes = ggmlTypeInfo(Type)->typeSize;
    const auto *x = static_cast<const uint8_t *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    IqAccumulator acc;
    IqSuperBlock b;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        decode(x + static_cast<size_t>(i) * blockBytes, &b);
        int32_t lane[8], shiftLane[8];
        iqLanes(b, y[i].qs, lane, shiftLane);
        if constexpr (Type == GgmlType::GGML_TYPE_IQ1_S)
            iq1sShiftFromSums(b, y[i].bsums, shiftLane);
        iqAccumulate(Type, acc, b.d, y[i].d, lane, shiftLane);
    }
    *s = iqFinish(Type, acc);
}

} // namespace

void vecDotIQ2_XXSQ8_K(int64_t n, float *s, const void *x, const void *y) { iqDot<GgmlType::GGML_TYPE_IQ2_XXS>(n, s, x, y); }
void vecDotIQ2_XSQ8_K(int64_t n, float *s, const void *x, const void *y) { iqDot<GgmlType::GGML_TYPE_IQ2_XS>(n, s, x, y); }
void vecDotIQ2_SQ8_K(int64_t n, float *s, const void *x, const void *y) { iqDot<GgmlType::GGML_TYPE_IQ2_S>(n, s, x, y); }
void vecDotIQ3_XXSQ8_K(int64_t n, float *s, const void *x, const void *y) { iqDot<GgmlType::GGML_TYPE_IQ3_XXS>(n, s, x, y); }
void vecDotIQ3_SQ8_K(int64_t n, float *s, const void *x, const void *y) { iqDot<GgmlType::GGML_TYPE_IQ3_S>(n, s, x, y); }
void vecDotIQ1_SQ8_K(int64_t n, float *s, const void *x, const void *y) { iqDot<GgmlType::GGML_TYPE_IQ1_S>(n, s, x, y); }
void vecDotIQ1_MQ8_K(int64_t n, float *s, const void *x, const void *y) { iqDot<GgmlType::GGML_TYPE_IQ1_M>(n, s, x, y); }

} // namespace burrow::quant::generic
