// Scalar dot products of a weight row with its activation partner row (see
// generic_kernels.h): the recipes every path follows. Integer sums are exact,
// so only the float steps carry the reference's numerics; each function
// states the float operations of the reference engine's AVX-512 build
// (ggml-cpu's vec_dot kernels, its repacked 8x8 gemv/gemm kernels and
// llamafile's tinyBLAS, as the reference picks them on such a CPU) in their
// order, with the fused multiply-adds written out (this file is compiled
// with -ffp-contract=off). The SIMD kernels in x86/ compute the same steps.
#include "quant/generic/generic_kernels.h"

#include "quant/quant_blocks.h"

#include <cmath>
#include <cstring>

namespace burrow::quant::generic {

float reduce16(const float a[16])
{
    float h[8], q[4];
    for (int i = 0; i < 8; ++i)
        h[i] = a[i + 8] + a[i];
    for (int i = 0; i < 4; ++i)
        q[i] = h[i + 4] + h[i];
    return (q[0] + q[2]) + (q[1] + q[3]);
}

float hsum8(const float a[8])
{
    float r[4];
    for (int i = 0; i < 4; ++i)
        r[i] = a[i + 4] + a[i];
    return (r[0] + r[2]) + (r[1] + r[3]);
}

namespace {

// ggml_vec_dot_f32 / _f16 of the AVX-512 build: 4 accumulators of 16 lanes
// over steps of 64 (sum[j][l] += x[i + 16j + l] y[..], fused), folded as
// (s0 + s2) + (s1 + s3), then reduce16. Returns the folded sum; *done = the
// elements consumed (n & ~63).
template <typename Load>
float vecForm64(int64_t n, Load load, int64_t *done)
{
    const int64_t np = n & ~int64_t{63};
    float sum[4][16] = {};
    for (int64_t i = 0; i < np; i += 64)
        for (int j = 0; j < 4; ++j)
            for (int l = 0; l < 16; ++l) {
                float a, b;
                load(i + 16 * j + l, &a, &b);
                sum[j][l] = std::fma(a, b, sum[j][l]);
            }
    for (int l = 0; l < 16; ++l) {
        sum[0][l] += sum[2][l];
        sum[1][l] += sum[3][l];
    }
    for (int l = 0; l < 16; ++l)
        sum[0][l] += sum[1][l];
    *done = np;
    return reduce16(sum[0]);
}

// tinyBLAS (AVX-512): one accumulator of 16 lanes over steps of 16, fused,
// reduce16; leftovers (callers use it only for n % 16 == 0) fused after it.
template <typename Load>
float gemmForm16(int64_t n, Load load)
{
    float c[16] = {};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int l = 0; l < 16; ++l) {
            float a, b;
            load(i + l, &a, &b);
            c[l] = std::fma(a, b, c[l]);
        }
    float sum = reduce16(c);
    for (; i < n; ++i) {
        float a, b;
        load(i, &a, &b);
        sum = std::fma(a, b, sum);
    }
    return sum;
}

// vdpbf16ps on one 32-bit lane holding elements (e, e + 1): the odd pair's
// product is added first, then the even's, each add rounded (products of two
// bf16 are exact in float, so the fused forms are those adds).
inline float dpbf16Lane(float c, const bf16_t *x, const bf16_t *y, int64_t e)
{
    c = std::fma(bf16ToFp32(x[e + 1]), bf16ToFp32(y[e + 1]), c);
    return std::fma(bf16ToFp32(x[e]), bf16ToFp32(y[e]), c);
}

} // namespace

// ggml_vec_dot_f32: the 64-step form, leftovers fused into the float sum.
void vecDotF32(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const float *>(vx);
    const auto *y = static_cast<const float *>(vy);
    int64_t i = 0;
    float sum = vecForm64(n, [x, y](int64_t k, float *a, float *b) { *a = x[k]; *b = y[k]; }, &i);
    for (; i < n; ++i)
        sum = std::fma(x[i], y[i], sum);
    *s = sum;
}

void vecDotF32Gemm(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const float *>(vx);
    const auto *y = static_cast<const float *>(vy);
    *s = gemmForm16(n, [x, y](int64_t k, float *a, float *b) { *a = x[k]; *b = y[k]; });
}

// ggml_vec_dot_f16: the 64-step form widened to double, leftovers' float
// products added in double, rounded to float at the end.
void vecDotF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const fp16_t *>(vx);
    const auto *y = static_cast<const fp16_t *>(vy);
    int64_t i = 0;
    double sum = 0.0;
    if (n >= 64)
        sum = static_cast<double>(
            vecForm64(n, [x, y](int64_t k, float *a, float *b) { *a = fp16ToFp32(x[k]); *b = fp16ToFp32(y[k]); }, &i));
    for (; i < n; ++i)
        sum += static_cast<double>(fp16ToFp32(x[i]) * fp16ToFp32(y[i]));
    *s = static_cast<float>(sum);
}

