// AVX-512 (F/BW/VL + VNNI) dot products of the lattice i-quants with Q8_K
// rows (this file is compiled with the AVX-512 flags). Two 32-element
// sub-blocks are decoded at once into a 512-bit register of magnitudes, a
// 64-bit mask of negative elements and the scales of their four 16s; each
// activation row is negated where the mask says (masked vpsubb), multiplied
// with the magnitudes (vpmaddubsw pairs) and scaled (vpdpwssd), so int32
// lane l holds elements 4(l % 8)..4(l % 8) + 3 of sub-block 2k + l / 8; the
// two halves are added (exact) into the reference's 8 lanes, and the float
// steps are those of the scalar twins (generic/iq_kernels.h), bit for bit.
//
// Everything here has internal linkage except fillAvx512Iq.
#include "quant/x86/iq_simd.h"

#include "quant/iq_grids.h"
#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <cstring>

namespace burrow::quant::x86 {

namespace {

using T = GgmlType;

inline uint32_t loadU32(const void *p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

inline uint64_t loadU64(const void *p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// The reference's hsum_float_8 (see avx2_iq.cpp).
inline float hsum8(__m256 v)
{
    __m128 r = _mm_add_ps(_mm256_extractf128_ps(v, 1), _mm256_castps256_ps128(v));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

// 32 int16: 8 copies each of s0 (elements 0..15 of the first sub-block), s1
// (16..31), s2, s3 (the second sub-block's).
inline __m512i scales32(int s0, int s1, int s2, int s3)
{
    const __m128i v = _mm_setr_epi16(static_cast<int16_t>(s0), static_cast<int16_t>(s1), static_cast<int16_t>(s2),
                                     static_cast<int16_t>(s3), 0, 0, 0, 0);
    const __m512i idx = _mm512_set_epi64(0x0003000300030003, 0x0003000300030003, 0x0002000200020002, 0x0002000200020002,
                                         0x0001000100010001, 0x0001000100010001, 0, 0);
    return _mm512_permutexvar_epi16(idx, _mm512_castsi128_si512(v));
}

// 8 even-sign fields (7 bits each, field k at bit 7 (k % 4) of word k / 4) -> 64 sign bits.
inline uint64_t evenSignBits(uint32_t w0, uint32_t w1)
{
    uint64_t bits = 0;
    for (int k = 0; k < 4; ++k) {
        bits |= static_cast<uint64_t>(kIqEvenSigns[(w0 >> (7 * k)) & 127]) << (8 * k);
        bits |= static_cast<uint64_t>(kIqEvenSigns[(w1 >> (7 * k)) & 127]) << (8 * (k + 4));
    }
    return bits;
}

// Two decoded sub-blocks: magnitudes, negative elements, scales32; IQ1_M
// also the shifts' negative elements (one bit per element).
struct Sub2 {
    __m512i mag;
    __mmask64 neg;
    __m512i scale;
    __mmask64 shiftNeg;
};

inline __m512i set8(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7)
{
    return _mm512_set_epi64(static_cast<int64_t>(a7), static_cast<int64_t>(a6), static_cast<int64_t>(a5),
                            static_cast<int64_t>(a4), static_cast<int64_t>(a3), static_cast<int64_t>(a2),
                            static_cast<int64_t>(a1), static_cast<int64_t>(a0));
}

struct DecIQ2_XXS {
    static constexpr T kType = T::GGML_TYPE_IQ2_XXS;
    static constexpr size_t kBytes = sizeof(BlockIQ2_XXS);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ2_XXS *>(b)->d); }
    static Sub2 sub(const uint8_t *b, int k)
    {
        const auto *x = reinterpret_cast<const BlockIQ2_XXS *>(b);
        const uint8_t *q = reinterpret_cast<const uint8_t *>(x->qs + 8 * k);   // two sub-blocks of 8 bytes
        const uint32_t s0 = loadU32(q + 4), s1 = loadU32(q + 12);
        const auto &g = kIq2xxsGrid;
        const int a = static_cast<int>(2 * (s0 >> 28) + 1), c = static_cast<int>(2 * (s1 >> 28) + 1);
        return {set8(g[q[0]], g[q[1]], g[q[2]], g[q[3]], g[q[8]], g[q[9]], g[q[10]], g[q[11]]),
                _cvtu64_mask64(evenSignBits(s0, s1)), scales32(a, a, c, c), 0};
    }
};

struct DecIQ2_XS {
    static constexpr T kType = T::GGML_TYPE_IQ2_XS;
    static constexpr size_t kBytes = sizeof(BlockIQ2_XS);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ2_XS *>(b)->d); }
    static Sub2 sub(const uint8_t *b, int k)
    {
        const auto *x = reinterpret_cast<const BlockIQ2_XS *>(b);
        const uint16_t *q = x->qs + 8 * k;
        const auto &g = kIq2xsGrid;
        uint64_t bits = 0;
        for (int l = 0; l < 8; ++l)
            bits |= static_cast<uint64_t>(kIqEvenSigns[q[l] >> 9]) << (8 * l);
        const int sa = x->scales[2 * k], sb = x->scales[2 * k + 1];
        return {set8(g[q[0] & 511], g[q[1] & 511], g[q[2] & 511], g[q[3] & 511], g[q[4] & 511], g[q[5] & 511],
                     g[q[6] & 511], g[q[7] & 511]),
                _cvtu64_mask64(bits),
                scales32(2 * (sa & 0xf) + 1, 2 * (sa >> 4) + 1, 2 * (sb & 0xf) + 1, 2 * (sb >> 4) + 1), 0};
    }
};

struct DecIQ2_S {
    static constexpr T kType = T::GGML_TYPE_IQ2_S;
    static constexpr size_t kBytes = sizeof(BlockIQ2_S);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ2_S *>(b)->d); }
    static Sub2 sub(const uint8_t *b, int k)
    {
        const auto *x = reinterpret_cast<const BlockIQ2_S *>(b);
        const uint8_t *q = x->qs + 8 * k;
        const unsigned h0 = x->qh[2 * k], h1 = x->qh[2 * k + 1];
        const auto &g = kIq2sGrid;
        const int sa = x->scales[2 * k], sb = x->scales[2 * k + 1];
        return {set8(g[q[0] | ((h0 << 8) & 0x300)], g[q[1] | ((h0 << 6) & 0x300)], g[q[2] | ((h0 << 4) & 0x300)],
                     g[q[3] | ((h0 << 2) & 0x300)], g[q[4] | ((h1 << 8) & 0x300)], g[q[5] | ((h1 << 6) & 0x300)],
                     g[q[6] | ((h1 << 4) & 0x300)], g[q[7] | ((h1 << 2) & 0x300)]),
                _cvtu64_mask64(loadU64(x->qs + QK_K / 8 + 8 * k)),
                scales32(2 * (sa & 0xf) + 1, 2 * (sa >> 4) + 1, 2 * (sb & 0xf) + 1, 2 * (sb >> 4) + 1), 0};
    }
};

