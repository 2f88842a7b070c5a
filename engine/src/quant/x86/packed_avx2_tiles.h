// The 256-bit kernels for packed weight groups (layout: quant/packed.h),
// shared by the AVX-VNNI file (packed_avxvnni.cpp: vpdpbusd, exact for
// 8-bit codes; every type) and the AVX2 file (packed_avx2.cpp: vpmaddubsw +
// vpmaddwd, exact for codes of up to 7 bits; it takes Q5_0, Q5_K, Q6_K and
// IQ4_XS from here and has its own Q8_0, Q4_0, IQ4_NL and Q4_K), each
// compiled with its own instruction-set flags. Kernels take a tile of NT
// tokens; packedHalvesLoop runs them over a range of groups. A 256-bit register holds 8 rows x 4 weights, so a group of 16 rows
// is two halves, computed one after the other. Everything here has internal
// linkage: each including file gets its own copy built for its flags.
//
// Every integer sum is exact, and each row's float steps are those of its
// type's scalar dot product (as packed_avx512.cpp), so the results are
// bit-identical to the twin (packedMatmulScalar).
#pragma once

#include "quant/x86/x86_kernels.h"

#include "quant/packed.h"
#include "quant/quant_blocks.h"
#include "quant/x86/q8k_pairs.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace burrow::quant::x86 {

namespace {

constexpr size_t kRun = 64;            // one 4-byte run of 16 rows; a half is 32 bytes
constexpr size_t kQ4KSuper = 2368;
constexpr size_t kQ6KSuper = 3392;
constexpr size_t kQ5KSuper = 2880;
constexpr size_t kIQ4XSSuper = 2176;
constexpr int64_t kTokenChunk = 128;
constexpr size_t kPrefetchAhead = 4096;   // as packed_avx512.cpp

// Tiles of 2-4 tokens: the lines two Q4_K super-blocks ahead (as
// packed_avx512.cpp's prefetchTile). One thread from memory, 2048 x 65536,
// GB/s of weights without -> with at 2 / 4 tokens (BURROW_AVX_VNNI=0): Q4_0
// 9 -> 14, 6 -> 10; Q8_0 10 -> 15, 7 -> 9; Q6_K 7 -> 9, 5 -> 7; Q5_K
// 11 -> 11, 7 -> 9; Q4_K 13 -> 12, 8 -> 8 (its tiles go without: TileFrom 5).
constexpr size_t kTilePrefetchAhead = 4736;

// Each kernel computes a group's two halves one after the other, and the
// second half reads the lines the first brought in: with nothing to fetch,
// the memory would idle through it. There the next group's lines go to L2
// instead (Next; a prompt's later tiles of the same half find them there).
// tg32 of the 1.1B files on this path, alternating: Q4_K_M 35.6-36.0 ->
// 36.1-38.8 t/s, Q6_K 23.3-23.8 -> 25.0-25.1; Q4_0 and Q8_0 go without
// (36.3-37.3 -> 35.2-37.1; 5-7 % slower alone in one thread). One: the
// 1-token kernel's own prefetch (Q4_K's goes without, as on AVX-512).
template <int NT, int TileFrom = 2, bool Next = true, bool One = true>
inline void prefetchAhead(const uint8_t *p, int h, size_t groupBytes)
{
    if (h == 1) {
        if constexpr (Next)
            _mm_prefetch(reinterpret_cast<const char *>(p + groupBytes), _MM_HINT_T1);
        return;
    }
    if constexpr (NT == 1 && One)
        _mm_prefetch(reinterpret_cast<const char *>(p + kPrefetchAhead), _MM_HINT_T0);
    else if constexpr (NT > 1 && NT >= TileFrom)
        _mm_prefetch(reinterpret_cast<const char *>(p + kTilePrefetchAhead), _MM_HINT_T0);
}

inline __m256i load256(const uint8_t *p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)); }
inline __m256i bcast32(const void *p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}
inline __m256 halves8(const uint8_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))); }


inline void storeRows(float *dst, __m256 v, int rows)
{
    if (rows >= 8) {
        _mm256_storeu_ps(dst, v);
        return;
    }
    alignas(32) float tmp[8];
    _mm256_store_ps(tmp, v);
    std::memcpy(dst, tmp, static_cast<size_t>(rows) * sizeof(float));
}