void vecDotF16Gemm(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const fp16_t *>(vx);
    const auto *y = static_cast<const fp16_t *>(vy);
    *s = gemmForm16(n, [x, y](int64_t k, float *a, float *b) { *a = fp16ToFp32(x[k]); *b = fp16ToFp32(y[k]); });
}

// ggml_vec_dot_bf16 (AVX512-BF16): two accumulators of 16 lanes over steps of
// 64 (c1: elements 0..31 of the step, c2: 32..63, lane l = pair 2l, 2l + 1),
// each reduced in float and added in double (c1 first), leftovers in double.
void vecDotBF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const bf16_t *>(vx);
    const auto *y = static_cast<const bf16_t *>(vy);
    float c[2][16] = {};
    int64_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int h = 0; h < 2; ++h)
            for (int l = 0; l < 16; ++l)
                c[h][l] = dpbf16Lane(c[h][l], x, y, i + 32 * h + 2 * l);
    double sum = 0.0;
    sum += static_cast<double>(reduce16(c[0]));
    sum += static_cast<double>(reduce16(c[1]));
    for (; i < n; ++i)
        sum += static_cast<double>(bf16ToFp32(x[i]) * bf16ToFp32(y[i]));
    *s = static_cast<float>(sum);
}

// tinyBLAS BF16: one accumulator of 16 pair lanes over steps of 32, reduce16
// (callers use it only for n % 32 == 0; leftovers fused after it).
void vecDotBF16Gemm(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const bf16_t *>(vx);
    const auto *y = static_cast<const bf16_t *>(vy);
    float c[16] = {};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int l = 0; l < 16; ++l)
            c[l] = dpbf16Lane(c[l], x, y, i + 2 * l);
    float sum = reduce16(c);
    for (; i < n; ++i)
        sum = std::fma(bf16ToFp32(x[i]), bf16ToFp32(y[i]), sum);
    *s = sum;
}

// The repacked q4_b32 kernels (gemv and gemm alike): per 32-block
// acc = fma(float(isum), d_w * d_a, acc).
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
        sum = std::fma(static_cast<float>(sumi), fp16ToFp32(x[ib].d) * fp16ToFp32(y[ib].d), sum);
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

// The reference's x86 form (its AVX2 kernel, also in its AVX-512 build):
// lane m = the products of elements 4m..4m + 3, acc[m] = fma(d_w d_a, lane,
// acc[m]), hsum8 (as Q8_0; the packed and SIMD kernels take the same steps).
void vecDotQ5_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ5_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float acc[8] = {};
    for (int64_t ib = 0; ib < n / QK8_0; ++ib) {
        const uint32_t qh = loadQh(x[ib].qh);
        const float d = fp16ToFp32(x[ib].d) * fp16ToFp32(y[ib].d);
        for (int m = 0; m < 8; ++m) {
            int lane = 0;
            for (int e = 4 * m; e < 4 * m + 4; ++e) {
                const int nibble = e < 16 ? x[ib].qs[e] & 0x0f : x[ib].qs[e - 16] >> 4;
                lane += ((nibble | static_cast<int>(((qh >> e) & 1u) << 4)) - 16) * y[ib].qs[e];
            }
            acc[m] = std::fma(d, static_cast<float>(lane), acc[m]);
        }
    }
    *s = hsum8(acc);
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

// ggml_vec_dot_q8_0_q8_0 (AVX2 + VNNI) and tinyBLAS_Q0_AVX: 8 lanes, lane m =
// elements 4m..4m+3 of every block, acc[m] = fma(d_w * d_a, float(lane), acc[m]),
// then hsum8.
void vecDotQ8_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ8_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float acc[8] = {};
    for (int64_t ib = 0; ib < n / QK8_0; ++ib) {
        const float d = fp16ToFp32(x[ib].d) * fp16ToFp32(y[ib].d);
        for (int m = 0; m < 8; ++m) {
            int lane = 0;
            for (int e = 4 * m; e < 4 * m + 4; ++e)
                lane += x[ib].qs[e] * y[ib].qs[e];
            acc[m] = std::fma(d, static_cast<float>(lane), acc[m]);
        }
    }
    *s = hsum8(acc);
}

// The repacked iq4_nl / mxfp4 kernels (the q4_b32 form with a value table):
// per 32-block acc = fma(float(isum), d_w * d_a, acc).
void vecDotIQ4_NLQ8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockIQ4_NL *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float sum = 0.0f;
    for (int64_t ib = 0; ib < n / QK4_NL; ++ib) {
        int sumi = 0;
        for (int j = 0; j < QK4_NL / 2; ++j) {
            sumi += y[ib].qs[j] * kValuesIq4nl[x[ib].qs[j] & 0xf];
            sumi += y[ib].qs[j + QK4_NL / 2] * kValuesIq4nl[x[ib].qs[j] >> 4];
        }
        sum = std::fma(static_cast<float>(sumi), fp16ToFp32(x[ib].d) * fp16ToFp32(y[ib].d), sum);
    }
    *s = sum;
}

