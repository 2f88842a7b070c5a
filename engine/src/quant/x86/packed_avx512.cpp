// AVX-512 VNNI kernels for packed weight groups (layout: quant/packed.h).
// One register holds 16 rows x 4 weights; the activations' 4-byte runs are
// broadcast to every lane (vpdpbusd's embedded broadcast), so a dot product
// step serves 16 rows. Tiles of up to 4 (K-quants) or 8 tokens share each unpacked weight
// register (prompt processing); one token is the generation case.
//
// Every integer sum is exact, and each row's float steps are those of its
// type's scalar dot product (the twin packedMatmulScalar unpacks the row and
// calls it), so the results are bit-identical: Q4_0 one float chain per row,
// Q8_0, Q5_K, Q6_K and IQ4_XS 8 lane accumulators per row (one register per
// lane) reduced by hsum8 at the end, Q4_K the sum and min chains per
// super-block (gemv) or per 64-element chunk (gemm).
#include "quant/x86/x86_kernels.h"

#include "quant/packed.h"
#include "quant/x86/packed_avx512_rows.h"
#include "quant/x86/q8k_pairs.h"
#include "quant/x86/stream_prefetch.h"
#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace burrow::quant::x86 {

namespace {

constexpr size_t kRun = 64;            // one 4-byte run of 16 rows
constexpr size_t kQ4KSuper = 2368;
constexpr size_t kQ6KSuper = 3392;
constexpr size_t kQ5KSuper = 2880;
constexpr size_t kIQ4XSSuper = 2176;
constexpr int64_t kTokenChunk = 128;   // activation rows kept in L2 while the groups pass
// Fewest tokens of a chunk for packed_avx512_planes.cpp: below, converting
// a group into planes costs more than it saves against IQ4_XS tiles of 4
// (1.1B IQ4_XS file, t/s: pp8 102-106 with planes, 142-144 in tiles; pp16
// 132-143 / 150-153; level at 32; pp512 181 / 153).
constexpr int64_t kPlaneMinTokens = 32;
// Generation (one token) streams every weight once: each run loaded also
// prefetches the line this far ahead (groups lie back to back, so the stream
// continues into the next group).
// 4 KiB: measured on a Zen 5 guest (1.1B models, alternating builds) 1 KiB
// was slower for every type, 8 KiB slower for Q8_0; 4 KiB gave Q5_K +13 %,
// IQ4_XS +7 % over 2 KiB and the others the same or better. Only Q5_0 and
// Q6_K keep it since the weights sit on huge pages (common/streamed_memory.h):
// on a Zen 4 guest (one thread streaming a 32k-row matrix from memory, thread
// CPU time) no software prefetch read Q4_K at 30 GB/s against 22 with it,
// Q5_K 30 / 24, Q4_0 and IQ4_NL 31 / 26-28, Q8_0 17-19 / 15, IQ4_XS the
// same, where Q5_0 needs it (20 against 12) and Q6_K is level.
constexpr size_t kPrefetchAhead = kStreamAhead;

template <int NT>
inline void prefetchAhead(const uint8_t *p)
{
    if constexpr (NT == 1)
        _mm_prefetch(reinterpret_cast<const char *>(p + kPrefetchAhead), _MM_HINT_T0);
}

// The other types' one-token kernels prefetch the same way only where it
// pays, which depends on the CPU (stream_prefetch.h): on the Zen 4 guest
// above it cost 15-40 %, on a Xeon guest with AMX (huge pages too, 2
// threads, 1.1B files, tg32 alternating) it gains: Q4_0 33.3 -> 37.4 t/s,
// Q5_K_M 28.2 -> 29.9, IQ4_XS 33.5 -> 38.6, Q8_0 19.2 -> 23.3, while Q4_K
// (36.2 -> 35.7) keeps none (docs/benchmarks.md).
template <int NT>
inline void prefetchStream(const uint8_t *p)
{
    if constexpr (NT == 1)
        prefetchStreamAhead(p);
}

// Tiles of 2-4 tokens (several streams, verification passes) are heavy
// enough in arithmetic that the hardware prefetchers fall behind: one thread
// read Q4_K from memory at 13 GB/s in 4-token tiles (27-37 GB/s in the
// 1-token kernel) while the same tile ran at 169 GMAC/s from L3. Each line
// prefetched about two Q4_K super-blocks ahead overlaps the reads with the
// arithmetic: 21 GB/s, 1.58x. A prompt's later tiles of the same rows find
// the lines in the caches; the prefetch then costs an instruction (pp512
// unchanged). On a Xeon (Sapphire Rapids guest, 2 threads, 1.1B files,
// alternating) one super-block ahead is better: pp4 of Q4_K_M 133 -> 143,
// Q6_K 110 -> 119, Q4_0 151 -> 160 t/s, pp512 level (cpu_features.h
// nearTilePrefetch: Intel).
static const size_t kTilePrefetchAhead = cpuFeatures().nearTilePrefetch ? 2368 : 4736;

// From: the least tokens per tile that gain (one thread, 2048 x 65536, GB/s
// of weights without -> with, at 2 / 3 / 4 tokens): Q4_0 21 -> 25, 12 -> 19,
// 9 -> 17; Q8_0 13 -> 19, 11 -> 15, 10 -> 13; Q5_0 8 -> 14, 7 -> 10, 6 -> 10;
// Q6_K 9 -> 12 at 2 and 4; Q4_K, Q5_K and IQ4_XS lose or hold at 2 (Q4_K
// 30 -> 25) and gain from 3 (Q4_K 13 -> 21 at 4).
template <int NT, int From = 2>
inline void prefetchTile(const uint8_t *p)
{
    if constexpr (NT >= From)
        _mm_prefetch(reinterpret_cast<const char *>(p + kTilePrefetchAhead), _MM_HINT_T0);
}

inline __m512i load512(const uint8_t *p) { return _mm512_loadu_si512(p); }
inline __m512i bcast32(const void *p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

// Q4_0 weights against Q8_0 activations: per block acc = fma(isum, d_w d_a, acc).
// Table (IQ4_NL): the same runs and chain, the nibbles looked up in the
// value table plus 128 (unsigned for vpdpbusd) and 128 x the block's
// activation sum (16 x Q4_0's side array) taken back out.
template <int NT, bool Table = false>
void q4_0Tile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
              int rows)
{
    constexpr size_t runs = 4;
    const int64_t nb = W.blocks;
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i high4 = _mm512_set1_epi8(static_cast<char>(0xf0));
    const __m512i table = _mm512_xor_si512(
        _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i *>(packedCodeValues(W.type)))),
        _mm512_set1_epi8(-128));
    const uint8_t *a[NT];
    const float *ad[NT];
    const int32_t *as[NT];
    __m512 acc[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;   // qs of block 0
        ad[j] = act.scale + (t0 + j) * nb;
        as[j] = act.sum + (t0 + j) * nb;
        acc[j] = _mm512_setzero_ps();
    }
    for (int64_t b = 0; b < nb; ++b) {
        const PackedBlockOffsets at = packedBlockOffsets(b, nb, runs * kRun);
        const uint8_t *q = g + at.runs;
        const size_t ab = static_cast<size_t>(b) * sizeof(BlockQ8_0);
        __m512i sA[NT], sB[NT];
        for (int j = 0; j < NT; ++j) {
            sA[j] = _mm512_set1_epi32(Table ? 16 * as[j][b] : as[j][b]);   // -8 (Table: -128) * the block's code sum
            sB[j] = _mm512_setzero_si512();
        }
        for (size_t c = 0; c < runs; ++c) {
            prefetchTile<NT>(q + c * kRun);
            prefetchStream<NT>(q + c * kRun);
            const __m512i w = load512(q + c * kRun);
            __m512i lo = _mm512_and_si512(w, low4);
            __m512i hi = _mm512_and_si512(w, high4);   // 16 x the high nibble (Q4_0)
            if constexpr (Table) {
                lo = _mm512_shuffle_epi8(table, lo);
                hi = _mm512_shuffle_epi8(table, _mm512_srli_epi16(hi, 4));
            }
            for (int j = 0; j < NT; ++j) {
                sA[j] = _mm512_dpbusd_epi32(sA[j], lo, bcast32(a[j] + ab + 4 * c));
                sB[j] = _mm512_dpbusd_epi32(sB[j], hi, bcast32(a[j] + ab + 16 + 4 * c));
            }
        }
        const __m512 dw = halves16(g + at.scales);
        for (int j = 0; j < NT; ++j) {
            // Q4_0: exact, sB is 16 x the high nibbles' sum
            const __m512i sumi = _mm512_add_epi32(sA[j], Table ? sB[j] : _mm512_srai_epi32(sB[j], 4));
            acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sumi), _mm512_mul_ps(dw, _mm512_set1_ps(ad[j][b])), acc[j]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, acc[j], rows);
}

