// AVX2 kernels for packed weight groups: vpmaddubsw (u8 x s8 -> pairs in
// int16) + vpmaddwd (pairs -> int32). Two kinds:
//   - the shared 256-bit tiles (packed_avx2_tiles.h) with a dot4 of
//     vpmaddubsw + vpmaddwd, exact for codes of up to 7 bits
//     (|2 * 127 * 127| < 2^15): Q5_0, Q5_K, Q6_K and IQ4_XS (its values'
//     magnitudes);
//   - kernels of this file that use what vpmaddubsw allows beyond that:
//     Q4_0 and Q4_K sum the int16 pairs of a whole 32-element (sub-)block
//     before one vpmaddwd (4-bit codes: 8 x 2 x 15 x 128 = 30720 < 2^15), and
//     Q8_0 / IQ4_NL move the weight's sign onto the activation (vpsignb), so
//     vpmaddubsw multiplies |w| <= 128 by a signed activation (2 x 128 x 127
//     < 2^15; the activations are Q8_0 / Q8_K codes, never -128).
// Every integer sum equals the shared tiles' (and the twin's) exactly and
// each row keeps its type's float steps, so the results are bit-identical
// to packedMatmulScalar.
#include "quant/x86/in_order.h"
#include "quant/x86/packed_avx2_tiles.h"

#include "quant/x86/stream_prefetch.h"

namespace burrow::quant::x86 {

namespace {

// Generation's one-pass kernels of Q4_0 / IQ4_NL, Q8_0 and Q4_K ask for
// their lines ahead where the CPU wants it (stream_prefetch.h). Xeon guest,
// this path without AVX-VNNI, 1.1B files, tg32 alternating: Q4_0 30.0 ->
// 38.3, Q8_0 19.5 -> 25.8, Q4_K_M 33.6 -> 35.9 t/s.

// A value-table type's 16 values (IQ4_NL, MXFP4) in both 128-bit lanes (a
// vpshufb table).
inline __m256i codeValues(GgmlType type)
{
    const __m128i t16 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(packedCodeValues(type)));
    return _mm256_set_m128i(t16, t16);
}

struct DotMaddubs {
    static __m256i dot4(__m256i acc, __m256i w, __m256i a)
    {
        return inOrder(_mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w, a), _mm256_set1_epi16(1))));
    }
    static __m256i dot2(__m256i acc, __m256i p, __m256i s) { return inOrder(_mm256_add_epi32(acc, _mm256_madd_epi16(p, s))); }
};

inline __m256i bcastAt(const void *p)   // a 4-byte activation run in every lane (a load, no shuffle)
{
    return _mm256_castps_si256(_mm256_broadcast_ss(static_cast<const float *>(p)));
}

// (v, v) int16 pairs from 8 bytes (one per row).
inline __m256i pairsU8(const uint8_t *p)
{
    const __m256i t = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(p)));
    return _mm256_or_si256(t, _mm256_slli_epi32(t, 16));
}

