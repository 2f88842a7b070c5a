// SIMD kernels of the lattice i-quants (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS,
// IQ2_S, IQ3_XXS, IQ3_S) for x86-64; their scalar twins are in
// generic/iq_kernels.h. Each fill function overrides those types' entries
// in a trait table (as x86_kernels.h's fill functions); callers must have
// checked the CPU supports the path.
#pragma once

#include "quant/quant_traits.h"

namespace burrow::quant {
struct PackedActivation;
}

namespace burrow::quant::x86 {

// AVX2 + FMA + F16C (called after fillAvx2).
void fillAvx2Iq(TypeTraits *rows);
// AVX-512 F/BW/VL + VNNI (called after fillAvx512).
void fillAvx512Iq(TypeTraits *rows);

// The prompt path's tiles (quant/iq_tiles.h) on AVX-512 VNNI: the
// conversion of the nRows (<= 16) rows at `rows` into one group's tile, and
// the multiply of a tile with tokens [t0, t1), t0 a multiple of 8 (y: the
// group's first row).
void iqTileConvertAvx512(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K, int nRows, uint8_t *tile);
void iqTileMultiplyAvx512(GgmlType type, const uint8_t *tile, int64_t K, int rows, const PackedActivation &act,
                          int64_t t0, int64_t t1, float *y, size_t ldy);
// The same on AVX2 (+ FMA + F16C): the conversion, and the multiply (t0
// any token); with AVX-VNNI the multiply's integer steps by vpdpbusd /
// vpdpwssd (the same integers).
void iqTileConvertAvx2(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K, int nRows, uint8_t *tile);
void iqTileMultiplyAvx2(GgmlType type, const uint8_t *tile, int64_t K, int rows, const PackedActivation &act,
                        int64_t t0, int64_t t1, float *y, size_t ldy);
void iqTileMultiplyAvxVnni(GgmlType type, const uint8_t *tile, int64_t K, int rows, const PackedActivation &act,
                           int64_t t0, int64_t t1, float *y, size_t ldy);

} // namespace burrow::quant::x86
