// The trait table: one row per weight type the engine computes with.
//
// Scheme (as the reference engine): a matrix multiply first quantizes the F32
// activations once into the weight type's dot partner (`vecDotType`: Q8_0,
// Q8_1, Q8_K, or F16/BF16/F32 for float weights), then every output element is
// one vecDot of a weight row against that quantized activation row.
//
// Rows are filled once, after CPU feature detection (cpu_features.h); the
// scalar kernels in generic/ are the twins of every SIMD kernel. Dot products
// keep the integer sums exact and compute the float steps of the reference
// engine's AVX-512 build (lanes, fused multiply-adds, reduction trees) on
// every path, bit for bit, so the logits round like the reference's on any
// CPU. Where the reference's batch kernel has other float steps than its
// one-token kernel (Q4_K, Q2_K: repacked gemm vs gemv; F32, F16, BF16:
// tinyBLAS vs vec_dot) a row has both forms: vecDot/vecDotMulti (one token)
// and vecDotGemm/vecDotMultiGemm, and gemmFormTokens() says which tokens of a
// multiply take the batch form. setCpuPath() re-fills the rows for another
// path (tests force each one).
//
// Activation-only formats (Q8_1, Q8_K) have rows too (quantize + dequantize,
// no vecDot); Q8_0, F16, BF16 and F32 are both weights and activations.
#pragma once

#include "common/ggml_types.h"
#include "burrow/status.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace burrow::quant {

// src: n/blockSize blocks of the type; dst: n floats. n % blockSize == 0.
using DequantizeRowFn = void (*)(const void *src, float *dst, int64_t n);
// src: n floats; dst: n/blockSize blocks of the type. n % blockSize == 0.
using QuantizeRowFn = void (*)(const float *src, void *dst, int64_t n);
// *result = dot(x, y) over n elements; x is a weight row of the row's type,
// y a row of its vecDotType. n % blockSize == 0 (and of vecDotType's block size).
// Quantized activation rows never hold the value -128 (the quantizers here
// produce [-127, 127], as the reference's); SIMD kernels rely on it.
using VecDotFn = void (*)(int64_t n, float *result, const void *x, const void *y);

// One weight row against `ny` activation rows (prompt processing: the weight
// row is unpacked once for several tokens): out[j] = x . y_j, where y_j starts
// yStride bytes after y_(j-1). Each out[j] is bit-identical to vecDot(n,
// &out[j], x, y_j) on the same path, so callers may mix the two freely.
// Any ny >= 1; kernels work on up to 4 columns at a time.
using VecDotMultiFn = void (*)(int64_t n, float *out, const void *x, const void *y, size_t yStride, int ny);

// The loop fallback for a type without a multi-column kernel.
template <VecDotFn F>
void vecDotMultiLoop(int64_t n, float *out, const void *x, const void *y, size_t yStride, int ny)
{
    for (int j = 0; j < ny; ++j)
        F(n, out + j, x, static_cast<const uint8_t *>(y) + static_cast<size_t>(j) * yStride);
}

struct TypeTraits {
    GgmlType type;
    const char *name;
    int64_t blockSize;
    size_t typeSize;
    DequantizeRowFn dequantize;   // always set
    QuantizeRowFn quantize;       // reference quantizer (activations, `burrow-cli quantize`); may be null
    VecDotFn vecDot;              // weight row . activation row; null for activation-only rows
    GgmlType vecDotType;          // the activation format vecDot expects
    // Activation quantizer for this row's type when it is a vecDotType; use it
    // (not `quantize`) for matrix-multiply activations. On the scalar path it is
    // `quantize`. On the x86 paths it is SIMD and reproduces what the reference
    // engine computes on x86: Q8_0/Q8_1 scale by 127/amax and round ties to
    // even (its AVX2 quantizer), where `quantize` (its reference quantizer,
    // for weights) uses 1/d and rounds ties away from zero; Q8_K and F16 give
    // the same bytes as `quantize`. Null for weight-only types.
    QuantizeRowFn quantizeActivation;
    // Multi-column vecDot (see VecDotMultiFn); set whenever vecDot is.
    VecDotMultiFn vecDotMulti;
    // The reference's batch-kernel form (see gemmFormTokens); equal to
    // vecDot / vecDotMulti for the types with one form. Set whenever vecDot is.
    VecDotFn vecDotGemm;
    VecDotMultiFn vecDotMultiGemm;
};

// How many leading activation rows of a multiply of nTokens rows of K
// elements the reference computes with its batch kernel (TypeTraits::
// vecDotGemm), the rest with its one-token kernel (vecDot):
//   Q4_K, Q2_K   nTokens - nTokens % 4 (its repacked gemm takes 4 rows at a time)
//   F32, F16     nTokens when nTokens > 1 and K % 16 == 0 (tinyBLAS), else 0
//   BF16         nTokens when nTokens > 1 and K % 32 == 0, else 0
//   others       0 (one form)
// A multiply of one expert's rows (the reference's mul_mat_id) takes the
// one-token form for every row: pass expertRows = true (gives 0).
int64_t gemmFormTokens(GgmlType type, int64_t K, int64_t nTokens, bool expertRows = false);

// The row for `type`, or nullptr when the engine cannot compute with it.
const TypeTraits *typeTraits(GgmlType type);

// True for the weight types a model file may use (F32, F16, BF16, Q4_0, Q4_1,
// Q5_0, Q5_1, Q8_0, Q2_K..Q6_K, IQ4_NL, IQ4_XS, MXFP4, TQ1_0, TQ2_0, Q1_0,
// Q2_0, NVFP4, and the lattice i-quants IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S,
// IQ3_XXS, IQ3_S).
bool isSupportedWeightType(GgmlType type);

// ok for a supported weight type; otherwise an error naming the tensor, its
// type and the supported types ("tensor 'blk.0.ffn_up.weight' has type
// IQ2_XXS, which Burrow cannot compute with (supported: F32, F16, ...)").
Status checkWeightType(GgmlType type, std::string_view tensorName);

// "F32, F16, BF16, Q4_0, ..." for messages and docs.
const char *supportedWeightTypesText();

} // namespace burrow::quant