// Q8_0 weights against Q8_0 activations: lane m of a row = run m of each
// block (elements 4m..4m+3), acc[m] = fma(d_w d_a, lane, acc[m]), hsum8.
// The run's vpdpbusd starts from the activation side's -128 * (run sum).
template <int NT>
void q8_0Tile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
              int rows)
{
    constexpr size_t runs = 8;
    const int64_t nb = W.blocks;
    const uint8_t *a[NT];
    const float *ad[NT];
    const int32_t *as[NT];
    __m512 acc[NT][8];
    for (int j = 0; j < NT; ++j) {
        a[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;
        ad[j] = act.scale + (t0 + j) * nb;
        as[j] = act.sum + (t0 + j) * nb * 8;
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm512_setzero_ps();
    }
    for (int64_t b = 0; b < nb; ++b) {
        const PackedBlockOffsets at = packedBlockOffsets(b, nb, runs * kRun);
        const uint8_t *q = g + at.runs;
        const size_t ab = static_cast<size_t>(b) * sizeof(BlockQ8_0);
        const __m512 dw = halves16(g + at.scales);
        __m512 d[NT];
        for (int j = 0; j < NT; ++j)
            d[j] = _mm512_mul_ps(dw, _mm512_set1_ps(ad[j][b]));
        for (size_t m = 0; m < runs; ++m) {
            prefetchTile<NT>(q + m * kRun);
            prefetchStream<NT>(q + m * kRun);
            const __m512i w = load512(q + m * kRun);
            for (int j = 0; j < NT; ++j) {
                const __m512i lane = _mm512_dpbusd_epi32(_mm512_set1_epi32(as[j][8 * b + static_cast<int64_t>(m)]), w,
                                                         bcast32(a[j] + ab + 4 * m));
                acc[j][m] = _mm512_fmadd_ps(d[j], _mm512_cvtepi32_ps(lane), acc[j][m]);
            }
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, hsum8Rows(acc[j]), rows);
}

// Q5_0 weights against Q8_0 activations: Q8_0's lanes (lane m = elements
// 4m..4m+3 of each block: the low nibbles of run m, or the high nibbles of
// run m - 4), each started from -16 * (the run's activation sum); the codes
// are the nibbles with bit 4 from the fifth-bit run (byte i, bit m: lane m's
// element i), moved there by one shift.
template <int NT>
void q5_0Tile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
              int rows)
{
    constexpr size_t runs = 5;
    const int64_t nb = W.blocks;
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i bit4 = _mm512_set1_epi8(0x10);
    const uint8_t *a[NT];
    const float *ad[NT];
    const int32_t *as[NT];
    __m512 acc[NT][8];
    for (int j = 0; j < NT; ++j) {
        a[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;
        ad[j] = act.scale + (t0 + j) * nb;
        as[j] = act.sum + (t0 + j) * nb * 8;
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm512_setzero_ps();
    }
    // (w's bits 0-3) | (f's bit 4): bits of w where the mask has 0x0f, of f elsewhere
    const auto merge = [low4](__m512i w, __m512i f) { return _mm512_ternarylogic_epi32(w, f, low4, 0xe4); };
    for (int64_t b = 0; b < nb; ++b) {
        const PackedBlockOffsets at = packedBlockOffsets(b, nb, runs * kRun);
        const uint8_t *q = g + at.runs;
        const size_t ab = static_cast<size_t>(b) * sizeof(BlockQ8_0);
        prefetchAhead<NT>(q + 4 * kRun);
        prefetchTile<NT>(q + 4 * kRun);
        const __m512i fifth = load512(q + 4 * kRun);
        const __m512 dw = halves16(g + at.scales);
        __m512 d[NT];
        for (int j = 0; j < NT; ++j)
            d[j] = _mm512_mul_ps(dw, _mm512_set1_ps(ad[j][b]));
        for (int c = 0; c < 4; ++c) {
            prefetchAhead<NT>(q + static_cast<size_t>(c) * kRun);
            prefetchTile<NT>(q + static_cast<size_t>(c) * kRun);
            const __m512i w = load512(q + static_cast<size_t>(c) * kRun);
            // lane c: bit c of the fifth-bit byte to bit 4; lane 4 + c: bit 4 + c
            const __m512i fLo = _mm512_and_si512(_mm512_slli_epi16(fifth, static_cast<unsigned>(4 - c)), bit4);
            const __m512i fHi = _mm512_and_si512(c == 0 ? fifth : _mm512_srli_epi16(fifth, static_cast<unsigned>(c)), bit4);
            const __m512i lo = merge(w, fLo);
            const __m512i hi = merge(_mm512_srli_epi16(w, 4), fHi);
            for (int j = 0; j < NT; ++j) {
                const __m512i laneLo = _mm512_dpbusd_epi32(_mm512_set1_epi32(as[j][8 * b + c]), lo, bcast32(a[j] + ab + 4 * c));
                const __m512i laneHi =
                    _mm512_dpbusd_epi32(_mm512_set1_epi32(as[j][8 * b + 4 + c]), hi, bcast32(a[j] + ab + 16 + 4 * c));
                acc[j][c] = _mm512_fmadd_ps(d[j], _mm512_cvtepi32_ps(laneLo), acc[j][c]);
                acc[j][4 + c] = _mm512_fmadd_ps(d[j], _mm512_cvtepi32_ps(laneHi), acc[j][4 + c]);
            }
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, hsum8Rows(acc[j]), rows);
}

// Q4_K: sum and min chains, acc = fma(isum, d_w d_a, acc), accm =
// fma(imin, dmin_w d_a, accm), per super-block (gemv) or per 64-element
// chunk (Gemm); acc - accm.
template <bool Gemm, int NT>
void q4KTile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
             int rows)
{
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i high4 = _mm512_set1_epi8(static_cast<char>(0xf0));
    const BlockQ8_K *a[NT];
    __m512 acc[NT], accm[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        acc[j] = accm[j] = _mm512_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ4KSuper;
        for (size_t line = 0; line < 320; line += 64)
            prefetchTile<NT, 3>(o + line);
        const __m512 d = halves16(o), dmin = halves16(o + 32);
        __m512 dd[NT], dm[NT];
        int32_t pair[NT][4];   // (bsums[4p] + bsums[4p+1], bsums[4p+2] + bsums[4p+3]) as two int16
        for (int j = 0; j < NT; ++j) {
            const __m512 da = _mm512_set1_ps(a[j][b].d);
            dd[j] = _mm512_mul_ps(d, da);
            dm[j] = _mm512_mul_ps(dmin, da);
            bsumPairs(a[j][b], pair[j]);
        }
        // chunk p's min term: min[2p] * pair sum 2p + min[2p+1] * pair sum 2p+1
        const auto minTerm = [o](int p, int32_t pr) {
            const __m512i m = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(o + 192 + 32 * p)));
            return _mm512_madd_epi16(m, _mm512_set1_epi32(pr));
        };
        __m512i tot[NT], mn[NT];
        for (int j = 0; j < NT; ++j)
            tot[j] = mn[j] = _mm512_setzero_si512();
        for (int ch = 0; ch < 4; ++ch) {
            __m512i sLo[NT], sHi[NT];
            for (int j = 0; j < NT; ++j)
                sLo[j] = sHi[j] = _mm512_setzero_si512();
            for (int r = 0; r < 8; ++r) {
                prefetchTile<NT, 3>(o + 320 + static_cast<size_t>(ch * 8 + r) * kRun);
                const __m512i w = load512(o + 320 + static_cast<size_t>(ch * 8 + r) * kRun);
                const __m512i lo = _mm512_and_si512(w, low4);
                const __m512i hi16 = _mm512_and_si512(w, high4);   // 16 x the high nibble
                for (int j = 0; j < NT; ++j) {
                    sLo[j] = _mm512_dpbusd_epi32(sLo[j], lo, bcast32(a[j][b].qs + 64 * ch + 4 * r));
                    sHi[j] = _mm512_dpbusd_epi32(sHi[j], hi16, bcast32(a[j][b].qs + 64 * ch + 32 + 4 * r));
                }
            }
            const __m512i scLo = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 64 + 32 * ch)));
            const __m512i scHi = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 80 + 32 * ch)));
            for (int j = 0; j < NT; ++j) {
                // sHi is 16 x the high nibbles' sum (|sum| < 2^20): the shift is exact
                const __m512i t = _mm512_add_epi32(_mm512_mullo_epi32(sLo[j], scLo),
                                                   _mm512_mullo_epi32(_mm512_srai_epi32(sHi[j], 4), scHi));
                const __m512i m = minTerm(ch, pair[j][ch]);
                if constexpr (Gemm) {
                    acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(t), dd[j], acc[j]);
                    accm[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(m), dm[j], accm[j]);
                } else {
                    tot[j] = _mm512_add_epi32(tot[j], t);
                    mn[j] = _mm512_add_epi32(mn[j], m);
                }
            }
        }
        if constexpr (!Gemm)
            for (int j = 0; j < NT; ++j) {
                acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(tot[j]), dd[j], acc[j]);
                accm[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(mn[j]), dm[j], accm[j]);
            }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, _mm512_sub_ps(acc[j], accm[j]), rows);
}

