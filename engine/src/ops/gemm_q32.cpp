#include "ops/gemm_q32.h"

#include "ops/kernels.h"

namespace burrow::ops {

bool gemmQ32Supported(GgmlType type, int64_t K)
{
    return K % 32 == 0 && K / 32 <= kGemmQ32MaxBlocks
           && (type == GgmlType::GGML_TYPE_Q8_0 || type == GgmlType::GGML_TYPE_Q4_0) && kernels().gemmQ32 != nullptr;
}

void gemmQ32(GgmlType type, int64_t K, const uint8_t *w, size_t wRowBytes, int64_t r0, int64_t r1,
             const uint8_t *act, size_t actStride, int64_t nTokens, float *y, int64_t ldy)
{
    const Kernels &k = kernels();
    if (k.gemmQ32)
        k.gemmQ32(type, K, w, wRowBytes, r0, r1, act, actStride, nTokens, y, ldy);
}

} // namespace burrow::ops
