// Weight matrices repacked for integer matrix kernels: rows in groups of 16,
// each 4-byte run of a row's quantized weights placed beside the same run of
// the 15 other rows, so one 512-bit VNNI vpdpbusd multiplies 4 weights of 16
// rows by 4 activations broadcast to every lane. A group of 16 rows is one
// register of outputs; the activations are read once per group instead of
// once per row, and the per-block float work (scales, conversion) is done
// for 16 rows per instruction.
//
// Packed once at model load (packMatrix), for Q8_0, Q4_0, Q5_0, IQ4_NL, MXFP4,
// Q4_K, Q5_K, Q6_K and IQ4_XS weights (the weights of the common GGUF files: Q4_0, Q8_0,
// Q4_K_M, Q5_K_M, Q6_K and IQ4_XS files, and the Q5_0 / IQ4_NL that K- and
// i-quant files fall back to for rows not a multiple of 256); the original
// rows stay mapped and
// every other kernel keeps reading them. Weights become unsigned bytes (Q8_0:
// w + 128; Q4_0 / Q4_K: the 4-bit code; Q5_0: w + 16; Q5_K / Q6_K: the 5- / 6-bit code;
// IQ4_XS: the table value's magnitude, its sign moved onto the activation)
// and any offset times the activations' sums is taken back out, so the
// integer sums are exact; every row's float steps are those of the type's
// dot product (quant_traits.h: the reference's AVX-512 build; Q8_0, Q5_0,
// Q5_K, Q6_K and IQ4_XS keep 8 lanes per row, Q4_K has the gemv and gemm forms),
// so the results are bit-identical to vecDot / vecDotGemm of the same row.
//
// Layout of one group (groupBytes), rows r = 0..15 (rows past N are zero):
//   Q8_0  per chunk of up to 8 blocks (packedBlockOffsets): [blocks][8 runs]
//         [16 rows][4 bytes] codes w + 128, then [blocks][16] f16 d
//   Q4_0  per chunk of up to 8 blocks: [blocks][4 runs][16 rows][4 bytes] qs
//         bytes 4i..4i+3 (low nibbles: elements 4i.., high: 16 + 4i..), then
//         [blocks][16] f16 d
//         (the scales beside their runs: one stream through memory, as the
//         K-quants' super-blocks)
//   IQ4_NL as Q4_0 (the nibbles index the value table; the kernels add 128
//         to the values and take 128 x the block sum back out)
//   MXFP4 as IQ4_NL with its own value table (the E2M1 values doubled) and
//         the scale 2^(e - 128) stored as the f16 it equals (packableRows)
//   Q5_0  per chunk of up to 8 blocks: [blocks][5 runs][16 rows][4 bytes]:
//         runs 0..3 as Q4_0's qs, run 4 the fifth bits transposed (byte i,
//         bit m: qh bit 4m + i, the fifth bit of the code in byte i of run m
//         % 4's low (m < 4) or high nibbles), then [blocks][16] f16 d;
//         the codes are w + 16, taken back out with the Q8_0 run sums
//   Q4_K  per super-block: [16] f16 d, [16] f16 dmin, [8 subs][16] u8 scale,
//         [4 sub pairs][16 rows][2] u8 min, [32 runs][16 rows][4] qs bytes
//         (run c: qs bytes 4c..4c+3; low nibbles: sub-block 2(c/8),
//         high: 2(c/8) + 1)
//   Q6_K  per super-block: [16 subs][16] i8 scale, [16] f16 d, 32 bytes
//         padding, then for half h < 2, run g < 8: three [16][4] byte runs
//         A, B, C over elements 128h + 32k + 4g.. (chunk k < 4): the 6-bit
//         codes of chunks 0, 1, 2 in bits 0-5 of A, B, C, and chunk 3's
//         code split over their bits 6-7 (bits 0-1 in A, 2-3 in B, 4-5 in
//         C), so three codes take one AND each and the fourth a few steps
//   Q5_K  per super-block (2880 bytes): [16] f16 d, [16] f16 dmin, [8 subs][16]
//         u8 scale, [4 sub pairs][16 rows][2] u8 min, then for run m < 8
//         (elements 4m..4m+3 of every 32): for pair p < 4 [16][4] qs bytes
//         32p + 4m.. (low nibbles: sub-block 2p, high: 2p + 1), then [16][4]
//         qh bytes 4m.. (bit s: sub-block s's fifth bit)
//   IQ4_XS per super-block (2176 bytes): [16] f16 d, [16] u16 scales_h,
//         [16][4] scales_l, then for run c < 4, sub-block ib < 8: [16][4] qs
//         bytes 16 ib + 4c.. (low nibbles: elements 4c.. of the sub-block,
//         high: 16 + 4c..)
//
// Activations: Q8_0 rows (with side arrays of block scales and sums, see
// PackedActivation) for Q8_0/Q4_0/Q5_0/IQ4_NL/MXFP4; Q8_K rows for Q4_K/Q5_K/Q6_K/IQ4_XS.
#pragma once