// Q6_K's lane starts: (-32 sc[2g], -32 sc[2g + 1]) as an int16 pair per row
// (|32 sc| <= 4096, `pickBoth` spreading the sign-extended scales), so one
// vpmaddwd with (bsums[2g], bsums[2g + 1]) gives a lane's start, -32 x its
// scaled activation sum (the codes are stored + 32).
inline __m512i q6CorrScale(const uint8_t *o, int g, __m512i pickBoth)
{
    const __m512i sc = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(o + 32 * g)));
    return _mm512_permutexvar_epi16(pickBoth, _mm512_sub_epi16(_mm512_setzero_si512(), _mm512_slli_epi16(sc, 5)));
}

// Q6_K: lane g of a row = runs g of both halves (elements 4g..4g+3 of every
// 32-element chunk), each 4-element sum times its 16-element half's scale
// (vpmaddubsw pairs, vpdpwssd with the scale in both halves of the lane),
// starting from -32 (bsums[2g] sc[2g] + bsums[2g+1] sc[2g+1]);
// acc[g] = fma(d_a d_w, lane, acc[g]); hsum8.
// Codes (quant/packed.h): chunks 0-2 are bits 0-5 of runs A, B, C; chunk 3
// gathers bits 6-7 of the three (two bit-selects and an AND). The scales
// come as int16 (one sign extension per two sub-blocks) and are spread into
// (sc, sc) and (sc[2g], sc[2g+1]) pairs by vpermw.
template <int NT>
void q6KTile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
             int rows)
{
    const __m512i low6 = _mm512_set1_epi8(0x3f);
    const __m512i bits01 = _mm512_set1_epi8(0x03);
    const __m512i bits03 = _mm512_set1_epi8(0x0f);
    // word 2r and 2r + 1 of a lane: int16 r (first sub-block) or 16 + r (second)
    const __m512i pickFirst = _mm512_set_epi16(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8, 7, 7, 6, 6,
                                               5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    const __m512i pickSecond = _mm512_add_epi16(pickFirst, _mm512_set1_epi16(16));
    const __m512i pickBoth = _mm512_mask_add_epi16(pickFirst, 0xaaaaaaaau, pickFirst, _mm512_set1_epi16(16));
    const BlockQ8_K *a[NT];
    __m512 acc[NT][8];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm512_setzero_ps();
    }
    // select(m, x, y): bits of x where m is set, of y elsewhere
    const auto select = [](__m512i m, __m512i x, __m512i y) { return _mm512_ternarylogic_epi32(x, y, m, 0xe4); };
    // The 4 chunks' 6-bit codes of one run triple (A, B, C): chunk 3 from bits
    // 6-7 of A to 0-1, of B to 2-3, of C to 4-5 (16-bit shifts carry the next
    // byte's bits above; the selects and the AND keep only the wanted ones).
    const auto codes = [&](const uint8_t *run, __m512i v[4]) {
        const __m512i ra = load512(run), rb = load512(run + kRun), rc = load512(run + 2 * kRun);
        const __m512i hi =
            select(bits03, select(bits01, _mm512_srli_epi16(ra, 6), _mm512_srli_epi16(rb, 4)), _mm512_srli_epi16(rc, 2));
        v[0] = _mm512_and_si512(ra, low6);
        v[1] = _mm512_and_si512(rb, low6);
        v[2] = _mm512_and_si512(rc, low6);
        v[3] = _mm512_and_si512(hi, low6);
    };
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ6KSuper;
        for (size_t line = 0; line < 320; line += 64)
            prefetchTile<NT>(o + line);
        // per sub-block s: the rows' scales as int16 pairs (sc, sc)
        __m512i scPair[16];
        for (int q = 0; q < 8; ++q) {
            const __m512i s16 = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(o + 32 * q)));
            scPair[2 * q] = _mm512_permutexvar_epi16(pickFirst, s16);
            scPair[2 * q + 1] = _mm512_permutexvar_epi16(pickSecond, s16);
        }
        const __m512 d = halves16(o + 256);
        __m512 dd[NT];
        for (int j = 0; j < NT; ++j)
            dd[j] = _mm512_mul_ps(_mm512_set1_ps(a[j][b].d), d);
        if constexpr (NT == 1) {
            // Generation: the same integer sums with the runs read in address
            // order (h outer), one stream for the prefetchers instead of two
            // 1.5 KiB apart; each lane's sum is exact, so its value is the same.
            __m512i lane1[8];
            for (int gl = 0; gl < 8; ++gl) {
                const __m512i corrScale = q6CorrScale(o, gl, pickBoth);
                lane1[gl] = _mm512_madd_epi16(corrScale, bcast32(a[0][b].bsums + 2 * gl));
            }
            for (int h = 0; h < 2; ++h)
                for (int gl = 0; gl < 8; ++gl) {
                    const uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + gl) * 3 * kRun;
                    prefetchAhead<NT>(run);
                    prefetchAhead<NT>(run + kRun);
                    prefetchAhead<NT>(run + 2 * kRun);
                    __m512i v[4];
                    codes(run, v);
                    for (int k = 0; k < 4; ++k) {
                        const __m512i p = _mm512_maddubs_epi16(v[k], bcast32(a[0][b].qs + 128 * h + 32 * k + 4 * gl));
                        lane1[gl] = _mm512_dpwssd_epi32(lane1[gl], p, scPair[8 * h + 2 * k + gl / 4]);
                    }
                }
            for (int gl = 0; gl < 8; ++gl)
                acc[0][gl] = _mm512_fmadd_ps(dd[0], _mm512_cvtepi32_ps(lane1[gl]), acc[0][gl]);
            continue;
        }
        for (int gl = 0; gl < 8; ++gl) {
            const __m512i corrScale = q6CorrScale(o, gl, pickBoth);
            __m512i lane[NT];
            for (int j = 0; j < NT; ++j)
                lane[j] = _mm512_madd_epi16(corrScale, bcast32(a[j][b].bsums + 2 * gl));
            for (int h = 0; h < 2; ++h) {
                const uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + gl) * 3 * kRun;
                prefetchTile<NT>(run);
                prefetchTile<NT>(run + kRun);
                prefetchTile<NT>(run + 2 * kRun);
                __m512i v[4];
                codes(run, v);
                for (int k = 0; k < 4; ++k) {
                    const __m512i sc = scPair[8 * h + 2 * k + gl / 4];
                    for (int j = 0; j < NT; ++j) {
                        const __m512i p = _mm512_maddubs_epi16(v[k], bcast32(a[j][b].qs + 128 * h + 32 * k + 4 * gl));
                        lane[j] = _mm512_dpwssd_epi32(lane[j], p, sc);
                    }
                }
            }
            for (int j = 0; j < NT; ++j)
                acc[j][gl] = _mm512_fmadd_ps(dd[j], _mm512_cvtepi32_ps(lane[j]), acc[j][gl]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, hsum8Rows(acc[j]), rows);
}