void vecDotMXFP4Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockMXFP4 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float sum = 0.0f;
    for (int64_t ib = 0; ib < n / QK_MXFP4; ++ib) {
        int sumi = 0;
        for (int j = 0; j < QK_MXFP4 / 2; ++j) {
            sumi += y[ib].qs[j] * kValuesMxfp4[x[ib].qs[j] & 0xf];
            sumi += y[ib].qs[j + QK_MXFP4 / 2] * kValuesMxfp4[x[ib].qs[j] >> 4];
        }
        sum = std::fma(static_cast<float>(sumi), e8m0ToFp32Half(x[ib].e) * fp16ToFp32(y[ib].d), sum);
    }
    *s = sum;
}

namespace {

// The repacked q2_K 8x8 kernels: exact integers per part (the super-block in
// the gemv, a 128-element half in the gemm), then acc = fma(float(isum),
// d_w * d_a, acc), accm = fma(float(imin), dmin_w * d_a, accm); acc - accm.
void q2K(int64_t n, float *s, const void *vx, const void *vy, bool gemm)
{
    const auto *x = static_cast<const BlockQ2_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float acc = 0.0f, accm = 0.0f;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d) * y[i].d, dmin = fp16ToFp32(x[i].dmin) * y[i].d;
        int isum = 0, imin = 0;
        for (int half = 0; half < 2; ++half) {
            for (int k = 0; k < 4; ++k)
                for (int l = 0; l < 32; ++l) {
                    const int sub = 8 * half + 2 * k + l / 16;
                    const int q = (x[i].qs[32 * half + l] >> (2 * k)) & 3;
                    isum += (x[i].scales[sub] & 0xf) * (q * y[i].qs[128 * half + 32 * k + l]);
                }
            for (int sub = 8 * half; sub < 8 * half + 8; ++sub)
                imin += (x[i].scales[sub] >> 4) * y[i].bsums[sub];
            if (gemm) {
                acc = std::fma(static_cast<float>(isum), d, acc);
                accm = std::fma(static_cast<float>(imin), dmin, accm);
                isum = imin = 0;
            }
        }
        if (!gemm) {
            acc = std::fma(static_cast<float>(isum), d, acc);
            accm = std::fma(static_cast<float>(imin), dmin, accm);
        }
    }
    *s = acc - accm;
}

// The repacked q4_K 8x8 kernels: exact integers per part (the super-block in
// the gemv, a pair of sub-blocks, 64 elements, in the gemm), then
// acc = fma(float(isum), d_w * d_a, acc), accm = fma(float(imin), dmin_w * d_a, accm);
// acc - accm.
void q4K(int64_t n, float *s, const void *vx, const void *vy, bool gemm)
{
    const auto *x = static_cast<const BlockQ4_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float acc = 0.0f, accm = 0.0f;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d) * y[i].d, dmin = fp16ToFp32(x[i].dmin) * y[i].d;
        int isum = 0, imin = 0;
        for (int sb = 0; sb < 8; ++sb) {
            uint8_t sc, m;
            getScaleMinK4(sb, x[i].scales, &sc, &m);
            int dot = 0;
            for (int l = 0; l < 32; ++l) {
                const uint8_t byte = x[i].qs[32 * (sb / 2) + l];
                dot += ((sb & 1) ? byte >> 4 : byte & 0xf) * y[i].qs[32 * sb + l];
            }
            isum += sc * dot;
            imin += m * (y[i].bsums[2 * sb] + y[i].bsums[2 * sb + 1]);
            if (gemm && (sb & 1)) {
                acc = std::fma(static_cast<float>(isum), d, acc);
                accm = std::fma(static_cast<float>(imin), dmin, accm);
                isum = imin = 0;
            }
        }
        if (!gemm) {
            acc = std::fma(static_cast<float>(isum), d, acc);
            accm = std::fma(static_cast<float>(imin), dmin, accm);
        }
    }
    *s = acc - accm;
}

} // namespace

void vecDotQ2_KQ8_K(int64_t n, float *s, const void *x, const void *y) { q2K(n, s, x, y, false); }
void vecDotQ2_KQ8_KGemm(int64_t n, float *s, const void *x, const void *y) { q2K(n, s, x, y, true); }
void vecDotQ4_KQ8_K(int64_t n, float *s, const void *x, const void *y) { q4K(n, s, x, y, false); }
void vecDotQ4_KQ8_KGemm(int64_t n, float *s, const void *x, const void *y) { q4K(n, s, x, y, true); }

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

