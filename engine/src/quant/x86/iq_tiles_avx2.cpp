// AVX2 tiles of the lattice i-quants, Q2_K and Q3_K for prompts (layout and
// contract: quant/iq_tiles.h; this file is compiled with the AVX2 flags).
//
// Conversion: each row's super-block is decoded into 256 int8 and its 16
// half scales (Q2_K and Q3_K by byte shifts and masks here, the lattice
// types by the row kernels' AVX2 decoders, avx2_iq_decode.h), then each
// sub-block's 8 dwords of 8 rows are transposed into runs of 8 rows x 4
// bytes, and the lane starts are summed from the transposed runs
// (vpmaddubsw with ones, vpmaddwd with the scale pairs). The tile bytes
// equal the scalar twin's (iqTileConvertScalar) byte for byte.
//
// Multiply: the 16 rows as two halves of 8 (one 256-bit register of int32
// lanes each). Per lane m (elements 4m..4m + 3 of every sub-block)
// and super-block: vpmaddubsw (unsigned activations, signed weights), then
// vpmaddwd with the scale pair and an add (the exact integer sum AVX-512's
// vpdpwssd makes), started from the lane start; then the rows' float steps,
// acc_m = fma(d_w d_a, lane, acc_m), for up to 4 tokens (Q2_K 6) sharing
// each weight register, and hsum8 over the lanes. Results equal the scalar twin (and so
// the rows' vecDot) bit for bit.
//
// Everything here has internal linkage except the two entry points.
#include "quant/x86/iq_simd.h"

#include "quant/iq_tiles.h"
#include "quant/packed.h"
#include "quant/quant_blocks.h"
#include "quant/x86/avx2_iq_decode.h"
#include "quant/x86/in_order.h"

#include <immintrin.h>

#include <cstring>

namespace burrow::quant::x86 {

namespace {

using T = GgmlType;

constexpr size_t kOffStart = kIqTileOffStart, kOffScale = kIqTileOffScale, kOffWeights = kIqTileOffWeights,
                 kOffExtra = kIqTileOffExtra;
// Tokens per pass: 4 (16 ymm registers: 4 lanes, 4 sums, weights, scales);
// Q2_K 6 (its one chain per token leaves room; 2048 x 5632 by 512 tokens,
// one thread: 113-122 ms with 4, 84-96 with 6, 93-95 with 7 or 8; the
// lattice types are 5-10 % slower with 5 or 6).
template <T Type>
constexpr int kMaxTile = Type == T::GGML_TYPE_Q2_K ? 6 : 4;

inline __m256i bcast32(const uint8_t *p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}
inline __m256i load8(const uint8_t *p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)); }

// hsum8 over 8 lane registers, row by row: ((a4 + a0) + (a6 + a2)) + ((a5 + a1) + (a7 + a3)).
inline __m256 hsum8Rows(const __m256 *a)
{
    const __m256 r0 = _mm256_add_ps(a[4], a[0]), r1 = _mm256_add_ps(a[5], a[1]);
    const __m256 r2 = _mm256_add_ps(a[6], a[2]), r3 = _mm256_add_ps(a[7], a[3]);
    return _mm256_add_ps(_mm256_add_ps(r0, r2), _mm256_add_ps(r1, r3));
}

// ---- conversion ----

// 8 x 8 dwords transposed: out[c], lane i = in[i], lane c.
inline void transpose8(const __m256i in[8], __m256i out[8])
{
    __m256i a[8], b[8];
    for (int i = 0; i < 4; ++i) {
        a[2 * i] = _mm256_unpacklo_epi32(in[2 * i], in[2 * i + 1]);       // columns 0, 1 | 4, 5 of rows 2i, 2i + 1
        a[2 * i + 1] = _mm256_unpackhi_epi32(in[2 * i], in[2 * i + 1]);   // columns 2, 3 | 6, 7
    }
    for (int g = 0; g < 2; ++g) {   // b[4g + j]: column j | j + 4 of rows 4g..4g + 3
        b[4 * g] = _mm256_unpacklo_epi64(a[4 * g], a[4 * g + 2]);
        b[4 * g + 1] = _mm256_unpackhi_epi64(a[4 * g], a[4 * g + 2]);
        b[4 * g + 2] = _mm256_unpacklo_epi64(a[4 * g + 1], a[4 * g + 3]);
        b[4 * g + 3] = _mm256_unpackhi_epi64(a[4 * g + 1], a[4 * g + 3]);
    }
    for (int j = 0; j < 4; ++j) {
        out[j] = _mm256_permute2x128_si256(b[j], b[4 + j], 0x20);
        out[4 + j] = _mm256_permute2x128_si256(b[j], b[4 + j], 0x31);
    }
}