// Bit b (0..7) of every byte moved to bit 4 (the fifth bit of a Q5_K code).
inline __m512i bitTo4(__m512i qh, int b)
{
    const __m512i bit4 = _mm512_set1_epi8(0x10);
    if (b < 4)
        return _mm512_and_si512(_mm512_slli_epi16(qh, static_cast<unsigned>(4 - b)), bit4);
    return _mm512_and_si512(_mm512_srli_epi16(qh, static_cast<unsigned>(b - 4)), bit4);
}

// (v, v) int16 pairs in each 32-bit lane from 16 bytes (unsigned, < 2^15).
inline __m512i pairsU8(const uint8_t *p)
{
    const __m512i t = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
    return _mm512_or_si512(t, _mm512_slli_epi32(t, 16));
}

// Q5_K's mins chain for one token and super-block o (the packed group):
// summs = fma(-d_a dmin_w, imin, summs), imin = sum over sub-blocks of
// min * (bsums[2s] + bsums[2s + 1]).
inline __m512 q5KMinsStep(const uint8_t *o, const BlockQ8_K &a, __m512 dmin, __m512 summs)
{
    int32_t pr[4];
    bsumPairs(a, pr);
    __m512i imin = _mm512_setzero_si512();
    for (int p = 0; p < 4; ++p) {
        const __m512i mn = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(o + 192 + 32 * p)));
        imin = _mm512_add_epi32(imin, _mm512_madd_epi16(mn, _mm512_set1_epi32(pr[p])));
    }
    return _mm512_fmadd_ps(_mm512_mul_ps(_mm512_set1_ps(-a.d), dmin), _mm512_cvtepi32_ps(imin), summs);
}

