// AVX2 kernels for packed weight groups: the 256-bit tiles
// (packed_avx2_tiles.h) with vpmaddubsw (u8 x s8 -> pairs in int16) +
// vpmaddwd (pairs -> int32), exact for codes of up to 7 bits
// (|2 * 127 * 127| < 2^15): Q4_0, Q5_0, Q4_K, Q5_K, Q6_K and IQ4_XS (its values'
// magnitudes). Q8_0's 8-bit codes would saturate; it has a kernel on
// AVX-VNNI (packed_avxvnni.cpp).
#include "quant/x86/packed_avx2_tiles.h"

namespace burrow::quant::x86 {

namespace {

struct DotMaddubs {
    static __m256i dot4(__m256i acc, __m256i w, __m256i a)
    {
        return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w, a), _mm256_set1_epi16(1)));
    }
    static __m256i dot2(__m256i acc, __m256i p, __m256i s) { return _mm256_add_epi32(acc, _mm256_madd_epi16(p, s)); }
};

} // namespace

bool packedAvx2Supports(GgmlType type)
{
    return type == GgmlType::GGML_TYPE_Q4_0 || type == GgmlType::GGML_TYPE_Q5_0 || type == GgmlType::GGML_TYPE_Q4_K ||
           type == GgmlType::GGML_TYPE_Q5_K ||
           type == GgmlType::GGML_TYPE_Q6_K || type == GgmlType::GGML_TYPE_IQ4_XS;
}

void packedMatmulAvx2(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                      int64_t nGemm, float *y, size_t ldy)
{
    if (packedAvx2Supports(W.type))
        packedMatmulHalves<DotMaddubs>(W, g0, g1, act, nTokens, nGemm, y, ldy);
}

} // namespace burrow::quant::x86