// Q4_0 (Table: IQ4_NL) weights against Q8_0 activations, 8 rows x NT
// tokens. Per block and token the 8 vpmaddubsw of the block's low and high
// nibbles are summed in int16 and widened by one vpmaddwd; the int32 sum
// plus the side array's -8 (Table: -128) x the block sum is the shared
// tile's isum. Table: the values (-127..113) + 128 would reach 241, too
// wide for pairs summed in int16, so each nibble's value keeps its sign on
// the activation instead (|v| <= 127: 2 x 127 x 127 per pair, summed in
// int32) and no offset is taken out.
template <int NT, bool Table>
void q4_0HalfSum16(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
                   size_t ldy, int rows)
{
    constexpr size_t runs = 4;
    const int64_t nb = W.blocks;
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i ones = _mm256_set1_epi16(1);
    const __m256i table = codeValues(W.type);
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
        __m256i s[NT];
        for (int j = 0; j < NT; ++j)
            s[j] = _mm256_setzero_si256();
        for (size_t c = 0; c < runs; ++c) {
            prefetchAhead<NT, 2, false>(q + c * kRun, h, W.groupBytes);
            const __m256i w = load256(q + c * kRun);
            const __m256i lo = _mm256_and_si256(w, low4);
            const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), low4);
            if constexpr (Table) {
                const __m256i vLo = _mm256_shuffle_epi8(table, lo), vHi = _mm256_shuffle_epi8(table, hi);
                const __m256i mLo = _mm256_abs_epi8(vLo), mHi = _mm256_abs_epi8(vHi);
                for (int j = 0; j < NT; ++j) {
                    const __m256i pLo = _mm256_maddubs_epi16(mLo, _mm256_sign_epi8(bcastAt(a[j] + ab + 4 * c), vLo));
                    const __m256i pHi = _mm256_maddubs_epi16(mHi, _mm256_sign_epi8(bcastAt(a[j] + ab + 16 + 4 * c), vHi));
                    s[j] = inOrder(_mm256_add_epi32(s[j], _mm256_madd_epi16(pLo, ones)));
                    s[j] = inOrder(_mm256_add_epi32(s[j], _mm256_madd_epi16(pHi, ones)));
                }
            } else {
                for (int j = 0; j < NT; ++j) {
                    s[j] = _mm256_adds_epi16(s[j], _mm256_maddubs_epi16(lo, bcastAt(a[j] + ab + 4 * c)));
                    s[j] = _mm256_adds_epi16(s[j], _mm256_maddubs_epi16(hi, bcastAt(a[j] + ab + 16 + 4 * c)));
                }
            }
        }
        const __m256 dw = halves8(g + at.scales + 16 * h);
        for (int j = 0; j < NT; ++j) {
            const __m256i sumi = Table ? s[j] : _mm256_add_epi32(_mm256_madd_epi16(s[j], ones), _mm256_set1_epi32(as[j][b]));
            acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_mul_ps(dw, _mm256_set1_ps(ad[j][b])), acc[j]);
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, acc[j], rows);
}

// Q4_0 / IQ4_NL generation (one token): both 8-row halves of a group in one
// pass, the half innermost (as q4KBothSum16; Q4_0 tg32 of the 1.1B file on
// the AVX2 path 40.7-41.6 -> 48.0-48.3 t/s); per row the same sums and float
// steps as q4_0HalfSum16<1, Table>, so the same bits.
template <bool Table>
void q4_0BothSum16(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, float *y, int rows)
{
    constexpr size_t runs = 4;
    const int64_t nb = W.blocks;
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i ones = _mm256_set1_epi16(1);
    const __m256i table = codeValues(W.type);
    const uint8_t *a = act.rows + 2;
    __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int64_t b = 0; b < nb; ++b) {
        const PackedBlockOffsets at = packedBlockOffsets(b, nb, runs * kRun);
        const size_t ab = static_cast<size_t>(b) * sizeof(BlockQ8_0);
        __m256i s[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
        for (size_t c = 0; c < runs; ++c) {
            prefetchStreamAhead(g + at.runs + c * kRun);
            for (int h = 0; h < 2; ++h) {
                const __m256i w = load256(g + at.runs + 32 * h + c * kRun);
                const __m256i lo = _mm256_and_si256(w, low4);
                const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), low4);
                if constexpr (Table) {
                    const __m256i vLo = _mm256_shuffle_epi8(table, lo), vHi = _mm256_shuffle_epi8(table, hi);
                    const __m256i pLo = _mm256_maddubs_epi16(_mm256_abs_epi8(vLo), _mm256_sign_epi8(bcastAt(a + ab + 4 * c), vLo));
                    const __m256i pHi =
                        _mm256_maddubs_epi16(_mm256_abs_epi8(vHi), _mm256_sign_epi8(bcastAt(a + ab + 16 + 4 * c), vHi));
                    s[h] = inOrder(_mm256_add_epi32(s[h], _mm256_madd_epi16(pLo, ones)));
                    s[h] = inOrder(_mm256_add_epi32(s[h], _mm256_madd_epi16(pHi, ones)));
                } else {
                    s[h] = _mm256_adds_epi16(s[h], _mm256_maddubs_epi16(lo, bcastAt(a + ab + 4 * c)));
                    s[h] = _mm256_adds_epi16(s[h], _mm256_maddubs_epi16(hi, bcastAt(a + ab + 16 + 4 * c)));
                }
            }
        }
        for (int h = 0; h < 2; ++h) {
            const __m256 dw = halves8(g + at.scales + 16 * h);
            const __m256i sumi = Table ? s[h] : _mm256_add_epi32(_mm256_madd_epi16(s[h], ones), _mm256_set1_epi32(act.sum[b]));
            acc[h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_mul_ps(dw, _mm256_set1_ps(act.scale[b])), acc[h]);
        }
    }
    for (int h = 0; h < 2 && 8 * h < rows; ++h)
        storeRows(y + 8 * h, acc[h], rows - 8 * h);
}

