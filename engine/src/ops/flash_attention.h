// Attention over a paged KV cache as the reference engine computes it on the
// CPU with flash attention on (its default, "auto"): the keys and values are
// F16 cells addressed through a block table, and the softmax is online (one
// pass over the keys). Two kernels, chosen like the reference chooses
// (ggml-cpu's flash_attn_ext): fewer than kTileQueries query rows of a
// sequence in the batch run attendOnline, more run attendTiled.
//
// attendOnline (the reference's one_chunk; generation and short prompts), per
// query head, for keys j = first..last:
//   q16 = f16(q); s = K_j . q16 as the reference's ggml_vec_dot_f16 on its
//     AVX-512 build: the first dk - dk % 64 elements into 4 accumulators of
//     16 float lanes (element i + 16 a + l of each 64 into accumulator a,
//     lane l, by fused multiply-adds), then (a0 + a2) + (a1 + a3) lane by
//     lane, then the 16 lanes halved 16 -> 8 -> 4 -> 2 -> 1 (lane l + lane
//     l + half), the rest of the elements added in double, one by one;
//   s = softcap ? c tanh(s scale / c) : s scale
//   s > M:  M = s; ms = expf(Mold - M); acc = f16(acc ms); vs = 1
//   else:   vs = expf(s - M)
//   acc = f16(acc + V_j vs)  (one fused multiply-add, rounded to F16 per key)
//   S = S ms + vs  (one fused multiply-add: the reference's build contracts it)
// then the sink (gpt-oss: one logit per head, no value): if sink > M the
// float accumulator is scaled by expf(M - sink) and S = S expf(M - sink) + 1 (fused),
// else S += expf(sink - M); out = f32(acc) / S.
//
// attendTiled (the reference's tiled path, ggml_compute_forward_flash_attn_
// ext_tiled; prompts): queries stay F32; the keys are taken in tiles of
// kTileKeys positions aligned to multiples of kTileKeys; per query and tile:
// s = q . K (one fused multiply-add chain over the dims, from 0), scale,
// softcap, -inf outside [first, last]; Mnew = max(M, max of the tile), and
// when it grows acc and S are scaled by expf(M - Mnew) (libm's); p =
// vexpf(s - Mnew) (ops/expf.h: the reference's AVX-512 vector e^x), the
// tile's p summed 16 keys at a time as _mm512_reduce_add_ps (halves 16 -> 8
// -> 4, then (x0 + x2) + (x1 + x3)), each such sum added in double, S =
// f32(S + sum); acc += p V (one fused chain over the tile's keys); the sink
// as above (S ms + 1 fused); out = acc / S.
//
// Cells: position j of the sequence is cell blocks[j / 16] * 16 + j % 16
// (kKvBlockSize), or cell j when blocks is null; its key is k + cell *
// kStride halves (dk of them; for Q8_0, dk / 32 blocks in 17 dk / 32
// halves), its value v + cell * vStride (dv of them, or dv / 32 blocks).
// A sink of -infinity (kNoSink) means none and changes nothing.
//
// attendOnlineQ8_0 (a Q8_0 cache: K and V rows are quant::BlockQ8_0 blocks of
// 32 elements, 17 halves each; the reference's one_chunk with a quantized K
// and V, which the reference runs for every query of a Q8_0 cache, prompts
// too, as it tiles only F16/F32 caches; Burrow from position 64 on runs
// attendTiledQ8_0 where the CPU path has it, below), per query head:
//   qq = Q8_0(q) (quant::typeTraits(Q8_0)->quantizeActivation: the row
//   quantizer the reference's x86 build uses); s = K_j . qq (the Q8_0 x Q8_0
//   dot product of the trait table, vecDotMulti over the heads);
//   s = softcap ? c tanh(s scale / c) : s scale
//   s > M:  M = s; ms = expf(Mold - M); acc = acc ms (F32); vs = 1
//   else:   vs = expf(s - M)
//   acc = fma(d_b q_i, vs, acc) per element (V_j dequantized to F32, d_b q_i
//   one float product; the reference's dequantize_row_q8_0 + vec_mad_f32)
//   S = S ms + vs
// then the sink as above; out = acc / S. Every step is elementwise or the
// trait table's dot product, so the SIMD twins equal the scalar one bit for
// bit on the same CPU path.
//
// The SIMD kernels (x86/) equal the scalar twins bit for bit (attendOnline,
// attendTiled); the rounding points above are the same on every path.
#pragma once

#include "common/cache_line.h"
#include "ops/attention_kernels.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace burrow::ops {

inline constexpr int kTileQueries = 64;      // the reference's GGML_FA_TILE_Q: a chunk of this many rows is tiled
inline constexpr int kTileCallQueries = 128; // queries one attendTiled call takes (each key tile converted once for them)
inline constexpr int kTileKeys = 64;         // GGML_FA_TILE_KV
inline constexpr int kMaxOnlineHeads = 8;    // query heads of one KV head per attendOnline call
inline constexpr int kMaxFlashHeadDim = 512; // dk, dv

struct KvView {
    const uint16_t *k = nullptr;
    size_t kStride = 0;            // halves between cells
    const uint16_t *v = nullptr;
    size_t vStride = 0;
    const int32_t *blocks = nullptr;   // block table, or null: cell = position
    int dk = 0;
    int dv = 0;
    float scale = 1.0f;
    float softcap = 0.0f;          // 0: none
};

