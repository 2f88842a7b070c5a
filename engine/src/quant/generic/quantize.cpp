// Scalar reference quantizers (see generic_kernels.h). Deterministic: the same
// floats give the same bytes as the reference engine's quantize_row_*_ref.
#include "quant/generic/generic_kernels.h"

#include "quant/quant_blocks.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace burrow::quant::generic {

void quantizeRowF32(const float *src, void *dst, int64_t n)
{
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

void quantizeRowF16(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<fp16_t *>(dst);
    for (int64_t i = 0; i < n; ++i)
        y[i] = fp32ToFp16(src[i]);
}

void quantizeRowBF16(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<bf16_t *>(dst);
    for (int64_t i = 0; i < n; ++i)
        y[i] = fp32ToBf16(src[i]);
}

// Symmetric 4/5-bit: the value of largest magnitude maps to -2^(bits-1).
void quantizeRowQ4_0(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ4_0 *>(dst);
    for (int64_t i = 0; i < n / QK4_0; ++i, src += QK4_0) {
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < QK4_0; ++j) {
            if (amax < std::fabs(src[j])) {
                amax = std::fabs(src[j]);
                max = src[j];
            }
        }
        const float d = max / -8;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = fp32ToFp16(d);
        for (int j = 0; j < QK4_0 / 2; ++j) {
            const float x0 = src[j] * id;
            const float x1 = src[j + QK4_0 / 2] * id;
            const uint8_t q0 = static_cast<uint8_t>(std::min(15, static_cast<int>(static_cast<int8_t>(x0 + 8.5f))));
            const uint8_t q1 = static_cast<uint8_t>(std::min(15, static_cast<int>(static_cast<int8_t>(x1 + 8.5f))));
            y[i].qs[j] = static_cast<uint8_t>(q0 | (q1 << 4));
        }
    }
}

void quantizeRowQ4_1(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ4_1 *>(dst);
    for (int64_t i = 0; i < n / QK4_1; ++i, src += QK4_1) {
        float min = FLT_MAX, max = -FLT_MAX;
        for (int j = 0; j < QK4_1; ++j) {
            if (src[j] < min) min = src[j];
            if (src[j] > max) max = src[j];
        }
        const float d = (max - min) / ((1 << 4) - 1);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = fp32ToFp16(d);
        y[i].m = fp32ToFp16(min);
        for (int j = 0; j < QK4_1 / 2; ++j) {
            const float x0 = (src[j] - min) * id;
            const float x1 = (src[j + QK4_1 / 2] - min) * id;
            const uint8_t q0 = static_cast<uint8_t>(std::min(15, static_cast<int>(static_cast<int8_t>(x0 + 0.5f))));
            const uint8_t q1 = static_cast<uint8_t>(std::min(15, static_cast<int>(static_cast<int8_t>(x1 + 0.5f))));
            y[i].qs[j] = static_cast<uint8_t>(q0 | (q1 << 4));
        }
    }
}

void quantizeRowQ5_0(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ5_0 *>(dst);
    for (int64_t i = 0; i < n / QK5_0; ++i, src += QK5_0) {
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < QK5_0; ++j) {
            if (amax < std::fabs(src[j])) {
                amax = std::fabs(src[j]);
                max = src[j];
            }
        }
        const float d = max / -16;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = fp32ToFp16(d);
        uint32_t qh = 0;
        for (int j = 0; j < QK5_0 / 2; ++j) {
            const float x0 = src[j] * id;
            const float x1 = src[j + QK5_0 / 2] * id;
            const int q0 = std::min(31, static_cast<int>(static_cast<int8_t>(x0 + 16.5f)));
            const int q1 = std::min(31, static_cast<int>(static_cast<int8_t>(x1 + 16.5f)));
            y[i].qs[j] = static_cast<uint8_t>((q0 & 0x0f) | ((q1 & 0x0f) << 4));
            qh |= static_cast<uint32_t>((q0 & 0x10) >> 4) << j;
            qh |= static_cast<uint32_t>((q1 & 0x10) >> 4) << (j + QK5_0 / 2);
        }
        std::memcpy(y[i].qh, &qh, 4);
    }
}

