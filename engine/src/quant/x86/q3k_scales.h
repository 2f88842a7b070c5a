// Q3_K's 16 six-bit scales minus 32 (quant_blocks.h unpackQ3KScales, its
// scalar twin) in one SSE register, for the AVX2 and AVX-512 kernels: byte j
// = (low nibble j | 2 high bits j) - 32, the low nibbles of bytes 0..7 then
// their high nibbles, the high bits 2 (j / 4) of byte 8 + j % 4. About ten
// instructions where the scalar loop took a hundred (it bounded the
// one-token kernels). Needs AVX2 (vpsrlvd on 128 bits).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace burrow::quant::x86 {

static inline __m128i unpackQ3KScales128(const uint8_t *packed)
{
    uint32_t top;
    std::memcpy(&top, packed + 8, 4);
    const __m128i lo8 = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(packed));
    const __m128i low = _mm_and_si128(_mm_unpacklo_epi64(lo8, _mm_srli_epi16(lo8, 4)), _mm_set1_epi8(0x0f));
    const __m128i spread = _mm_shuffle_epi32(_mm_cvtsi32_si128(static_cast<int>(top)), 0);   // bytes 8..11 in every dword
    const __m128i high = _mm_and_si128(_mm_srlv_epi32(spread, _mm_setr_epi32(0, 2, 4, 6)), _mm_set1_epi8(3));
    return _mm_sub_epi8(_mm_or_si128(low, _mm_slli_epi16(high, 4)), _mm_set1_epi8(32));
}

} // namespace burrow::quant::x86