// Half `h` (rows 8h..8h+7) of a group; `rows`: valid rows in this half.
// Dot::dot4(acc, w, a): acc + the 4-element dot products of unsigned w and
// signed a in each 32-bit lane; Dot::dot2(acc, p, s): acc + the int16 pairs
// of p times those of s, summed per 32-bit lane.
// Q4_0: per block acc = fma(isum, d_w d_a, acc). Table (IQ4_NL): the
// nibbles through the value table plus 128 and 128 x the block sum taken
// out (as packed_avx512.cpp's q4_0Tile); codes up to 241, so only for a Dot
// exact for 8-bit codes (VNNI).
template <int NT, typename Dot, bool Table = false>
void q4_0Half(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
              size_t ldy, int rows)
{
    constexpr size_t runs = 4;
    const int64_t nb = W.blocks;
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m128i t16 =
        _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i *>(packedCodeValues(W.type))), _mm_set1_epi8(-128));
    const __m256i table = _mm256_set_m128i(t16, t16);
    const uint8_t *a[NT];
    const float *ad[NT];
    const int32_t *as[NT];
    __m256 acc[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;
        ad[j] = act.scale + (t0 + j) * nb;
        as[j] = act.sum + (t0 + j) * nb;
        acc[j] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < nb; ++b) {
        const PackedBlockOffsets at = packedBlockOffsets(b, nb, runs * kRun);
        const uint8_t *q = g + at.runs + 32 * h;
        const size_t ab = static_cast<size_t>(b) * sizeof(BlockQ8_0);
        __m256i sA[NT], sB[NT];
        for (int j = 0; j < NT; ++j) {
            sA[j] = _mm256_set1_epi32(Table ? 16 * as[j][b] : as[j][b]);   // -8 (Table: -128) * the block's code sum
            sB[j] = _mm256_setzero_si256();
        }
        for (size_t c = 0; c < runs; ++c) {
            prefetchAhead<NT, 2, false>(q + c * kRun, h, W.groupBytes);
            const __m256i w = load256(q + c * kRun);
            __m256i lo = _mm256_and_si256(w, low4);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), low4);
            if constexpr (Table) {
                lo = _mm256_shuffle_epi8(table, lo);
                hi = _mm256_shuffle_epi8(table, hi);
            }
            for (int j = 0; j < NT; ++j) {
                sA[j] = Dot::dot4(sA[j], lo, bcast32(a[j] + ab + 4 * c));
                sB[j] = Dot::dot4(sB[j], hi, bcast32(a[j] + ab + 16 + 4 * c));
            }
        }
        const __m256 dw = halves8(g + at.scales + 16 * h);
        for (int j = 0; j < NT; ++j) {
            const __m256i sumi = _mm256_add_epi32(sA[j], sB[j]);
            acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_mul_ps(dw, _mm256_set1_ps(ad[j][b])), acc[j]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, acc[j], rows);
}

// hsum8 over 8 lane registers, row by row.
inline __m256 hsum8Rows(const __m256 a[8])
{
    const __m256 r0 = _mm256_add_ps(a[4], a[0]), r1 = _mm256_add_ps(a[5], a[1]);
    const __m256 r2 = _mm256_add_ps(a[6], a[2]), r3 = _mm256_add_ps(a[7], a[3]);
    return _mm256_add_ps(_mm256_add_ps(r0, r2), _mm256_add_ps(r1, r3));
}

