// SIMD kernels for x86-64. Each fill function overrides, in a trait table
// indexed by GgmlType id (GGML_TYPE_ID_LIMIT rows, already filled with the
// scalar kernels), the entries it has a faster kernel for. Callers must have
// checked the CPU supports the path (cpu_features.h) before calling.
//
// Every SIMD kernel matches its scalar twin in generic/: integer parts
// exactly; float accumulation may be reordered (tests name the tolerances).
#pragma once

#include "quant/quant_traits.h"

namespace burrow::quant::x86 {

// AVX2 + FMA + F16C.
void fillAvx2(TypeTraits *rows);
// AVX-512 F/BW/VL + VNNI (called after fillAvx2).
void fillAvx512(TypeTraits *rows);

} // namespace burrow::quant::x86