// The 5-bit codes of chunk pair p of a Q5_K lane's runs (nibbles w = run p,
// high bits qh = run 4): lo for sub-block 2p, hi for 2p + 1.
inline void q5KCodes(const uint8_t *runs, __m512i qh, int p, __m512i &lo, __m512i &hi)
{
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i w = load512(runs + static_cast<size_t>(p) * kRun);
    lo = _mm512_or_si512(_mm512_and_si512(w, low4), bitTo4(qh, 2 * p));
    hi = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(w, 4), low4), bitTo4(qh, 2 * p + 1));
}

// Q5_K: lane m of a row = run m of every sub-block (elements 4m..4m+3 of
// every 32), each 4-element sum (vpmaddubsw pairs) times its sub-block's
// scale (vpdpwssd with (sc, sc) in each lane); per super-block
// acc[m] = fma(d_a d_w, lane m, acc[m]) and summs = fma(-d_a dmin_w, imin,
// summs); hsum8(acc) + summs.
template <int NT>
void q5KTile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
             int rows)
{
    const BlockQ8_K *a[NT];
    __m512 acc[NT][8], summs[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        summs[j] = _mm512_setzero_ps();
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm512_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ5KSuper;
        const __m512 d = halves16(o), dmin = halves16(o + 32);
        __m512i scPair[8];
        for (int sb = 0; sb < 8; ++sb)
            scPair[sb] = pairsU8(o + 64 + 16 * sb);
        __m512 dd[NT];
        for (int j = 0; j < NT; ++j) {
            dd[j] = _mm512_mul_ps(_mm512_set1_ps(a[j][b].d), d);
            summs[j] = q5KMinsStep(o, a[j][b], dmin, summs[j]);
        }
        for (int m = 0; m < 8; ++m) {
            const uint8_t *runs = o + 320 + static_cast<size_t>(m) * 5 * kRun;
            for (size_t r = 0; r < 5; ++r) {
                prefetchTile<NT, 3>(runs + r * kRun);
                prefetchStream<NT>(runs + r * kRun);
            }
            const __m512i qh = load512(runs + 4 * kRun);
            __m512i lane[NT];
            for (int j = 0; j < NT; ++j)
                lane[j] = _mm512_setzero_si512();
            for (int p = 0; p < 4; ++p) {
                __m512i lo, hi;
                q5KCodes(runs, qh, p, lo, hi);
                for (int j = 0; j < NT; ++j) {
                    const int8_t *q8 = a[j][b].qs + 64 * p + 4 * m;
                    lane[j] = _mm512_dpwssd_epi32(lane[j], _mm512_maddubs_epi16(lo, bcast32(q8)), scPair[2 * p]);
                    lane[j] = _mm512_dpwssd_epi32(lane[j], _mm512_maddubs_epi16(hi, bcast32(q8 + 32)), scPair[2 * p + 1]);
                }
            }
            for (int j = 0; j < NT; ++j)
                acc[j][m] = _mm512_fmadd_ps(dd[j], _mm512_cvtepi32_ps(lane[j]), acc[j][m]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, _mm512_add_ps(hsum8Rows(acc[j]), summs[j]), rows);
}

// IQ4_XS: lane c and 4 + c of a row = runs c of every sub-block (low
// nibbles: elements 4c..4c+3, high: 16 + 4c..), each value looked up in the
// table, its magnitude times the activation with the value's sign (vpmaddubsw
// pairs), times the sub-block's ls - 32 (vpdpwssd); per super-block
// acc[m] = fma(d_w d_a, lane m, acc[m]); hsum8.
template <int NT>
void iq4XsTile(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t0, float *y, size_t ldy,
               int rows)
{
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i table = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i *>(kValuesIq4nl)));
    const __m512i zero = _mm512_setzero_si512();
    const BlockQ8_K *a[NT];
    __m512 acc[NT][8];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm512_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kIQ4XSSuper;
        const __m512 d = halves16(o);
        __m512i lsPair[8];
        iq4XsScalePairs(o, lsPair);
        __m512 dd[NT];
        for (int j = 0; j < NT; ++j)
            dd[j] = _mm512_mul_ps(d, _mm512_set1_ps(a[j][b].d));
        for (int c = 0; c < 4; ++c) {
            __m512i lLo[NT], lHi[NT];
            for (int j = 0; j < NT; ++j)
                lLo[j] = lHi[j] = zero;
            for (int ib = 0; ib < 8; ++ib) {
                const uint8_t *run = o + 128 + static_cast<size_t>(c * 8 + ib) * kRun;
                prefetchTile<NT, 3>(run);
                prefetchStream<NT>(run);
                const __m512i w = load512(run);
                const __m512i vLo = _mm512_shuffle_epi8(table, _mm512_and_si512(w, low4));
                const __m512i vHi = _mm512_shuffle_epi8(table, _mm512_and_si512(_mm512_srli_epi16(w, 4), low4));
                const __mmask64 nLo = _mm512_movepi8_mask(vLo), nHi = _mm512_movepi8_mask(vHi);
                const __m512i mLo = _mm512_abs_epi8(vLo), mHi = _mm512_abs_epi8(vHi);
                for (int j = 0; j < NT; ++j) {
                    const int8_t *q8 = a[j][b].qs + 32 * ib + 4 * c;
                    const __m512i yLo = bcast32(q8), yHi = bcast32(q8 + 16);
                    const __m512i sLo = _mm512_mask_sub_epi8(yLo, nLo, zero, yLo);
                    const __m512i sHi = _mm512_mask_sub_epi8(yHi, nHi, zero, yHi);
                    lLo[j] = _mm512_dpwssd_epi32(lLo[j], _mm512_maddubs_epi16(mLo, sLo), lsPair[ib]);
                    lHi[j] = _mm512_dpwssd_epi32(lHi[j], _mm512_maddubs_epi16(mHi, sHi), lsPair[ib]);
                }
            }
            for (int j = 0; j < NT; ++j) {
                acc[j][c] = _mm512_fmadd_ps(dd[j], _mm512_cvtepi32_ps(lLo[j]), acc[j][c]);
                acc[j][4 + c] = _mm512_fmadd_ps(dd[j], _mm512_cvtepi32_ps(lHi[j]), acc[j][4 + c]);
            }
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy, hsum8Rows(acc[j]), rows);
}