#include "common/ggml_types.h"
#include "burrow/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace burrow::quant {

inline constexpr int kPackRows = 16;

// Where block b (of nb) of a Q8_0 / Q4_0 group has its runs (runBytes: the
// block's runs of 16 rows, 8 or 4 x 64 bytes) and its 16 scales: blocks in
// chunks of 8, each chunk's runs followed by its scales (a multiple of 64
// bytes for a whole chunk).
struct PackedBlockOffsets {
    size_t runs;
    size_t scales;
};
inline PackedBlockOffsets packedBlockOffsets(int64_t b, int64_t nb, size_t runBytes)
{
    constexpr int64_t chunk = 8;
    const int64_t c = b / chunk, within = b % chunk, inChunk = nb - c * chunk < chunk ? nb - c * chunk : chunk;
    const size_t base = static_cast<size_t>(c) * static_cast<size_t>(chunk) * (runBytes + 2 * kPackRows);
    return {base + static_cast<size_t>(within) * runBytes,
            base + static_cast<size_t>(inChunk) * runBytes + static_cast<size_t>(within) * 2 * kPackRows};
}

struct PackedMatrix {
    GgmlType type = GgmlType::GGML_TYPE_F32;   // the original weight type
    int64_t K = 0;             // row length (elements)
    int64_t N = 0;             // rows
    int64_t groups = 0;        // ceil(N / 16)
    int64_t blocks = 0;        // blocks (Q8_0/Q4_0) or super-blocks (the K-quants, IQ4_XS) per row
    size_t groupBytes = 0;     // a multiple of 64
    std::unique_ptr<uint8_t[], void (*)(uint8_t *)> data{nullptr, nullptr};   // 64-aligned

    const uint8_t *group(int64_t g) const { return data.get() + static_cast<size_t>(g) * groupBytes; }
    size_t bytes() const { return static_cast<size_t>(groups) * groupBytes; }
};

// True when `type` has a packed layout and rows of K elements can be packed.
bool packSupported(GgmlType type, int64_t K);

// Bytes packMatrix writes for N rows of K elements (a multiple of 64; 0 when
// the shape cannot be packed).
size_t packedMatrixBytes(GgmlType type, int64_t K, int64_t N);

// The 16 int8 values the 4-bit codes of a value-table type stand for, as the
// packed kernels' Table form reads them: MXFP4's (the E2M1 values doubled)
// for MXFP4, IQ4_NL's for IQ4_NL.
const int8_t *packedCodeValues(GgmlType type);

// False where the values of these rows have no place in the packed layout:
// an MXFP4 block scale 2^(e - 128) outside f16's range (E8M0 exponents
// other than 104..143; real weights stay far inside). Such a matrix keeps
// its row kernels (packMatrix refuses it). Reads every block's scale
// (MXFP4 only; true otherwise).
bool packableRows(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K, int64_t N);

// Packs N rows of K elements (rowBytes apart from `rows`). dst: where to
// write packedMatrixBytes(type, K, N) bytes (64-byte aligned, owned by the
// caller and outliving the matrix: the matrices of one model share one
// arena, runtime/weight_packing.cpp); null: the matrix allocates its own.
// Errors: an unsupported type or shape, out of memory.
Result<std::unique_ptr<PackedMatrix>> packMatrix(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K,
                                                 int64_t N, uint8_t *dst = nullptr);

