// AVX-512 (F/BW/VL) decoders of the lattice i-quants' super-blocks, shared by
// the dot products (avx512_iq.cpp) and the prompt path's tile conversion
// (iq_tiles_avx512.cpp). Include only from translation units compiled with
// the AVX-512 flags; everything here has internal linkage (an unnamed
// namespace per includer), so no AVX-512 code can reach scalar callers.
//
// A super-block decodes into four 64-element parts k (sub-blocks 2k, 2k + 1):
//   mag[k]      the grid magnitudes (bytes; IQ1: |grid|, 0 or 1)
//   neg[k]      bit e set: element 64k + e is negative
//   scale[k]    32 int16, the vpdpwssd operand: int16 2l and 2l + 1 of int32
//               lane l carry the scale (2s + 1) of elements 4l..4l + 3
//   shiftNeg[k] IQ1_M: bit e set: the shift of element e's group is negative
//   d           the block's f16 scale as float (IQ1_M: assembled)
// so that maddubs(mag, q8 negated where neg) times scale (vpdpwssd) gives
// int32 lane l = 4 products of sub-block 2k + l / 8 times their scale.
#pragma once

#include "quant/cpu_features.h"
#include "quant/iq_grids.h"
#include "quant/quant_blocks.h"
#include "quant/x86/q3k_scales.h"
#include "quant/x86/stream_prefetch.h"

#include <immintrin.h>

#include <cstring>