using TileFn = void (*)(const PackedMatrix &, const uint8_t *, const PackedActivation &, int64_t, float *, size_t, int);

// Tile kernels by token count 1..Max (Max <= 8), each reading a group's
// weights once per tile (measured on a Xeon guest, 1.1B files, 2 threads):
// - Q4_0, IQ4_NL: 8 (fewer passes over the weights from L2 per token);
// - Q4_K: 4 for prompts (its per-token sub-block sums need registers:
//   pp512 291-295 t/s against 264-273 with 8), 8 in batches below
//   kQ4KWideMaxTokens (several streams, verification passes: pp8 187-194 ->
//   227-229, pp16 +4 %);
// - Q6_K: 8 (its 8 lane accumulators per token spill, but the weights are
//   read once per 8 tokens: pp8 148-153 -> 183-185 from 4, pp512 level);
// - Q5_K: 4 (pp4 1.33x and pp512 1.11x what tiles of 2 and the former
//   lane-by-lane tiles of 8 gave);
// - IQ4_XS: 4 below the planes' kPlaneMinTokens (pp4 85-88 -> 117-118 from 2);
// - Q8_0: 3 (its 24 lane accumulators fit the 32 registers: pp512 165-176
//   -> 180-186 t/s from 2, pp3 +6 %; with 4, pp512 189 -> 132, the lanes spill);
// - Q5_0: 2.
constexpr int64_t kQ4KWideMaxTokens = 16;