inline int32_t pair16(int a, int b) { return static_cast<int32_t>((static_cast<uint32_t>(a) & 0xffffu) | (static_cast<uint32_t>(b) << 16)); }
inline void put32(uint8_t *p, int32_t v) { std::memcpy(p, &v, 4); }

// One super-block of 16 rows before the transposition: the weights (value
// x scale where iqTileScaledWeights), the scale pairs [16 h][16 r] and d.
struct GroupRows {
    alignas(32) int8_t w[16][256];
    alignas(32) int32_t pairs[16][16];
    alignas(32) float d[16];
};

// Q2_K row r: the 2-bit values times their half's 4-bit scale (<= 45: the
// 16-bit product of a byte pair keeps each byte's own product), scale
// pairs 1; the mins' pairs and dmin into the tile's extra part.
inline void decodeQ2K(const BlockQ2_K &x, GroupRows &g, int r, uint8_t *o)
{
    const __m256i three = _mm256_set1_epi8(3);
    for (int half = 0; half < 2; ++half) {
        const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x.qs + 32 * half));
        for (int k = 0; k < 4; ++k) {
            const int h = 8 * half + 2 * k;   // elements 16h..16h + 31: halves h, h + 1
            const __m256i v = _mm256_and_si256(_mm256_srli_epi16(q, 2 * k), three);
            const __m256i sc = _mm256_setr_m128i(_mm_set1_epi16(static_cast<short>(x.scales[h] & 0xf)),
                                                 _mm_set1_epi16(static_cast<short>(x.scales[h + 1] & 0xf)));
            _mm256_store_si256(reinterpret_cast<__m256i *>(g.w[r] + 32 * (4 * half + k)), _mm256_mullo_epi16(v, sc));
        }
    }
    for (int h = 0; h < 16; ++h)
        g.pairs[h][r] = pair16(1, 1);
    g.d[r] = _cvtsh_ss(x.d);
    for (int p = 0; p < 8; ++p)
        put32(o + kOffExtra + (16 * static_cast<size_t>(p) + static_cast<size_t>(r)) * 4,
              pair16(x.scales[2 * p] >> 4, x.scales[2 * p + 1] >> 4));
    const float dmin = _cvtsh_ss(x.dmin);
    std::memcpy(o + kIqTileOffQ2KDmin + 4 * static_cast<size_t>(r), &dmin, 4);
}

// Q3_K row r: the levels low2 - (high bit ? 0 : 4), the 6-bit scales - 32.
inline void decodeQ3K(const BlockQ3_K &x, GroupRows &g, int r)
{
    const __m256i three = _mm256_set1_epi8(3), four = _mm256_set1_epi8(4), zero = _mm256_setzero_si256();
    const __m256i hm = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x.hmask));
    for (int half = 0; half < 2; ++half) {
        const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x.qs + 32 * half));
        for (int k = 0; k < 4; ++k) {
            const __m256i low = _mm256_and_si256(_mm256_srli_epi16(q, 2 * k), three);
            const __m256i bit = _mm256_set1_epi8(static_cast<char>(1u << (4 * half + k)));
            const __m256i clear = _mm256_cmpeq_epi8(_mm256_and_si256(hm, bit), zero);
            _mm256_store_si256(reinterpret_cast<__m256i *>(g.w[r] + 32 * (4 * half + k)),
                               _mm256_sub_epi8(low, _mm256_and_si256(clear, four)));
        }
    }
    int8_t sc[16];
    unpackQ3KScales(x.scales, sc);
    for (int h = 0; h < 16; ++h)
        g.pairs[h][r] = pair16(sc[h], sc[h]);
    g.d[r] = _cvtsh_ss(x.d);
}

