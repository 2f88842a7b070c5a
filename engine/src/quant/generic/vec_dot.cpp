// Scalar dot products of a weight row with its activation partner row (see
// generic_kernels.h). Integer sums are exact, so only the float steps must
// follow the reference; each function's float expression mirrors the
// reference's generic kernel, including where partial sums are kept
// (the K-quants keep 8 float partial sums, one per element index mod 8).
#include "quant/generic/generic_kernels.h"

#include "quant/quant_blocks.h"

#include <cstring>

namespace burrow::quant::generic {

void vecDotF32(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const float *>(vx);
    const auto *y = static_cast<const float *>(vy);
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i)
        sum += static_cast<double>(x[i] * y[i]);
    *s = static_cast<float>(sum);
}

void vecDotF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const fp16_t *>(vx);
    const auto *y = static_cast<const fp16_t *>(vy);
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i)
        sum += static_cast<double>(fp16ToFp32(x[i]) * fp16ToFp32(y[i]));
    *s = static_cast<float>(sum);
}

void vecDotBF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const bf16_t *>(vx);
    const auto *y = static_cast<const bf16_t *>(vy);
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i)
        sum += static_cast<double>(bf16ToFp32(x[i]) * bf16ToFp32(y[i]));
    *s = static_cast<float>(sum);
}

void vecDotQ4_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ4_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float sum = 0.0f;
    for (int64_t ib = 0; ib < n / QK8_0; ++ib) {
        int sumi = 0;
        for (int j = 0; j < QK8_0 / 2; ++j) {
            sumi += ((x[ib].qs[j] & 0x0f) - 8) * y[ib].qs[j];
            sumi += ((x[ib].qs[j] >> 4) - 8) * y[ib].qs[j + QK8_0 / 2];
        }
        sum += static_cast<float>(sumi) * fp16ToFp32(x[ib].d) * fp16ToFp32(y[ib].d);
    }
    *s = sum;
}

void vecDotQ4_1Q8_1(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ4_1 *>(vx);
    const auto *y = static_cast<const BlockQ8_1 *>(vy);
    float sum = 0.0f;
    for (int64_t ib = 0; ib < n / QK8_1; ++ib) {
        int sumi = 0;
        for (int j = 0; j < QK8_1 / 2; ++j) {
            sumi += (x[ib].qs[j] & 0x0f) * y[ib].qs[j];
            sumi += (x[ib].qs[j] >> 4) * y[ib].qs[j + QK8_1 / 2];
        }
        sum += (fp16ToFp32(x[ib].d) * fp16ToFp32(y[ib].d)) * static_cast<float>(sumi)
             + fp16ToFp32(x[ib].m) * fp16ToFp32(y[ib].s);
    }
    *s = sum;
}

static inline uint32_t loadQh(const uint8_t qh[4])
{
    uint32_t v;
    std::memcpy(&v, qh, 4);
    return v;
}

void vecDotQ5_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ5_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float sum = 0.0f;
    for (int64_t ib = 0; ib < n / QK8_0; ++ib) {
        const uint32_t qh = loadQh(x[ib].qh);
        int sumi = 0;
        for (int j = 0; j < QK8_0 / 2; ++j) {
            const int x0 = ((x[ib].qs[j] & 0x0f) | static_cast<int>(((qh >> j) & 1u) << 4)) - 16;
            const int x1 = ((x[ib].qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4)) - 16;
            sumi += x0 * y[ib].qs[j] + x1 * y[ib].qs[j + QK8_0 / 2];
        }
        sum += (fp16ToFp32(x[ib].d) * fp16ToFp32(y[ib].d)) * static_cast<float>(sumi);
    }
    *s = sum;
}

void vecDotQ5_1Q8_1(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ5_1 *>(vx);
    const auto *y = static_cast<const BlockQ8_1 *>(vy);
    float sum = 0.0f;
    for (int64_t ib = 0; ib < n / QK8_1; ++ib) {
        const uint32_t qh = loadQh(x[ib].qh);
        int sumi = 0;
        for (int j = 0; j < QK8_1 / 2; ++j) {
            const int x0 = (x[ib].qs[j] & 0x0f) | static_cast<int>(((qh >> j) & 1u) << 4);
            const int x1 = (x[ib].qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
            sumi += x0 * y[ib].qs[j] + x1 * y[ib].qs[j + QK8_1 / 2];
        }
        sum += (fp16ToFp32(x[ib].d) * fp16ToFp32(y[ib].d)) * static_cast<float>(sumi)
             + fp16ToFp32(x[ib].m) * fp16ToFp32(y[ib].s);
    }
    *s = sum;
}

void vecDotQ8_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ8_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float sum = 0.0f;
    for (int64_t ib = 0; ib < n / QK8_0; ++ib) {
        int sumi = 0;
        for (int j = 0; j < QK8_0; ++j)
            sumi += x[ib].qs[j] * y[ib].qs[j];
        sum += static_cast<float>(sumi) * (fp16ToFp32(x[ib].d) * fp16ToFp32(y[ib].d));
    }
    *s = sum;
}

