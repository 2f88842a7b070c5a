// Reference quantizers of the 1- and 2-bit types and NVFP4 (see
// lowbit_kernels.h): the same floats give the same bytes as the reference
// engine's quantize_row_*_ref, including its x86 behaviour where C leaves a
// conversion undefined (a NaN or out-of-range float to an integer gives the
// "integer indefinite" value 0x80000000...).
#include "quant/generic/lowbit_kernels.h"

#include "quant/generic/generic_kernels.h"
#include "quant/lowbit_blocks.h"

#include <cmath>
#include <cstring>

namespace burrow::quant::generic {

namespace {

// (int)v as x86's cvttss2si: truncation, INT32_MIN when out of range or NaN.
int32_t truncInt32(float v)
{
    return v >= -2147483648.0f && v < 2147483648.0f ? static_cast<int32_t>(v) : INT32_MIN;
}

// lroundf(v) + 1 taken to an int as the reference does (round half away
// from zero; glibc's lroundf gives LONG_MIN for NaN and out-of-range values,
// whose low 32 bits are 0).
int tritOf(float v)
{
    const int64_t r = v > -9.2e18f && v < 9.2e18f ? static_cast<int64_t>(std::round(v)) : INT64_MIN;
    return static_cast<int>(static_cast<uint32_t>(static_cast<uint64_t>(r) + 1u));
}

// ceil(q * 256 / 243) of the 5-trit value q, as the reference packs a byte.
uint8_t packTrits(uint8_t q)
{
    return static_cast<uint8_t>((static_cast<uint16_t>(q) * 256 + (243 - 1)) / 243);
}

} // namespace

void quantizeRowQ1_0(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ1_0 *>(dst);
    for (int64_t i = 0; i < n / QK1_0; ++i, src += QK1_0) {
        float sumAbs = 0.0f;
        for (int j = 0; j < QK1_0; ++j)
            sumAbs += std::fabs(src[j]);
        y[i].d = fp32ToFp16(sumAbs / QK1_0);
        std::memset(y[i].qs, 0, sizeof(y[i].qs));
        for (int j = 0; j < QK1_0; ++j)
            if (src[j] >= 0.0f)
                y[i].qs[j / 8] = static_cast<uint8_t>(y[i].qs[j / 8] | (1u << (j % 8)));
    }
}

void quantizeRowQ2_0(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ2_0 *>(dst);
    for (int64_t i = 0; i < n / QK2_0; ++i, src += QK2_0) {
        float amax = 0.0f;
        for (int j = 0; j < QK2_0; ++j)
            if (std::fabs(src[j]) > amax)
                amax = std::fabs(src[j]);
        const float id = amax > 0.0f ? 1.0f / amax : 0.0f;
        y[i].d = fp32ToFp16(amax);
        std::memset(y[i].qs, 0, sizeof(y[i].qs));
        for (int j = 0; j < QK2_0; ++j) {
            int q = truncInt32(std::round(src[j] * id)) + 1;
            q = q < 0 ? 0 : (q > 3 ? 3 : q);
            y[i].qs[j / 4] = static_cast<uint8_t>(y[i].qs[j / 4] | (q << (2 * (j % 4))));
        }
    }
}

// The reference takes MAX(amax, fabsf(v)) (a NaN lost or kept by the
// macro's comparison: MAX(a, b) = a > b ? a : b).
namespace {
float ternaryScale(const float *x)
{
    float amax = 0.0f;
    for (int j = 0; j < QK_K; ++j) {
        const float a = std::fabs(x[j]);
        amax = amax > a ? amax : a;
    }
    return amax;
}
} // namespace

void quantizeRowTQ1_0(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockTQ1_0 *>(dst);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = ternaryScale(src);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = fp32ToFp16(d);
        const float *x = src;
        // 32 bytes of five trits (elements 32n + m), then 16 (160 + 16n + m)
        for (int m = 0; m < 32; ++m) {
            uint8_t q = 0;
            for (int t = 0; t < 5; ++t)
                q = static_cast<uint8_t>(q * 3 + tritOf(x[m + 32 * t] * id));
            y[i].qs[m] = packTrits(q);
        }
        x += 160;
        for (int m = 0; m < 16; ++m) {
            uint8_t q = 0;
            for (int t = 0; t < 5; ++t)
                q = static_cast<uint8_t>(q * 3 + tritOf(x[m + 16 * t] * id));
            y[i].qs[32 + m] = packTrits(q);
        }
        x += 80;
        // 4 bytes of four trits (240 + 4n + m), the first shifted to the top trit
        for (int m = 0; m < 4; ++m) {
            uint8_t q = 0;
            for (int t = 0; t < 4; ++t)
                q = static_cast<uint8_t>(q * 3 + tritOf(x[m + 4 * t] * id));
            y[i].qh[m] = packTrits(static_cast<uint8_t>(q * 3));
        }
        src += QK_K;
    }
}

void quantizeRowTQ2_0(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockTQ2_0 *>(dst);
    for (int64_t i = 0; i < n / QK_K; ++i, src += QK_K) {
        const float d = ternaryScale(src);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = fp32ToFp16(d);
        for (int h = 0; h < 2; ++h)
            for (int m = 0; m < 32; ++m) {
                uint8_t q = 0;
                for (int l = 0; l < 4; ++l)
                    q = static_cast<uint8_t>(q + ((tritOf(src[128 * h + 32 * l + m] * id) & 3) << (2 * l)));
                y[i].qs[32 * h + m] = q;
            }
    }
}

void quantizeRowNVFP4(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockNVFP4 *>(dst);
    for (int64_t i = 0; i < n / QK_NVFP4; ++i) {
        for (int s = 0; s < QK_NVFP4 / QK_NVFP4_SUB; ++s) {
            const float *x = src + i * QK_NVFP4 + s * QK_NVFP4_SUB;
            float amax = 0.0f;
            for (int j = 0; j < QK_NVFP4_SUB; ++j)
                if (amax < std::fabs(x[j]))
                    amax = std::fabs(x[j]);
            const uint8_t e = fp32ToUe4m3(amax / 6.0f);
            y[i].d[s] = e;
            const float d = ue4m3ToFp32Half(e);
            for (int j = 0; j < QK_NVFP4_SUB / 2; ++j)
                y[i].qs[s * 8 + j] = static_cast<uint8_t>(bestMxfp4Code(x[j], d) | (bestMxfp4Code(x[j + 8], d) << 4));
        }
    }
}

} // namespace burrow::quant::generic