namespace burrow::quant::x86 {
namespace {

struct IqSuper {
    __m512i mag[4];
    __mmask64 neg[4];
    __m512i scale[4];
    __mmask64 shiftNeg[4];
    float d;
    __m256i halves;          // the 16 scales (2s + 1) as int16, half h = elements 16h..16h + 15
    uint32_t shiftGroupNeg;  // IQ1: bit l set: the shift of group l (elements 8l..8l + 7) is negative
};

inline uint32_t iqLoadU32(const void *p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

inline uint64_t iqLoadU64(const void *p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// The row kernels read the file's blocks (a super-block of 50-110 bytes)
// with a long decode between loads; where the CPU wants it
// (stream_prefetch.h) its lines ahead are asked for at each super-block
// (one spans at most two). Xeon guest, 1.1B IQ3_S, tg32 alternating: 12.0 -> 15.7 t/s
// with the gathers below.
inline void iqPrefetchRow(const uint8_t *b)
{
    prefetchStreamAhead(b);
    prefetchStreamAhead(b + 64);
}

// Grid points by vpgather where the CPU gathers fast (cpu_features.h
// fastGather: Intel; Xeon guest, 1.1B IQ3_S, tg32 alternating 12.0 -> 12.9
// t/s alone), else by scalar loads assembled in the register (Zen 4 gathers
// slowly) or, for the IQ3 types, from the codebook held in registers
// (iqLookupNibbles below). The scalar loads take their indices from the
// block's bytes in general registers: indices made in a vector (as the
// gathers take them) cost one extraction each, and, stored and reloaded, a
// store-forwarding stall (Zen 4, one-token kernels: IQ1_M 23.1 -> 18.5, IQ2_S
// 17.5 -> 15.5 ns a super-block).
const bool g_iqGather = cpuFeatures().fastGather;   // read once per translation unit, at load
inline bool iqGather() { return g_iqGather; }
inline __m512i iqGather16(const uint32_t *g, __m512i idx) { return _mm512_i32gather_epi32(idx, g, 4); }
inline __m512i iqGather8(const uint64_t *g, __m256i idx)
{
    return _mm512_i32gather_epi64(idx, reinterpret_cast<const long long *>(g), 8);
}

// IQ3 points looked up from registers (the gather-free path): the
// codebook's 16-bit form (iq_grids.h kIq3sNibbles / kIq3xxsNibbles, 64
// points a vpermi2w table pair; IQ3_S 8 pairs, IQ3_XXS 4), one vpermi2w per
// pair and index vector, the pairs chosen by index bits 6.. with masked
// moves. Zen 4, one-token dot products over 16384 rows of 2048 (a 14 MB
// matrix): IQ3_S 29.5 -> 16.4 ns a super-block, IQ3_XXS 24.7 -> 17.5 (the
// scalar loads' time was 70 % of the kernel's).
//
// The 32 index words in the order that makes iqSpreadNibbles' per-lane
// unpacks come out in element order: word p of lane L (p < 4) is point 4L +
// p, word 4 + p is point 16 + 4L + p.
inline __m512i iqNibbleOrder(__m512i ix)
{
    return _mm512_permutexvar_epi16(_mm512_set_epi16(31, 30, 29, 28, 15, 14, 13, 12, 27, 26, 25, 24, 11, 10, 9, 8, 23, 22, 21, 20, 7, 6,
                                                     5, 4, 19, 18, 17, 16, 3, 2, 1, 0),
                                    ix);
}

// 32 words table[ix[i]] of a 64 * Pairs-entry table (ix < 64 * Pairs, Pairs 4 or 8).
template <int Pairs>
inline __m512i iqLookupNibbles(const uint16_t *table, __m512i ix)
{
    static_assert(Pairs == 4 || Pairs == 8);
    const auto *t = reinterpret_cast<const __m512i *>(table);
    __m512i r[Pairs];
    for (int p = 0; p < Pairs; ++p)
        r[p] = _mm512_permutex2var_epi16(_mm512_load_si512(t + 2 * p), ix, _mm512_load_si512(t + 2 * p + 1));
    for (int bit = 6, n = Pairs; n > 1; ++bit, n /= 2) {
        const __mmask32 m = _mm512_test_epi16_mask(ix, _mm512_set1_epi16(static_cast<short>(1 << bit)));
        for (int p = 0; p < n / 2; ++p)
            r[p] = _mm512_mask_mov_epi16(r[2 * p], m, r[2 * p + 1]);
    }
    return r[0];
}

// 32 looked-up words (in iqNibbleOrder) -> points 0..15 and 16..31 as 64
// bytes each (nibble j -> byte j of the point).
inline void iqSpreadNibbles(__m512i w, __m512i &first, __m512i &second)
{
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    const __m512i lo = _mm512_and_si512(w, low4);
    const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(w, 4), low4);
    first = _mm512_unpacklo_epi8(lo, hi);
    second = _mm512_unpackhi_epi8(lo, hi);
}

// 8 qwords (element 0 first).
inline __m512i iqSet8(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                      uint64_t a7)
{
    return _mm512_set_epi64(static_cast<int64_t>(a7), static_cast<int64_t>(a6), static_cast<int64_t>(a5),
                            static_cast<int64_t>(a4), static_cast<int64_t>(a3), static_cast<int64_t>(a2),
                            static_cast<int64_t>(a1), static_cast<int64_t>(a0));
}

// 32 grid indices into idx[] (u32): index i = qs[i] | ((hi[i / Per] >> (Shift
// * (i % Per))) & (2^HiBits - 1)) << 8, for hi words of type HiWord (u8, u16).
template <int Per, int Shift, int HiBits, typename HiWord>
inline void iqIndices32(const uint8_t *qs, const HiWord *hi, uint32_t *idx)
{
    static_assert(32 / Per <= 16, "the high words fit one register");
    __m512i words;
    if constexpr (sizeof(HiWord) == 1)
        words = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(hi)));
    else
        words = _mm512_cvtepu16_epi32(_mm256_zextsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(hi))));
    const __m512i mask = _mm512_set1_epi32((1 << HiBits) - 1);
    for (int h = 0; h < 2; ++h) {
        const auto w = [h](int i) { return (16 * h + i) / Per; };
        const auto sh = [h](int i) { return Shift * ((16 * h + i) % Per); };
        const __m512i pick = _mm512_setr_epi32(w(0), w(1), w(2), w(3), w(4), w(5), w(6), w(7), w(8), w(9), w(10), w(11),
                                               w(12), w(13), w(14), w(15));
        const __m512i shifts = _mm512_setr_epi32(sh(0), sh(1), sh(2), sh(3), sh(4), sh(5), sh(6), sh(7), sh(8), sh(9),
                                                 sh(10), sh(11), sh(12), sh(13), sh(14), sh(15));
        const __m512i high = _mm512_and_si512(_mm512_srlv_epi32(_mm512_permutexvar_epi32(pick, words), shifts), mask);
        const __m512i lo = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(qs + 16 * h)));
        _mm512_store_si512(idx + 16 * h, _mm512_or_si512(lo, _mm512_slli_epi32(high, 8)));
    }
}