// Q8_0 (Dot exact for 8-bit codes only): lane m = run m of every block,
// acc[m] = fma(d_w d_a, lane, acc[m]), hsum8.
template <int NT, typename Dot>
void q8_0Half(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
              size_t ldy, int rows)
{
    constexpr size_t runs = 8;
    const int64_t nb = W.blocks;
    const uint8_t *a[NT];
    const float *ad[NT];
    const int32_t *as[NT];
    __m256 acc[NT][8];
    for (int j = 0; j < NT; ++j) {
        a[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;
        ad[j] = act.scale + (t0 + j) * nb;
        as[j] = act.sum + (t0 + j) * nb * 8;
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < nb; ++b) {
        const PackedBlockOffsets at = packedBlockOffsets(b, nb, runs * kRun);
        const uint8_t *q = g + at.runs + 32 * h;
        const size_t ab = static_cast<size_t>(b) * sizeof(BlockQ8_0);
        const __m256 dw = halves8(g + at.scales + 16 * h);
        __m256 d[NT];
        for (int j = 0; j < NT; ++j)
            d[j] = _mm256_mul_ps(dw, _mm256_set1_ps(ad[j][b]));
        for (size_t m = 0; m < runs; ++m) {
            prefetchAhead<NT, 2, false>(q + m * kRun, h, W.groupBytes);
            const __m256i w = load256(q + m * kRun);
            for (int j = 0; j < NT; ++j) {
                const __m256i lane = Dot::dot4(_mm256_set1_epi32(as[j][8 * b + static_cast<int64_t>(m)]), w,
                                               bcast32(a[j] + ab + 4 * m));
                acc[j][m] = _mm256_fmadd_ps(d[j], _mm256_cvtepi32_ps(lane), acc[j][m]);
            }
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, hsum8Rows(acc[j]), rows);
}

// Q5_0: Q8_0's lanes (as packed_avx512.cpp's q5_0Tile); 5-bit codes, so
// vpmaddubsw is exact too (2 * 31 * 127 < 2^15).
template <int NT, typename Dot>
void q5_0Half(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
              size_t ldy, int rows)
{
    constexpr size_t runs = 5;
    const int64_t nb = W.blocks;
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i bit4 = _mm256_set1_epi8(0x10);
    const uint8_t *a[NT];
    const float *ad[NT];
    const int32_t *as[NT];
    __m256 acc[NT][8];
    for (int j = 0; j < NT; ++j) {
        a[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;
        ad[j] = act.scale + (t0 + j) * nb;
        as[j] = act.sum + (t0 + j) * nb * 8;
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < nb; ++b) {
        const PackedBlockOffsets at = packedBlockOffsets(b, nb, runs * kRun);
        const uint8_t *q = g + at.runs + 32 * h;
        const size_t ab = static_cast<size_t>(b) * sizeof(BlockQ8_0);
        prefetchAhead<NT>(q + 4 * kRun, h, W.groupBytes);
        const __m256i fifth = load256(q + 4 * kRun);
        const __m256 dw = halves8(g + at.scales + 16 * h);
        __m256 d[NT];
        for (int j = 0; j < NT; ++j)
            d[j] = _mm256_mul_ps(dw, _mm256_set1_ps(ad[j][b]));
        for (int c = 0; c < 4; ++c) {
            prefetchAhead<NT>(q + static_cast<size_t>(c) * kRun, h, W.groupBytes);
            const __m256i w = load256(q + static_cast<size_t>(c) * kRun);
            const __m256i fLo = _mm256_and_si256(_mm256_slli_epi16(fifth, 4 - c), bit4);
            const __m256i fHi = _mm256_and_si256(_mm256_srli_epi16(fifth, c), bit4);
            const __m256i lo = _mm256_or_si256(_mm256_and_si256(w, low4), fLo);
            const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(w, 4), low4), fHi);
            for (int j = 0; j < NT; ++j) {
                const __m256i laneLo = Dot::dot4(_mm256_set1_epi32(as[j][8 * b + c]), lo, bcast32(a[j] + ab + 4 * c));
                const __m256i laneHi = Dot::dot4(_mm256_set1_epi32(as[j][8 * b + 4 + c]), hi, bcast32(a[j] + ab + 16 + 4 * c));
                acc[j][c] = _mm256_fmadd_ps(d[j], _mm256_cvtepi32_ps(laneLo), acc[j][c]);
                acc[j][4 + c] = _mm256_fmadd_ps(d[j], _mm256_cvtepi32_ps(laneHi), acc[j][4 + c]);
            }
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, hsum8Rows(acc[j]), rows);
}

// Q4_K: sum and min chains per super-block (gemv) or per chunk (Gemm).
template <bool Gemm, int NT, typename Dot>
void q4KHalf(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
             size_t ldy, int rows)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const BlockQ8_K *a[NT];
    __m256 acc[NT], accm[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        acc[j] = accm[j] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ4KSuper;
        const __m256 d = halves8(o + 16 * h), dmin = halves8(o + 32 + 16 * h);
        __m256 dd[NT], dm[NT];
        int32_t pair[NT][4];
        for (int j = 0; j < NT; ++j) {
            const __m256 da = _mm256_set1_ps(a[j][b].d);
            dd[j] = _mm256_mul_ps(d, da);
            dm[j] = _mm256_mul_ps(dmin, da);
            bsumPairs(a[j][b], pair[j]);
        }
        const auto minTerm = [o, h](int p, int32_t pr) {
            const __m256i m = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 192 + 32 * p + 16 * h)));
            return _mm256_madd_epi16(m, _mm256_set1_epi32(pr));
        };
        __m256i tot[NT], mn[NT];
        for (int j = 0; j < NT; ++j)
            tot[j] = mn[j] = _mm256_setzero_si256();
        for (int ch = 0; ch < 4; ++ch) {
            __m256i sLo[NT], sHi[NT];
            for (int j = 0; j < NT; ++j)
                sLo[j] = sHi[j] = _mm256_setzero_si256();
            for (int r = 0; r < 8; ++r) {
                const uint8_t *run = o + 320 + static_cast<size_t>(ch * 8 + r) * kRun + 32 * h;
                prefetchAhead<NT, 5>(run, h, W.groupBytes);
                const __m256i w = load256(run);
                const __m256i lo = _mm256_and_si256(w, low4);
                const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), low4);
                for (int j = 0; j < NT; ++j) {
                    sLo[j] = Dot::dot4(sLo[j], lo, bcast32(a[j][b].qs + 64 * ch + 4 * r));
                    sHi[j] = Dot::dot4(sHi[j], hi, bcast32(a[j][b].qs + 64 * ch + 32 + 4 * r));
                }
            }
            const __m256i scLo = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(o + 64 + 32 * ch + 8 * h)));
            const __m256i scHi = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(o + 80 + 32 * ch + 8 * h)));
            for (int j = 0; j < NT; ++j) {
                const __m256i t = _mm256_add_epi32(_mm256_mullo_epi32(sLo[j], scLo), _mm256_mullo_epi32(sHi[j], scHi));
                const __m256i m = minTerm(ch, pair[j][ch]);
                if constexpr (Gemm) {
                    acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(t), dd[j], acc[j]);
                    accm[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(m), dm[j], accm[j]);
                } else {
                    tot[j] = _mm256_add_epi32(tot[j], t);
                    mn[j] = _mm256_add_epi32(mn[j], m);
                }
            }
        }
        if constexpr (!Gemm)
            for (int j = 0; j < NT; ++j) {
                acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(tot[j]), dd[j], acc[j]);
                accm[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(mn[j]), dm[j], accm[j]);
            }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, _mm256_sub_ps(acc[j], accm[j]), rows);
}

