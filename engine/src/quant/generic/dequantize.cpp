// Scalar dequantization of every supported type (see generic_kernels.h).
// Float expressions follow the reference's dequantize_row_* term by term.
#include "quant/generic/generic_kernels.h"

#include "quant/quant_blocks.h"

#include <cstring>

namespace burrow::quant::generic {

void dequantizeRowF32(const void *src, float *dst, int64_t n)
{
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

void dequantizeRowF16(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const fp16_t *>(src);
    for (int64_t i = 0; i < n; ++i)
        dst[i] = fp16ToFp32(x[i]);
}

void dequantizeRowBF16(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const bf16_t *>(src);
    for (int64_t i = 0; i < n; ++i)
        dst[i] = bf16ToFp32(x[i]);
}

void dequantizeRowQ4_0(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ4_0 *>(src);
    for (int64_t i = 0; i < n / QK4_0; ++i, dst += QK4_0) {
        const float d = fp16ToFp32(x[i].d);
        for (int j = 0; j < QK4_0 / 2; ++j) {
            dst[j] = static_cast<float>((x[i].qs[j] & 0x0f) - 8) * d;
            dst[j + QK4_0 / 2] = static_cast<float>((x[i].qs[j] >> 4) - 8) * d;
        }
    }
}

void dequantizeRowQ4_1(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ4_1 *>(src);
    for (int64_t i = 0; i < n / QK4_1; ++i, dst += QK4_1) {
        const float d = fp16ToFp32(x[i].d);
        const float m = fp16ToFp32(x[i].m);
        for (int j = 0; j < QK4_1 / 2; ++j) {
            dst[j] = static_cast<float>(x[i].qs[j] & 0x0f) * d + m;
            dst[j + QK4_1 / 2] = static_cast<float>(x[i].qs[j] >> 4) * d + m;
        }
    }
}

static inline uint32_t loadQh(const uint8_t qh[4])
{
    uint32_t v;
    std::memcpy(&v, qh, 4);
    return v;
}

void dequantizeRowQ5_0(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ5_0 *>(src);
    for (int64_t i = 0; i < n / QK5_0; ++i, dst += QK5_0) {
        const float d = fp16ToFp32(x[i].d);
        const uint32_t qh = loadQh(x[i].qh);
        for (int j = 0; j < QK5_0 / 2; ++j) {
            const int h0 = static_cast<int>((qh >> j) & 1u) << 4;
            const int h1 = static_cast<int>((qh >> (j + 16)) & 1u) << 4;
            dst[j] = static_cast<float>(((x[i].qs[j] & 0x0f) | h0) - 16) * d;
            dst[j + QK5_0 / 2] = static_cast<float>(((x[i].qs[j] >> 4) | h1) - 16) * d;
        }
    }
}

void dequantizeRowQ5_1(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ5_1 *>(src);
    for (int64_t i = 0; i < n / QK5_1; ++i, dst += QK5_1) {
        const float d = fp16ToFp32(x[i].d);
        const float m = fp16ToFp32(x[i].m);
        const uint32_t qh = loadQh(x[i].qh);
        for (int j = 0; j < QK5_1 / 2; ++j) {
            const int h0 = static_cast<int>((qh >> j) & 1u) << 4;
            const int h1 = static_cast<int>((qh >> (j + 16)) & 1u) << 4;
            dst[j] = static_cast<float>((x[i].qs[j] & 0x0f) | h0) * d + m;
            dst[j + QK5_1 / 2] = static_cast<float>((x[i].qs[j] >> 4) | h1) * d + m;
        }
    }
}

void dequantizeRowQ8_0(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ8_0 *>(src);
    for (int64_t i = 0; i < n / QK8_0; ++i, dst += QK8_0) {
        const float d = fp16ToFp32(x[i].d);
        for (int j = 0; j < QK8_0; ++j)
            dst[j] = static_cast<float>(x[i].qs[j]) * d;
    }
}

void dequantizeRowQ8_1(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ8_1 *>(src);
    for (int64_t i = 0; i < n / QK8_1; ++i, dst += QK8_1) {
        const float d = fp16ToFp32(x[i].d);
        for (int j = 0; j < QK8_1; ++j)
            dst[j] = static_cast<float>(x[i].qs[j]) * d;
    }
}

void dequantizeRowQ2_K(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ2_K *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        const float dmin = fp16ToFp32(x[i].dmin);
        const uint8_t *q = x[i].qs;
        int is = 0;
        for (int half = 0; half < 2; ++half, q += 32) {
            for (int shift = 0; shift < 8; shift += 2) {
                for (int part = 0; part < 2; ++part) {
                    const uint8_t sc = x[i].scales[is++];
                    const float dl = d * static_cast<float>(sc & 0xf);
                    const float ml = dmin * static_cast<float>(sc >> 4);
                    for (int l = 0; l < 16; ++l)
                        *dst++ = dl * static_cast<float>((q[16 * part + l] >> shift) & 3) - ml;
                }
            }
        }
    }
}

void dequantizeRowQ3_K(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ3_K *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float dAll = fp16ToFp32(x[i].d);
        int8_t scales[16];
        unpackQ3KScales(x[i].scales, scales);
        const uint8_t *q = x[i].qs;
        const uint8_t *hm = x[i].hmask;
        uint8_t m = 1;
        int is = 0;
        for (int half = 0; half < 2; ++half, q += 32) {
            for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
                for (int part = 0; part < 2; ++part) {
                    const float dl = dAll * static_cast<float>(scales[is++]);
                    for (int l = 16 * part; l < 16 * part + 16; ++l) {
                        const int v = ((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4);
                        *dst++ = dl * static_cast<float>(v);
                    }
                }
            }
        }
    }
}