// A lattice type's row r by its AVX2 decoder (avx2_iq_decode.h, the row
// kernels' own): each sub-block's signed values (times their half's scale
// for IQ1), the half scales; IQ1_S and IQ1_M's shift coefficient pairs into
// the tile's extra part (iq_tiles.h).
template <typename D>
inline void decodeLattice(const uint8_t *block, GroupRows &g, int r, uint8_t *o)
{
    constexpr bool kScaled = iqTileScaledWeights(D::kType);
    const Pairs pairs = D::prepare(block);
    int half[16];
    for (int ib = 0; ib < 8; ++ib) {
        const Sub s = D::sub(block, ib, pairs);
        const int lo = _mm256_extract_epi16(s.scale, 0), hi = _mm256_extract_epi16(s.scale, 8);
        __m256i w = _mm256_sign_epi8(s.mag, s.sgn);
        if constexpr (kScaled)   // values -1, 0, 1: the scale with the value's sign
            w = _mm256_sign_epi8(_mm256_setr_m128i(_mm_set1_epi8(static_cast<char>(lo)), _mm_set1_epi8(static_cast<char>(hi))), w);
        _mm256_store_si256(reinterpret_cast<__m256i *>(g.w[r] + 32 * ib), w);
        half[2 * ib] = lo;
        half[2 * ib + 1] = hi;
        g.pairs[2 * ib][r] = kScaled ? pair16(1, 1) : pair16(lo, lo);
        g.pairs[2 * ib + 1][r] = kScaled ? pair16(1, 1) : pair16(hi, hi);
    }
    g.d[r] = D::d(block);
    const size_t rr = static_cast<size_t>(r);
    if constexpr (D::kType == T::GGML_TYPE_IQ1_S) {   // one shift sign per sub-block: qh bit 15
        const auto *x = reinterpret_cast<const BlockIQ1_S *>(block);
        const auto c = [&](int ib) { return (x->qh[ib] & 0x8000) ? -half[2 * ib] : half[2 * ib]; };
        for (int p = 0; p < 4; ++p)
            put32(o + kOffExtra + (16 * static_cast<size_t>(p) + rr) * 4, pair16(c(2 * p), c(2 * p + 1)));
    }
    if constexpr (D::kType == T::GGML_TYPE_IQ1_M) {   // group k of sub-block ib: qh[2ib + k / 2] bit 3 or 7
        const auto *x = reinterpret_cast<const BlockIQ1_M *>(block);
        const auto c = [&](int ib, int m) {
            const int k = m / 2, sc = half[2 * ib + m / 4];
            return ((x->qh[2 * ib + k / 2] >> (k % 2 ? 7 : 3)) & 1) ? -sc : sc;
        };
        for (int m = 0; m < 8; ++m)
            for (int p = 0; p < 4; ++p)
                put32(o + kOffExtra + ((4 * static_cast<size_t>(m) + static_cast<size_t>(p)) * 16 + rr) * 4,
                      pair16(c(2 * p, m), c(2 * p + 1, m)));
    }
}

// D: a lattice type's decoder, or QK<Q2_K / Q3_K>.
template <T Type>
struct QK {
    static constexpr T kType = Type;
};