void vecDotIQ4_NLQ8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockIQ4_NL *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float sum = 0.0f;
    for (int64_t ib = 0; ib < n / QK4_NL; ++ib) {
        const float d = fp16ToFp32(y[ib].d) * fp16ToFp32(x[ib].d);
        int sumi = 0;
        for (int j = 0; j < QK4_NL / 2; ++j) {
            sumi += y[ib].qs[j] * kValuesIq4nl[x[ib].qs[j] & 0xf];
            sumi += y[ib].qs[j + QK4_NL / 2] * kValuesIq4nl[x[ib].qs[j] >> 4];
        }
        sum += d * static_cast<float>(sumi);
    }
    *s = sum;
}

// The reference's generic kernel: per block d = fp16(y.d) * e8m0Half(x.e),
// then sum += d * (low-half sum + high-half sum).
void vecDotMXFP4Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockMXFP4 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float sum = 0.0f;
    for (int64_t ib = 0; ib < n / QK_MXFP4; ++ib) {
        const float d = fp16ToFp32(y[ib].d) * e8m0ToFp32Half(x[ib].e);
        int sumi1 = 0, sumi2 = 0;
        for (int j = 0; j < QK_MXFP4 / 2; ++j) {
            sumi1 += y[ib].qs[j] * kValuesMxfp4[x[ib].qs[j] & 0xf];
            sumi2 += y[ib].qs[j + QK_MXFP4 / 2] * kValuesMxfp4[x[ib].qs[j] >> 4];
        }
        sum += d * static_cast<float>(sumi1 + sumi2);
    }
    *s = sum;
}

void vecDotQ2_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ2_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float sum = 0.0f;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const uint8_t *q2 = x[i].qs;
        const int8_t *q8 = y[i].qs;
        const uint8_t *sc = x[i].scales;
        int summs = 0;
        for (int j = 0; j < 16; ++j)
            summs += y[i].bsums[j] * (sc[j] >> 4);
        const float dall = y[i].d * fp16ToFp32(x[i].d);
        const float dmin = y[i].d * fp16ToFp32(x[i].dmin);
        int isum = 0;
        int is = 0;
        for (int half = 0; half < 2; ++half, q2 += 32) {
            for (int shift = 0; shift < 8; shift += 2, q8 += 32) {
                for (int part = 0; part < 2; ++part) {
                    const int d = sc[is++] & 0xf;
                    int isuml = 0;
                    for (int l = 16 * part; l < 16 * part + 16; ++l)
                        isuml += q8[l] * ((q2[l] >> shift) & 3);
                    isum += d * isuml;
                }
            }
        }
        sum += dall * static_cast<float>(isum) - dmin * static_cast<float>(summs);
    }
    *s = sum;
}

void vecDotQ3_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ3_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float sums[8] = {};
    for (int64_t i = 0; i < n / QK_K; ++i) {
        int8_t scales[16];
        unpackQ3KScales(x[i].scales, scales);
        const uint8_t *q3 = x[i].qs;
        const uint8_t *hm = x[i].hmask;
        const int8_t *q8 = y[i].qs;
        int32_t aux32[8] = {};
        // element e = 128*half + 32*k + l: low bits (q3[32*half + l] >> 2k) & 3,
        // high bit (hm[l] >> (4*half + k)) & 1; sub-block of 16 is e / 16.
        for (int e = 0; e < QK_K; ++e) {
            const int half = e / 128, k = (e / 32) % 4, l = e % 32;
            const int q = ((q3[32 * half + l] >> (2 * k)) & 3) - (((hm[l] >> (4 * half + k)) & 1) ? 0 : 4);
            aux32[e % 8] += scales[e / 16] * (q * q8[e]);
        }
        const float d = fp16ToFp32(x[i].d) * y[i].d;
        for (int l = 0; l < 8; ++l)
            sums[l] += d * static_cast<float>(aux32[l]);
    }
    float sum = 0.0f;
    for (int l = 0; l < 8; ++l)
        sum += sums[l];
    *s = sum;
}

// Q4_K/Q5_K shared tail: 8 lane sums of scale * q * q8 (lane = element % 8),
// and the min correction from the activation block sums.
static inline void kQuantLanes(const int8_t *q /* 256 levels */, const uint8_t *scales12, const BlockQ8_K &y,
                               int32_t aux32[8], int *sumMins)
{
    uint8_t sc[8], mn[8];
    for (int j = 0; j < 8; ++j)
        getScaleMinK4(j, scales12, &sc[j], &mn[j]);
    int sumi = 0;
    for (int j = 0; j < QK_K / 16; ++j)
        sumi += y.bsums[j] * mn[j / 2];
    *sumMins = sumi;
    for (int l = 0; l < 8; ++l)
        aux32[l] = 0;
    for (int e = 0; e < QK_K; ++e)
        aux32[e % 8] += sc[e / 32] * (q[e] * y.qs[e]);
}