// The four scale operands from 16 int16 scales s[h] (h = 16-element half
// 0..15 of the super-block, already 2s + 1): part k takes halves 4k..4k + 3,
// each for 8 int16.
inline void iqScaleParts(__m256i halves, IqSuper &s)
{
    s.halves = halves;
    __m512i *scale = s.scale;
    const __m512i h = _mm512_castsi256_si512(halves);
    for (int k = 0; k < 4; ++k) {
        const auto rep = [k](int h) { return static_cast<int64_t>(4 * k + h) * 0x0001000100010001ll; };
        const __m512i idx = _mm512_set_epi64(rep(3), rep(3), rep(2), rep(2), rep(1), rep(1), rep(0), rep(0));
        scale[k] = _mm512_permutexvar_epi16(idx, h);
    }
}

// 32 bytes of 7-bit even-sign fields (byte 4ib + l: field l of sub-block ib)
// -> the four 64-bit negative masks (the 8th sign of a group: the parity).
inline void iqEvenSignMasks(__m256i fields, __mmask64 neg[4])
{
    const __m256i nibblePop = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1,
                                               2, 2, 3, 2, 3, 3, 4);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i pop = _mm256_add_epi8(_mm256_shuffle_epi8(nibblePop, _mm256_and_si256(fields, low4)),
                                        _mm256_shuffle_epi8(nibblePop, _mm256_and_si256(_mm256_srli_epi16(fields, 4), low4)));
    const __m256i parity = _mm256_slli_epi16(_mm256_and_si256(pop, _mm256_set1_epi8(1)), 7);   // into bit 7 of its byte
    const __m256i signs = _mm256_or_si256(fields, parity);
    neg[0] = _cvtu64_mask64(static_cast<uint64_t>(_mm256_extract_epi64(signs, 0)));
    neg[1] = _cvtu64_mask64(static_cast<uint64_t>(_mm256_extract_epi64(signs, 1)));
    neg[2] = _cvtu64_mask64(static_cast<uint64_t>(_mm256_extract_epi64(signs, 2)));
    neg[3] = _cvtu64_mask64(static_cast<uint64_t>(_mm256_extract_epi64(signs, 3)));
}

// 8 words w[ib] holding 4 7-bit fields (bits 7l..) and a 4-bit scale (bits
// 28..31): the negative masks and the scale operands (IQ2_XXS, IQ3_XXS).
inline void iqFieldWords(__m256i words, IqSuper &s)
{
    const __m256i m7 = _mm256_set1_epi32(127);
    const __m256i f0 = _mm256_and_si256(words, m7);
    const __m256i f1 = _mm256_and_si256(_mm256_srli_epi32(words, 7), m7);
    const __m256i f2 = _mm256_and_si256(_mm256_srli_epi32(words, 14), m7);
    const __m256i f3 = _mm256_and_si256(_mm256_srli_epi32(words, 21), m7);
    const __m256i fields = _mm256_or_si256(_mm256_or_si256(f0, _mm256_slli_epi32(f1, 8)),
                                           _mm256_or_si256(_mm256_slli_epi32(f2, 16), _mm256_slli_epi32(f3, 24)));
    iqEvenSignMasks(fields, s.neg);
    // scale 2 * (w >> 28) + 1 of sub-block ib for both its halves: int16 2ib and 2ib + 1
    const __m256i sc = _mm256_or_si256(_mm256_slli_epi32(_mm256_srli_epi32(words, 28), 1), _mm256_set1_epi32(1));
    iqScaleParts(_mm256_or_si256(sc, _mm256_slli_epi32(sc, 16)), s);
}