void quantizeRowQ5_1(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ5_1 *>(dst);
    for (int64_t i = 0; i < n / QK5_1; ++i, src += QK5_1) {
        float min = FLT_MAX, max = -FLT_MAX;
        for (int j = 0; j < QK5_1; ++j) {
            if (src[j] < min) min = src[j];
            if (src[j] > max) max = src[j];
        }
        const float d = (max - min) / ((1 << 5) - 1);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = fp32ToFp16(d);
        y[i].m = fp32ToFp16(min);
        uint32_t qh = 0;
        for (int j = 0; j < QK5_1 / 2; ++j) {
            const float x0 = (src[j] - min) * id;
            const float x1 = (src[j + QK5_1 / 2] - min) * id;
            const int q0 = static_cast<uint8_t>(x0 + 0.5f);
            const int q1 = static_cast<uint8_t>(x1 + 0.5f);
            y[i].qs[j] = static_cast<uint8_t>((q0 & 0x0f) | ((q1 & 0x0f) << 4));
            qh |= static_cast<uint32_t>((q0 & 0x10) >> 4) << j;
            qh |= static_cast<uint32_t>((q1 & 0x10) >> 4) << (j + QK5_1 / 2);
        }
        std::memcpy(y[i].qh, &qh, 4);
    }
}

// 8-bit symmetric: d = amax / 127, q = round-half-away(x / d).
void quantizeRowQ8_0(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ8_0 *>(dst);
    for (int64_t i = 0; i < n / QK8_0; ++i, src += QK8_0) {
        float amax = 0.0f;
        for (int j = 0; j < QK8_0; ++j)
            amax = std::max(amax, std::fabs(src[j]));
        const float d = amax / ((1 << 7) - 1);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = fp32ToFp16(d);
        for (int j = 0; j < QK8_0; ++j)
            y[i].qs[j] = static_cast<int8_t>(std::round(src[j] * id));
    }
}

void quantizeRowQ8_1(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ8_1 *>(dst);
    for (int64_t i = 0; i < n / QK8_1; ++i, src += QK8_1) {
        float amax = 0.0f;
        for (int j = 0; j < QK8_1; ++j)
            amax = std::max(amax, std::fabs(src[j]));
        const float d = amax / ((1 << 7) - 1);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = fp32ToFp16(d);
        int sum = 0;
        for (int j = 0; j < QK8_1; ++j) {
            y[i].qs[j] = static_cast<int8_t>(std::round(src[j] * id));
            sum += y[i].qs[j];
        }
        y[i].s = fp32ToFp16(static_cast<float>(sum) * d);
    }
}

// Q8_K: the value of largest magnitude maps to -127 (so d may be negative);
// q = nearest-even(x * iscale), at most 127; bsums over each 16.
void quantizeRowQ8_K(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ8_K *>(dst);
    for (int64_t i = 0; i < n / QK_K; ++i, src += QK_K) {
        float max = 0.0f, amax = 0.0f;
        for (int j = 0; j < QK_K; ++j) {
            const float ax = std::fabs(src[j]);
            if (ax > amax) {
                amax = ax;
                max = src[j];
            }
        }
        if (amax == 0.0f) {
            y[i].d = 0.0f;
            std::memset(y[i].qs, 0, sizeof(y[i].qs));
            std::memset(y[i].bsums, 0, sizeof(y[i].bsums));
            continue;
        }
        const float iscale = -127.f / max;
        for (int j = 0; j < QK_K; ++j)
            y[i].qs[j] = static_cast<int8_t>(std::min(127, nearestInt(iscale * src[j])));
        for (int j = 0; j < QK_K / 16; ++j) {
            int sum = 0;
            for (int l = 0; l < 16; ++l)
                sum += y[i].qs[16 * j + l];
            y[i].bsums[j] = static_cast<int16_t>(sum);
        }
        y[i].d = 1 / iscale;
    }
}

// --- MXFP4 ---

uint8_t bestMxfp4Code(float x, float d)
{
    uint8_t best = 0;
    float bestErr = std::fabs(static_cast<float>(kValuesMxfp4[0]) * d - x);
    for (uint8_t q = 1; q < 16; ++q) {
        const float err = std::fabs(static_cast<float>(kValuesMxfp4[q]) * d - x);
        if (err < bestErr) {
            best = q;
            bestErr = err;
        }
    }
    return best;
}

