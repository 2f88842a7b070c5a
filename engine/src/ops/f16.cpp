#include "ops/f16.h"

#include "ops/kernels.h"

#include <cmath>
#include <vector>

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

void f32ToF16Row(const float *src, uint16_t *dst, int64_t n) { kernels().f32ToF16Row(src, dst, n); }

void f16ToF32Row(const uint16_t *src, float *dst, int64_t n)
{
    const float *t = f16Table();
    for (int64_t i = 0; i < n; ++i)
        dst[i] = t[src[i]];
}

} // namespace burrow::ops