// Q6_K, 8 rows' int8 scales at p as int32.
inline __m256i q6ScaleWords(const uint8_t *p)
{
    return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(p)));
}

// Per sub-block, the (sc, sc) int16 pairs of half h's 8 rows (the
// vpmaddwd operand of their 16-element halves).
inline void q6ScalePairs(const uint8_t *o, int h, int32_t pairs[16][8])
{
    const __m256i lowWord = _mm256_set1_epi32(0xffff);
    for (int sb = 0; sb < 16; ++sb) {
        const __m256i t = q6ScaleWords(o + 16 * sb + 8 * h);
        _mm256_store_si256(reinterpret_cast<__m256i *>(pairs[sb]),
                           _mm256_or_si256(_mm256_and_si256(t, lowWord), _mm256_slli_epi32(t, 16)));
    }
}

// (-32 sc[2g], -32 sc[2g + 1]) as an int16 pair per row of half h (|32 sc|
// <= 4096): one vpmaddwd with the activations' (bsums[2g], bsums[2g + 1])
// gives a lane's start, -32 x its scaled activation sum (the codes are
// stored + 32), the integer the shift and negation gave before.
inline __m256i q6CorrScale(const uint8_t *o, int g, int h)
{
    const auto neg32 = [](__m256i t) { return _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(t, 5)); };
    return _mm256_or_si256(_mm256_and_si256(neg32(q6ScaleWords(o + 16 * (2 * g) + 8 * h)), _mm256_set1_epi32(0xffff)),
                           _mm256_slli_epi32(neg32(q6ScaleWords(o + 16 * (2 * g + 1) + 8 * h)), 16));
}

// Q6_K codes of one half of a run triple (quant/packed.h): chunks 0-2 in bits
// 0-5 of A, B, C; chunk 3 from their bits 6-7.
inline void q6Codes(const uint8_t *run, __m256i v[4])
{
    const __m256i low6 = _mm256_set1_epi8(0x3f);
    const __m256i ra = load256(run), rb = load256(run + kRun), rc = load256(run + 2 * kRun);
    v[0] = _mm256_and_si256(ra, low6);
    v[1] = _mm256_and_si256(rb, low6);
    v[2] = _mm256_and_si256(rc, low6);
    v[3] = _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ra, 6), _mm256_set1_epi8(0x03)),
                                           _mm256_and_si256(_mm256_srli_epi16(rb, 4), _mm256_set1_epi8(0x0c))),
                           _mm256_and_si256(_mm256_srli_epi16(rc, 2), _mm256_set1_epi8(0x30)));
}

