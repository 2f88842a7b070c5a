// The prompt path of the lattice i-quants (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS,
// IQ2_S, IQ3_XXS, IQ3_S): a multiply of many tokens converts each group of
// 16 weight rows once into an int8 tile (grid values with their signs,
// beside the rows' scales) and runs every token through it with 512-bit
// VNNI: one vpmaddubsw + vpdpwssd multiplies 4 weights of 16 rows by 4
// activations broadcast to every lane (AVX2: two halves of 8 rows,
// vpmaddubsw + vpmaddwd + vpaddd). The original blocks stay in the
// file mapping (nothing is packed at load: a tile is 4x a 2-bit row), and
// generation (one token) reads them directly (TypeTraits::vecDot).
//
// Q3_K and Q2_K take the same tiles. Q3_K's one-token kernel (the x86
// form) has the lattice types' 8 lanes (its levels -4..3 as the weights,
// its 6-bit scales - 32 as the scale pairs, final factor 1). Q2_K's sums a
// whole super-block in one integer (lane starts summed into lane 0's) and
// steps in float once per super-block for the values and once for the
// mins (generic q2K), so its tile runs one chain through the 8 lanes.
//
// Every integer sum is exact and each row keeps its type's float steps
// (generic/iq_kernels.h: 8 lanes per row, one fused multiply-add per
// super-block and lane, hsum8), so results are bit-identical to vecDot.
// Activations become unsigned (q + 128, copied once per token by
// iqTilePrepareRow), and each row's 128 * (its scaled weights) is taken back
// out where a lane starts.
//
// Tile of one group (16 rows r, rows past N are zero), per super-block b
// (iqTileSuperBytes(type) bytes):
//   [16]       f32 dw                 the rows' f16 d (IQ1_M: its assembled d)
//   [8 m][16]  i32 lane start         -128 * sum over sub-blocks ib of scale(ib, m / 4) * (the 4 weights of run (m, ib))
//   [16 h][16] i32 scale pair         the scale 2s + 1 of half h (elements 16h..) twice as int16
//   [8 m][8 ib][16][4] i8 weights     run (m, ib): elements 32ib + 4m..32ib + 4m + 3, grid value * sign
//   IQ1_S  [4 p][16] i32              (c(2p), c(2p + 1)) as int16, c(ib) = scale(ib) * shift sign of sub-block ib
//   IQ1_M  [8 m][4 p][16] i32         (c(2p, m), c(2p + 1, m)), c(ib, m) = scale(ib, m / 4) * shift sign of group 4ib + m / 2
//   Q2_K   [8 p][16] i32              (min(2p), min(2p + 1)) as int16, min(h) = the 4-bit min of half h
//          [16] f32                   the rows' f16 dmin
//   (Q2_K: lane 0's start the whole super-block's, the other starts zero.)
// IQ1_S, IQ1_M and Q2_K (iqTileScaledWeights): each weight is value * its
// half's scale (|v| <= 1 times <= 15; Q2_K 0..3 times <= 15: a byte), the
// scale pairs 1, so a run needs one vpdpbusd where the others take
// vpmaddubsw + vpdpwssd; the lane sums are the same integers.
// Activation side, per 8 tokens j (kIqTileActBytes per token and super-block;
// nb = K / 256), the tokens side by side so that a tile of 8 tokens reads
// them from one pointer:
//   [8 m][nb b][8 ib][8 j][4] u8   q + 128 of run (m, ib) of super-block b (one lane's
//                                  bytes of all super-blocks together: a pass streams them)
//   [nb][4 p][8 j] i32             (sum(2p), sum(2p + 1)) as int16, sum(ib) = bsums[2ib] + bsums[2ib + 1]  (IQ1_S)
//   [8 m][nb][4 p][8 j] i32        (q4(2p, m), q4(2p + 1, m)) as int16, q4(ib, m) = the 4 q of run (m, ib) (IQ1_M)
//     Q2_K, in the same place: [nb][8 p][8 j] i32  (bsums[2p], bsums[2p + 1]) as int16
#pragma once

#include "common/ggml_types.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace burrow::quant {

struct PackedActivation;

inline constexpr size_t kIqTileActBytes = 256 + 16 + 128;

// Offsets in one super-block of a group's tile (the layout above): the lane
// starts, the scale pairs, the weight runs, IQ1_S / IQ1_M's coefficient pairs.
inline constexpr size_t kIqTileOffStart = 64, kIqTileOffScale = 576, kIqTileOffWeights = 1600, kIqTileOffExtra = 5696;
inline constexpr size_t kIqTileOffQ2KDmin = kIqTileOffExtra + 8 * 64;   // Q2_K's dmin row, after its 8 min pairs

// Two int16 in one int32 (a below b), as the tile's pair fields hold them.
constexpr int32_t iqTilePair16(int a, int b)
{
    return static_cast<int32_t>((static_cast<uint32_t>(a) & 0xffffu) | (static_cast<uint32_t>(b) << 16));
}