template <template <int> class K, int Max>
struct Tiles {
    static constexpr TileFn fns[8] = {K<1>::run, K<Max >= 2 ? 2 : 1>::run, K<Max >= 3 ? 3 : 1>::run,
                                      K<Max >= 4 ? 4 : 1>::run, K<Max >= 5 ? 5 : 1>::run, K<Max >= 6 ? 6 : 1>::run,
                                      K<Max >= 7 ? 7 : 1>::run, K<Max >= 8 ? 8 : 1>::run};
    static constexpr int64_t max = Max;
};
template <int NT> struct Q8_0T { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q8_0Tile<NT>(W, g, a, t, y, l, r); } };
template <int NT> struct Q5_0T { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q5_0Tile<NT>(W, g, a, t, y, l, r); } };
template <int NT> struct IQ4_NLT { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q4_0Tile<NT, true>(W, g, a, t, y, l, r); } };
template <int NT> struct Q4_0T { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q4_0Tile<NT>(W, g, a, t, y, l, r); } };
template <int NT> struct Q4_KT { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q4KTile<false, NT>(W, g, a, t, y, l, r); } };
template <int NT> struct Q4_KGemmT { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q4KTile<true, NT>(W, g, a, t, y, l, r); } };
template <int NT> struct Q6_KT { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q6KTile<NT>(W, g, a, t, y, l, r); } };
template <int NT> struct Q5_KT { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { q5KTile<NT>(W, g, a, t, y, l, r); } };
template <int NT> struct IQ4_XST { static void run(const PackedMatrix &W, const uint8_t *g, const PackedActivation &a, int64_t t, float *y, size_t l, int r) { iq4XsTile<NT>(W, g, a, t, y, l, r); } };

} // namespace