// 8 scale bytes (low nibble: first 16 of sub-block ib, high: second 16) -> scale operands (IQ2_XS, IQ2_S).
inline void iqNibbleScales(const uint8_t *scales, IqSuper &s)
{
    const __m256i b = _mm256_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(scales)));
    // word ib: (lo, hi) -> int16 2ib = lo, 2ib + 1 = hi
    const __m256i lo = _mm256_and_si256(b, _mm256_set1_epi16(0x0f));
    const __m256i hi = _mm256_srli_epi16(b, 4);
    const __m256i pairs = _mm256_permutex2var_epi16(lo, _mm256_setr_epi16(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23), hi);
    iqScaleParts(_mm256_or_si256(_mm256_slli_epi16(pairs, 1), _mm256_set1_epi16(1)), s);
}

struct DecIQ2_XXS {
    static constexpr GgmlType kType = GgmlType::GGML_TYPE_IQ2_XXS;
    static constexpr size_t kBytes = sizeof(BlockIQ2_XXS);
    static void decode(const uint8_t *b, IqSuper &s)
    {
        const auto *x = reinterpret_cast<const BlockIQ2_XXS *>(b);
        const auto *q = reinterpret_cast<const uint8_t *>(x->qs);   // per 32: 4 index bytes, 1 u32 of fields
        const auto &g = kIq2xxsGrid;
        for (int k = 0; k < 4; ++k) {
            const uint8_t *p = q + 16 * k;
            if (iqGather())
                s.mag[k] = iqGather8(g.data(), _mm256_cvtepu8_epi32(_mm_set_epi32(0, 0, static_cast<int>(iqLoadU32(p + 8)),
                                                                                     static_cast<int>(iqLoadU32(p)))));
            else
                s.mag[k] = iqSet8(g[p[0]], g[p[1]], g[p[2]], g[p[3]], g[p[8]], g[p[9]], g[p[10]], g[p[11]]);
        }
        const __m512i all = _mm512_loadu_si512(q);
        const __m256i words = _mm512_castsi512_si256(
            _mm512_permutexvar_epi32(_mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 0, 0, 0, 0, 0, 0, 0, 0), all));
        iqFieldWords(words, s);
        s.d = _cvtsh_ss(x->d);
    }
};

struct DecIQ3_XXS {
    static constexpr GgmlType kType = GgmlType::GGML_TYPE_IQ3_XXS;
    static constexpr size_t kBytes = sizeof(BlockIQ3_XXS);
    static void decode(const uint8_t *b, IqSuper &s)
    {
        const auto *x = reinterpret_cast<const BlockIQ3_XXS *>(b);
        const auto &g = kIq3xxsGrid;
        if (iqGather()) {
            for (int k = 0; k < 4; ++k)
                s.mag[k] = iqGather16(g.data(), _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x->qs + 16 * k))));
        } else {
            uint64_t levels;
            std::memcpy(&levels, kIq3xxsLevelBytes.data(), 8);
            const __m512i lv = _mm512_set1_epi64(static_cast<long long>(levels));
            for (int h = 0; h < 2; ++h) {
                const __m512i ix = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(x->qs + 32 * h)));
                iqSpreadNibbles(iqLookupNibbles<4>(kIq3xxsNibbles.data(), iqNibbleOrder(ix)), s.mag[2 * h], s.mag[2 * h + 1]);
                s.mag[2 * h] = _mm512_shuffle_epi8(lv, s.mag[2 * h]);   // level codes -> magnitudes
                s.mag[2 * h + 1] = _mm512_shuffle_epi8(lv, s.mag[2 * h + 1]);
            }
        }
        iqFieldWords(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(x->qs + QK_K / 4)), s);
        s.d = _cvtsh_ss(x->d);
    }
};