template <typename D>
void convertGroup(const uint8_t *rows, size_t rowBytes, int64_t K, int nRows, uint8_t *tile)
{
    constexpr T Type = D::kType;
    const int64_t nb = K / QK_K;
    const size_t superBytes = iqTileSuperBytes(Type), blockBytes = ggmlTypeInfo(Type)->typeSize;
    GroupRows g;
    for (int r = nRows; r < 16; ++r) {   // rows past N: zero (so their starts and sums are)
        std::memset(g.w[r], 0, sizeof g.w[r]);
        for (int h = 0; h < 16; ++h)
            g.pairs[h][r] = 0;
        g.d[r] = 0.0f;
    }
    const __m256i ones = _mm256_set1_epi8(1);
    for (int64_t b = 0; b < nb; ++b) {
        uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
        if (superBytes > kOffExtra && nRows < 16)
            std::memset(o + kOffExtra, 0, superBytes - kOffExtra);
        for (int r = 0; r < nRows; ++r) {
            const uint8_t *block = rows + static_cast<size_t>(r) * rowBytes + static_cast<size_t>(b) * blockBytes;
            if constexpr (Type == T::GGML_TYPE_Q2_K)
                decodeQ2K(*reinterpret_cast<const BlockQ2_K *>(block), g, r, o);
            else if constexpr (Type == T::GGML_TYPE_Q3_K)
                decodeQ3K(*reinterpret_cast<const BlockQ3_K *>(block), g, r);
            else
                decodeLattice<D>(block, g, r, o);
        }
        std::memcpy(o, g.d, sizeof g.d);
        std::memcpy(o + kOffScale, g.pairs, sizeof g.pairs);
        __m256i total[2];
        for (int half = 0; half < 2; ++half) {
            const size_t h8 = 8 * static_cast<size_t>(half);
            __m256i start[8];
            for (int m = 0; m < 8; ++m)
                start[m] = _mm256_setzero_si256();
            for (int ib = 0; ib < 8; ++ib) {
                __m256i in[8], runs[8];
                for (int i = 0; i < 8; ++i)
                    in[i] = _mm256_load_si256(reinterpret_cast<const __m256i *>(g.w[h8 + static_cast<size_t>(i)] + 32 * ib));
                transpose8(in, runs);   // runs[m]: dword 8ib + m of the 8 rows
                for (int m = 0; m < 8; ++m) {
                    _mm256_storeu_si256(reinterpret_cast<__m256i *>(o + kOffWeights + (static_cast<size_t>(8 * m + ib) * 16 + h8) * 4), runs[m]);
                    const __m256i sc = _mm256_load_si256(reinterpret_cast<const __m256i *>(g.pairs[2 * ib + m / 4] + h8));
                    start[m] = _mm256_add_epi32(start[m], _mm256_madd_epi16(_mm256_maddubs_epi16(ones, runs[m]), sc));
                }
            }
            // -128 x each lane's start (Q2_K: the 8 lanes' sum in lane 0's place, the others zero)
            total[half] = _mm256_setzero_si256();
            for (int m = 0; m < 8; ++m) {
                __m256i v = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(start[m], 7));
                if constexpr (Type == T::GGML_TYPE_Q2_K) {
                    total[half] = _mm256_add_epi32(total[half], start[m]);
                    v = _mm256_setzero_si256();
                }
                _mm256_storeu_si256(reinterpret_cast<__m256i *>(o + kOffStart + (16 * static_cast<size_t>(m) + h8) * 4), v);
            }
            if constexpr (Type == T::GGML_TYPE_Q2_K)
                _mm256_storeu_si256(reinterpret_cast<__m256i *>(o + kOffStart + h8 * 4),
                                    _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(total[half], 7)));
        }
    }
}

// ---- multiply ----