struct DecIQ3_XXS {
    static constexpr T kType = T::GGML_TYPE_IQ3_XXS;
    static constexpr size_t kBytes = sizeof(BlockIQ3_XXS);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ3_XXS *>(b)->d); }
    static Sub2 sub(const uint8_t *b, int k)
    {
        const auto *x = reinterpret_cast<const BlockIQ3_XXS *>(b);
        const __m512i idx = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x->qs + 16 * k)));
        const uint32_t s0 = loadU32(x->qs + QK_K / 4 + 8 * k), s1 = loadU32(x->qs + QK_K / 4 + 8 * k + 4);
        const int a = static_cast<int>(2 * (s0 >> 28) + 1), c = static_cast<int>(2 * (s1 >> 28) + 1);
        return {_mm512_i32gather_epi32(idx, kIq3xxsGrid.data(), 4), _cvtu64_mask64(evenSignBits(s0, s1)),
                scales32(a, a, c, c), 0};
    }
};

struct DecIQ3_S {
    static constexpr T kType = T::GGML_TYPE_IQ3_S;
    static constexpr size_t kBytes = sizeof(BlockIQ3_S);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ3_S *>(b)->d); }
    static Sub2 sub(const uint8_t *b, int k)
    {
        const auto *x = reinterpret_cast<const BlockIQ3_S *>(b);
        // index e of the 16 = qs[16k + e] | bit e of the u16 (qh[2k], qh[2k + 1]) << 8
        const __m512i lo = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x->qs + 16 * k)));
        uint16_t qh;
        std::memcpy(&qh, x->qh + 2 * k, 2);
        const __m512i hi = _mm512_maskz_mov_epi32(_cvtu32_mask16(qh), _mm512_set1_epi32(256));
        const int s = x->scales[k];
        return {_mm512_i32gather_epi32(_mm512_or_si512(lo, hi), kIq3sGrid.data(), 4),
                _cvtu64_mask64(loadU64(x->signs + 8 * k)),
                scales32(2 * (s & 0xf) + 1, 2 * (s & 0xf) + 1, 2 * (s >> 4) + 1, 2 * (s >> 4) + 1), 0};
    }
};