// Q8_0 weights against Q8_0 activations, 8 rows x NT tokens: the codes
// w + 128 back to w (one XOR), |w| times the activation with w's sign; lane
// m = run m of every block, acc[m] = fma(d_w d_a, lane, acc[m]), hsum8 (the
// shared q8_0Half's steps; no offset to take out).
template <int NT>
void q8_0HalfSigned(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
                    size_t ldy, int rows)
{
    constexpr size_t runs = 8;
    const int64_t nb = W.blocks;
    const __m256i flip = _mm256_set1_epi8(-128);
    const __m256i ones = _mm256_set1_epi16(1);
    const uint8_t *a[NT];
    const float *ad[NT];
    __m256 acc[NT][8];
    for (int j = 0; j < NT; ++j) {
        a[j] = act.rows + static_cast<size_t>(t0 + j) * act.stride + 2;
        ad[j] = act.scale + (t0 + j) * nb;
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
            const __m256i w = _mm256_xor_si256(load256(q + m * kRun), flip);
            const __m256i mag = _mm256_abs_epi8(w);
            for (int j = 0; j < NT; ++j) {
                const __m256i p = _mm256_maddubs_epi16(mag, _mm256_sign_epi8(bcastAt(a[j] + ab + 4 * m), w));
                acc[j][m] = _mm256_fmadd_ps(d[j], _mm256_cvtepi32_ps(_mm256_madd_epi16(p, ones)), acc[j][m]);
            }
        }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, hsum8Rows(acc[j]), rows);
}

// Q4_K, 8 rows x NT tokens: a sub-block's 8 runs summed in int16, times the
// sub-block scale by one vpmaddwd with (sc, sc) pairs; the min term and the
// float chains as the shared q4KHalf (per super-block: gemv; per 64-element
// chunk: Gemm).
// No software prefetch (as packed_avx512.cpp's Q4_K, the weights on huge
// pages): one token streamed 15 % faster without it (Zen 4, CPU time, 32768
// rows x 2048, three alternations; Q5_K's shared kernel keeps its prefetch,
// 20 % faster with it).
template <bool Gemm, int NT>
void q4KHalfSum16(const PackedMatrix &W, const uint8_t *g, int h, const PackedActivation &act, int64_t t0, float *y,
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
        int32_t pair[NT][4];   // (bsums[4p] + bsums[4p+1], bsums[4p+2] + bsums[4p+3]) as two int16
        for (int j = 0; j < NT; ++j) {
            bsumPairs(a[j][b], pair[j]);
        }
        __m256i tot[NT], mn[NT];
        for (int j = 0; j < NT; ++j)
            tot[j] = mn[j] = _mm256_setzero_si256();
        for (int ch = 0; ch < 4; ++ch) {
            __m256i sLo[NT], sHi[NT];
            for (int j = 0; j < NT; ++j)
                sLo[j] = sHi[j] = _mm256_setzero_si256();
            for (int r = 0; r < 8; ++r) {
                const uint8_t *run = o + 320 + static_cast<size_t>(ch * 8 + r) * kRun + 32 * h;
                prefetchAhead<NT, 5, true, false>(run, h, W.groupBytes);
                const __m256i w = load256(run);
                const __m256i lo = _mm256_and_si256(w, low4);
                const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), low4);
                for (int j = 0; j < NT; ++j) {
                    sLo[j] = _mm256_adds_epi16(sLo[j], _mm256_maddubs_epi16(lo, bcastAt(a[j][b].qs + 64 * ch + 4 * r)));
                    sHi[j] = _mm256_adds_epi16(sHi[j], _mm256_maddubs_epi16(hi, bcastAt(a[j][b].qs + 64 * ch + 32 + 4 * r)));
                }
            }
            const __m256i scLo = pairsU8(o + 64 + 32 * ch + 8 * h), scHi = pairsU8(o + 80 + 32 * ch + 8 * h);
            const __m256i mins = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 192 + 32 * ch + 16 * h)));
            for (int j = 0; j < NT; ++j) {
                const __m256i t = _mm256_add_epi32(_mm256_madd_epi16(sLo[j], scLo), _mm256_madd_epi16(sHi[j], scHi));
                const __m256i m = _mm256_madd_epi16(mins, _mm256_set1_epi32(pair[j][ch]));
                if constexpr (Gemm) {
                    const __m256 da = _mm256_set1_ps(a[j][b].d);
                    acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(t), _mm256_mul_ps(d, da), acc[j]);
                    accm[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(m), _mm256_mul_ps(dmin, da), accm[j]);
                } else {
                    tot[j] = _mm256_add_epi32(tot[j], t);
                    mn[j] = _mm256_add_epi32(mn[j], m);
                }
            }
        }
        if constexpr (!Gemm)
            for (int j = 0; j < NT; ++j) {
                const __m256 da = _mm256_set1_ps(a[j][b].d);
                acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(tot[j]), _mm256_mul_ps(d, da), acc[j]);
                accm[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(mn[j]), _mm256_mul_ps(dmin, da), accm[j]);
            }
    }
    for (int j = 0; j < NT; ++j)
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * h, _mm256_sub_ps(acc[j], accm[j]), rows);
}

