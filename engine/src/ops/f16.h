// IEEE half <-> float conversion for the KV cache and the attention inputs.
// f16ToF32 is a table lookup (256 KiB, built once); f32ToF16 rounds to
// nearest even, as the reference's conversion does.
//
// The inline helpers have internal linkage (`static inline`) on purpose: the
// SIMD translation units under x86/ are compiled with wider instruction sets,
// and a shared inline function with external linkage could be emitted there
// and then picked by the linker for scalar callers too.
#pragma once

#include <cstdint>
#include <cstring>

namespace burrow::ops {

// Table of all 65536 half values as floats.
const float *f16Table();

static inline float f16ToF32(uint16_t h) { return f16Table()[h]; }

static inline uint16_t f32ToF16(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u)                                 // inf or nan
        return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    if (abs >= 0x477ff000u)                                 // rounds to >= 65536: inf
        return static_cast<uint16_t>(sign | 0x7c00u);
    if (abs < 0x38800000u) {                                // subnormal half (or zero)
        // value = abs_float; half subnormal unit = 2^-24
        float a;
        std::memcpy(&a, &abs, 4);
        const float scaled = a * 16777216.0f;               // a / 2^-24, exact
        // round to nearest even integer
        uint32_t q = static_cast<uint32_t>(scaled);
        const float frac = scaled - static_cast<float>(q);
        if (frac > 0.5f || (frac == 0.5f && (q & 1u)))
            ++q;
        return static_cast<uint16_t>(sign | q);
    }
    // normal: rebias exponent 127 -> 15, keep 10 mantissa bits, round to nearest even
    const uint32_t mant = abs & 0x7fffffu;
    const uint32_t exp = (abs >> 23) - 127 + 15;
    uint32_t h = (exp << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        ++h;                                                // may carry into the exponent: correct
    return static_cast<uint16_t>(sign | h);
}

// n values (f32ToF16Row: F16C on the SIMD paths, the same bits).
void f32ToF16Row(const float *src, uint16_t *dst, int64_t n);
void f16ToF32Row(const uint16_t *src, float *dst, int64_t n);

} // namespace burrow::ops