struct DecIQ1_S {
    static constexpr T kType = T::GGML_TYPE_IQ1_S;
    static constexpr size_t kBytes = sizeof(BlockIQ1_S);
    static float d(const uint8_t *b) { return _cvtsh_ss(reinterpret_cast<const BlockIQ1_S *>(b)->d); }
    static Sub2 sub(const uint8_t *b, int k)
    {
        const auto *x = reinterpret_cast<const BlockIQ1_S *>(b);
        const uint8_t *q = x->qs + 8 * k;
        const unsigned h0 = x->qh[2 * k], h1 = x->qh[2 * k + 1];
        const auto &g = kIq1sGrid;
        const __m512i w = set8(g[q[0] | ((h0 << 8) & 0x700)], g[q[1] | ((h0 << 5) & 0x700)], g[q[2] | ((h0 << 2) & 0x700)],
                               g[q[3] | ((h0 >> 1) & 0x700)], g[q[4] | ((h1 << 8) & 0x700)], g[q[5] | ((h1 << 5) & 0x700)],
                               g[q[6] | ((h1 << 2) & 0x700)], g[q[7] | ((h1 >> 1) & 0x700)]);
        const int a = static_cast<int>(2 * ((h0 >> 12) & 7) + 1), c = static_cast<int>(2 * ((h1 >> 12) & 7) + 1);
        return {_mm512_abs_epi8(w), _mm512_movepi8_mask(w), scales32(a, a, c, c), 0};
    }
    static int32_t shiftSum(const uint8_t *b, const int16_t *bsums)
    {
        const auto *x = reinterpret_cast<const BlockIQ1_S *>(b);
        int32_t total = 0;
        for (int ib = 0; ib < 8; ++ib) {
            const int sc = static_cast<int>(2 * ((x->qh[ib] >> 12) & 7) + 1);
            total += sc * ((x->qh[ib] & 0x8000u) ? -1 : 1) * (bsums[2 * ib] + bsums[2 * ib + 1]);
        }
        return total;
    }
};

struct DecIQ1_M {
    static constexpr T kType = T::GGML_TYPE_IQ1_M;
    static constexpr size_t kBytes = sizeof(BlockIQ1_M);
    static float d(const uint8_t *b)
    {
        uint16_t sc[4];
        std::memcpy(sc, reinterpret_cast<const BlockIQ1_M *>(b)->scales, 8);
        return _cvtsh_ss(static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00)
                                              | (sc[3] & 0xf000)));
    }
    static Sub2 sub(const uint8_t *b, int k)
    {
        const auto *x = reinterpret_cast<const BlockIQ1_M *>(b);
        const uint8_t *q = x->qs + 8 * k;
        const uint8_t *h = x->qh + 4 * k;
        const auto &g = kIq1sGrid;
        const __m512i w = set8(g[q[0] | ((h[0] << 8) & 0x700)], g[q[1] | ((h[0] << 4) & 0x700)],
                               g[q[2] | ((h[1] << 8) & 0x700)], g[q[3] | ((h[1] << 4) & 0x700)],
                               g[q[4] | ((h[2] << 8) & 0x700)], g[q[5] | ((h[2] << 4) & 0x700)],
                               g[q[6] | ((h[3] << 8) & 0x700)], g[q[7] | ((h[3] << 4) & 0x700)]);
        uint64_t shiftBits = 0;
        for (int l = 0; l < 8; ++l)
            if ((h[l / 2] >> (4 * (l % 2) + 3)) & 1)
                shiftBits |= uint64_t{0xff} << (8 * l);
        uint16_t sc;
        std::memcpy(&sc, x->scales + 2 * k, 2);
        return {_mm512_abs_epi8(w), _mm512_movepi8_mask(w),
                scales32(2 * (sc & 7) + 1, 2 * ((sc >> 3) & 7) + 1, 2 * ((sc >> 6) & 7) + 1, 2 * ((sc >> 9) & 7) + 1),
                _cvtu64_mask64(shiftBits)};
    }
};

// The 8 reference lanes from 16 (lane l + lane l + 8, exact).
inline __m256i fold(__m512i v) { return _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1)); }

