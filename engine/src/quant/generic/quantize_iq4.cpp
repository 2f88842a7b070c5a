// Scalar quantizers of the non-linear 4-bit types IQ4_NL and IQ4_XS, without an
// importance matrix: the same bytes as the reference engine's quantize_iq4_nl
// and quantize_iq4_xs (what llama-quantize writes; its quantize_row_iq4_nl_ref
// makes no scale search, which llama-quantize does not use).
//
// Per block of 32 (IQ4_NL) or per super-block of 8 x 32 (IQ4_XS): each
// sub-block gets the scale d that best fits x ~ d * kValuesIq4nl[L] in
// weighted least squares (weights x^2), searched over 15 candidate scales
// around the one that maps the element of largest magnitude to the codebook's
// end; IQ4_XS then stores the sub-block scales as 6-bit multiples of one
// half-float super-block scale and re-picks the codes for the rounded scales.
// Cost: about 16 codebook searches (4 compares each) per element.
#include "quant/generic/generic_kernels.h"

#include "quant/quant_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace burrow::quant::generic {

namespace {

constexpr float kGroupMaxEps = 1e-15f;   // sub-blocks below this magnitude get scale 0
constexpr int kScaleTries = 7;           // candidate scales -7..7 around the first guess

// kInterval[i + 127] = the k with kValuesIq4nl[k] <= i < kValuesIq4nl[k + 1],
// for the integers i in [-127, 112]: the codebook values are integers, so
// floor(x) finds the interval holding x.
struct IntervalTable {
    uint8_t at[240];
    constexpr IntervalTable() : at()
    {
        int k = 0;
        for (int i = -127; i <= 112; ++i) {
            while (k < 14 && kValuesIq4nl[k + 1] <= i)
                ++k;
            at[i + 127] = static_cast<uint8_t>(k);
        }
    }
};
constexpr IntervalTable kInterval;

// The index of the codebook value nearest x (ties to the lower), exactly as
// the reference's best_index_int8 (a binary search) decides, including its
// float comparison x - val[k] < val[k + 1] - x.
int nearestCode(float x)
{
    const int8_t *val = kValuesIq4nl;
    if (x <= val[0])
        return 0;
    if (x >= val[15])
        return 15;
    int i = static_cast<int>(x);   // toward zero; x in (-127, 113)
    if (static_cast<float>(i) > x)
        --i;                       // floor
    const int k = kInterval.at[i + 127];
    return x - val[k] < val[k + 1] - x ? k : k + 1;
}

// One super-block of `superSize` values (32 for IQ4_NL, 256 for IQ4_XS) in
// sub-blocks of 32. Writes the half scale *dh, the packed codes q4
// (superSize / 2 bytes) and, when there are several sub-blocks, their 6-bit
// scales (scalesH / scalesL as BlockIQ4_XS lays them out).
void quantizeSuperBlock(int superSize, const float *x, fp16_t *dh, uint8_t *q4, uint16_t *scalesH,
                        uint8_t *scalesL)
{
    constexpr int kBlock = 32;
    const int nb = superSize / kBlock;
    float scales[QK_K / kBlock];
    float weight[kBlock];
    uint8_t L[QK_K];
    const int8_t *values = kValuesIq4nl;

    std::memset(q4, 0, static_cast<size_t>(superSize / 2));
    *dh = fp32ToFp16(0.0f);

    float maxScale = 0.0f, amaxScale = 0.0f;
    for (int ib = 0; ib < nb; ++ib) {
        const float *xb = x + ib * kBlock;
        uint8_t *Lb = L + ib * kBlock;
        for (int j = 0; j < kBlock; ++j)
            weight[j] = xb[j] * xb[j];
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < kBlock; ++j) {
            const float ax = std::fabs(xb[j]);
            if (ax > amax) {
                amax = ax;
                max = xb[j];
            }
        }
        if (amax < kGroupMaxEps) {
            scales[ib] = 0.0f;
            continue;
        }
        float d = -max / values[0];
        float id = 1 / d;
        float sumqx = 0.0f, sumq2 = 0.0f;
        for (int j = 0; j < kBlock; ++j) {
            const int l = nearestCode(id * xb[j]);
            Lb[j] = static_cast<uint8_t>(l);
            const float q = values[l];
            const float w = weight[j];
            sumqx += w * q * xb[j];
            sumq2 += w * q * q;
        }
        d = sumq2 > 0 ? sumqx / sumq2 : 0.0f;
        float best = d * sumqx;
        for (int itry = -kScaleTries; itry <= kScaleTries; ++itry) {
            id = static_cast<float>(itry + values[0]) / max;
            sumqx = sumq2 = 0.0f;
            for (int j = 0; j < kBlock; ++j) {
                const float q = values[nearestCode(id * xb[j])];
                const float w = weight[j];
                sumqx += w * q * xb[j];
                sumq2 += w * q * q;
            }
            if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
                d = sumqx / sumq2;
                best = d * sumqx;
            }
        }
        scales[ib] = d;
        const float absD = std::fabs(d);
        if (absD > amaxScale) {
            amaxScale = absD;
            maxScale = d;
        }
    }

    if (nb > 1) {
        *scalesH = 0;
        const float d = -maxScale / 32;
        *dh = fp32ToFp16(d);
        const float id = d != 0.0f ? 1 / d : 0.0f;
        for (int ib = 0; ib < nb; ++ib) {
            int l = nearestInt(id * scales[ib]);
            l = std::max(-32, std::min(31, l));
            const float dl = d * static_cast<float>(l);
            const float idl = dl != 0.0f ? 1 / dl : 0.0f;
            uint8_t *Lb = L + ib * kBlock;
            const float *xb = x + ib * kBlock;
            for (int j = 0; j < kBlock; ++j)
                Lb[j] = static_cast<uint8_t>(nearestCode(idl * xb[j]));
            l += 32;
            const uint8_t lLow = static_cast<uint8_t>(l & 0xf);
            const uint16_t lHigh = static_cast<uint16_t>(l >> 4);
            if (ib % 2 == 0)
                scalesL[ib / 2] = lLow;
            else
                scalesL[ib / 2] = static_cast<uint8_t>(scalesL[ib / 2] | (lLow << 4));
            *scalesH = static_cast<uint16_t>(*scalesH | (lHigh << (2 * ib)));
        }
    } else {
        *dh = fp32ToFp16(scales[0]);
        const float id = scales[0] != 0.0f ? 1 / scales[0] : 0.0f;
        for (int j = 0; j < superSize; ++j)
            L[j] = static_cast<uint8_t>(nearestCode(id * x[j]));
    }

    for (int i = 0; i < superSize / 32; ++i)
        for (int j = 0; j < 16; ++j)
            q4[16 * i + j] = static_cast<uint8_t>(L[32 * i + j] | (L[32 * i + 16 + j] << 4));
}

} // namespace

void quantizeRowIQ4_NL(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockIQ4_NL *>(dst);
    for (int64_t i = 0; i < n / QK4_NL; ++i, src += QK4_NL)
        quantizeSuperBlock(QK4_NL, src, &y[i].d, y[i].qs, nullptr, nullptr);
}

void quantizeRowIQ4_XS(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockIQ4_XS *>(dst);
    for (int64_t i = 0; i < n / QK_K; ++i, src += QK_K) {
        uint16_t scalesH = 0;
        quantizeSuperBlock(QK_K, src, &y[i].d, y[i].qs, &scalesH, y[i].scales_l);
        y[i].scales_h = scalesH;
    }
}

} // namespace burrow::quant::generic