// Q8_0 generation (one token): both 8-row halves of a group in one pass (as
// q4KBothSum16; the 1.1B Q8_0 file's tg32 on the AVX2 path 21.2-21.3 ->
// 26.6-26.7 t/s); per row the same steps as q8_0HalfSigned<1>.
void q8_0BothSigned(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, float *y, int rows)
{
    constexpr size_t runs = 8;
    const int64_t nb = W.blocks;
    const __m256i flip = _mm256_set1_epi8(-128);
    const __m256i ones = _mm256_set1_epi16(1);
    const uint8_t *a = act.rows + 2;
    __m256 acc[2][8];
    for (int h = 0; h < 2; ++h)
        for (int m = 0; m < 8; ++m)
            acc[h][m] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const PackedBlockOffsets at = packedBlockOffsets(b, nb, runs * kRun);
        const size_t ab = static_cast<size_t>(b) * sizeof(BlockQ8_0);
        const __m256 da = _mm256_set1_ps(act.scale[b]);
        const __m256 d[2] = {_mm256_mul_ps(halves8(g + at.scales), da), _mm256_mul_ps(halves8(g + at.scales + 16), da)};
        for (size_t m = 0; m < runs; ++m) {
            prefetchStreamAhead(g + at.runs + m * kRun);
            for (int h = 0; h < 2; ++h) {
                const __m256i w = _mm256_xor_si256(load256(g + at.runs + 32 * h + m * kRun), flip);
                const __m256i p = _mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(bcastAt(a + ab + 4 * m), w));
                acc[h][m] = _mm256_fmadd_ps(d[h], _mm256_cvtepi32_ps(_mm256_madd_epi16(p, ones)), acc[h][m]);
            }
        }
    }
    for (int h = 0; h < 2 && 8 * h < rows; ++h)
        storeRows(y + 8 * h, hsum8Rows(acc[h]), rows - 8 * h);
}

