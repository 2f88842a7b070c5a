// Scalar kernels of the lattice i-quants IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS,
// IQ2_S, IQ3_XXS and IQ3_S (layouts: quant_blocks.h; codebooks: iq_grids.h):
// the reference twins of their SIMD kernels (x86/avx2_iq.cpp,
// x86/avx512_iq.cpp) and of the prompt-path conversion (iq_tiles.h).
//
// Dequantization computes what the reference's dequantize_row_iq* compute,
// term by term. Each dot product with a Q8_K row follows the float steps of
// the reference's x86 kernels (ggml_vec_dot_iq*_q8_K, AVX2 code, which its
// AVX-512 build runs too), so every path rounds alike:
//   IQ2_*, IQ3_*  8 int32 lanes per row, lane m = the products of elements
//                 4m..4m+3 of every 32-element sub-block times the scale of
//                 their 16 (2s + 1); per super-block
//                 acc[m] = fma(d_w * d_a, float(lane m), acc[m]);
//                 result c * hsum8(acc), c = 1/8 (IQ2), 1/4 (IQ3_XXS), 1 (IQ3_S)
//   IQ1_S         the same lanes of grid values (-1, 0, 1); the shift's
//                 integer (sum of scale * sign * the activations) in one
//                 float: acc1 = fma(d_a * d_w, float(it), acc1);
//                 result hsum8(acc) + acc1 / 8
//   IQ1_M         the lanes of the grid and the lanes of the shift (scale *
//                 sign of its 8 * activations), two sets of 8 accumulators;
//                 result hsum8(acc) + hsum8(accShift) / 8
// (the reference's generic C code sums the same integers in one float chain
// per row instead; the x86 form is the one its logits come from).
//
// Contracts as generic_kernels.h: n a multiple of 256, whole blocks.
#pragma once

#include "common/ggml_types.h"

#include <cstdint>

namespace burrow::quant::generic {

// One super-block in integers: element e = w[e] (signed grid value) with
// scale scale[e / 16] (2s + 1, odd, <= 31); IQ1: plus shift[e / 8] (+-1) / 8;
// d the block's f16 scale as float (IQ1_M: assembled from its scale bits).
struct IqSuperBlock {
    int8_t w[256];
    uint8_t scale[16];
    int8_t shift[32];
    float d;
};

// Decodes super-block `block` of a lattice type (IQ1 types fill shift, the
// others leave it zero). Every bit pattern decodes (indices cannot leave the
// grids: 8, 9, 10 or 11 bits index 256, 512, 1024, 2048 points).
using IqDecodeFn = void (*)(const void *block, IqSuperBlock *out);
IqDecodeFn iqDecoder(GgmlType type);   // null for other types

// The float factor applied to hsum8 at the end (1/8, 1/4, 1; IQ1: 1).
float iqFinalScale(GgmlType type);

// True for IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S.
bool isIqLatticeType(GgmlType type);

void dequantizeRowIQ2_XXS(const void *src, float *dst, int64_t n);
void dequantizeRowIQ2_XS(const void *src, float *dst, int64_t n);
void dequantizeRowIQ2_S(const void *src, float *dst, int64_t n);
void dequantizeRowIQ3_XXS(const void *src, float *dst, int64_t n);
void dequantizeRowIQ3_S(const void *src, float *dst, int64_t n);
void dequantizeRowIQ1_S(const void *src, float *dst, int64_t n);
void dequantizeRowIQ1_M(const void *src, float *dst, int64_t n);

// IQ3_S as the reference's llama-quantize writes it without an importance
// matrix (quantize_iq3_s, blocks of 32; quantize_iq3s.cpp), byte for byte.
void quantizeRowIQ3_S(const float *src, void *dst, int64_t n);

void vecDotIQ2_XXSQ8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotIQ2_XSQ8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotIQ2_SQ8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotIQ3_XXSQ8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotIQ3_SQ8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotIQ1_SQ8_K(int64_t n, float *s, const void *x, const void *y);
void vecDotIQ1_MQ8_K(int64_t n, float *s, const void *x, const void *y);

// The integer lanes of one decoded super-block against one Q8_K block:
// lane[m] (grid) and shiftLane[m] (IQ1's shift; zero for the others).
void iqLanes(const IqSuperBlock &b, const int8_t *q8, int32_t lane[8], int32_t shiftLane[8]);

// The float steps of a lattice type's dot product over the lanes of one
// row's super-blocks (state per row; see the table above).
struct IqAccumulator {
    float acc[8] = {};
    float accShift[8] = {};
    float accShift1 = 0.0f;
};
void iqAccumulate(GgmlType type, IqAccumulator &a, float dw, float da, const int32_t lane[8], const int32_t shiftLane[8]);
float iqFinish(GgmlType type, const IqAccumulator &a);

} // namespace burrow::quant::generic
