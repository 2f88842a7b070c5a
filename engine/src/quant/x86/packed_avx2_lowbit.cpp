// AVX2 packed kernels of the 1- and 2-bit types and NVFP4 (vpmaddubsw +
// vpmaddwd: exact for their decoded weights; packed_avx2_lowbit_tiles.h).
#include "quant/x86/in_order.h"
#include "quant/x86/packed_avx2_lowbit_tiles.h"

namespace burrow::quant::x86 {

namespace {

struct LbDotMaddubs {
    static __m256i dot4(__m256i acc, __m256i w, __m256i a)
    {
        return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w, a), _mm256_set1_epi16(1)));
    }
};

// The same with each lane's adds in program order (in_order.h): Q2_0's
// tiles, whose reassociated sums spilled (the 1.1B Q2_0 file, pp512 109-113
// -> 140-141 t/s; Q1_0 lost 3-7 % with it and NVFP4 stayed level, so they
// keep GCC's order).
struct LbDotMaddubsInOrder {
    static __m256i dot4(__m256i acc, __m256i w, __m256i a) { return inOrder(LbDotMaddubs::dot4(acc, w, a)); }
};

} // namespace

bool packedAvx2LowbitSupports(GgmlType type, bool avxVnni)
{
    switch (type) {
    case GgmlType::GGML_TYPE_Q2_0:
    case GgmlType::GGML_TYPE_NVFP4: return true;
    case GgmlType::GGML_TYPE_TQ1_0:
    case GgmlType::GGML_TYPE_TQ2_0: return avxVnni;
    default: return false;
    }
}

void packedMatmulAvx2Lowbit(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                            int64_t nTokens, float *y, size_t ldy)
{
    if (W.type == GgmlType::GGML_TYPE_Q2_0)
        packedMatmulHalvesLowbit<LbDotMaddubsInOrder>(W, g0, g1, act, nTokens, y, ldy);
    else
        packedMatmulHalvesLowbit<LbDotMaddubs>(W, g0, g1, act, nTokens, y, ldy);
}

} // namespace burrow::quant::x86