// Q4_K generation (one token, either form): both 8-row halves of a group
// in one pass, the half inside the chunk loop, so the group's lines stream
// from memory once and each is used twice while in L1 (q4KHalfSum16 runs the
// halves one after the other: the second ran on fetched lines while the
// memory idled; on the AVX2 path the 1.1B Q4_K_M file's tg32 went 33.4-34.4
// -> 42.5-44.7 t/s, alternating). The same integer sums and float steps per row as
// q4KHalfSum16<Gemm, 1> (per row the chunks still come in order), so the
// same bits.
template <bool Gemm>
void q4KBothSum16(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, float *y, int rows)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const BlockQ8_K *a = reinterpret_cast<const BlockQ8_K *>(act.rows);
    __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()}, accm[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int64_t b = 0; b < W.blocks; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ4KSuper;
        for (size_t line = 0; line < 320; line += 64)
            prefetchStreamAhead(o + line);
        int32_t pair[4];
        bsumPairs(a[b], pair);
        __m256i tot[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
        __m256i mn[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
        const __m256 da = _mm256_set1_ps(a[b].d);
        for (int ch = 0; ch < 4; ++ch)
            for (int h = 0; h < 2; ++h) {
                __m256i sLo = _mm256_setzero_si256(), sHi = _mm256_setzero_si256();
                for (int r = 0; r < 8; ++r) {
                    if (h == 0)
                        prefetchStreamAhead(o + 320 + static_cast<size_t>(ch * 8 + r) * kRun);
                    const __m256i w = load256(o + 320 + static_cast<size_t>(ch * 8 + r) * kRun + 32 * h);
                    const __m256i lo = _mm256_and_si256(w, low4);
                    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), low4);
                    sLo = _mm256_adds_epi16(sLo, _mm256_maddubs_epi16(lo, bcastAt(a[b].qs + 64 * ch + 4 * r)));
                    sHi = _mm256_adds_epi16(sHi, _mm256_maddubs_epi16(hi, bcastAt(a[b].qs + 64 * ch + 32 + 4 * r)));
                }
                const __m256i scLo = pairsU8(o + 64 + 32 * ch + 8 * h), scHi = pairsU8(o + 80 + 32 * ch + 8 * h);
                const __m256i mins =
                    _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(o + 192 + 32 * ch + 16 * h)));
                const __m256i t = _mm256_add_epi32(_mm256_madd_epi16(sLo, scLo), _mm256_madd_epi16(sHi, scHi));
                const __m256i m = _mm256_madd_epi16(mins, _mm256_set1_epi32(pair[ch]));
                if constexpr (Gemm) {   // per 64-element chunk
                    acc[h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(t), _mm256_mul_ps(halves8(o + 16 * h), da), acc[h]);
                    accm[h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(m), _mm256_mul_ps(halves8(o + 32 + 16 * h), da), accm[h]);
                } else {
                    tot[h] = _mm256_add_epi32(tot[h], t);
                    mn[h] = _mm256_add_epi32(mn[h], m);
                }
            }
        if constexpr (!Gemm)
            for (int h = 0; h < 2; ++h) {
                const __m256 d = halves8(o + 16 * h), dmin = halves8(o + 32 + 16 * h);
                acc[h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(tot[h]), _mm256_mul_ps(d, da), acc[h]);
                accm[h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(mn[h]), _mm256_mul_ps(dmin, da), accm[h]);
            }
    }
    for (int h = 0; h < 2 && 8 * h < rows; ++h)
        storeRows(y + 8 * h, _mm256_sub_ps(acc[h], accm[h]), rows - 8 * h);
}

// Tiles of 1..4 and 1..8 tokens (index NT - 1) for a kernel template.
#define BURROW_AVX2_TILES(k) {k<1>, k<2>, k<3>, k<4>}
#define BURROW_AVX2_TILES8(k) {k<1>, k<2>, k<3>, k<4>, k<5>, k<6>, k<7>, k<8>}
template <int NT> constexpr HalfFn kQ4_0 = q4_0HalfSum16<NT, false>;
template <int NT> constexpr HalfFn kIQ4_NL = q4_0HalfSum16<NT, true>;
template <int NT> constexpr HalfFn kQ8_0 = q8_0HalfSigned<NT>;
template <int NT> constexpr HalfFn kQ4_K = q4KHalfSum16<false, NT>;
template <int NT> constexpr HalfFn kQ4_KGemm = q4KHalfSum16<true, NT>;
template <int NT> constexpr HalfFn kQ5_0 = q5_0Half<NT, DotMaddubs>;
template <int NT> constexpr HalfFn kQ5_K = q5KHalf<NT, DotMaddubs>;
template <int NT> constexpr HalfFn kQ6_K = q6KHalf<NT, DotMaddubs>;
template <int NT> constexpr HalfFn kIQ4_XS = iq4XsHalf<NT, DotMaddubs>;

} // namespace

bool packedAvx2Supports(GgmlType type)
{
    return type == GgmlType::GGML_TYPE_Q8_0 || type == GgmlType::GGML_TYPE_Q4_0 || type == GgmlType::GGML_TYPE_Q5_0 ||
           type == GgmlType::GGML_TYPE_IQ4_NL || type == GgmlType::GGML_TYPE_MXFP4 || type == GgmlType::GGML_TYPE_Q4_K ||
           type == GgmlType::GGML_TYPE_Q5_K || type == GgmlType::GGML_TYPE_Q6_K || type == GgmlType::GGML_TYPE_IQ4_XS;
}