// Q6_K: 8 lane accumulators per row (as packed_avx512.cpp's q6KTile).
template <int NT, typename Dot>
void q6KHalf(const PackedMatrix &W, const uint8_t *g, int h8, const PackedActivation &act, int64_t t0, float *y,
             size_t ldy, int rows)
{
    const BlockQ8_K *a[NT];
    __m256 acc[NT][8];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ6KSuper;
        alignas(32) int32_t scPair[16][8];   // (sc, sc) int16 pairs per row
        q6ScalePairs(o, h8, scPair);
        const __m256 d = halves8(o + 256 + 16 * h8);
        __m256 dd[NT];
        for (int j = 0; j < NT; ++j)
            dd[j] = _mm256_mul_ps(_mm256_set1_ps(a[j][b].d), d);
        if constexpr (NT == 1) {
            // Generation: the runs in address order (h outer), one stream for
            // the prefetchers (packed_avx512.cpp's q6KTile); the same exact sums.
            __m256i lane1[8];
            for (int gl = 0; gl < 8; ++gl) {
                const __m256i corrScale = q6CorrScale(o, gl, h8);
                lane1[gl] = _mm256_madd_epi16(corrScale, bcast32(a[0][b].bsums + 2 * gl));
            }
            for (int h = 0; h < 2; ++h)
                for (int gl = 0; gl < 8; ++gl) {
                    const uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + gl) * 3 * kRun + 32 * h8;
                    prefetchAhead<NT>(run, h8, W.groupBytes);
                    prefetchAhead<NT>(run + kRun, h8, W.groupBytes);
                    prefetchAhead<NT>(run + 2 * kRun, h8, W.groupBytes);
                    __m256i v[4];
                    q6Codes(run, v);
                    for (int k = 0; k < 4; ++k) {
                        const __m256i sc = _mm256_load_si256(reinterpret_cast<const __m256i *>(scPair[8 * h + 2 * k + gl / 4]));
                        const __m256i p = _mm256_maddubs_epi16(v[k], bcast32(a[0][b].qs + 128 * h + 32 * k + 4 * gl));
                        lane1[gl] = Dot::dot2(lane1[gl], p, sc);
                    }
                }
            for (int gl = 0; gl < 8; ++gl)
                acc[0][gl] = _mm256_fmadd_ps(dd[0], _mm256_cvtepi32_ps(lane1[gl]), acc[0][gl]);
            continue;
        }
        for (int gl = 0; gl < 8; ++gl) {
            const __m256i corrScale = q6CorrScale(o, gl, h8);
            __m256i lane[NT];
            for (int j = 0; j < NT; ++j)
                lane[j] = _mm256_madd_epi16(corrScale, bcast32(a[j][b].bsums + 2 * gl));
            for (int h = 0; h < 2; ++h) {
                const uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + gl) * 3 * kRun + 32 * h8;
                prefetchAhead<NT>(run, h8, W.groupBytes);
                prefetchAhead<NT>(run + kRun, h8, W.groupBytes);
                prefetchAhead<NT>(run + 2 * kRun, h8, W.groupBytes);
                __m256i v[4];
                q6Codes(run, v);
                for (int k = 0; k < 4; ++k) {
                    const __m256i sc = _mm256_load_si256(reinterpret_cast<const __m256i *>(scPair[8 * h + 2 * k + gl / 4]));
                    for (int j = 0; j < NT; ++j) {
                        const __m256i p = _mm256_maddubs_epi16(v[k], bcast32(a[j][b].qs + 128 * h + 32 * k + 4 * gl));
                        lane[j] = Dot::dot2(lane[j], p, sc);
                    }
                }
            }
            for (int j = 0; j < NT; ++j)
                acc[j][gl] = _mm256_fmadd_ps(dd[j], _mm256_cvtepi32_ps(lane[j]), acc[j][gl]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h8, hsum8Rows(acc[j]), rows);
}

// Q6_K generation (one token): both 8-row halves of a group in one pass,
// the half innermost, so the group's lines stream from memory once (as
// packed_avx2.cpp's q4KBothSum16; tg32 of the 1.1B Q6_K file on the AVX2
// path 31.9-32.0 -> 45.0-45.7 t/s, alternating). Per row the same exact lane
// sums and float steps as q6KHalf<1, Dot>, so the same bits.
template <typename Dot>
void q6KBoth(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, float *y, int rows)
{
    const BlockQ8_K *a = reinterpret_cast<const BlockQ8_K *>(act.rows);
    __m256 acc[2][8];
    for (int hh = 0; hh < 2; ++hh)
        for (int m = 0; m < 8; ++m)
            acc[hh][m] = _mm256_setzero_ps();
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ6KSuper;
        alignas(32) int32_t scPair[2][16][8];   // per half: (sc, sc) int16 pairs per row
        __m256i lane[2][8];
        for (int hh = 0; hh < 2; ++hh) {
            q6ScalePairs(o, hh, scPair[hh]);
            for (int gl = 0; gl < 8; ++gl) {
                const __m256i corrScale = q6CorrScale(o, gl, hh);
                lane[hh][gl] = _mm256_madd_epi16(corrScale, bcast32(a[b].bsums + 2 * gl));
            }
        }
        for (int h = 0; h < 2; ++h)
            for (int gl = 0; gl < 8; ++gl) {
                const uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + gl) * 3 * kRun;
                prefetchAhead<1>(run, 0, W.groupBytes);
                prefetchAhead<1>(run + kRun, 0, W.groupBytes);
                prefetchAhead<1>(run + 2 * kRun, 0, W.groupBytes);
                for (int hh = 0; hh < 2; ++hh) {
                    __m256i v[4];
                    q6Codes(run + 32 * hh, v);
                    for (int k = 0; k < 4; ++k) {
                        const __m256i sc =
                            _mm256_load_si256(reinterpret_cast<const __m256i *>(scPair[hh][8 * h + 2 * k + gl / 4]));
                        const __m256i p = _mm256_maddubs_epi16(v[k], bcast32(a[b].qs + 128 * h + 32 * k + 4 * gl));
                        lane[hh][gl] = Dot::dot2(lane[hh][gl], p, sc);
                    }
                }
            }
        for (int hh = 0; hh < 2; ++hh) {
            const __m256 dd = _mm256_mul_ps(_mm256_set1_ps(a[b].d), halves8(o + 256 + 16 * hh));
            for (int gl = 0; gl < 8; ++gl)
                acc[hh][gl] = _mm256_fmadd_ps(dd, _mm256_cvtepi32_ps(lane[hh][gl]), acc[hh][gl]);
        }
    }
    for (int hh = 0; hh < 2 && 8 * hh < rows; ++hh)
        storeRows(y + 8 * hh, hsum8Rows(acc[hh]), rows - 8 * hh);
}