// ggml_vec_dot_q5_K_q8_K (its AVX2 code, which the AVX-512 build runs): 8
// int32 lanes, lane m = the products of elements 4m..4m+3 of every 32-element
// sub-block times that sub-block's scale; per super-block
// acc[m] = fma(d_a * d_w, float(lane m), acc[m]) and the mins in one float,
// summs = fma(-(d_a * dmin_w), float(sum of min * bsums), summs) (GCC's
// contraction); result hsum8(acc) + summs.
void vecDotQ5_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ5_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float acc[8] = {};
    float summs = 0.0f;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = y[i].d * fp16ToFp32(x[i].d);
        const float dmin = -y[i].d * fp16ToFp32(x[i].dmin);
        int lane[8] = {};
        int imin = 0;
        for (int sb = 0; sb < 8; ++sb) {
            uint8_t sc, m;
            getScaleMinK4(sb, x[i].scales, &sc, &m);
            imin += m * (y[i].bsums[2 * sb] + y[i].bsums[2 * sb + 1]);
            for (int l = 0; l < 32; ++l) {
                const uint8_t byte = x[i].qs[32 * (sb / 2) + l];
                const int lo = (sb & 1) ? byte >> 4 : byte & 0xf;
                const int q = lo | (((x[i].qh[l] >> sb) & 1) << 4);
                lane[l / 4] += sc * (q * y[i].qs[32 * sb + l]);
            }
        }
        summs = std::fma(dmin, static_cast<float>(imin), summs);
        for (int m = 0; m < 8; ++m)
            acc[m] = std::fma(d, static_cast<float>(lane[m]), acc[m]);
    }
    *s = hsum8(acc) + summs;
}

// ggml_vec_dot_q6_K_q8_K (its AVX2 code): levels unsigned (0..63), 8 int32
// lanes, lane m = the products of elements 4m..4m+3 of every 32-element chunk
// times the scale of the chunk's 16-element half that holds them, minus
// 32 (bsums[2m] sc[2m] + bsums[2m + 1] sc[2m + 1]); per super-block
// acc[m] = fma(d_a * d_w, float(lane m), acc[m]); hsum8.
void vecDotQ6_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ6_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float acc[8] = {};
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = y[i].d * fp16ToFp32(x[i].d);
        int lane[8] = {};
        for (int h = 0; h < 2; ++h)
            for (int k = 0; k < 4; ++k)
                for (int l = 0; l < 32; ++l) {
                    const uint8_t ql = x[i].ql[64 * h + 32 * (k & 1) + l];
                    const int lo = k < 2 ? ql & 0xf : ql >> 4;
                    const int hi = (x[i].qh[32 * h + l] >> (2 * k)) & 3;
                    const int sc = x[i].scales[8 * h + 2 * k + l / 16];
                    lane[l / 4] += sc * ((lo | (hi << 4)) * y[i].qs[128 * h + 32 * k + l]);
                }
        for (int m = 0; m < 8; ++m) {
            lane[m] -= 32 * (y[i].bsums[2 * m] * x[i].scales[2 * m] + y[i].bsums[2 * m + 1] * x[i].scales[2 * m + 1]);
            acc[m] = std::fma(d, static_cast<float>(lane[m]), acc[m]);
        }
    }
    *s = hsum8(acc);
}

// ggml_vec_dot_iq4_xs_q8_K (its AVX2 code, which the AVX-512 build runs): 8
// int32 lanes, lane m = the products of elements 4m..4m+3 of every 32-element
// sub-block times that sub-block's scale (ls - 32); per super-block
// acc[m] = fma(d_w * d_a, float(lane m), acc[m]); hsum8.
void vecDotIQ4_XSQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockIQ4_XS *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    float acc[8] = {};
    for (int64_t ibl = 0; ibl < n / QK_K; ++ibl) {
        const float d4d8 = fp16ToFp32(x[ibl].d) * y[ibl].d;
        const uint8_t *qs = x[ibl].qs;
        const int8_t *q8 = y[ibl].qs;
        int lane[8] = {};
        for (int ib = 0; ib < QK_K / 32; ++ib, qs += 16, q8 += 32) {
            const int ls = ((x[ibl].scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf)
                         | (((x[ibl].scales_h >> (2 * ib)) & 3) << 4);
            for (int j = 0; j < 16; ++j) {
                lane[j / 4] += (ls - 32) * (q8[j] * kValuesIq4nl[qs[j] & 0xf]);
                lane[4 + j / 4] += (ls - 32) * (q8[j + 16] * kValuesIq4nl[qs[j] >> 4]);
            }
        }
        for (int m = 0; m < 8; ++m)
            acc[m] = std::fma(d4d8, static_cast<float>(lane[m]), acc[m]);
    }
    *s = hsum8(acc);
}

} // namespace burrow::quant::generic
