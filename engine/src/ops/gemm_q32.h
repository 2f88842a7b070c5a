// Prompt-processing matrix multiply for Q8_0 and Q4_0 weights against Q8_0
// activations on the AVX-512 path (x86/avx512_gemm_q32.cpp): register tiles
// of 4 weight rows x 4 tokens, two 32-element blocks per 512-bit register,
// one VNNI vpdpbusd per (row, token, block pair) instead of one dot call per
// (row, token).
//
// Each product is exact in integers (unsigned weights via +128 for Q8_0 /
// the raw nibble for Q4_0, with the offset times the activation sums taken
// back out per lane); the per-block scales d_w * d_a multiply in float and
// the 16 lanes are summed at the end, so results equal the vecDot kernels'
// up to float summation order (~1e-7 relative).
//
// Cost: (r1 - r0) * nTokens * K multiply-adds; no allocation (block scales
// are converted to float once per 16 rows and per 4 tokens, on the stack).
#pragma once

#include "common/ggml_types.h"

#include <cstddef>
#include <cstdint>

namespace burrow::ops {

// Rows of up to 512 blocks (16384 elements): the block scales are kept on the stack.
inline constexpr int64_t kGemmQ32MaxBlocks = 512;

// True when gemmQ32 has a kernel for `type` and rows of K elements on the
// active CPU path (K % 32 == 0, K <= 32 * kGemmQ32MaxBlocks).
bool gemmQ32Supported(GgmlType type, int64_t K);

// y[t * ldy + r] = dot(row r of W, activation row t) for r in [r0, r1) and
// t in [0, nTokens). W: rows of K elements of `type` (Q8_0 or Q4_0),
// wRowBytes apart from w (row 0); act: Q8_0 rows, actStride bytes apart.
// Only call when gemmQ32Supported(type, K).
void gemmQ32(GgmlType type, int64_t K, const uint8_t *w, size_t wRowBytes, int64_t r0, int64_t r1,
             const uint8_t *act, size_t actStride, int64_t nTokens, float *y, int64_t ldy);

} // namespace burrow::ops