void dequantizeRowQ4_K(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ4_K *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        const float dmin = fp16ToFp32(x[i].dmin);
        const uint8_t *q = x[i].qs;
        for (int is = 0; is < 8; is += 2, q += 32) {
            uint8_t sc, m;
            getScaleMinK4(is, x[i].scales, &sc, &m);
            const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
            getScaleMinK4(is + 1, x[i].scales, &sc, &m);
            const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
            for (int l = 0; l < 32; ++l)
                *dst++ = d1 * static_cast<float>(q[l] & 0xf) - m1;
            for (int l = 0; l < 32; ++l)
                *dst++ = d2 * static_cast<float>(q[l] >> 4) - m2;
        }
    }
}

void dequantizeRowQ5_K(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ5_K *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        const float dmin = fp16ToFp32(x[i].dmin);
        const uint8_t *ql = x[i].qs;
        const uint8_t *qh = x[i].qh;
        uint8_t u1 = 1, u2 = 2;
        for (int is = 0; is < 8; is += 2, ql += 32, u1 <<= 2, u2 <<= 2) {
            uint8_t sc, m;
            getScaleMinK4(is, x[i].scales, &sc, &m);
            const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
            getScaleMinK4(is + 1, x[i].scales, &sc, &m);
            const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
            for (int l = 0; l < 32; ++l)
                *dst++ = d1 * static_cast<float>((ql[l] & 0xf) + ((qh[l] & u1) ? 16 : 0)) - m1;
            for (int l = 0; l < 32; ++l)
                *dst++ = d2 * static_cast<float>((ql[l] >> 4) + ((qh[l] & u2) ? 16 : 0)) - m2;
        }
    }
}

void dequantizeRowQ6_K(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ6_K *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        const uint8_t *ql = x[i].ql;
        const uint8_t *qh = x[i].qh;
        const int8_t *sc = x[i].scales;
        for (int half = 0; half < 2; ++half, dst += 128, ql += 64, qh += 32, sc += 8) {
            for (int l = 0; l < 32; ++l) {
                const int is = l / 16;
                const int q1 = ((ql[l] & 0xf) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q2 = ((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                dst[l] = d * static_cast<float>(sc[is + 0]) * static_cast<float>(q1);
                dst[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
                dst[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
                dst[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
            }
        }
    }
}

void dequantizeRowQ8_K(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ8_K *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i, dst += QK_K) {
        for (int j = 0; j < QK_K; ++j)
            dst[j] = x[i].d * static_cast<float>(x[i].qs[j]);
    }
}

void dequantizeRowIQ4_NL(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockIQ4_NL *>(src);
    for (int64_t i = 0; i < n / QK4_NL; ++i, dst += QK4_NL) {
        const float d = fp16ToFp32(x[i].d);
        for (int j = 0; j < QK4_NL / 2; ++j) {
            dst[j] = d * static_cast<float>(kValuesIq4nl[x[i].qs[j] & 0xf]);
            dst[j + QK4_NL / 2] = d * static_cast<float>(kValuesIq4nl[x[i].qs[j] >> 4]);
        }
    }
}

void dequantizeRowMXFP4(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockMXFP4 *>(src);
    for (int64_t i = 0; i < n / QK_MXFP4; ++i, dst += QK_MXFP4) {
        const float d = e8m0ToFp32Half(x[i].e);
        for (int j = 0; j < QK_MXFP4 / 2; ++j) {
            dst[j] = static_cast<float>(kValuesMxfp4[x[i].qs[j] & 0xf]) * d;
            dst[j + QK_MXFP4 / 2] = static_cast<float>(kValuesMxfp4[x[i].qs[j] >> 4]) * d;
        }
    }
}

void dequantizeRowIQ4_XS(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockIQ4_XS *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        const uint8_t *qs = x[i].qs;
        for (int ib = 0; ib < QK_K / 32; ++ib, dst += 32, qs += 16) {
            const int ls = ((x[i].scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf)
                         | (((x[i].scales_h >> (2 * ib)) & 3) << 4);
            const float dl = d * static_cast<float>(ls - 32);
            for (int j = 0; j < 16; ++j) {
                dst[j] = dl * static_cast<float>(kValuesIq4nl[qs[j] & 0xf]);
                dst[j + 16] = dl * static_cast<float>(kValuesIq4nl[qs[j] >> 4]);
            }
        }
    }
}

} // namespace burrow::quant::generic