// lane[j] += lane m's 8 runs of super-block b (tile bytes o, rows from
// byte `half` of each 16-row vector) against token j's side: vpmaddubsw,
// vpmaddwd with the run's scale pair, vpaddd.
// IQ1_S and IQ1_M (weights value x scale, |v| <= 15: iqTileScaledWeights):
// 4 runs' vpmaddubsw pairs summed as int16 (|sum| <= 4 x 2 x 255 x 15 <
// 2^15), then one vpmaddwd with 1s, per 4 runs.
// Ordered: each lane's adds in program order (in_order.h; 25-37 % faster
// per tile); Q2_K's single chain through all 64 runs of a super-block is as
// fast either way (measured level), and keeps GCC's order.
template <int NT, bool Iq1, bool Ordered = true>
inline void addLaneRuns(const uint8_t *o, size_t half, const uint8_t *const side[NT], int64_t nb, int m, int64_t b,
                        __m256i lane[NT])
{
    if constexpr (Iq1) {
        const __m256i ones = _mm256_set1_epi16(1);
        for (int ib0 = 0; ib0 < 8; ib0 += 4) {
            __m256i w[4];
            for (int i = 0; i < 4; ++i)
                w[i] = load8(o + kOffWeights + 64 * static_cast<size_t>(8 * m + ib0 + i) + half);
            for (int j = 0; j < NT; ++j) {
                __m256i s16 = _mm256_maddubs_epi16(bcast32(side[j] + iqSideRun(nb, m, b, ib0)), w[0]);
                for (int i = 1; i < 4; ++i)
                    s16 = _mm256_add_epi16(s16, _mm256_maddubs_epi16(bcast32(side[j] + iqSideRun(nb, m, b, ib0 + i)), w[i]));
                lane[j] = inOrder(_mm256_add_epi32(lane[j], _mm256_madd_epi16(s16, ones)));
            }
        }
        return;
    }
    for (int ib = 0; ib < 8; ++ib) {
        const __m256i w = load8(o + kOffWeights + 64 * static_cast<size_t>(8 * m + ib) + half);
        const __m256i sc = load8(o + kOffScale + 64 * static_cast<size_t>(2 * ib + m / 4) + half);
        for (int j = 0; j < NT; ++j) {
            lane[j] = _mm256_add_epi32(
                lane[j], _mm256_madd_epi16(_mm256_maddubs_epi16(bcast32(side[j] + iqSideRun(nb, m, b, ib)), w), sc));
            if constexpr (Ordered)
                lane[j] = inOrder(lane[j]);
        }
    }
}

// The first `here` (<= 8) of out's rows to dst.
inline void storeRows(float *dst, __m256 out, int here)
{
    if (here == 8) {
        _mm256_storeu_ps(dst, out);
    } else {
        alignas(32) float tmp[8];
        _mm256_store_ps(tmp, out);
        std::memcpy(dst, tmp, static_cast<size_t>(here) * sizeof(float));
    }
}

// Rows 8h..8h + 7 of the group (`rows` of them real) times tokens t0..t0 + NT - 1.
template <T Type, int NT>
void multiplyHalf(const uint8_t *tile, int64_t K, int h, int rows, const PackedActivation &act, int64_t t0, float *y,
                  size_t ldy)
{
    constexpr bool kS = Type == T::GGML_TYPE_IQ1_S, kM = Type == T::GGML_TYPE_IQ1_M;
    const int64_t nb = K / QK_K;
    const size_t superBytes = iqTileSuperBytes(Type);
    const size_t half = 32 * static_cast<size_t>(h);   // byte offset of row 8h in a 16-row vector
    const uint8_t *side[NT];
    const BlockQ8_K *a[NT];
    for (int j = 0; j < NT; ++j) {
        side[j] = act.tileSide + iqSideToken(nb, t0 + j);
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
    }
    __m256 part[NT][8], partShift[kM ? NT : 1][8];
    for (int m = 0; m < 8; ++m) {
        __m256 acc[NT], accShift[kM ? NT : 1];
        for (int j = 0; j < NT; ++j)
            acc[j] = _mm256_setzero_ps();
        for (int j = 0; j < (kM ? NT : 1); ++j)
            accShift[j] = _mm256_setzero_ps();
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
            __m256i lane[NT];
            const __m256i start = load8(o + kOffStart + 64 * static_cast<size_t>(m) + half);
            for (int j = 0; j < NT; ++j)
                lane[j] = start;
            addLaneRuns<NT, kS || kM>(o, half, side, nb, m, b, lane);
            const __m256 dw = _mm256_loadu_ps(reinterpret_cast<const float *>(o) + 8 * h);
            for (int j = 0; j < NT; ++j) {
                const __m256 d = _mm256_mul_ps(dw, _mm256_set1_ps(a[j][b].d));
                acc[j] = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(lane[j]), acc[j]);
                if constexpr (kM) {
                    __m256i sl = _mm256_setzero_si256();
                    for (int p = 0; p < 4; ++p)
                        sl = _mm256_add_epi32(sl, _mm256_madd_epi16(load8(o + kOffExtra + 64 * static_cast<size_t>(4 * m + p) + half),
                                                                    bcast32(side[j] + iqSideQ4(nb, m, b, p))));
                    accShift[j] = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(sl), accShift[j]);
                }
            }
        }
        for (int j = 0; j < NT; ++j) {
            part[j][m] = acc[j];
            if constexpr (kM)
                partShift[j][m] = accShift[j];
        }
    }
    const int here = rows - 8 * h < 8 ? rows - 8 * h : 8;
    for (int j = 0; j < NT; ++j) {
        __m256 out = hsum8Rows(part[j]);
        if constexpr (kS) {
            __m256 acc1 = _mm256_setzero_ps();
            for (int64_t b = 0; b < nb; ++b) {
                const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
                __m256i tot = _mm256_setzero_si256();
                for (int p = 0; p < 4; ++p)
                    tot = _mm256_add_epi32(tot, _mm256_madd_epi16(load8(o + kOffExtra + 64 * static_cast<size_t>(p) + half),
                                                                  bcast32(side[j] + iqSideSums(nb, b, p))));
                const __m256 d = _mm256_mul_ps(_mm256_loadu_ps(reinterpret_cast<const float *>(o) + 8 * h), _mm256_set1_ps(a[j][b].d));
                acc1 = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(tot), acc1);
            }
            out = _mm256_add_ps(out, _mm256_mul_ps(_mm256_set1_ps(0.125f), acc1));
        } else if constexpr (kM) {
            out = _mm256_add_ps(out, _mm256_mul_ps(_mm256_set1_ps(0.125f), hsum8Rows(partShift[j])));
        } else if constexpr (Type != T::GGML_TYPE_IQ3_S && Type != T::GGML_TYPE_Q3_K) {
            out = _mm256_mul_ps(_mm256_set1_ps(Type == T::GGML_TYPE_IQ3_XXS ? 0.25f : 0.125f), out);
        }
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * static_cast<size_t>(h), out, here);
    }
}

