// SIMD kernels of Q1_0, Q2_0, TQ1_0, TQ2_0 and NVFP4 (scalar twins:
// generic/lowbit_kernels.h). Each fill overrides, in a trait table already
// filled with the scalar kernels (and fillAvx2 / fillAvx512), the rows of
// these types; callers have checked the CPU path (cpu_features.h).
#pragma once

#include "quant/quant_traits.h"

namespace burrow::quant {
struct PackedMatrix;
struct PackedActivation;
}

namespace burrow::quant::x86 {

// AVX2 + FMA + F16C (x86/avx2_lowbit.cpp).
void fillAvx2Lowbit(TypeTraits *rows);
// AVX-512 F/BW/VL + VNNI (x86/avx512_lowbit.cpp), after fillAvx2Lowbit.
void fillAvx512Lowbit(TypeTraits *rows);

// Packed-group multiply (quant/packed.h packedMatmul's contract; layouts in
// quant/packed_lowbit.h) of these types on AVX-512 F/BW/VL + VNNI
// (x86/packed_avx512_lowbit.cpp). One form per type (no batch form).
void packedMatmulAvx512Lowbit(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                              int64_t nTokens, float *y, size_t ldy);
// The same with 8 rows per register: AVX2 + FMA + F16C (packed_avx2_lowbit.cpp)
// and with AVX-VNNI (packed_avxvnni_lowbit.cpp; needs the CPU's avx_vnni),
// for the types where they beat the per-row kernels (measured, one thread):
// Q2_0 and NVFP4; TQ1_0 and TQ2_0 with AVX-VNNI only (vpmaddubsw's 16-bit
// sums, which the per-row TQ kernel keeps for a whole block, cost the packed
// one an instruction per run); Q1_0 neither (its sign bits take as long to
// spread in a register as the per-row kernel takes in all).
bool packedAvx2LowbitSupports(GgmlType type, bool avxVnni);
void packedMatmulAvx2Lowbit(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                            int64_t nTokens, float *y, size_t ldy);
void packedMatmulAvxVnniLowbit(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                               int64_t nTokens, float *y, size_t ldy);

} // namespace burrow::quant::x86
