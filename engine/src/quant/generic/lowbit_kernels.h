// Scalar kernels of Q1_0, Q2_0, TQ1_0, TQ2_0 and NVFP4 (layouts:
// quant/lowbit_blocks.h): the twins of the SIMD kernels in
// x86/avx2_lowbit.cpp and x86/avx512_lowbit.cpp.
//
// Dequantizers and quantizers compute what the reference engine's scalar
// code computes (ggml-quants.c dequantize_row_* / quantize_row_*_ref; its
// llama-quantize calls the latter for these types, with or without an
// importance matrix). The dot products keep the integer sums exact and
// compute the float steps of the reference's x86 build (AVX2 and AVX-512
// alike run its AVX2 kernels for these types; Q2_0 has none and runs its
// generic C, whose multiply-adds GCC fuses), as lowbit.cpp states per type;
// checked against the reference's x86 binary (the fused intrinsics, the
// fused vector mul + add of the TQ kernels) and its outputs in ../shared.
//
// Contracts as generic_kernels.h: n a multiple of the block size (and of
// the partner's), whole blocks, x a weight row, y its partner row (Q8_0 for
// Q1_0, Q2_0 and NVFP4; Q8_K for TQ1_0 and TQ2_0). Cost O(n), no allocation.
#pragma once

#include <cstdint>

namespace burrow::quant::generic {

void dequantizeRowQ1_0(const void *src, float *dst, int64_t n);
void dequantizeRowQ2_0(const void *src, float *dst, int64_t n);
void dequantizeRowTQ1_0(const void *src, float *dst, int64_t n);
void dequantizeRowTQ2_0(const void *src, float *dst, int64_t n);
void dequantizeRowNVFP4(const void *src, float *dst, int64_t n);

// Q1_0: d = mean |x| over the block; bit set for x >= 0.
void quantizeRowQ1_0(const float *src, void *dst, int64_t n);
// Q2_0: d = max |x|; q = round(x / d) + 1 (ties away from zero), clamped to 0..3.
void quantizeRowQ2_0(const float *src, void *dst, int64_t n);
// TQ1_0 / TQ2_0: d = max |x|; trit = lround(x / d) + 1; TQ1_0 packs five
// trits per byte as ceil(value * 256 / 243).
void quantizeRowTQ1_0(const float *src, void *dst, int64_t n);
void quantizeRowTQ2_0(const float *src, void *dst, int64_t n);
// NVFP4 (quantize_row_nvfp4_ref; llama-quantize does not offer it): per
// sub-block the UE4M3 scale of max |x| / 6, then each value's E2M1 code of
// least error (the first on ties).
void quantizeRowNVFP4(const float *src, void *dst, int64_t n);

void vecDotQ1_0Q8_0(int64_t n, float *s, const void *x, const void *y);
void vecDotQ2_0Q8_0(int64_t n, float *s, const void *x, const void *y);
void vecDotTQ1_0Q8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotTQ2_0Q8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotNVFP4Q8_0(int64_t n, float *s, const void *x, const void *y);

} // namespace burrow::quant::generic