// The activations of a packed multiply: nTokens rows of the dot partner
// (Q8_0 for Q8_0/Q4_0/Q5_0/IQ4_NL, Q8_K for the others), `stride` bytes apart. For the
// Q8_0 partner, `scale` holds each block's d as float ([nTokens][K/32]) and
// `sum` the offset corrections: for Q4_0 (IQ4_NL) weights -8 times the sum of the
// block's 32 codes ([nTokens][K/32]), for Q8_0 (Q5_0) weights -128 (-16)
// times the sum of each 4-code run ([nTokens][K/32][8]); preparePackedRow
// fills them.
struct PackedActivation {
    const uint8_t *rows = nullptr;
    size_t stride = 0;
    float *scale = nullptr;
    int32_t *sum = nullptr;
    uint8_t *tileSide = nullptr;   // the lattice i-quants' tiles (iq_tiles.h): their activation side
    // Where the AMX kernels run (packedAmxActive at packedActivation time,
    // 16 tokens or more): the codes of the first amxTokens tokens (whole
    // 16-token tiles) again as tile rows, [tile][K/32][16 tokens][32 bytes]
    // (64-aligned), so a tile load reads 8 whole lines; null otherwise.
    uint8_t *amxTiles = nullptr;
    int64_t amxTokens = 0;
};

// Bytes of side arrays (scale + sum, and the AMX tile rows where they are
// used) for nTokens rows of K elements of a matrix of `type` (0 for the Q8_K
// partner without AMX).
size_t packedSideBytes(GgmlType type, int64_t K, int64_t nTokens);
// The activation view over `rows`, with its side arrays in `side`
// (packedSideBytes bytes, 4-aligned). Fill them with preparePackedRow.
PackedActivation packedActivation(GgmlType type, int64_t K, const uint8_t *rows, size_t stride, int64_t nTokens,
                                  void *side);
// Fills the side arrays of token t (no-op for the Q8_K partner). Rows may be
// prepared from several threads, each its own t.
void preparePackedRow(GgmlType type, int64_t K, const PackedActivation &act, int64_t t);

// y[t * ldy + r] = row r . activation t, for the rows of groups [g0, g1)
// (r < N) and t < nTokens, with the active CPU path's kernel (AVX-512 VNNI,
// AVX2 with AVX-VNNI and plain AVX2: all eight types) or else the scalar
// twin. Tokens t < nGemm take the type's batch form
// (vecDotGemm; quant_traits.h gemmFormTokens), the others its one-token form.
// Cost: 16 * (g1 - g0) * nTokens * K multiply-adds.
void packedMatmul(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                  int64_t nGemm, float *y, size_t ldy);

// The scalar twin: each row unpacked back into the type's blocks, then the
// scalar dot products (generic/), so the SIMD kernels are checked against
// the recipes and the layout at once.
void packedMatmulScalar(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                        int64_t nTokens, int64_t nGemm, float *y, size_t ldy);

// True when the active CPU path has a packed kernel for `type` (packing is
// worth it): AVX-512 VNNI, AVX-VNNI and plain AVX2 for all eight types.
bool packedKernelsActive(GgmlType type);

// Whether the AVX2 path may use the CPU's AVX-VNNI (default: yes, where the
// CPU has it). Tests turn it off to run the plain AVX2 kernels too; not
// thread-safe against a running multiply (like setCpuPath).
void setPackedAvxVnni(bool allowed);
// True when the AVX2 path's kernels take AVX-VNNI now (the CPU has it,
// BURROW_AVX_VNNI is not 0 and setPackedAvxVnni left it on); the lattice
// tiles (iq_tiles.h) follow the same switch.
bool packedAvxVnniActive();

// Whether the avx512 path may multiply batches of 16 or more tokens with
// AMX-INT8 tile products (default: yes, where cpu_features.h amxUsable();
// BURROW_AMX=0 turns it off), and whether it does for `type` (Q4_0, IQ4_NL,
// Q4_K: the bits of the VNNI kernels). Not thread-safe against a running
// multiply.
void setPackedAmx(bool allowed);
bool packedAmxActive(GgmlType type);

} // namespace burrow::quant