struct DecIQ2_XS {
    static constexpr GgmlType kType = GgmlType::GGML_TYPE_IQ2_XS;
    static constexpr size_t kBytes = sizeof(BlockIQ2_XS);
    static void decode(const uint8_t *b, IqSuper &s)
    {
        const auto *x = reinterpret_cast<const BlockIQ2_XS *>(b);
        const auto &g = kIq2xsGrid;
        for (int k = 0; k < 4; ++k) {
            const uint16_t *p = x->qs + 8 * k;
            if (iqGather())
                s.mag[k] = iqGather8(g.data(), _mm256_and_si256(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))),
                                                                _mm256_set1_epi32(511)));
            else
                s.mag[k] = iqSet8(g[p[0] & 511], g[p[1] & 511], g[p[2] & 511], g[p[3] & 511], g[p[4] & 511], g[p[5] & 511],
                                  g[p[6] & 511], g[p[7] & 511]);
        }
        const __m512i q = _mm512_loadu_si512(x->qs);
        iqEvenSignMasks(_mm512_cvtepi16_epi8(_mm512_srli_epi16(q, 9)), s.neg);
        iqNibbleScales(x->scales, s);
        s.d = _cvtsh_ss(x->d);
    }
};

struct DecIQ2_S {
    static constexpr GgmlType kType = GgmlType::GGML_TYPE_IQ2_S;
    static constexpr size_t kBytes = sizeof(BlockIQ2_S);
    static void decode(const uint8_t *b, IqSuper &s)
    {
        const auto *x = reinterpret_cast<const BlockIQ2_S *>(b);
        const auto &g = kIq2sGrid;
        if (iqGather()) {
            alignas(64) uint32_t idx[32];
            iqIndices32<4, 2, 2>(x->qs, x->qh, idx);
            for (int k = 0; k < 4; ++k)
                s.mag[k] = iqGather8(g.data(), _mm256_load_si256(reinterpret_cast<const __m256i *>(idx + 8 * k)));
        } else {
            for (int k = 0; k < 4; ++k) {   // part k: sub-blocks 2k, 2k + 1
                const auto at = [x, k](int p) { return iq2sPointIndex(*x, 2 * k + p / 4, p % 4); };
                s.mag[k] = iqSet8(g[at(0)], g[at(1)], g[at(2)], g[at(3)], g[at(4)], g[at(5)], g[at(6)], g[at(7)]);
            }
        }
        for (int k = 0; k < 4; ++k)
            s.neg[k] = _cvtu64_mask64(iqLoadU64(x->qs + QK_K / 8 + 8 * k));
        iqNibbleScales(x->scales, s);
        s.d = _cvtsh_ss(x->d);
    }
};