// Q2_K, rows 8h..8h + 7 (iq_tiles.h; as the AVX-512 multiplyTileQ2K): one
// integer chain per token and super-block through the 8 lanes' runs, the
// mins' dot product, then acc = fma(isum, d_w d_a, acc), accm = fma(imin,
// dmin_w d_a, accm); acc - accm.
template <int NT>
void multiplyHalfQ2K(const uint8_t *tile, int64_t K, int h, int rows, const PackedActivation &act, int64_t t0, float *y,
                     size_t ldy)
{
    const int64_t nb = K / QK_K;
    const size_t superBytes = iqTileSuperBytes(T::GGML_TYPE_Q2_K);
    const size_t half = 32 * static_cast<size_t>(h);
    const uint8_t *side[NT];
    const BlockQ8_K *a[NT];
    for (int j = 0; j < NT; ++j) {
        side[j] = act.tileSide + iqSideToken(nb, t0 + j);
        a[j] = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t0 + j) * act.stride);
    }
    __m256 acc[NT], accm[NT];
    for (int j = 0; j < NT; ++j)
        acc[j] = accm[j] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
        __m256i isum[NT];
        const __m256i start = load8(o + kOffStart + half);
        for (int j = 0; j < NT; ++j)
            isum[j] = start;
        for (int m = 0; m < 8; ++m)
            addLaneRuns<NT, false, false>(o, half, side, nb, m, b, isum);
        const __m256 dw = _mm256_loadu_ps(reinterpret_cast<const float *>(o) + 8 * h);
        const __m256 dmw = _mm256_loadu_ps(reinterpret_cast<const float *>(o + kIqTileOffQ2KDmin) + 8 * h);
        for (int j = 0; j < NT; ++j) {
            __m256i imin = _mm256_setzero_si256();
            for (int p = 0; p < 8; ++p)
                imin = _mm256_add_epi32(imin, _mm256_madd_epi16(load8(o + kOffExtra + 64 * static_cast<size_t>(p) + half),
                                                                bcast32(side[j] + iqSideBsums(nb, b, p))));
            const __m256 da = _mm256_set1_ps(a[j][b].d);
            acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[j]), _mm256_mul_ps(dw, da), acc[j]);
            accm[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin), _mm256_mul_ps(dmw, da), accm[j]);
        }
    }
    const int here = rows - 8 * h < 8 ? rows - 8 * h : 8;
    for (int j = 0; j < NT; ++j) {
        storeRows(y + static_cast<size_t>(t0 + j) * ldy + 8 * static_cast<size_t>(h), _mm256_sub_ps(acc[j], accm[j]), here);
    }
}