void packedMatmulAvx512(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                        int64_t nGemm, float *y, size_t ldy)
{
    const TileFn *fns = nullptr, *gemmFns = nullptr;
    int64_t maxTile = 1;
    switch (W.type) {
    case GgmlType::GGML_TYPE_Q8_0: fns = Tiles<Q8_0T, 3>::fns; maxTile = 3; break;
    case GgmlType::GGML_TYPE_Q4_0: fns = Tiles<Q4_0T, 8>::fns; maxTile = 8; break;
    case GgmlType::GGML_TYPE_Q5_0: fns = Tiles<Q5_0T, 2>::fns; maxTile = 2; break;
    case GgmlType::GGML_TYPE_IQ4_NL:
    case GgmlType::GGML_TYPE_MXFP4: fns = Tiles<IQ4_NLT, 8>::fns; maxTile = 8; break;
    case GgmlType::GGML_TYPE_Q4_K:
        if (nTokens < kQ4KWideMaxTokens) {
            fns = Tiles<Q4_KT, 8>::fns;
            gemmFns = Tiles<Q4_KGemmT, 8>::fns;
            maxTile = 8;
        } else {
            fns = Tiles<Q4_KT, 4>::fns;
            gemmFns = Tiles<Q4_KGemmT, 4>::fns;
            maxTile = 4;
        }
        break;
    case GgmlType::GGML_TYPE_Q6_K: fns = Tiles<Q6_KT, 8>::fns; maxTile = 8; break;
    case GgmlType::GGML_TYPE_Q5_K: fns = Tiles<Q5_KT, 4>::fns; maxTile = 4; break;
    case GgmlType::GGML_TYPE_IQ4_XS: fns = Tiles<IQ4_XST, 4>::fns; maxTile = 4; break;
    default: return;
    }
    if (!gemmFns)
        gemmFns = fns;
    for (int64_t c0 = 0; c0 < nTokens; c0 += kTokenChunk) {
        const int64_t c1 = std::min(nTokens, c0 + kTokenChunk);
        // IQ4_XS prompts through int16 planes (one form: no batch form to split)
        if (c1 - c0 >= kPlaneMinTokens && packedMatmulAvx512Planes(W, g0, g1, act, c0, c1, y, ldy))
            continue;
        const int64_t split = std::clamp(nGemm, c0, c1);   // [c0, split): the batch form
        for (int64_t g = g0; g < g1; ++g) {
            const int rows = static_cast<int>(std::min<int64_t>(kPackRows, W.N - g * kPackRows));
            float *yg = y + static_cast<size_t>(g) * kPackRows;
            for (int64_t t = c0; t < split; t += maxTile)
                gemmFns[std::min<int64_t>(maxTile, split - t) - 1](W, W.group(g), act, t, yg, ldy, rows);
            for (int64_t t = split; t < c1; t += maxTile)
                fns[std::min<int64_t>(maxTile, c1 - t) - 1](W, W.group(g), act, t, yg, ldy, rows);
        }
    }
}

} // namespace burrow::quant::x86