void vecDotQ4_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ4_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float sums[8] = {};
    float sum = 0.0f;
    int8_t q[QK_K];
    for (int64_t i = 0; i < n / QK_K; ++i) {
        for (int c = 0; c < 4; ++c) {
            for (int l = 0; l < 32; ++l) {
                q[64 * c + l] = static_cast<int8_t>(x[i].qs[32 * c + l] & 0xf);
                q[64 * c + 32 + l] = static_cast<int8_t>(x[i].qs[32 * c + l] >> 4);
            }
        }
        int32_t aux32[8];
        int sumMins;
        kQuantLanes(q, x[i].scales, y[i], aux32, &sumMins);
        const float d = fp16ToFp32(x[i].d) * y[i].d;
        for (int l = 0; l < 8; ++l)
            sums[l] += d * static_cast<float>(aux32[l]);
        const float dmin = fp16ToFp32(x[i].dmin) * y[i].d;
        sum -= dmin * static_cast<float>(sumMins);
    }
    for (int l = 0; l < 8; ++l)
        sum += sums[l];
    *s = sum;
}

void vecDotQ5_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ5_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float sums[8] = {};
    float sum = 0.0f;
    int8_t q[QK_K];
    for (int64_t i = 0; i < n / QK_K; ++i) {
        for (int c = 0; c < 4; ++c) {
            const int b0 = 2 * c, b1 = 2 * c + 1;
            for (int l = 0; l < 32; ++l) {
                const uint8_t ql = x[i].qs[32 * c + l];
                const uint8_t qh = x[i].qh[l];
                q[64 * c + l] = static_cast<int8_t>((ql & 0xf) | (((qh >> b0) & 1) << 4));
                q[64 * c + 32 + l] = static_cast<int8_t>((ql >> 4) | (((qh >> b1) & 1) << 4));
            }
        }
        int32_t aux32[8];
        int sumMins;
        kQuantLanes(q, x[i].scales, y[i], aux32, &sumMins);
        const float d = fp16ToFp32(x[i].d) * y[i].d;
        for (int l = 0; l < 8; ++l)
            sums[l] += d * static_cast<float>(aux32[l]);
        const float dmin = fp16ToFp32(x[i].dmin) * y[i].d;
        sum -= dmin * static_cast<float>(sumMins);
    }
    for (int l = 0; l < 8; ++l)
        sum += sums[l];
    *s = sum;
}

void vecDotQ6_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ6_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float sums[8] = {};
    int8_t q[QK_K];
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const uint8_t *ql = x[i].ql;
        const uint8_t *qh = x[i].qh;
        for (int half = 0; half < 2; ++half, ql += 64, qh += 32) {
            int8_t *a = q + 128 * half;
            for (int l = 0; l < 32; ++l) {
                a[l] = static_cast<int8_t>(((ql[l] & 0xf) | (((qh[l] >> 0) & 3) << 4)) - 32);
                a[l + 32] = static_cast<int8_t>(((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32);
                a[l + 64] = static_cast<int8_t>(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
                a[l + 96] = static_cast<int8_t>(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
            }
        }
        int32_t aux32[8] = {};
        for (int e = 0; e < QK_K; ++e)
            aux32[e % 8] += x[i].scales[e / 16] * (q[e] * y[i].qs[e]);
        const float d = fp16ToFp32(x[i].d) * y[i].d;
        for (int l = 0; l < 8; ++l)
            sums[l] += d * static_cast<float>(aux32[l]);
    }
    float sum = 0.0f;
    for (int l = 0; l < 8; ++l)
        sum += sums[l];
    *s = sum;
}

void vecDotIQ4_XSQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockIQ4_XS *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float sum = 0.0f;
    for (int64_t ibl = 0; ibl < n / QK_K; ++ibl) {
        const float d4d8 = fp16ToFp32(x[ibl].d) * y[ibl].d;
        const uint8_t *qs = x[ibl].qs;
        const int8_t *q8 = y[ibl].qs;
        for (int ib = 0; ib < QK_K / 32; ++ib, qs += 16, q8 += 32) {
            const int ls = ((x[ibl].scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf)
                         | (((x[ibl].scales_h >> (2 * ib)) & 3) << 4);
            const float dl = d4d8 * static_cast<float>(ls - 32);
            int sumi = 0;
            for (int j = 0; j < 16; ++j) {
                sumi += q8[j] * kValuesIq4nl[qs[j] & 0xf];
                sumi += q8[j + 16] * kValuesIq4nl[qs[j] >> 4];
            }
            sum += dl * static_cast<float>(sumi);
        }
    }
    *s = sum;
}

} // namespace burrow::quant::generic
