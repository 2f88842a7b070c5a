// SIMD kernels for x86-64. Each fill function overrides, in a trait table
// indexed by GgmlType id (GGML_TYPE_ID_LIMIT rows, already filled with the
// scalar kernels), the entries it has a faster kernel for. Callers must have
// checked the CPU supports the path (cpu_features.h) before calling.
//
// Every SIMD kernel matches its scalar twin in generic/ bit for bit: integer
// parts exactly, and the same float operations in the same order.
#pragma once

#include "quant/quant_traits.h"

namespace burrow::quant {
struct PackedMatrix;
struct PackedActivation;
}

namespace burrow::quant::x86 {

// AVX2 + FMA + F16C.
void fillAvx2(TypeTraits *rows);
// AVX-512 F/BW/VL + VNNI (called after fillAvx2).
void fillAvx512(TypeTraits *rows);

// Packed-group matrix multiply (quant/packed.h: packedMatmul's contract) on
// AVX-512 F/BW/VL + VNNI.
void packedMatmulAvx512(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                        int64_t nTokens, int64_t nGemm, float *y, size_t ldy);
// The same on AVX2 + FMA + F16C, for the types packedAvx2Supports (all
// eight; packed_avx2.cpp).
bool packedAvx2Supports(GgmlType type);
void packedMatmulAvx2(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                      int64_t nTokens, int64_t nGemm, float *y, size_t ldy);
// The same with AVX-VNNI (256-bit vpdpbusd; needs the CPU's avx_vnni flag):
// all six types.
void packedMatmulAvxVnni(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                         int64_t nTokens, int64_t nGemm, float *y, size_t ldy);

// Tokens [t0, t1) of packedMatmulAvx512's one-token form for IQ4_XS,
// through int16 weight planes made once per group and call
// (packed_avx512_planes.cpp; the same bits). False (nothing written) for
// other types or when its per-thread scratch cannot be had.
bool packedMatmulAvx512Planes(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t t0,
                              int64_t t1, float *y, size_t ldy);
// The same with AMX-INT8 tile products (the CPU's amxInt8 and the process's
// tile permission: cpu_features.h amxUsable) for the types packedAmxSupports
// (Q4_0, IQ4_NL, Q4_K); whole 16-token tiles of the batch form on tiles, the
// other tokens on packedMatmulAvx512, the results the same bits.
bool packedAmxSupports(GgmlType type);
void packedMatmulAmx(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                     int64_t nGemm, float *y, size_t ldy);

} // namespace burrow::quant::x86