template <T Type, int NT>
void multiplyAny(const uint8_t *tile, int64_t K, int h, int rows, const PackedActivation &act, int64_t t0, float *y,
                 size_t ldy)
{
    if constexpr (Type == T::GGML_TYPE_Q2_K)
        multiplyHalfQ2K<NT>(tile, K, h, rows, act, t0, y, ldy);
    else
        multiplyHalf<Type, NT>(tile, K, h, rows, act, t0, y, ldy);
}

template <T Type, int N>
void multiplyRest(const uint8_t *tile, int64_t K, int h, int rows, const PackedActivation &act, int64_t t, int64_t n,
                  float *y, size_t ldy)
{
    if constexpr (N > 0) {
        if (n == N)
            multiplyAny<Type, N>(tile, K, h, rows, act, t, y, ldy);
        else
            multiplyRest<Type, N - 1>(tile, K, h, rows, act, t, n, y, ldy);
    }
}

template <T Type>
void multiplyAll(const uint8_t *tile, int64_t K, int rows, const PackedActivation &act, int64_t t0, int64_t t1, float *y,
                 size_t ldy)
{
    for (int h = 0; h < 2 && 8 * h < rows; ++h) {
        int64_t t = t0;
        for (; t + kMaxTile<Type> <= t1; t += kMaxTile<Type>)
            multiplyAny<Type, kMaxTile<Type>>(tile, K, h, rows, act, t, y, ldy);
        if (t < t1)
            multiplyRest<Type, kMaxTile<Type> - 1>(tile, K, h, rows, act, t, t1 - t, y, ldy);
    }
}

} // namespace

void iqTileConvertAvx2(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K, int nRows, uint8_t *tile)
{
    switch (type) {
    case T::GGML_TYPE_IQ2_XXS: convertGroup<DecIQ2_XXS>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ2_XS: convertGroup<DecIQ2_XS>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ2_S: convertGroup<DecIQ2_S>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ3_XXS: convertGroup<DecIQ3_XXS>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ3_S: convertGroup<DecIQ3_S>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ1_S: convertGroup<DecIQ1_S>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_IQ1_M: convertGroup<DecIQ1_M>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_Q2_K: convertGroup<QK<T::GGML_TYPE_Q2_K>>(rows, rowBytes, K, nRows, tile); break;
    case T::GGML_TYPE_Q3_K: convertGroup<QK<T::GGML_TYPE_Q3_K>>(rows, rowBytes, K, nRows, tile); break;
    default: break;
    }
}

void iqTileMultiplyAvx2(GgmlType type, const uint8_t *tile, int64_t K, int rows, const PackedActivation &act, int64_t t0,
                        int64_t t1, float *y, size_t ldy)
{
    switch (type) {
    case T::GGML_TYPE_IQ2_XXS: multiplyAll<T::GGML_TYPE_IQ2_XXS>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ2_XS: multiplyAll<T::GGML_TYPE_IQ2_XS>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ2_S: multiplyAll<T::GGML_TYPE_IQ2_S>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ3_XXS: multiplyAll<T::GGML_TYPE_IQ3_XXS>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ3_S: multiplyAll<T::GGML_TYPE_IQ3_S>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ1_S: multiplyAll<T::GGML_TYPE_IQ1_S>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_IQ1_M: multiplyAll<T::GGML_TYPE_IQ1_M>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_Q2_K: multiplyAll<T::GGML_TYPE_Q2_K>(tile, K, rows, act, t0, t1, y, ldy); break;
    case T::GGML_TYPE_Q3_K: multiplyAll<T::GGML_TYPE_Q3_K>(tile, K, rows, act, t0, t1, y, ldy); break;
    default: break;
    }
}

} // namespace burrow::quant::x86