// Bit b (0..7) of every byte moved to bit 4 (the fifth bit of a Q5_K code).
inline __m256i bitTo4(__m256i qh, int b)
{
    const __m256i bit4 = _mm256_set1_epi8(0x10);
    if (b < 4)
        return _mm256_and_si256(_mm256_slli_epi16(qh, 4 - b), bit4);
    return _mm256_and_si256(_mm256_srli_epi16(qh, b - 4), bit4);
}

// Q5_K: 8 lane accumulators per row (as packed_avx512.cpp's q5KTile).
template <int NT, typename Dot>
void q5KHalf(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
             size_t ldy, int rows)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const BlockQ8_K *a[NT];
    __m256 acc[NT][8], summs[NT];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        summs[j] = _mm256_setzero_ps();
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ5KSuper;
        const __m256 d = halves8(o + 16 * h), dmin = halves8(o + 32 + 16 * h);
        alignas(32) int32_t scPair[8][8];   // (sc, sc) int16 pairs per row
        for (int sb = 0; sb < 8; ++sb) {
            const __m256i t = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(o + 64 + 16 * sb + 8 * h)));
            _mm256_store_si256(reinterpret_cast<__m256i *>(scPair[sb]), _mm256_or_si256(t, _mm256_slli_epi32(t, 16)));
        }
        __m256 dd[NT];
        for (int j = 0; j < NT; ++j) {
            dd[j] = _mm256_mul_ps(_mm256_set1_ps(a[j][b].d), d);
            int32_t pr[4];
            bsumPairs(a[j][b], pr);
            __m256i imin = _mm256_setzero_si256();
            for (int p = 0; p < 4; ++p) {
                const __m256i mn = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 192 + 32 * p + 16 * h)));
                imin = _mm256_add_epi32(imin, _mm256_madd_epi16(mn, _mm256_set1_epi32(pr[p])));
            }
            summs[j] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_set1_ps(-a[j][b].d), dmin), _mm256_cvtepi32_ps(imin), summs[j]);
        }
        for (int m = 0; m < 8; ++m) {
            const uint8_t *runs = o + 320 + static_cast<size_t>(m) * 5 * kRun + 32 * h;
            prefetchAhead<NT>(runs + 4 * kRun, h, W.groupBytes);
            const __m256i qh = load256(runs + 4 * kRun);
            __m256i lane[NT];
            for (int j = 0; j < NT; ++j)
                lane[j] = _mm256_setzero_si256();
            for (int p = 0; p < 4; ++p) {
                prefetchAhead<NT>(runs + static_cast<size_t>(p) * kRun, h, W.groupBytes);
                const __m256i w = load256(runs + static_cast<size_t>(p) * kRun);
                const __m256i lo = _mm256_or_si256(_mm256_and_si256(w, low4), bitTo4(qh, 2 * p));
                const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(w, 4), low4), bitTo4(qh, 2 * p + 1));
                const __m256i scLo = _mm256_load_si256(reinterpret_cast<const __m256i *>(scPair[2 * p]));
                const __m256i scHi = _mm256_load_si256(reinterpret_cast<const __m256i *>(scPair[2 * p + 1]));
                for (int j = 0; j < NT; ++j) {
                    const int8_t *q8 = a[j][b].qs + 64 * p + 4 * m;
                    lane[j] = Dot::dot2(lane[j], _mm256_maddubs_epi16(lo, bcast32(q8)), scLo);
                    lane[j] = Dot::dot2(lane[j], _mm256_maddubs_epi16(hi, bcast32(q8 + 32)), scHi);
                }
            }
            for (int j = 0; j < NT; ++j)
                acc[j][m] = _mm256_fmadd_ps(dd[j], _mm256_cvtepi32_ps(lane[j]), acc[j][m]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, _mm256_add_ps(hsum8Rows(acc[j]), summs[j]), rows);
}