struct DecIQ3_S {
    static constexpr GgmlType kType = GgmlType::GGML_TYPE_IQ3_S;
    static constexpr size_t kBytes = sizeof(BlockIQ3_S);
    static void decode(const uint8_t *b, IqSuper &s)
    {
        const auto *x = reinterpret_cast<const BlockIQ3_S *>(b);
        // 9-bit indices: qs byte i | bit i of qh << 8
        if (iqGather()) {
            for (int k = 0; k < 4; ++k) {
                const __m512i lo = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x->qs + 16 * k)));
                uint16_t high;
                std::memcpy(&high, x->qh + 2 * k, 2);
                s.mag[k] = iqGather16(kIq3sGrid.data(), _mm512_mask_or_epi32(lo, _cvtu32_mask16(high), lo, _mm512_set1_epi32(256)));
            }
        } else {
            for (int h = 0; h < 2; ++h) {
                const __m512i lo = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(x->qs + 32 * h)));
                const __m512i ix = _mm512_mask_add_epi16(lo, _cvtu32_mask32(iqLoadU32(x->qh + 4 * h)), lo, _mm512_set1_epi16(256));
                iqSpreadNibbles(iqLookupNibbles<8>(kIq3sNibbles.data(), iqNibbleOrder(ix)), s.mag[2 * h], s.mag[2 * h + 1]);
            }
        }
        for (int k = 0; k < 4; ++k)
            s.neg[k] = _cvtu64_mask64(iqLoadU64(x->signs + 8 * k));
        // one nibble per sub-block, for both its halves
        const __m256i b4 = _mm256_cvtepu8_epi32(_mm_cvtsi32_si128(static_cast<int>(iqLoadU32(x->scales))));
        const __m256i nib = _mm256_and_si256(_mm256_srlv_epi32(_mm256_permutevar8x32_epi32(b4, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)),
                                                               _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4)),
                                             _mm256_set1_epi32(0x0f));
        const __m256i sc = _mm256_or_si256(_mm256_slli_epi32(nib, 1), _mm256_set1_epi32(1));
        iqScaleParts(_mm256_or_si256(sc, _mm256_slli_epi32(sc, 16)), s);
        s.d = _cvtsh_ss(x->d);
    }
};

// IQ1: grid bytes -1, 0, 1 (their own signs; magnitudes 0 or 1).
inline void iqSignedGrid(__m512i w, __m512i &mag, __mmask64 &neg)
{
    mag = _mm512_abs_epi8(w);
    neg = _mm512_movepi8_mask(w);
}

struct DecIQ1_S {
    static constexpr GgmlType kType = GgmlType::GGML_TYPE_IQ1_S;
    static constexpr size_t kBytes = sizeof(BlockIQ1_S);
    static void decode(const uint8_t *b, IqSuper &s)
    {
        const auto *x = reinterpret_cast<const BlockIQ1_S *>(b);
        const auto &g = kIq1sGrid;
        alignas(64) uint32_t idx[32];
        if (iqGather())
            iqIndices32<4, 3, 3>(x->qs, x->qh, idx);
        for (int k = 0; k < 4; ++k) {
            __m512i w;
            if (iqGather())
                w = iqGather8(g.data(), _mm256_load_si256(reinterpret_cast<const __m256i *>(idx + 8 * k)));
            else {   // part k: sub-blocks 2k, 2k + 1
                const auto at = [x, k](int p) { return iq1sPointIndex(*x, 2 * k + p / 4, p % 4); };
                w = iqSet8(g[at(0)], g[at(1)], g[at(2)], g[at(3)], g[at(4)], g[at(5)], g[at(6)], g[at(7)]);
            }
            iqSignedGrid(w, s.mag[k], s.neg[k]);
        }
        const __m256i qh = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x->qh)));
        const __m256i sc = _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(qh, 12), _mm256_set1_epi32(7)), 1),
                                           _mm256_set1_epi32(1));
        iqScaleParts(_mm256_or_si256(sc, _mm256_slli_epi32(sc, 16)), s);
        s.shiftGroupNeg = 0;
        for (int ib = 0; ib < 8; ++ib)
            if (x->qh[ib] & 0x8000u)
                s.shiftGroupNeg |= 0xfu << (4 * ib);
        s.d = _cvtsh_ss(x->d);
    }
    // The shift's integer from the activations' sums of 16 (generic/iq_kernels.h):
    // sum over sub-blocks of (2s + 1) * sign * (bsums[2ib] + bsums[2ib + 1]).
    static int32_t shiftSum(const uint8_t *b, const int16_t *bsums)
    {
        const auto *x = reinterpret_cast<const BlockIQ1_S *>(b);
        const __m256i qh = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x->qh)));
        const __m256i sc = _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(qh, 12), _mm256_set1_epi32(7)), 1),
                                           _mm256_set1_epi32(1));
        const __m256i coef = _mm256_mask_sub_epi32(sc, _mm256_test_epi32_mask(qh, _mm256_set1_epi32(0x8000)), _mm256_setzero_si256(), sc);
        const __m256i sums = _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(bsums)), _mm256_set1_epi16(1));
        const __m256i prod = _mm256_mullo_epi32(coef, sums);
        __m128i r = _mm_add_epi32(_mm256_castsi256_si128(prod), _mm256_extracti128_si256(prod, 1));
        r = _mm_add_epi32(r, _mm_unpackhi_epi64(r, r));
        r = _mm_add_epi32(r, _mm_shuffle_epi32(r, 1));
        return _mm_cvtsi128_si32(r);
    }
};

