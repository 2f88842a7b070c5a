// AVX-VNNI packed kernels of the 1- and 2-bit types and NVFP4 (the 256-bit
// vpdpbusd; packed_avx2_lowbit_tiles.h).
#include "quant/x86/packed_avx2_lowbit_tiles.h"

namespace burrow::quant::x86 {

namespace {

struct LbDotVnni {
    static __m256i dot4(__m256i acc, __m256i w, __m256i a) { return _mm256_dpbusd_avx_epi32(acc, w, a); }
};

} // namespace

void packedMatmulAvxVnniLowbit(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                               int64_t nTokens, float *y, size_t ldy)
{
    packedMatmulHalvesLowbit<LbDotVnni>(W, g0, g1, act, nTokens, y, ldy);
}

} // namespace burrow::quant::x86