// IQ1_S and IQ1_M: row r's shift coefficient pairs in the extra part of one
// super-block of a tile (o: its first byte; the layout above), from the
// scales of the row's 16 halves (half[h]: 2s + 1 of elements 16h..16h + 15)
// and groupNeg (bit l set: the shift of elements 8l..8l + 7 is negative).
// Every path's conversion writes them here; other types: nothing.
template <typename Scale>
inline void iqTilePutShiftPairs(GgmlType type, uint8_t *o, size_t r, const Scale *half, uint32_t groupNeg)
{
    // c(ib, m): the scale of lane m's half of sub-block ib, with its group's shift sign
    const auto c = [&](int ib, int m) {
        const int sc = static_cast<int>(half[2 * ib + m / 4]);
        return ((groupNeg >> (4 * ib + m / 2)) & 1u) ? -sc : sc;
    };
    const auto put = [&](size_t slot, int c0, int c1) {
        const int32_t v = iqTilePair16(c0, c1);
        std::memcpy(o + kIqTileOffExtra + (16 * slot + r) * 4, &v, 4);
    };
    if (type == GgmlType::GGML_TYPE_IQ1_S)   // one pair per 2 sub-blocks
        for (int p = 0; p < 4; ++p)
            put(static_cast<size_t>(p), c(2 * p, 0), c(2 * p + 1, 0));
    else if (type == GgmlType::GGML_TYPE_IQ1_M)   // per lane and 2 sub-blocks
        for (int m = 0; m < 8; ++m)
            for (int p = 0; p < 4; ++p)
                put(static_cast<size_t>(4 * m + p), c(2 * p, m), c(2 * p + 1, m));
}

// Token t's place in the side (from act.tileSide: its run (0, 0) of
// super-block 0); the offsets below are from there, the same for the 8
// tokens of a group. Internal linkage: the SIMD translation units use them.
static constexpr size_t iqSideToken(int64_t nb, int64_t t)
{
    return static_cast<size_t>((t / 8) * 8 * nb) * kIqTileActBytes + 4 * static_cast<size_t>(t % 8);
}
static constexpr size_t iqSideRun(int64_t nb, int m, int64_t b, int ib)
{
    return static_cast<size_t>(((m * nb + b) * 8 + ib) * 32);
}
static constexpr size_t iqSideSums(int64_t nb, int64_t b, int p) { return static_cast<size_t>(2048 * nb + (4 * b + p) * 32); }
static constexpr size_t iqSideQ4(int64_t nb, int m, int64_t b, int p)
{
    return static_cast<size_t>(2176 * nb + ((m * nb + b) * 4 + p) * 32);
}
static constexpr size_t iqSideBsums(int64_t nb, int64_t b, int p) { return static_cast<size_t>(2176 * nb + (8 * b + p) * 32); }

// Bytes of one super-block of a group's tile (0 for other types).
size_t iqTileSuperBytes(GgmlType type);

// Fewest tokens for which the tile path pays (the conversion of a group
// costs about as much as multiplying it with this many tokens).
inline constexpr int64_t kIqTileMinTokens = 8;

// True for the lattice types, Q2_K and Q3_K (whatever the CPU path):
// scratch for their activation side must be reserved, a later path may use
// the tiles.
bool iqTileType(GgmlType type);
// True for the tile types whose runs hold value * scale (layout above).
constexpr bool iqTileScaledWeights(GgmlType type)
{
    return type == GgmlType::GGML_TYPE_IQ1_S || type == GgmlType::GGML_TYPE_IQ1_M || type == GgmlType::GGML_TYPE_Q2_K;
}
// True when `type` is a tile type and the active CPU path has the tile
// kernels (AVX-512 VNNI, or AVX2: conversion and multiply).
// Q2_K's tiles compute its one-token form, which batch-invariant mode takes
// for every batch (the caller decides).
bool iqTilesActive(GgmlType type);

// Bytes of the activation side for nTokens rows of K elements (whole groups of 8).
size_t iqTileSideBytes(int64_t K, int64_t nTokens);
// Writes token t's side (its bytes of the 8 tokens' side, iqSideToken) from
// its Q8_K row. Rows may be prepared from several threads, each its own t.
void iqTilePrepareRow(GgmlType type, int64_t K, const PackedActivation &act, int64_t t);

// y[t * ldy + r] = row r . activation t for the rows of groups [g0, g1) of
// the N rows of K elements at `rows` (rowBytes apart) and t < nTokens, with
// the active path's kernels (iqTilesActive) or else the scalar twin. Each
// thread converts into its own buffer (grown once, kept).
// Cost: the conversion of (g1 - g0) groups, then 16 (g1 - g0) nTokens K
// multiply-adds.
void iqTileMatmul(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K, int64_t N, int64_t g0, int64_t g1,
                  const PackedActivation &act, int64_t nTokens, float *y, size_t ldy);

// The scalar twins (tests): the conversion of one group (rows [16g, 16g + 16)
// of N) into `tile` (K / 256 * iqTileSuperBytes bytes), and the multiply of
// a converted group.
void iqTileConvertScalar(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K, int64_t N, int64_t g,
                         uint8_t *tile);
void iqTileMultiplyScalar(GgmlType type, const uint8_t *tile, int64_t K, int rows, const PackedActivation &act,
                          int64_t t0, int64_t t1, float *y, size_t ldy);

} // namespace burrow::quant