struct DecIQ1_M {
    static constexpr GgmlType kType = GgmlType::GGML_TYPE_IQ1_M;
    static constexpr size_t kBytes = sizeof(BlockIQ1_M);
    static void decode(const uint8_t *b, IqSuper &s)
    {
        const auto *x = reinterpret_cast<const BlockIQ1_M *>(b);
        const auto &g = kIq1sGrid;
        alignas(64) uint32_t idx[32];
        if (iqGather())
            iqIndices32<2, 4, 3>(x->qs, x->qh, idx);
        for (int k = 0; k < 4; ++k) {
            __m512i w;
            if (iqGather())
                w = iqGather8(g.data(), _mm256_load_si256(reinterpret_cast<const __m256i *>(idx + 8 * k)));
            else {   // part k: sub-blocks 2k, 2k + 1
                const auto at = [x, k](int p) { return iq1mPointIndex(*x, 2 * k + p / 4, p % 4); };
                w = iqSet8(g[at(0)], g[at(1)], g[at(2)], g[at(3)], g[at(4)], g[at(5)], g[at(6)], g[at(7)]);
            }
            iqSignedGrid(w, s.mag[k], s.neg[k]);
        }
        // shift sign of group l (0..31): bit 3 of nibble l of qh. Part k's bytes
        // e take qh byte 4k + e / 16 (each 128-bit lane one byte) and test bit 3
        // (e / 8 even) or bit 7 (odd) of it.
        const __m512i laneByte = _mm512_set_epi64(0x0303030303030303ll, 0x0303030303030303ll, 0x0202020202020202ll,
                                                  0x0202020202020202ll, 0x0101010101010101ll, 0x0101010101010101ll, 0, 0);
        const auto hi = static_cast<long long>(0x8080808080808080ull), lo = 0x0808080808080808ll;
        const __m512i bit = _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo);
        for (int k = 0; k < 4; ++k)
            s.shiftNeg[k] = _mm512_test_epi8_mask(
                _mm512_shuffle_epi8(_mm512_set1_epi32(static_cast<int>(iqLoadU32(x->qh + 4 * k))), laneByte), bit);
        // 16 3-bit scales: scale word w, bits 3j..3j + 2 hold half 4w + j
        const __m256i words = _mm256_permutexvar_epi16(_mm256_setr_epi16(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3),
                                                       _mm256_castsi128_si256(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(x->scales))));
        const __m256i three = _mm256_and_si256(_mm256_srlv_epi16(words, _mm256_setr_epi16(0, 3, 6, 9, 0, 3, 6, 9, 0, 3, 6, 9, 0, 3, 6, 9)),
                                               _mm256_set1_epi16(7));
        iqScaleParts(_mm256_or_si256(_mm256_slli_epi16(three, 1), _mm256_set1_epi16(1)), s);
        s.shiftGroupNeg = 0;
        for (int l = 0; l < 32; ++l)
            s.shiftGroupNeg |= ((x->qh[l / 2] >> (4 * (l % 2) + 3)) & 1u) << l;
        uint16_t sc[4];
        std::memcpy(sc, x->scales, 8);
        s.d = _cvtsh_ss(static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00)
                                             | (sc[3] & 0xf000)));
    }
};