// A query's last step in the tiled recipe (attendTiled and the kernels that
// give its results): a sink above M scales the accumulator by scale =
// expf(M - sink) and makes S = S scale + 1 (one fused multiply-add, the
// reference's S*ms + vs), a sink at or below M adds expf(sink - M) to S (no
// sink: scale 1); out = (acc scale) inv with inv = 1 / S, 0 when S is 0.
// (static: the SIMD files use it too, see f16.h.)
static inline void tiledFinish(float M, float S, float sink, float &scale, float &inv)
{
    scale = 1.0f;
    if (sink > -INFINITY) {
        if (sink > M) {
            scale = std::exp(M - sink);
            S = std::fma(S, scale, 1.0f);
        } else {
            S += std::exp(sink - M);
        }
    }
    inv = S == 0.0f ? 0.0f : 1.0f / S;
}

// The cell of position j. (static: the SIMD files use it too, see f16.h.)
static inline size_t kvCell(const int32_t *blocks, uint32_t j)
{
    return blocks ? static_cast<size_t>(blocks[j >> 4]) * 16 + (j & 15u) : j;
}

// nHeads (1..kMaxOnlineHeads) query heads that share the KV head, one query
// each (dk floats), all seeing keys [first, last]; out[g]: dv floats;
// sinks: nHeads logits or null. Cost: (last - first + 1) (dk + dv) nHeads
// multiply-adds.
void attendOnline(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                  float *const *out, const float *sinks);

// The same over a Q8_0 cache (see above; dk, dv multiples of 32). Cost:
// (last - first + 1) (dk + dv) nHeads multiply-adds, the K dot in int8.
void attendOnlineQ8_0(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                      float *const *out, const float *sinks);
// The scalar twin, whatever the active path (tests).
void attendOnlineQ8_0Scalar(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                            float *const *out, const float *sinks);

// Halves of a Q8_0 row of n elements (n % 32 == 0): 34 bytes per 32.
inline constexpr size_t q8_0RowHalves(size_t n)
{
    return n / 32 * 17;
}

struct TileQuery {
    const float *q = nullptr;      // dk floats
    float *out = nullptr;          // dv floats
    uint32_t first = 0, last = 0;  // keys seen, inclusive
    float sink = kNoSink;
};
// Scratch floats attendTiled needs for head sizes dk, dv.
size_t tiledScratchFloats(int dk, int dv);
// The first 64-byte line boundary at or after scratch (at most 15 floats
// on; tiledScratchFloats leaves room for it). attendTiled and attendDecode
// hand their kernels the scratch from there, so a kernel's 64-byte stores
// into its tile never split across two lines (a vector's heap block is
// 16-byte aligned: attendDecode from the caches 0.44 -> 0.40 ms a call).
inline float *scratchLine(float *scratch)
{
    return alignToLine(scratch);
}
// nq (1..kTileCallQueries) queries of one KV head. scratch: tiledScratchFloats.
// Each query's result is the same whichever queries share the call.
// Cost: sum over queries of (keys in their tiles) (dk + dv) multiply-adds,
// plus (keys from the lowest first to the highest last) (dk + dv) conversions.
void attendTiled(const KvView &kv, const TileQuery *queries, int nq, float *scratch);

// attendTiled for the query heads of one position that share a KV head
// (a generated token, a verified draft): nq (1..kTileCallQueries) queries
// with the same first and last; each query's result is attendTiled's, bit
// for bit (so a position's logits do not depend on the kernel that ran it:
// runtime/batch_invariance.h). The SIMD kernels (x86/avx512_decode.cpp,
// x86/avx2_decode.cpp) put R = L / P keys beside P >= nq query lanes in a
// vector of L lanes (16 or 8; P a power of two), converting each tile's
// keys R-interleaved, so every lane does useful work where attendTiled's
// lanes (queries) fill nq of L; they run for nq <= kDecodeQueries (AVX-512;
// 8 on AVX2) and head sizes that are multiples of 16, attendTiled otherwise
// and on the scalar path. scratch: tiledScratchFloats. Cost: (last - first
// + 1) (dk + dv) nq multiply-adds, each key and value converted once.
inline constexpr int kDecodeQueries = 16;
void attendDecode(const KvView &kv, const TileQuery *queries, int nq, float *scratch);

// attendTiled's recipe over a Q8_0 cache (dk, dv multiples of 32): nq
// (1..kTileCallQueries) queries of one KV head, each query's result the
// same whichever queries share the call. The query is quantized as for
// attendOnlineQ8_0 (qq = Q8_0(q), the trait table's quantizer); a key's
// score is s = sum over its blocks b, in order, of fma(f32(sum of the 32
// int8 products K_b qq_b), f16(K_b.d) f16(qq_b.d), s) from s = 0 (every
// integer sum exact); a value is V_b.d q_i (one float product); then
// attendTiled's steps (scale, softcap, mask, tile maximum, libm's expf for
// the rescale, vexpf for p, the 16-key sums in double, p V as one fused
// chain over the tile's keys). The SIMD kernels (x86/avx512_flash_q8.cpp:
// AVX-512 VNNI; x86/flash_q8_avx2.h: AVX2, with AVX-VNNI where the CPU has
// it) equal the scalar twin bit for bit; the scalar path has none
// (hasTiledQ8_0() false) and keeps attendOnlineQ8_0 for every query
// (runtime/batch_invariance.h); a call here on it runs the twin.
// scratch: tiledScratchFloats. Cost: (keys of the tiles) (dk + dv) nq
// multiply-adds (the K side in int8), each key and value unpacked once.
void attendTiledQ8_0(const KvView &kv, const TileQuery *queries, int nq, float *scratch);
void attendTiledQ8_0Scalar(const KvView &kv, const TileQuery *queries, int nq, float *scratch);
bool hasTiledQ8_0();

} // namespace burrow::ops
