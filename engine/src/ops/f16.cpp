#include "ops/f16.h"

#include "quant/cpu_features.h"

#include <cmath>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define BURROW_F16_X86 1
#endif

namespace burrow::ops {
namespace {

float halfToFloatSlow(uint16_t h)
{
    const uint32_t sign = (h & 0x8000u) ? 1u : 0u;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    float v;
    if (exp == 0)
        v = std::ldexp(static_cast<float>(mant), -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
    return sign ? -v : v;
}

} // namespace

const float *f16Table()
{
    static const std::vector<float> table = [] {
        std::vector<float> t(65536);
        for (uint32_t i = 0; i < 65536; ++i)
            t[i] = halfToFloatSlow(static_cast<uint16_t>(i));
        return t;
    }();
    return table.data();
}

#ifdef BURROW_F16_X86
namespace {

// F16C rounds to nearest even like f32ToF16 (only NaN payloads may differ).
__attribute__((target("avx,f16c"))) void f32ToF16RowF16c(const float *src, uint16_t *dst, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i)
        dst[i] = f32ToF16(src[i]);
}

} // namespace
#endif

void f32ToF16Row(const float *src, uint16_t *dst, int64_t n)
{
#ifdef BURROW_F16_X86
    // Every SIMD path includes F16C; the scalar path keeps the portable code.
    if (quant::activeCpuPath() != quant::CpuPath::CPU_PATH_SCALAR) {
        f32ToF16RowF16c(src, dst, n);
        return;
    }
#endif
    for (int64_t i = 0; i < n; ++i)
        dst[i] = f32ToF16(src[i]);
}

void f16ToF32Row(const uint16_t *src, float *dst, int64_t n)
{
    const float *t = f16Table();
    for (int64_t i = 0; i < n; ++i)
        dst[i] = t[src[i]];
}

} // namespace burrow::ops