// Q2_K in the tiles' form (iq_tiles.h): its 2-bit values (element
// 128 half + 32 k + l: bits 2k of qs[32 half + l]) as non-negative weights,
// its 4-bit scales as the halves; the mins and dmin are read by the caller.
struct DecQ2_K {
    static constexpr GgmlType kType = GgmlType::GGML_TYPE_Q2_K;
    static constexpr size_t kBytes = sizeof(BlockQ2_K);
    static void decode(const uint8_t *b, IqSuper &s)
    {
        const auto *x = reinterpret_cast<const BlockQ2_K *>(b);
        const __m512i three = _mm512_set1_epi8(3);
        for (int k = 0; k < 4; ++k) {   // elements 64k..64k + 63: half k / 2, shifts 4 (k % 2) and 4 (k % 2) + 2
            const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x->qs + 32 * (k / 2)));
            const __m512i both = _mm512_inserti64x4(_mm512_castsi256_si512(q), q, 1);
            const __m512i shift = _mm512_inserti64x4(_mm512_set1_epi16(static_cast<short>(4 * (k % 2))),
                                                     _mm256_set1_epi16(static_cast<short>(4 * (k % 2) + 2)), 1);
            s.mag[k] = _mm512_and_si512(_mm512_srlv_epi16(both, shift), three);
            s.neg[k] = 0;
        }
        s.halves = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x->scales)),
                                                      _mm_set1_epi8(0x0f)));
        s.d = _cvtsh_ss(x->d);
        s.shiftGroupNeg = 0;
    }
};

// Q3_K in the tiles' form: its levels low2 - (high bit ? 0 : 4) (element
// 128 half + 32 k + l: bits 2k of qs[32 half + l], bit 4 half + k of
// hmask[l]) as signed weights, its 6-bit scales minus 32 as the halves.
struct DecQ3_K {
    static constexpr GgmlType kType = GgmlType::GGML_TYPE_Q3_K;
    static constexpr size_t kBytes = sizeof(BlockQ3_K);
    static void decode(const uint8_t *b, IqSuper &s)
    {
        const auto *x = reinterpret_cast<const BlockQ3_K *>(b);
        const __m256i hm = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x->hmask));
        const __m512i hmBoth = _mm512_inserti64x4(_mm512_castsi256_si512(hm), hm, 1);
        for (int k = 0; k < 4; ++k) {   // elements 64k..64k + 63: half k / 2, k' = 2 (k % 2) and 2 (k % 2) + 1
            const int half = k / 2, k0 = 2 * (k % 2);
            const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x->qs + 32 * half));
            const __m512i both = _mm512_inserti64x4(_mm512_castsi256_si512(q), q, 1);
            const __m512i low = _mm512_and_si512(
                _mm512_srlv_epi16(both, _mm512_inserti64x4(_mm512_set1_epi16(static_cast<short>(2 * k0)),
                                                           _mm256_set1_epi16(static_cast<short>(2 * k0 + 2)), 1)),
                _mm512_set1_epi8(3));
            const __m512i high = _mm512_and_si512(
                _mm512_srlv_epi16(hmBoth, _mm512_inserti64x4(_mm512_set1_epi16(static_cast<short>(4 * half + k0)),
                                                             _mm256_set1_epi16(static_cast<short>(4 * half + k0 + 1)), 1)),
                _mm512_set1_epi8(1));
            const __m512i v = _mm512_sub_epi8(_mm512_or_si512(low, _mm512_slli_epi16(high, 2)), _mm512_set1_epi8(4));
            s.mag[k] = _mm512_abs_epi8(v);
            s.neg[k] = _mm512_movepi8_mask(v);
        }
        s.halves = _mm256_cvtepi8_epi16(unpackQ3KScales128(x->scales));
        s.d = _cvtsh_ss(x->d);
        s.shiftGroupNeg = 0;
    }
};

} // namespace
} // namespace burrow::quant::x86