// Tiles of 4 tokens (Q4_K: 3; its 4-token tile spills registers and was
// 20 % slower): each unpacked weight register serves 4 vpmaddubsw, and the
// 8 lane accumulators per token (Q8_0, Q5_0, Q5_K, Q6_K, IQ4_XS), touched
// once per block or super-block, live on the stack. Measured per core on
// Zen 4 (CPU time of packedMatmul, 64 tokens, K = 2048), against the
// shared tiles of 1-2 tokens: Q4_0 1.4x, Q4_K 1.5x, Q5_K 1.8x, Q6_K 1.8x,
// IQ4_XS 1.7x (docs/models.md). Q8_0, Q5_K and Q6_K take tiles of 8
// (their unpacking is the larger share; on a Xeon guest, 1.1B files, 2
// threads, pp512 / pp8 in t/s from 4 to 8: Q8_0 77 / 71 -> 87 / 81, Q6_K
// 103 / 92 -> 111 / 105, Q5_K_M 114 / 105 -> 114 / 113; Q4_0 and IQ4_XS
// lost with 8). Q4_0 takes 6 (its int16 sum and float chain per token, 12
// registers; the same Xeon, pp512 from 4 / 6 / 7 / 8 alternating: 146-149,
// 150-155, 149-156, 128 t/s, 8 spilling).
void packedMatmulAvx2(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                      int64_t nGemm, float *y, size_t ldy)
{
    static constexpr HalfFn q8_0[8] = BURROW_AVX2_TILES8(kQ8_0), q4_0[6] = {kQ4_0<1>, kQ4_0<2>, kQ4_0<3>, kQ4_0<4>, kQ4_0<5>, kQ4_0<6>},
                            iq4nl[4] = BURROW_AVX2_TILES(kIQ4_NL), q5_0[4] = BURROW_AVX2_TILES(kQ5_0),
                            q4K[4] = BURROW_AVX2_TILES(kQ4_K), q4KGemm[4] = BURROW_AVX2_TILES(kQ4_KGemm),
                            q5K[8] = BURROW_AVX2_TILES8(kQ5_K), q6K[8] = BURROW_AVX2_TILES8(kQ6_K),
                            iq4xs[4] = BURROW_AVX2_TILES(kIQ4_XS);
    const HalfFn *fns = nullptr, *gemmFns = nullptr;
    BothFn both = nullptr;   // generation: both halves of a group in one pass
    int64_t tile = 4;
    switch (W.type) {
    case GgmlType::GGML_TYPE_Q8_0: fns = q8_0; both = q8_0BothSigned; tile = 8; break;
    case GgmlType::GGML_TYPE_Q4_0: fns = q4_0; both = q4_0BothSum16<false>; tile = 6; break;
    case GgmlType::GGML_TYPE_IQ4_NL:
    case GgmlType::GGML_TYPE_MXFP4: fns = iq4nl; both = q4_0BothSum16<true>; break;
    case GgmlType::GGML_TYPE_Q5_0: fns = q5_0; break;
    case GgmlType::GGML_TYPE_Q4_K:
        fns = q4K; gemmFns = q4KGemm; tile = 3;
        both = nGemm > 0 ? BothFn(q4KBothSum16<true>) : BothFn(q4KBothSum16<false>);
        break;
    case GgmlType::GGML_TYPE_Q5_K: fns = q5K; both = q5KBoth<DotMaddubs>; tile = 8; break;
    case GgmlType::GGML_TYPE_Q6_K: fns = q6K; both = q6KBoth<DotMaddubs>; tile = 8; break;
    case GgmlType::GGML_TYPE_IQ4_XS: fns = iq4xs; break;
    default: return;
    }
    if (nTokens == 1 && both) {
        packedBothLoop(W, g0, g1, act, y, both);
        return;
    }
    packedHalvesLoop(W, g0, g1, act, nTokens, nGemm, y, ldy, fns, gemmFns ? gemmFns : fns, tile);
}
#undef BURROW_AVX2_TILES
#undef BURROW_AVX2_TILES8

} // namespace burrow::quant::x86
