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
// Multiply: iq_tiles_avx2_multiply.h (this unit's entry is the plain AVX2
// one; iq_tiles_avxvnni.cpp's the AVX-VNNI one).
//
// Everything here has internal linkage except the two entry points.
#include "quant/x86/iq_simd.h"

#include "quant/iq_tiles.h"
#include "quant/quant_blocks.h"
#include "quant/x86/avx2_iq_decode.h"
#include "quant/x86/iq_tiles_avx2_multiply.h"

#include <immintrin.h>

#include <cstring>

namespace burrow::quant::x86 {

namespace {

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
        g.pairs[h][r] = iqTilePair16(1, 1);
    g.d[r] = _cvtsh_ss(x.d);
    for (int p = 0; p < 8; ++p)
        put32(o + kOffExtra + (16 * static_cast<size_t>(p) + static_cast<size_t>(r)) * 4,
              iqTilePair16(x.scales[2 * p] >> 4, x.scales[2 * p + 1] >> 4));
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
        g.pairs[h][r] = iqTilePair16(sc[h], sc[h]);
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
        g.pairs[2 * ib][r] = kScaled ? iqTilePair16(1, 1) : iqTilePair16(lo, lo);
        g.pairs[2 * ib + 1][r] = kScaled ? iqTilePair16(1, 1) : iqTilePair16(hi, hi);
    }
    g.d[r] = D::d(block);
    uint32_t groupNeg = 0;   // bit l: the shift of group l (elements 8l..8l + 7) is negative
    if constexpr (D::kType == T::GGML_TYPE_IQ1_S) {   // one sign per sub-block: qh bit 15
        const auto *x = reinterpret_cast<const BlockIQ1_S *>(block);
        for (int ib = 0; ib < 8; ++ib)
            groupNeg |= (x->qh[ib] & 0x8000u) ? 0xfu << (4 * ib) : 0u;
    }
    if constexpr (D::kType == T::GGML_TYPE_IQ1_M) {   // group l: qh byte l / 2, bit 3 or 7
        const auto *x = reinterpret_cast<const BlockIQ1_M *>(block);
        for (int l = 0; l < 32; ++l)
            groupNeg |= ((x->qh[l / 2] >> (4 * (l % 2) + 3)) & 1u) << l;
    }
    iqTilePutShiftPairs(D::kType, o, static_cast<size_t>(r), half, groupNeg);
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
        const auto minus128 = [](__m256i v) { return _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(v, 7)); };
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
            if constexpr (Type == T::GGML_TYPE_Q2_K)
                for (int m = 1; m < 8; ++m) {
                    start[0] = _mm256_add_epi32(start[0], start[m]);
                    start[m] = _mm256_setzero_si256();
                }
            for (int m = 0; m < 8; ++m)
                _mm256_storeu_si256(reinterpret_cast<__m256i *>(o + kOffStart + (16 * static_cast<size_t>(m) + h8) * 4),
                                    m > 0 && Type == T::GGML_TYPE_Q2_K ? start[m] : minus128(start[m]));
        }
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
    multiplyTileAvx2(type, tile, K, rows, act, t0, t1, y, ldy);
}

} // namespace burrow::quant::x86
