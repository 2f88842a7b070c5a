// Packed groups (quant/packed.h) of the 1- and 2-bit types and NVFP4: rows in
// groups of 16, each 4-element run of a row beside the same run of the 15
// other rows, decoded in registers to unsigned bytes for vpdpbusd; every
// row's float steps stay its type's dot product (generic/lowbit_kernels.h),
// so the results are bit-identical to vecDot.
//
// Layouts of one block of a group (rows r = 0..15; bytes per block = 16 x the
// type's block bytes, so packing costs no memory but for TQ1_0 and a group's
// padding to a multiple of 64 bytes):
//   Q1_0   (128 elements, 288 bytes) [16] f16 d, then for lane m < 8, Q8_0
//          block k < 4: a 64-bit mask, bit 4r + i = the sign bit of element
//          32k + 4m + i of row r (weights become 128 +- 1: the Q8_0 side
//          array's -128 x run sum takes the offset out)
//   Q2_0   (64 elements, 288 bytes) [16] f16 d, then for Q8_0 block k < 2,
//          word pair p < 2: [16 rows][4 bytes], byte i at bits 2l the code of
//          element 32k + 16p + 4l + i (weights become code + 7: the Q4_0
//          side array's -8 x block sum takes the offset and the -1 out)
//   TQ1_0, TQ2_0  (256 elements, 1056 bytes) [16] f16 d, then for lane
//          m < 8, half h < 2: [16 rows][4 bytes] = TQ2_0 qs bytes 32h +
//          4m..4m+3 (bits 2l: segment 4h + l); TQ1_0 is decoded to these
//          2-bit codes at load (2 bits a weight instead of 1.69)
//   NVFP4  (64 elements, 576 bytes) [4 sub-blocks][16] scale codes (the
//          UE4M3 byte re-coded: c stands for (1 + (c & 7)/8) 2^((c >> 3) - 11),
//          0 for zero: half the scale, one shift and add from a float),
//          then for sub-block s < 4, chunk c < 2: [16 rows][4] qs bytes
//          8s + 4c.. (low nibbles: elements 16s + 4c.., high: 16s + 8 + 4c..;
//          values become 128 + the doubled E2M1 value: the Q8_0 side array)
#pragma once

#include "common/ggml_types.h"
#include "quant/quant_traits.h"

#include <cstddef>
#include <cstdint>

namespace burrow::quant::lowbit {

// True for the five types above.
bool packs(GgmlType type);
// Elements of one packed block (the type's block size).
int64_t blockSize(GgmlType type);
// Bytes of a group of 16 rows of `blocks` blocks.
size_t groupBytes(GgmlType type, int64_t blocks);
// Row `rr` (0..15) of group `g` from one row of the type (`nb` blocks).
void packRow(GgmlType type, const uint8_t *src, int64_t nb, uint8_t *g, int rr);

// The activation side arrays (packed.h PackedActivation) a type reads: those
// of Q8_0 (per-run sums), of Q4_0 (per-block sums) or none (Q8_K partner).
GgmlType sideArraysOf(GgmlType type);

// The scalar twin's view of a packed row: `dst` receives the row as blocks
// of unpackedType(type) (TQ2_0 for TQ1_0: the same codes and float steps),
// and scalarDot(type) computes with them.
GgmlType unpackedType(GgmlType type);
void unpackRow(GgmlType type, const uint8_t *g, int64_t nb, int rr, uint8_t *dst);
VecDotFn scalarDot(GgmlType type);

} // namespace burrow::quant::lowbit
