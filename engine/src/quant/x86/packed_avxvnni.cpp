// AVX-VNNI (the 256-bit, VEX-encoded VNNI of CPUs with AVX2 but without
// AVX-512) kernels for packed weight groups: the 256-bit tiles
// (packed_avx2_tiles.h) with vpdpbusd, one instruction per 4-element dot
// product and exact for 8-bit codes, so Q8_0 too.
#include "quant/x86/packed_avx2_tiles.h"

namespace burrow::quant::x86 {

namespace {

struct DotVnni {
    static __m256i dot4(__m256i acc, __m256i w, __m256i a) { return _mm256_dpbusd_avx_epi32(acc, w, a); }
    static __m256i dot2(__m256i acc, __m256i p, __m256i s) { return _mm256_dpwssd_avx_epi32(acc, p, s); }
};

} // namespace

void packedMatmulAvxVnni(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                         int64_t nGemm, float *y, size_t ldy)
{
    packedMatmulHalves<DotVnni>(W, g0, g1, act, nTokens, nGemm, y, ldy);
}

} // namespace burrow::quant::x86
