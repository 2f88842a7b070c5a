// Scalar dequantizers and dot products of the 1- and 2-bit types and NVFP4
// (see lowbit_kernels.h). Built with -ffp-contract=off: every fused
// multiply-add of the reference's x86 code is written out as std::fma.
#include "quant/generic/lowbit_kernels.h"

#include "quant/generic/generic_kernels.h"
#include "quant/lowbit_blocks.h"

#include <cmath>

namespace burrow::quant::generic {

// --- dequantize ------------------------------------------------------------

void dequantizeRowQ1_0(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ1_0 *>(src);
    for (int64_t i = 0; i < n / QK1_0; ++i) {
        const float d = fp16ToFp32(x[i].d);
        for (int j = 0; j < QK1_0; ++j)
            *dst++ = ((x[i].qs[j / 8] >> (j % 8)) & 1) ? d : -d;
    }
}

void dequantizeRowQ2_0(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockQ2_0 *>(src);
    for (int64_t i = 0; i < n / QK2_0; ++i) {
        const float d = fp16ToFp32(x[i].d);
        for (int j = 0; j < QK2_0; ++j)
            *dst++ = static_cast<float>(((x[i].qs[j / 4] >> (2 * (j % 4))) & 3) - 1) * d;
    }
}

void dequantizeRowTQ1_0(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockTQ1_0 *>(src);
    uint8_t q[QK_K];
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        tq1Trits(x[i], q);
        for (int j = 0; j < QK_K; ++j)
            *dst++ = static_cast<float>(q[j] - 1) * d;
    }
}

void dequantizeRowTQ2_0(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockTQ2_0 *>(src);
    uint8_t q[QK_K];
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        tq2Codes(x[i], q);
        for (int j = 0; j < QK_K; ++j)
            *dst++ = static_cast<float>(q[j] - 1) * d;
    }
}

void dequantizeRowNVFP4(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockNVFP4 *>(src);
    for (int64_t i = 0; i < n / QK_NVFP4; ++i)
        for (int j = 0; j < QK_NVFP4; ++j)
            *dst++ = static_cast<float>(kValuesMxfp4[nvfp4Code(x[i], j)]) * ue4m3ToFp32Half(x[i].d[j / QK_NVFP4_SUB]);
}

// --- dot products ----------------------------------------------------------

// ggml_vec_dot_q1_0_q8_0 (its AVX2 code): 8 int32 lanes per 32-element Q8_0
// block, lane m = the signed activations of elements 4m..4m+3 (+q where the
// bit is set, -q where not); per Q1_0 block b[m] = d_a0 * lane_0[m], then
// b[m] = fma(d_aK, lane_K[m], b[m]) for the next three Q8_0 blocks, and
// acc[m] = fma(d_w, b[m], acc[m]); hsum8.
void vecDotQ1_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ1_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float acc[8] = {};
    for (int64_t ib = 0; ib < n / QK1_0; ++ib) {
        float b[8];
        for (int k = 0; k < 4; ++k) {
            const BlockQ8_0 &a = y[4 * ib + k];
            const float da = fp16ToFp32(a.d);
            for (int m = 0; m < 8; ++m) {
                int lane = 0;
                for (int e = 4 * m; e < 4 * m + 4; ++e)
                    lane += ((x[ib].qs[4 * k + e / 8] >> (e % 8)) & 1) ? a.qs[e] : -a.qs[e];
                b[m] = k == 0 ? da * static_cast<float>(lane) : std::fma(da, static_cast<float>(lane), b[m]);
            }
        }
        const float dw = fp16ToFp32(x[ib].d);
        for (int m = 0; m < 8; ++m)
            acc[m] = std::fma(dw, b[m], acc[m]);
    }
    *s = hsum8(acc);
}

// ggml_vec_dot_q2_0_q8_0 (the generic C the x86 build runs, its multiply-adds
// fused by GCC): per Q8_0 block sumi = fma(d_a, float(isum), sumi), per
// Q2_0 block sum = fma(d_w, sumi, sum). (These are the steps behind
// ../shared/reference/generation-types; a GCC 12 -march=native build on Zen,
// whose tuning avoids scalar FMA chains, keeps them apart: the last bits
// differ, and one of the fixture's greedy continuations turns at token 13.)
void vecDotQ2_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ2_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float sum = 0.0f;
    for (int64_t ib = 0; ib < n / QK2_0; ++ib) {
        float sumi = 0.0f;
        for (int k = 0; k < 2; ++k) {
            const BlockQ8_0 &a = y[2 * ib + k];
            int isum = 0;
            for (int e = 0; e < QK8_0; ++e)
                isum += (((x[ib].qs[8 * k + e / 4] >> (2 * (e % 4))) & 3) - 1) * a.qs[e];
            sumi = std::fma(fp16ToFp32(a.d), static_cast<float>(isum), sumi);
        }
        sum = std::fma(fp16ToFp32(x[ib].d), sumi, sum);
    }
    *s = sum;
}