// Q5_K generation (one token): both 8-row halves of a group in one pass
// (as q6KBoth; the 1.1B Q5_K_M file's tg32 on the AVX2 path 38.8-40.6 ->
// 47.6-49.0 t/s); per row the same sums and float steps as q5KHalf<1, Dot>.
template <typename Dot>
void q5KBoth(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, float *y, int rows)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const BlockQ8_K *a = reinterpret_cast<const BlockQ8_K *>(act.rows);
    __m256 acc[2][8], summs[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int hh = 0; hh < 2; ++hh)
        for (int m = 0; m < 8; ++m)
            acc[hh][m] = _mm256_setzero_ps();
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ5KSuper;
        alignas(32) int32_t scPair[2][8][8];   // per half: (sc, sc) int16 pairs per row
        __m256 dd[2];
        int32_t pr[4];
        bsumPairs(a[b], pr);
        for (int hh = 0; hh < 2; ++hh) {
            const __m256 d = halves8(o + 16 * hh), dmin = halves8(o + 32 + 16 * hh);
            for (int sb = 0; sb < 8; ++sb) {
                const __m256i t =
                    _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(o + 64 + 16 * sb + 8 * hh)));
                _mm256_store_si256(reinterpret_cast<__m256i *>(scPair[hh][sb]), _mm256_or_si256(t, _mm256_slli_epi32(t, 16)));
            }
            dd[hh] = _mm256_mul_ps(_mm256_set1_ps(a[b].d), d);
            __m256i imin = _mm256_setzero_si256();
            for (int p = 0; p < 4; ++p) {
                const __m256i mn =
                    _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 192 + 32 * p + 16 * hh)));
                imin = _mm256_add_epi32(imin, _mm256_madd_epi16(mn, _mm256_set1_epi32(pr[p])));
            }
            summs[hh] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_set1_ps(-a[b].d), dmin), _mm256_cvtepi32_ps(imin), summs[hh]);
        }
        for (int m = 0; m < 8; ++m) {
            const uint8_t *runs = o + 320 + static_cast<size_t>(m) * 5 * kRun;
            for (size_t r = 0; r < 5; ++r)
                prefetchAhead<1>(runs + r * kRun, 0, W.groupBytes);
            for (int hh = 0; hh < 2; ++hh) {
                const __m256i qh = load256(runs + 4 * kRun + 32 * hh);
                __m256i lane = _mm256_setzero_si256();
                for (int p = 0; p < 4; ++p) {
                    const __m256i w = load256(runs + static_cast<size_t>(p) * kRun + 32 * hh);
                    const __m256i lo = _mm256_or_si256(_mm256_and_si256(w, low4), bitTo4(qh, 2 * p));
                    const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(w, 4), low4), bitTo4(qh, 2 * p + 1));
                    const __m256i scLo = _mm256_load_si256(reinterpret_cast<const __m256i *>(scPair[hh][2 * p]));
                    const __m256i scHi = _mm256_load_si256(reinterpret_cast<const __m256i *>(scPair[hh][2 * p + 1]));
                    const int8_t *q8 = a[b].qs + 64 * p + 4 * m;
                    lane = Dot::dot2(lane, _mm256_maddubs_epi16(lo, bcast32(q8)), scLo);
                    lane = Dot::dot2(lane, _mm256_maddubs_epi16(hi, bcast32(q8 + 32)), scHi);
                }
                acc[hh][m] = _mm256_fmadd_ps(dd[hh], _mm256_cvtepi32_ps(lane), acc[hh][m]);
            }
        }
    }
    for (int hh = 0; hh < 2 && 8 * hh < rows; ++hh)
        storeRows(y + 8 * hh, _mm256_add_ps(hsum8Rows(acc[hh]), summs[hh]), rows - 8 * hh);
}

