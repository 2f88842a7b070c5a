// SIMD kernels of the lattice i-quants (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS,
// IQ2_S, IQ3_XXS, IQ3_S) for x86-64; their scalar twins are in
// generic/iq_kernels.h. Each fill function overrides those types' entries
// in a trait table (as x86_kernels.h's fill functions); callers must have
// checked the CPU supports the path.
#pragma once

#include "quant/quant_traits.h"

namespace burrow::quant::x86 {

// AVX2 + FMA + F16C (called after fillAvx2).
void fillAvx2Iq(TypeTraits *rows);
// AVX-512 F/BW/VL + VNNI (called after fillAvx512).
void fillAvx512Iq(TypeTraits *rows);

} // namespace burrow::quant::x86