template <typename D, int NY>
void iqCols(int64_t n, float *out, const uint8_t *x, const uint8_t *y, size_t stride)
{
    constexpr bool kM = D::kType == T::GGML_TYPE_IQ1_M;
    __m256 acc[NY], accShift[NY];
    float accShift1[NY];
    for (int j = 0; j < NY; ++j) {
        acc[j] = accShift[j] = _mm256_setzero_ps();
        accShift1[j] = 0.0f;
    }
    const __m512i zero = _mm512_setzero_si512();
    const __m512i ones = _mm512_set1_epi8(1);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const uint8_t *b = x + static_cast<size_t>(i) * D::kBytes;
        const BlockQ8_K *a[NY];
        __m512i lane[NY], shiftLane[NY];
        for (int j = 0; j < NY; ++j) {
            a[j] = reinterpret_cast<const BlockQ8_K *>(y + j * stride) + i;
            lane[j] = shiftLane[j] = zero;
        }
        for (int k = 0; k < 4; ++k) {
            const Sub2 s = D::sub(b, k);
            for (int j = 0; j < NY; ++j) {
                const __m512i q8 = _mm512_loadu_si512(a[j]->qs + 64 * k);
                const __m512i pairs = _mm512_maddubs_epi16(s.mag, _mm512_mask_sub_epi8(q8, s.neg, zero, q8));
                lane[j] = _mm512_dpwssd_epi32(lane[j], pairs, s.scale);
                if constexpr (kM) {
                    const __m512i sp = _mm512_maddubs_epi16(ones, _mm512_mask_sub_epi8(q8, s.shiftNeg, zero, q8));
                    shiftLane[j] = _mm512_dpwssd_epi32(shiftLane[j], sp, s.scale);
                }
            }
        }
        const float dw = D::d(b);
        for (int j = 0; j < NY; ++j) {
            const float d = dw * a[j]->d;
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(fold(lane[j])), acc[j]);
            if constexpr (kM)
                accShift[j] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(fold(shiftLane[j])), accShift[j]);
            if constexpr (D::kType == T::GGML_TYPE_IQ1_S)
                accShift1[j] = _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(d), _mm_set_ss(static_cast<float>(D::shiftSum(b, a[j]->bsums))),
                                                          _mm_set_ss(accShift1[j])));
        }
    }
    for (int j = 0; j < NY; ++j) {
        if constexpr (D::kType == T::GGML_TYPE_IQ1_S)
            out[j] = hsum8(acc[j]) + 0.125f * accShift1[j];
        else if constexpr (kM)
            out[j] = hsum8(acc[j]) + 0.125f * hsum8(accShift[j]);
        else if constexpr (D::kType == T::GGML_TYPE_IQ3_S)
            out[j] = hsum8(acc[j]);
        else
            out[j] = (D::kType == T::GGML_TYPE_IQ3_XXS ? 0.25f : 0.125f) * hsum8(acc[j]);
    }
}

template <typename D>
struct Entry {
    static void dot(int64_t n, float *s, const void *x, const void *y)
    {
        iqCols<D, 1>(n, s, static_cast<const uint8_t *>(x), static_cast<const uint8_t *>(y), 0);
    }
    static void multi(int64_t n, float *out, const void *x, const void *y, size_t stride, int ny)
    {
        const auto *w = static_cast<const uint8_t *>(x);
        const auto *base = static_cast<const uint8_t *>(y);
        int j = 0;
        for (; j + 4 <= ny; j += 4)
            iqCols<D, 4>(n, out + j, w, base + j * stride, stride);
        switch (ny - j) {
        case 3: iqCols<D, 3>(n, out + j, w, base + j * stride, stride); break;
        case 2: iqCols<D, 2>(n, out + j, w, base + j * stride, stride); break;
        case 1: iqCols<D, 1>(n, out + j, w, base + j * stride, stride); break;
        default: break;
        }
    }
};

template <typename D>
void set(TypeTraits *rows)
{
    TypeTraits &r = rows[static_cast<size_t>(D::kType)];
    r.vecDot = r.vecDotGemm = Entry<D>::dot;
    r.vecDotMulti = r.vecDotMultiGemm = Entry<D>::multi;
}

} // namespace

void fillAvx512Iq(TypeTraits *rows)
{
    set<DecIQ2_XXS>(rows);
    set<DecIQ2_XS>(rows);
    set<DecIQ2_S>(rows);
    set<DecIQ3_XXS>(rows);
    set<DecIQ3_S>(rows);
    set<DecIQ1_S>(rows);
    set<DecIQ1_M>(rows);
}

} // namespace burrow::quant::x86