namespace {

// The TQ kernels' 8 int32 lanes of one 256-element block (their AVX2 code:
// 16-bit sums of code * activation by byte position, the Q8_K bsums taken
// off, pairs of 16-bit lanes added): lane m = sum over the eight 32-element
// segments c of q[32c + e] * a[32c + e] for e in 4m..4m+3, minus the
// activations of elements 32m..32m+31 (bsums 2m and 2m + 1).
void ternaryLanes(const uint8_t q[QK_K], const BlockQ8_K &a, int lane[8])
{
    for (int m = 0; m < 8; ++m)
        lane[m] = -(a.bsums[2 * m] + a.bsums[2 * m + 1]);
    for (int e = 0; e < QK_K; ++e)
        lane[(e % 32) / 4] += q[e] * a.qs[e];
}

// acc[m] = fma(float(lane m), d_a * d_w, acc[m]) per block (GCC fuses the
// reference's mul + add); hsum8.
template <typename Block, void (*Codes)(const Block &, uint8_t *)>
float ternaryDot(int64_t n, const Block *x, const BlockQ8_K *y)
{
    float acc[8] = {};
    uint8_t q[QK_K];
    for (int64_t i = 0; i < n / QK_K; ++i) {
        Codes(x[i], q);
        int lane[8];
        ternaryLanes(q, y[i], lane);
        const float d = y[i].d * fp16ToFp32(x[i].d);
        for (int m = 0; m < 8; ++m)
            acc[m] = std::fma(static_cast<float>(lane[m]), d, acc[m]);
    }
    return hsum8(acc);
}

} // namespace

// ggml_vec_dot_tq1_0_q8_K (its AVX2 code): ternaryLanes, ternaryDot.
void vecDotTQ1_0Q8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    *s = ternaryDot<BlockTQ1_0, tq1Trits>(n, static_cast<const BlockTQ1_0 *>(vx), static_cast<const BlockQ8_K *>(vy));
}

// ggml_vec_dot_tq2_0_q8_K (its AVX2 code): as TQ1_0 (code 3 counts as +2).
void vecDotTQ2_0Q8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    *s = ternaryDot<BlockTQ2_0, tq2Codes>(n, static_cast<const BlockTQ2_0 *>(vx), static_cast<const BlockQ8_K *>(vy));
}

// ggml_vec_dot_nvfp4_q8_0 (its AVX2 code): per block, the sub-block scales
// s_k = ue4m3(d[k]) * d_a (d_a of the first Q8_0 block for k < 2, of the
// second for k >= 2); 8 int32 lanes per Q8_0 block, lane m = elements
// 4m..4m+3 of its 32 (m < 4: the first sub-block of the pair);
// acc[m] = fma(s, lane1[m], acc[m]), then acc[m] = fma(s', lane2[m], acc[m]); hsum8.
void vecDotNVFP4Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockNVFP4 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    float acc[8] = {};
    for (int64_t ib = 0; ib < n / QK_NVFP4; ++ib) {
        float sc[4];
        for (int k = 0; k < 4; ++k)
            sc[k] = ue4m3ToFp32Half(x[ib].d[k]) * fp16ToFp32(y[2 * ib + k / 2].d);
        for (int half = 0; half < 2; ++half) {
            const BlockQ8_0 &a = y[2 * ib + half];
            for (int m = 0; m < 8; ++m) {
                int lane = 0;
                for (int e = 4 * m; e < 4 * m + 4; ++e)
                    lane += kValuesMxfp4[nvfp4Code(x[ib], 32 * half + e)] * a.qs[e];
                acc[m] = std::fma(sc[2 * half + m / 4], static_cast<float>(lane), acc[m]);
            }
        }
    }
    *s = hsum8(acc);
}

} // namespace burrow::quant::generic
