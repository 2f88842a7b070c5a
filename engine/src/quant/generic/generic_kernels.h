// Scalar kernels: the reference twins of every SIMD kernel.
//
// Quantizers and dequantizers compute exactly what the reference engine's
// scalar code computes (ggml-quants.c `*_ref` / `dequantize_row_*`). The dot
// products compute the float steps of the reference's AVX-512 build (the
// order of its SIMD kernels, written out in scalar code with explicit fused
// multiply-adds; these files are built with -ffp-contract=off), so every CPU
// path rounds as that build; Q4_1, Q5_0, Q5_1 and Q3_K still follow
// the reference's generic C kernels here (their x86 kernels follow its AVX2
// code).
//
// Contracts (all): n is a multiple of the type's block size; pointers are to
// whole blocks, aligned as the block struct; vec_dot's x is a weight row, y a
// row of the weight type's activation partner. Cost: O(n), no allocation.
#pragma once

#include <cstdint>

namespace burrow::quant::generic {

// --- dequantize: n elements into dst ---
void dequantizeRowF32(const void *src, float *dst, int64_t n);
void dequantizeRowF16(const void *src, float *dst, int64_t n);
void dequantizeRowBF16(const void *src, float *dst, int64_t n);
void dequantizeRowQ4_0(const void *src, float *dst, int64_t n);
void dequantizeRowQ4_1(const void *src, float *dst, int64_t n);
void dequantizeRowQ5_0(const void *src, float *dst, int64_t n);
void dequantizeRowQ5_1(const void *src, float *dst, int64_t n);
void dequantizeRowQ8_0(const void *src, float *dst, int64_t n);
void dequantizeRowQ8_1(const void *src, float *dst, int64_t n);
void dequantizeRowQ2_K(const void *src, float *dst, int64_t n);
void dequantizeRowQ3_K(const void *src, float *dst, int64_t n);
void dequantizeRowQ4_K(const void *src, float *dst, int64_t n);
void dequantizeRowQ5_K(const void *src, float *dst, int64_t n);
void dequantizeRowQ6_K(const void *src, float *dst, int64_t n);
void dequantizeRowQ8_K(const void *src, float *dst, int64_t n);
void dequantizeRowIQ4_NL(const void *src, float *dst, int64_t n);
void dequantizeRowIQ4_XS(const void *src, float *dst, int64_t n);
void dequantizeRowMXFP4(const void *src, float *dst, int64_t n);

// --- quantize: n floats into blocks (reference quantizers, deterministic) ---
void quantizeRowF32(const float *src, void *dst, int64_t n);
void quantizeRowF16(const float *src, void *dst, int64_t n);   // round to nearest even
void quantizeRowBF16(const float *src, void *dst, int64_t n);  // round to nearest even
void quantizeRowQ4_0(const float *src, void *dst, int64_t n);
void quantizeRowQ4_1(const float *src, void *dst, int64_t n);
void quantizeRowQ5_0(const float *src, void *dst, int64_t n);
void quantizeRowQ5_1(const float *src, void *dst, int64_t n);
// IQ4_NL / IQ4_XS as llama-quantize writes them without an importance matrix
// (quantize_iq4_nl / quantize_iq4_xs: scale search over 15 candidates; see quantize_iq4.cpp).
void quantizeRowIQ4_NL(const float *src, void *dst, int64_t n);
void quantizeRowIQ4_XS(const float *src, void *dst, int64_t n);
void quantizeRowQ8_0(const float *src, void *dst, int64_t n);
void quantizeRowQ8_1(const float *src, void *dst, int64_t n);
void quantizeRowQ4_K(const float *src, void *dst, int64_t n);
void quantizeRowQ5_K(const float *src, void *dst, int64_t n);
void quantizeRowQ6_K(const float *src, void *dst, int64_t n);
void quantizeRowQ8_K(const float *src, void *dst, int64_t n);
// The reference's quantize_row_mxfp4_ref: e = floor(log2(amax)) - 2 + 127 in
// float (amax 0: e = 0), taken to a byte as the reference's x86 build does
// (through int32, low 8 bits: blocks with amax < 2^-125 wrap to a huge scale
// and all-zero codes, an error below 2^-125); each value gets the code of
// least |kValuesMxfp4[q] * d - x|, the lowest code on ties (0, not -0).
void quantizeRowMXFP4(const float *src, void *dst, int64_t n);
// The E2M1 code (0..15) of least |kValuesMxfp4[q] * d - x|, the first one on
// ties (MXFP4 and NVFP4: d is half the block's scale).
uint8_t bestMxfp4Code(float x, float d);

// --- dot products: *s = x . y over n elements ---
// Each follows the float steps of the reference engine's AVX-512 build
// (vec_dot.cpp states them); `...Gemm` is the form of the reference's batch
// kernel where it differs from its one-token kernel (quant_traits.h:
// vecDotGemm, gemmFormTokens).
void vecDotF32(int64_t n, float *s, const void *x, const void *y);       // ggml_vec_dot_f32
void vecDotF32Gemm(int64_t n, float *s, const void *x, const void *y);   // tinyBLAS, n % 16 == 0
void vecDotF16(int64_t n, float *s, const void *x, const void *y);       // F16 . F16, ggml_vec_dot_f16
void vecDotF16Gemm(int64_t n, float *s, const void *x, const void *y);   // tinyBLAS, n % 16 == 0
void vecDotBF16(int64_t n, float *s, const void *x, const void *y);      // BF16 . BF16, ggml_vec_dot_bf16
void vecDotBF16Gemm(int64_t n, float *s, const void *x, const void *y);  // tinyBLAS, n % 32 == 0
void vecDotQ4_0Q8_0(int64_t n, float *s, const void *x, const void *y);
void vecDotQ4_1Q8_1(int64_t n, float *s, const void *x, const void *y);
void vecDotQ5_0Q8_0(int64_t n, float *s, const void *x, const void *y);
void vecDotQ5_1Q8_1(int64_t n, float *s, const void *x, const void *y);
void vecDotQ8_0Q8_0(int64_t n, float *s, const void *x, const void *y);
void vecDotQ2_KQ8_K(int64_t n, float *s, const void *x, const void *y);       // repacked gemv
void vecDotQ2_KQ8_KGemm(int64_t n, float *s, const void *x, const void *y);   // repacked gemm
void vecDotQ3_KQ8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotQ4_KQ8_K(int64_t n, float *s, const void *x, const void *y);       // repacked gemv
void vecDotQ4_KQ8_KGemm(int64_t n, float *s, const void *x, const void *y);   // repacked gemm
void vecDotQ5_KQ8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotQ6_KQ8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotIQ4_NLQ8_0(int64_t n, float *s, const void *x, const void *y);
void vecDotIQ4_XSQ8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotMXFP4Q8_0(int64_t n, float *s, const void *x, const void *y);

// The reference's float reductions: _mm512_reduce_add_ps as GCC expands it
// (h[i] = a[i + 8] + a[i], q[i] = h[i + 4] + h[i], (q0 + q2) + (q1 + q3)) and
// hsum_float_8 ((a4 + a0) + (a6 + a2)) + ((a5 + a1) + (a7 + a3)).
float reduce16(const float a[16]);
float hsum8(const float a[8]);

} // namespace burrow::quant::generic