namespace {

// (uint8_t)(float) as x86 code does it: truncate to int32 (an out-of-range or
// NaN float gives INT32_MIN there), keep the low byte.
uint8_t byteOfFloat(float v)
{
    const int32_t i = v >= -2147483648.0f && v < 2147483648.0f ? static_cast<int32_t>(v) : INT32_MIN;
    return static_cast<uint8_t>(static_cast<uint32_t>(i) & 0xffu);
}

} // namespace

void quantizeRowMXFP4(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockMXFP4 *>(dst);
    for (int64_t i = 0; i < n / QK_MXFP4; ++i) {
        const float *x = src + i * QK_MXFP4;
        float amax = 0.0f;
        for (int j = 0; j < QK_MXFP4; ++j)
            if (amax < std::fabs(x[j]))
                amax = std::fabs(x[j]);
        const uint8_t e = amax > 0.0f ? byteOfFloat(std::floor(std::log2(amax)) - 2 + 127) : 0;
        const float d = e8m0ToFp32Half(e);
        y[i].e = e;
        for (int j = 0; j < QK_MXFP4 / 2; ++j)
            y[i].qs[j] = static_cast<uint8_t>(bestMxfp4Code(x[j], d) | (bestMxfp4Code(x[j + QK_MXFP4 / 2], d) << 4));
    }
}

// --- K-quant weight quantizers (no importance matrix) ---

namespace {

// Least-squares fit of x ~ scale * L + min (L in 0..nmax, min <= 0) over a
// sweep of candidate scales, weighted. Returns the scale; *theMin = -min.
float makeQkx2Quants(int n, int nmax, const float *x, const float *weights, uint8_t *L, float *theMin,
                     uint8_t *Laux, float rmin, float rdelta, int nstep, bool useMad)
{
    float min = x[0], max = x[0];
    float sumW = weights[0];
    float sumX = sumW * x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
        const float w = weights[i];
        sumW += w;
        sumX += w * x[i];
    }
    if (min > 0) min = 0;
    if (max == min) {
        for (int i = 0; i < n; ++i) L[i] = 0;
        *theMin = -min;
        return 0.f;
    }
    float iscale = nmax / (max - min);
    float scale = 1 / iscale;
    float bestError = 0;
    for (int i = 0; i < n; ++i) {
        const int l = nearestInt(iscale * (x[i] - min));
        L[i] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
        float diff = scale * L[i] + min - x[i];
        diff = useMad ? std::fabs(diff) : diff * diff;
        bestError += weights[i] * diff;
    }
    if (nstep < 1) {
        *theMin = -min;
        return scale;
    }
    for (int is = 0; is <= nstep; ++is) {
        iscale = (rmin + rdelta * is + nmax) / (max - min);
        float sumL = 0, sumL2 = 0, sumXL = 0;
        for (int i = 0; i < n; ++i) {
            int l = nearestInt(iscale * (x[i] - min));
            l = std::max(0, std::min(nmax, l));
            Laux[i] = static_cast<uint8_t>(l);
            const float w = weights[i];
            sumL += w * l;
            sumL2 += w * l * l;
            sumXL += w * l * x[i];
        }
        const float D = sumW * sumL2 - sumL * sumL;
        if (D > 0) {
            float thisScale = (sumW * sumXL - sumX * sumL) / D;
            float thisMin = (sumL2 * sumX - sumL * sumXL) / D;
            if (thisMin > 0) {
                thisMin = 0;
                thisScale = sumXL / sumL2;
            }
            float curError = 0;
            for (int i = 0; i < n; ++i) {
                float diff = thisScale * Laux[i] + thisMin - x[i];
                diff = useMad ? std::fabs(diff) : diff * diff;
                curError += weights[i] * diff;
            }
            if (curError < bestError) {
                for (int i = 0; i < n; ++i) L[i] = Laux[i];
                bestError = curError;
                scale = thisScale;
                min = thisMin;
            }
        }
    }
    *theMin = -min;
    return scale;
}