// IQ4_XS: 8 lane accumulators per row (as packed_avx512.cpp's iq4XsTile);
// the value's sign moves onto the activation (vpsignb).
template <int NT, typename Dot>
void iq4XsHalf(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
               size_t ldy, int rows)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m128i t128 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(kValuesIq4nl));
    const __m256i table = _mm256_set_m128i(t128, t128);
    const __m256i low6 = _mm256_set1_epi32(0x3f);
    const __m256i lowWord = _mm256_set1_epi32(0xffff);
    const BlockQ8_K *a[NT];
    __m256 acc[NT][8];
    for (int j = 0; j < NT; ++j) {
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
        for (int m = 0; m < 8; ++m)
            acc[j][m] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kIQ4XSSuper;
        const __m256 d = halves8(o + 16 * h);
        const __m256i sl = load256(o + 64 + 32 * h);
        const __m256i sh = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 32 + 16 * h)));
        alignas(32) int32_t lsPair[8][8];   // (ls - 32, ls - 32) int16 pairs per row
        for (int ib = 0; ib < 8; ++ib) {
            const __m256i ls = _mm256_and_si256(
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(sl, 4 * ib), low4),
                                _mm256_slli_epi32(_mm256_srli_epi32(sh, 2 * ib), 4)),
                low6);
            const __m256i v = _mm256_sub_epi32(ls, _mm256_set1_epi32(32));
            _mm256_store_si256(reinterpret_cast<__m256i *>(lsPair[ib]),
                               _mm256_or_si256(_mm256_and_si256(v, lowWord), _mm256_slli_epi32(v, 16)));
        }
        __m256 dd[NT];
        for (int j = 0; j < NT; ++j)
            dd[j] = _mm256_mul_ps(d, _mm256_set1_ps(a[j][b].d));
        for (int c = 0; c < 4; ++c) {
            __m256i lLo[NT], lHi[NT];
            for (int j = 0; j < NT; ++j)
                lLo[j] = lHi[j] = _mm256_setzero_si256();
            for (int ib = 0; ib < 8; ++ib) {
                const uint8_t *run = o + 128 + static_cast<size_t>(c * 8 + ib) * kRun + 32 * h;
                prefetchAhead<NT>(run, h, W.groupBytes);
                const __m256i w = load256(run);
                const __m256i vLo = _mm256_shuffle_epi8(table, _mm256_and_si256(w, low4));
                const __m256i vHi = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(w, 4), low4));
                const __m256i mLo = _mm256_abs_epi8(vLo), mHi = _mm256_abs_epi8(vHi);
                const __m256i ls = _mm256_load_si256(reinterpret_cast<const __m256i *>(lsPair[ib]));
                for (int j = 0; j < NT; ++j) {
                    const int8_t *q8 = a[j][b].qs + 32 * ib + 4 * c;
                    lLo[j] = Dot::dot2(lLo[j], _mm256_maddubs_epi16(mLo, _mm256_sign_epi8(bcast32(q8), vLo)), ls);
                    lHi[j] = Dot::dot2(lHi[j], _mm256_maddubs_epi16(mHi, _mm256_sign_epi8(bcast32(q8 + 16), vHi)), ls);
                }
            }
            for (int j = 0; j < NT; ++j) {
                acc[j][c] = _mm256_fmadd_ps(dd[j], _mm256_cvtepi32_ps(lLo[j]), acc[j][c]);
                acc[j][4 + c] = _mm256_fmadd_ps(dd[j], _mm256_cvtepi32_ps(lHi[j]), acc[j][4 + c]);
            }
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, hsum8Rows(acc[j]), rows);
}

using HalfFn = void (*)(const PackedMatrix &, const uint8_t *, int, const PackedActivation &, int64_t, float *, size_t,
                        int);
// One token, both 8-row halves of a group in one pass (y: the group's first
// output; rows: the group's rows, 1..16).
using BothFn = void (*)(const PackedMatrix &, const uint8_t *, const PackedActivation &, float *, int);

inline void packedBothLoop(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, float *y,
                           BothFn both)
{
    for (int64_t g = g0; g < g1; ++g)
        both(W, W.group(g), act, y + static_cast<size_t>(g) * kPackRows,
             static_cast<int>(std::min<int64_t>(kPackRows, W.N - g * kPackRows)));
}

// The packedMatmul loop over token chunks, groups, halves and token tiles:
// fns[n - 1] / gemmFns[n - 1] compute a tile of n <= tile tokens in the
// one-token / batch form (tokens below nGemm take the batch form).
inline void packedHalvesLoop(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                             int64_t nTokens, int64_t nGemm, float *y, size_t ldy, const HalfFn *fns,
                             const HalfFn *gemmFns, int64_t tile)
{
    for (int64_t c0 = 0; c0 < nTokens; c0 += kTokenChunk) {
        const int64_t c1 = std::min(nTokens, c0 + kTokenChunk);
        const int64_t split = std::clamp(nGemm, c0, c1);
        for (int64_t g = g0; g < g1; ++g) {
            const int rows = static_cast<int>(std::min<int64_t>(kPackRows, W.N - g * kPackRows));
            float *yg = y + static_cast<size_t>(g) * kPackRows;
            for (int h = 0; h < 2 && 8 * h < rows; ++h) {
                for (int64_t t = c0; t < split; t += tile)
                    gemmFns[std::min<int64_t>(tile, split - t) - 1](W, W.group(g), h, act, t, yg, ldy, rows - 8 * h);
                for (int64_t t = split; t < c1; t += tile)
                    fns[std::min<int64_t>(tile, c1 - t) - 1](W, W.group(g), h, act, t, yg, ldy, rows - 8 * h);
            }
        }
    }
}

} // namespace

} // namespace burrow::quant::x86