// Symmetric fit x ~ scale * (L - nmax), L in 0..2*nmax-1, weighted by x^2
// (rmse_type 1 of the reference, no importance weights).
float makeQxQuants(int n, int nmax, const float *x, int8_t *L)
{
    float max = 0, amax = 0;
    for (int i = 0; i < n; ++i) {
        const float ax = std::fabs(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    if (amax < 1e-15f) {
        for (int i = 0; i < n; ++i) L[i] = 0;
        return 0.f;
    }
    float iscale = -nmax / max;
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; ++i) {
        int l = nearestInt(iscale * x[i]);
        l = std::max(-nmax, std::min(nmax - 1, l));
        L[i] = static_cast<int8_t>(l + nmax);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * l;
        suml2 += w * l * l;
    }
    float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
    float best = scale * sumlx;
    for (int is = -9; is <= 9; ++is) {
        if (is == 0)
            continue;
        iscale = -(nmax + 0.1f * is) / max;
        sumlx = suml2 = 0;
        for (int i = 0; i < n; ++i) {
            int l = nearestInt(iscale * x[i]);
            l = std::max(-nmax, std::min(nmax - 1, l));
            const float w = x[i] * x[i];
            sumlx += w * x[i] * l;
            suml2 += w * l * l;
        }
        if (suml2 > 0 && sumlx * sumlx > best * suml2) {
            for (int i = 0; i < n; ++i) {
                const int l = nearestInt(iscale * x[i]);
                L[i] = static_cast<int8_t>(nmax + std::max(-nmax, std::min(nmax - 1, l)));
            }
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

// Packs 8 (scale, min) 6-bit pairs into the 12-byte K-quant scale field.
void packScaleMinK4(const uint8_t ls[8], const uint8_t lm[8], uint8_t out[12])
{
    for (int j = 0; j < 8; ++j) {
        if (j < 4) {
            out[j] = ls[j];
            out[j + 4] = lm[j];
        } else {
            out[j + 4] = static_cast<uint8_t>((ls[j] & 0xf) | ((lm[j] & 0xf) << 4));
            out[j - 4] |= static_cast<uint8_t>((ls[j] >> 4) << 6);
            out[j] |= static_cast<uint8_t>((lm[j] >> 4) << 6);
        }
    }
}

// Shared front half of the Q4_K / Q5_K reference quantizers: per-32 fits, the
// 6-bit scale/min codes, and the final levels L (0..nmax) against the stored
// (rounded) scales.
void quantizeKScaleMin(const float *x, int nmax, float rmin, float rdelta, int nstep, uint8_t scalesOut[12],
                       fp16_t *dOut, fp16_t *dminOut, uint8_t L[QK_K])
{
    uint8_t Laux[32];
    float weights[32];
    float mins[QK_K / 32];
    float scales[QK_K / 32];
    float maxScale = 0, maxMin = 0;
    for (int j = 0; j < QK_K / 32; ++j) {
        float sumX2 = 0;
        for (int l = 0; l < 32; ++l) sumX2 += x[32 * j + l] * x[32 * j + l];
        const float avX = std::sqrt(sumX2 / 32);
        for (int l = 0; l < 32; ++l) weights[l] = avX + std::fabs(x[32 * j + l]);
        scales[j] = makeQkx2Quants(32, nmax, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, rmin, rdelta,
                                   nstep, false);
        if (scales[j] > maxScale) maxScale = scales[j];
        if (mins[j] > maxMin) maxMin = mins[j];
    }
    const float invScale = maxScale > 0 ? 63.f / maxScale : 0.f;
    const float invMin = maxMin > 0 ? 63.f / maxMin : 0.f;
    uint8_t ls[8], lm[8];
    for (int j = 0; j < QK_K / 32; ++j) {
        ls[j] = std::min<uint8_t>(63, static_cast<uint8_t>(nearestInt(invScale * scales[j])));
        lm[j] = std::min<uint8_t>(63, static_cast<uint8_t>(nearestInt(invMin * mins[j])));
    }
    std::memset(scalesOut, 0, 12);
    packScaleMinK4(ls, lm, scalesOut);
    *dOut = fp32ToFp16(maxScale / 63.f);
    *dminOut = fp32ToFp16(maxMin / 63.f);
    for (int j = 0; j < QK_K / 32; ++j) {
        uint8_t sc, m;
        getScaleMinK4(j, scalesOut, &sc, &m);
        const float d = fp16ToFp32(*dOut) * sc;
        if (d == 0.0f)
            continue;
        const float dm = fp16ToFp32(*dminOut) * m;
        for (int ii = 0; ii < 32; ++ii) {
            const int l = nearestInt((x[32 * j + ii] + dm) / d);
            L[32 * j + ii] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
        }
    }
}

} // namespace

void quantizeRowQ4_K(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ4_K *>(dst);
    uint8_t L[QK_K];
    for (int64_t i = 0; i < n / QK_K; ++i, src += QK_K) {
        quantizeKScaleMin(src, 15, -1.f, 0.1f, 20, y[i].scales, &y[i].d, &y[i].dmin, L);
        uint8_t *q = y[i].qs;
        for (int j = 0; j < QK_K; j += 64, q += 32)
            for (int l = 0; l < 32; ++l)
                q[l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 4));
    }
}

void quantizeRowQ5_K(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ5_K *>(dst);
    uint8_t L[QK_K];
    for (int64_t i = 0; i < n / QK_K; ++i, src += QK_K) {
        quantizeKScaleMin(src, 31, -0.5f, 0.1f, 15, y[i].scales, &y[i].d, &y[i].dmin, L);
        uint8_t *qh = y[i].qh;
        uint8_t *ql = y[i].qs;
        std::memset(qh, 0, QK_K / 8);
        uint8_t m1 = 1, m2 = 2;
        for (int c = 0; c < QK_K; c += 64, ql += 32, m1 <<= 2, m2 <<= 2) {
            for (int j = 0; j < 32; ++j) {
                int l1 = L[c + j];
                if (l1 > 15) { l1 -= 16; qh[j] |= m1; }
                int l2 = L[c + j + 32];
                if (l2 > 15) { l2 -= 16; qh[j] |= m2; }
                ql[j] = static_cast<uint8_t>(l1 | (l2 << 4));
            }
        }
    }
}

void quantizeRowQ6_K(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ6_K *>(dst);
    int8_t L[QK_K];
    float scales[QK_K / 16];
    for (int64_t i = 0; i < n / QK_K; ++i, src += QK_K) {
        float maxScale = 0, maxAbsScale = 0;
        for (int ib = 0; ib < QK_K / 16; ++ib) {
            const float scale = makeQxQuants(16, 32, src + 16 * ib, L + 16 * ib);
            scales[ib] = scale;
            if (std::fabs(scale) > maxAbsScale) {
                maxAbsScale = std::fabs(scale);
                maxScale = scale;
            }
        }
        if (maxAbsScale < 1e-15f) {
            std::memset(&y[i], 0, sizeof(BlockQ6_K));
            continue;
        }
        const float iscale = -128.f / maxScale;
        y[i].d = fp32ToFp16(1 / iscale);
        for (int ib = 0; ib < QK_K / 16; ++ib)
            y[i].scales[ib] = static_cast<int8_t>(std::min(127, nearestInt(iscale * scales[ib])));
        for (int j = 0; j < QK_K / 16; ++j) {
            const float d = fp16ToFp32(y[i].d) * y[i].scales[j];
            if (d == 0.0f)
                continue;
            for (int ii = 0; ii < 16; ++ii) {
                const int l = nearestInt(src[16 * j + ii] / d);
                L[16 * j + ii] = static_cast<int8_t>(std::max(-32, std::min(31, l)) + 32);
            }
        }
        uint8_t *ql = y[i].ql;
        uint8_t *qh = y[i].qh;
        for (int j = 0; j < QK_K; j += 128, ql += 64, qh += 32) {
            for (int l = 0; l < 32; ++l) {
                const uint8_t q1 = L[j + l] & 0xf;
                const uint8_t q2 = L[j + l + 32] & 0xf;
                const uint8_t q3 = L[j + l + 64] & 0xf;
                const uint8_t q4 = L[j + l + 96] & 0xf;
                ql[l] = static_cast<uint8_t>(q1 | (q3 << 4));
                ql[l + 32] = static_cast<uint8_t>(q2 | (q4 << 4));
                qh[l] = static_cast<uint8_t>((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2)
                                             | ((L[j + l + 64] >> 4) << 4) | ((L[j + l + 96] >> 4) << 6));
            }
        }
    }
}

} // namespace burrow::quant::generic
