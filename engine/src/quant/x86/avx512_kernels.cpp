// AVX-512 F/BW/VL + VNNI kernels (this file is compiled with those flags; see
// x86_kernels.h). 512-bit registers hold two 32-element blocks or one
// 64-element chunk of a K-quant super-block; VNNI's vpdpbusd / vpdpwssd do the
// u8 x s8 and s16 x s16 multiply-accumulate in one instruction. Integer dot
// products are exact and the float steps are the scalar twins' (the
// reference's AVX-512 build), so results are bit-identical to them. Types
// without a kernel here keep their AVX2 kernel (same bits).
//
// Internal linkage for everything but the fill function (see avx2_kernels.cpp).
#include "quant/x86/x86_kernels.h"

#include "quant/quant_blocks.h"
#include "quant/x86/q3k_scales.h"
#include "quant/x86/stream_prefetch.h"

#include <immintrin.h>

namespace burrow::quant::x86 {

namespace {

inline float halfToFloat(fp16_t h) { return _cvtsh_ss(h); }

inline __m256i loadu256(const void *p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }
inline __m512i loadu512(const void *p) { return _mm512_loadu_si512(p); }

inline __m512i join256(__m256i lo, __m256i hi) { return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); }

inline float hsum256(__m256 v)
{
    __m128 r = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

// --- float types ---
//
// The twins' forms (generic/vec_dot.cpp): one token as ggml_vec_dot_f32 /
// _f16 / _bf16, batches as tinyBLAS. reduce16 is written out (not
// _mm512_reduce_add_ps, whose order is the compiler's).

inline float reduce16(__m512 v)
{
    const __m256 lo = _mm512_castps512_ps256(v);
    const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    return hsum256(_mm256_add_ps(hi, lo));
}

inline __m512 loadHalf16(const fp16_t *p) { return _mm512_cvtph_ps(loadu256(p)); }

struct LoadF32 {
    static __m512 load(const void *p, int64_t i) { return _mm512_loadu_ps(static_cast<const float *>(p) + i); }
    static float at(const void *p, int64_t i) { return static_cast<const float *>(p)[i]; }
};
struct LoadF16 {
    static __m512 load(const void *p, int64_t i) { return loadHalf16(static_cast<const fp16_t *>(p) + i); }
    static float at(const void *p, int64_t i) { return halfToFloat(static_cast<const fp16_t *>(p)[i]); }
};

template <typename L>
float vecForm64(int64_t n, const void *x, const void *y, int64_t *done)
{
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    const int64_t np = n & ~int64_t{63};
    for (int64_t i = 0; i < np; i += 64)
        for (int j = 0; j < 4; ++j)
            acc[j] = _mm512_fmadd_ps(L::load(x, i + 16 * j), L::load(y, i + 16 * j), acc[j]);
    acc[0] = _mm512_add_ps(acc[0], acc[2]);
    acc[1] = _mm512_add_ps(acc[1], acc[3]);
    acc[0] = _mm512_add_ps(acc[0], acc[1]);
    *done = np;
    return reduce16(acc[0]);
}

template <typename L>
float gemmForm16(int64_t n, const void *x, const void *y)
{
    __m512 acc = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        acc = _mm512_fmadd_ps(L::load(x, i), L::load(y, i), acc);
    float sum = reduce16(acc);
    for (; i < n; ++i)
        sum = __builtin_fmaf(L::at(x, i), L::at(y, i), sum);
    return sum;
}

void vecDotF32(int64_t n, float *s, const void *x, const void *y)
{
    int64_t i = 0;
    float sum = vecForm64<LoadF32>(n, x, y, &i);
    for (; i < n; ++i)
        sum = __builtin_fmaf(LoadF32::at(x, i), LoadF32::at(y, i), sum);
    *s = sum;
}

void vecDotF32Gemm(int64_t n, float *s, const void *x, const void *y) { *s = gemmForm16<LoadF32>(n, x, y); }

void vecDotF16(int64_t n, float *s, const void *x, const void *y)
{
    int64_t i = 0;
    double sum = static_cast<double>(vecForm64<LoadF16>(n, x, y, &i));
    for (; i < n; ++i)
        sum += static_cast<double>(LoadF16::at(x, i) * LoadF16::at(y, i));
    *s = static_cast<float>(sum);
}

void vecDotF16Gemm(int64_t n, float *s, const void *x, const void *y) { *s = gemmForm16<LoadF16>(n, x, y); }

// vdpbf16ps on 16 pair lanes (32 bf16): odd products added first, then even.
inline __m512 dpbf16(__m512 c, const bf16_t *x, const bf16_t *y)
{
    const __m512i highHalf = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
    const __m512i a = _mm512_loadu_si512(x), b = _mm512_loadu_si512(y);
    c = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(a, highHalf)), _mm512_castsi512_ps(_mm512_and_si512(b, highHalf)), c);
    return _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32(a, 16)), _mm512_castsi512_ps(_mm512_slli_epi32(b, 16)), c);
}

void vecDotBF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const bf16_t *>(vx);
    const auto *y = static_cast<const bf16_t *>(vy);
    __m512 c1 = _mm512_setzero_ps(), c2 = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        c1 = dpbf16(c1, x + i, y + i);
        c2 = dpbf16(c2, x + i + 32, y + i + 32);
    }
    double sum = 0.0;
    sum += static_cast<double>(reduce16(c1));
    sum += static_cast<double>(reduce16(c2));
    for (; i < n; ++i)
        sum += static_cast<double>(bf16ToFp32(x[i]) * bf16ToFp32(y[i]));
    *s = static_cast<float>(sum);
}

void vecDotBF16Gemm(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const bf16_t *>(vx);
    const auto *y = static_cast<const bf16_t *>(vy);
    __m512 acc = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        acc = dpbf16(acc, x + i, y + i);
    float sum = reduce16(acc);
    for (; i < n; ++i)
        sum = __builtin_fmaf(bf16ToFp32(x[i]), bf16ToFp32(y[i]), sum);
    *s = sum;
}

// Multi-column kernels: Kernel<NY> computes one weight row against NY
// activation rows; every column's arithmetic is the same as NY = 1 (vecDot),
// so results are bit-identical between vecDot and vecDotMulti.
template <typename Block>
struct Columns {
    const Block *y[4];
    Columns(const void *base, size_t stride, int ny)
    {
        for (int j = 0; j < ny; ++j)
            y[j] = reinterpret_cast<const Block *>(static_cast<const uint8_t *>(base) + static_cast<size_t>(j) * stride);
    }
};

// --- 32-element blocks against Q8_0, two blocks per register ---

// Q8_0 (twin: 8 lanes of 4 elements, hsum8): one block per 256-bit register
// (joining two blocks costs more shuffles than the wider multiply saves);
// VNNI's vpdpbusd gives the 8 lanes' integers of AVX2's maddubs + madd.
template <int NY>
void q8_0Cols(int64_t n, float *out, const BlockQ8_0 *x, const Columns<BlockQ8_0> &c)
{
    const int64_t nb = n / QK8_0;
    __m256 acc[NY];
    for (int j = 0; j < NY; ++j)
        acc[j] = _mm256_setzero_ps();
    for (int64_t ib = 0; ib < nb; ++ib) {
        prefetchRowBlock(x, ib);
        const __m256i qx = loadu256(x[ib].qs);
        const __m256i ax = _mm256_sign_epi8(qx, qx);
        const float dx = halfToFloat(x[ib].d);
        for (int j = 0; j < NY; ++j) {
            const __m256i sy = _mm256_sign_epi8(loadu256(c.y[j][ib].qs), qx);
            const __m256i p = _mm256_dpbusd_epi32(_mm256_setzero_si256(), ax, sy);
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(dx * halfToFloat(c.y[j][ib].d)), _mm256_cvtepi32_ps(p), acc[j]);
        }
    }
    for (int j = 0; j < NY; ++j)
        out[j] = hsum256(acc[j]);
}

// --- K-quants against Q8_K: one 64-element chunk per register ---

// The 8 scales (bytes 0-7) and 8 mins (bytes 8-15) of a Q4_K/Q5_K block,
// unpacked from the 12-byte 6-bit field (same values as getScaleMinK4).
inline __m128i unpackScaleMins(const uint8_t packed[12])
{
    uint32_t u[4];
    __builtin_memcpy(u, packed, 12);
    u[3] = ((u[2] >> 4) & 0x0f0f0f0fu) | (((u[1] >> 6) & 0x03030303u) << 4);
    const uint32_t mins03 = u[1] & 0x3f3f3f3fu;
    u[1] = (u[2] & 0x0f0f0f0fu) | (((u[0] >> 6) & 0x03030303u) << 4);
    u[2] = mins03;
    u[0] &= 0x3f3f3f3fu;
    return _mm_loadu_si128(reinterpret_cast<const __m128i *>(u));
}

// 4 int32 partial sums of min_s * (bsums[2s] + bsums[2s+1]) over the 8 sub-blocks.
inline __m128i minsDot(__m128i mins16, const int16_t bsums[16])
{
    const __m128i b0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(bsums));
    const __m128i b1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(bsums + 8));
    return _mm_madd_epi16(mins16, _mm_hadd_epi16(b0, b1));
}

// int16 lane l of chunk c's scale vector = scale of sub-block 2c + l / 16.
inline __m512i chunkScaleIndex(int c)
{
    return join256(_mm256_set1_epi16(static_cast<int16_t>(2 * c)), _mm256_set1_epi16(static_cast<int16_t>(2 * c + 1)));
}

inline int hsumI32x4(__m128i v)
{
    const __m128i zero = _mm_setzero_si128();
    return _mm_cvtsi128_si32(_mm_hadd_epi32(_mm_hadd_epi32(v, zero), zero));
}

// 16 int32 lanes folded to 8: lane l + lane l + 8. Our 512-bit chunk holds the
// reference's two 256-bit halves side by side, so after folding every lane
// holds exactly the integer the reference's x86 kernel holds, and the float
// steps (256-bit, as the reference) round identically.
inline __m256i fold(__m512i v) { return _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1)); }

// Q5_K (twin vecDotQ5_KQ8_K): 8 lanes, acc = fma(d_a d_w, lanes, acc),
// summs = fma(-(d_a dmin_w), imin, summs); hsum8(acc) + summs.
template <int NY>
void q5KCols(int64_t n, float *out, const BlockQ5_K *x, const Columns<BlockQ8_K> &c)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i one = _mm256_set1_epi8(1);
    const __m512i index[4] = {chunkScaleIndex(0), chunkScaleIndex(1), chunkScaleIndex(2), chunkScaleIndex(3)};
    __m256 acc[NY];
    float summs[NY];
    for (int j = 0; j < NY; ++j) {
        acc[j] = _mm256_setzero_ps();
        summs[j] = 0.0f;
    }
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const __m128i sm = unpackScaleMins(x[i].scales);
        const __m512i scales = _mm512_zextsi128_si512(_mm_cvtepu8_epi16(sm));
        const __m128i mins16 = _mm_cvtepu8_epi16(_mm_srli_si128(sm, 8));
        const float dx = halfToFloat(x[i].d), dminx = halfToFloat(x[i].dmin);
        __m512i sumi[NY];
        for (int j = 0; j < NY; ++j) {
            sumi[j] = _mm512_setzero_si512();
            const int imin = hsumI32x4(minsDot(mins16, c.y[j][i].bsums));
            summs[j] = __builtin_fmaf(-(c.y[j][i].d * dminx), static_cast<float>(imin), summs[j]);
        }
        const __m256i qh = loadu256(x[i].qh);
        for (int ch = 0; ch < 4; ++ch) {
            const __m256i q4 = loadu256(x[i].qs + 32 * ch);
            __m256i lo = _mm256_and_si256(q4, low4);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), low4);
            lo = _mm256_or_si256(lo, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * ch), one), 4));
            hi = _mm256_or_si256(hi, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * ch + 1), one), 4));
            const __m512i q = join256(lo, hi);
            const __m512i sc = _mm512_permutexvar_epi16(index[ch], scales);
            for (int j = 0; j < NY; ++j) {
                const __m512i pairs = _mm512_maddubs_epi16(q, loadu512(c.y[j][i].qs + 64 * ch));
                sumi[j] = _mm512_dpwssd_epi32(sumi[j], pairs, sc);
            }
        }
        for (int j = 0; j < NY; ++j)
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(c.y[j][i].d * dx), _mm256_cvtepi32_ps(fold(sumi[j])), acc[j]);
    }
    for (int j = 0; j < NY; ++j)
        out[j] = hsum256(acc[j]) + summs[j];
}

// --- Q2_K and Q3_K, one token (generation) ---
//
// 64 elements a register (zmm k: elements 64k..64k + 63, i.e. 32-element
// chunks 2k and 2k + 1 of the super-block): the 2-bit fields of both chunks
// from one 32-byte half of qs (vpsrlvw by 4 (k % 2) and 4 (k % 2) + 2),
// vpmaddubsw with the activations, then vpdpwssd with the scale of each
// 16-element group spread over its 8 int16 pairs. Every integer is exact,
// so the sums are the AVX2 kernels' and so are the float steps:
//   Q2_K (twin q2K, one-token form): the super-block's integer, then
//        acc = fma(isum, d_w d_a, acc), accm = fma(imin, dmin_w d_a, accm)
//   Q3_K (the reference's x86 form, avx2_kernels.cpp): dword p of the sum is
//        lane p % 8 of one of the two chunks; the halves added give the 8
//        lanes, then acc = fma(d_w d_a, lanes, acc) and hsum at the end.

// Shift counts of zmm k's two chunks (words of the low 256 bits: a, high: b).
inline __m512i chunkShifts(int a, int b)
{
    return join256(_mm256_set1_epi16(static_cast<int16_t>(a)), _mm256_set1_epi16(static_cast<int16_t>(b)));
}

// The scale of each 16-element group of zmm k (groups 4k..4k + 3) on its 8
// int16 pairs, from the 16 scales as int16 (sc16).
inline __m512i groupScales(__m512i sc16, int k)
{
    alignas(64) static constexpr int16_t kIdx[4][32] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3},
        {4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7},
        {8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 10, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 11, 11, 11},
        {12, 12, 12, 12, 12, 12, 12, 12, 13, 13, 13, 13, 13, 13, 13, 13, 14, 14, 14, 14, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15}};
    return _mm512_permutexvar_epi16(_mm512_load_si512(kIdx[k]), sc16);
}

inline int32_t reduceI32(__m512i v) { return _mm512_reduce_add_epi32(v); }   // exact in any order

void vecDotQ2_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ2_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m512i three = _mm512_set1_epi8(3);
    const __m512i shifts[2] = {chunkShifts(0, 2), chunkShifts(4, 6)};
    float acc = 0.0f, accm = 0.0f;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        prefetchRowBlock(x, i);
        const __m128i sc = _mm_loadu_si128(reinterpret_cast<const __m128i *>(x[i].scales));
        const __m512i sc16 = _mm512_castsi256_si512(_mm256_cvtepu8_epi16(_mm_and_si128(sc, _mm_set1_epi8(0x0f))));
        const __m256i mins16 = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sc, 4), _mm_set1_epi8(0x0f)));
        const int32_t imin = reduceI32(_mm512_castsi256_si512(_mm256_madd_epi16(mins16, loadu256(y[i].bsums))));
        __m512i sumi = _mm512_setzero_si512();
        for (int k = 0; k < 4; ++k) {
            const __m512i qs = _mm512_broadcast_i64x4(loadu256(x[i].qs + 32 * (k / 2)));
            const __m512i q = _mm512_and_si512(_mm512_srlv_epi16(qs, shifts[k % 2]), three);
            sumi = _mm512_dpwssd_epi32(sumi, _mm512_maddubs_epi16(q, loadu512(y[i].qs + 64 * k)), groupScales(sc16, k));
        }
        const float d = halfToFloat(x[i].d) * y[i].d, dmin = halfToFloat(x[i].dmin) * y[i].d;
        acc = __builtin_fmaf(static_cast<float>(reduceI32(sumi)), d, acc);
        accm = __builtin_fmaf(static_cast<float>(imin), dmin, accm);
    }
    *s = acc - accm;
}

void vecDotQ3_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ3_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m512i three = _mm512_set1_epi8(3), one = _mm512_set1_epi8(1), four = _mm512_set1_epi8(4);
    const __m512i shifts[2] = {chunkShifts(0, 2), chunkShifts(4, 6)};
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        prefetchRowBlock(x, i);
        const __m512i sc16 = _mm512_castsi256_si512(_mm256_cvtepi8_epi16(unpackQ3KScales128(x[i].scales)));
        const __m512i hm = _mm512_broadcast_i64x4(loadu256(x[i].hmask));
        __m512i sumi = _mm512_setzero_si512();
        for (int k = 0; k < 4; ++k) {
            const int half = k / 2, k0 = 2 * (k % 2);   // chunk k0 of the half (its high bit 4 half + k0), then k0 + 1
            const __m512i qs = _mm512_broadcast_i64x4(loadu256(x[i].qs + 32 * half));
            const __m512i low = _mm512_and_si512(_mm512_srlv_epi16(qs, shifts[k % 2]), three);
            const __m512i high = _mm512_and_si512(_mm512_srlv_epi16(hm, chunkShifts(4 * half + k0, 4 * half + k0 + 1)), one);
            const __m512i y8 = loadu512(y[i].qs + 64 * k);
            // (low + 4 high) y - 4 y: the levels low - (high ? 0 : 4), each pair exact in 16 bits
            const __m512i p16 = _mm512_sub_epi16(_mm512_maddubs_epi16(_mm512_or_si512(low, _mm512_slli_epi16(high, 2)), y8),
                                                 _mm512_maddubs_epi16(four, y8));
            sumi = _mm512_dpwssd_epi32(sumi, p16, groupScales(sc16, k));
        }
        const __m256i lanes = _mm256_add_epi32(_mm512_castsi512_si256(sumi), _mm512_extracti64x4_epi64(sumi, 1));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(halfToFloat(x[i].d) * y[i].d), _mm256_cvtepi32_ps(lanes), acc);
    }
    *s = hsum256(acc);
}

// vecDot (one column) and vecDotMulti (any number, 4 at a time) for a kernel family.
template <typename WBlock, typename ABlock, template <int> class K>
struct Entry {
    static void dot(int64_t n, float *s, const void *x, const void *y)
    {
        K<1>::run(n, s, static_cast<const WBlock *>(x), Columns<ABlock>(y, 0, 1));
    }
    static void multi(int64_t n, float *out, const void *x, const void *y, size_t stride, int ny)
    {
        const auto *w = static_cast<const WBlock *>(x);
        const auto *base = static_cast<const uint8_t *>(y);
        int j = 0;
        for (; j + 4 <= ny; j += 4)
            K<4>::run(n, out + j, w, Columns<ABlock>(base + j * stride, stride, 4));
        switch (ny - j) {
        case 3: K<3>::run(n, out + j, w, Columns<ABlock>(base + j * stride, stride, 3)); break;
        case 2: K<2>::run(n, out + j, w, Columns<ABlock>(base + j * stride, stride, 2)); break;
        case 1: K<1>::run(n, out + j, w, Columns<ABlock>(base + j * stride, stride, 1)); break;
        default: break;
        }
    }
};

template <int NY> struct Q8_0K { static void run(int64_t n, float *o, const BlockQ8_0 *x, const Columns<BlockQ8_0> &c) { q8_0Cols<NY>(n, o, x, c); } };
template <int NY> struct Q5_KK { static void run(int64_t n, float *o, const BlockQ5_K *x, const Columns<BlockQ8_K> &c) { q5KCols<NY>(n, o, x, c); } };

} // namespace

void fillAvx512(TypeTraits *rows)
{
    auto row = [rows](GgmlType t) -> TypeTraits & { return rows[static_cast<size_t>(t)]; };
    auto set = [&](GgmlType t, VecDotFn dot, VecDotMultiFn multi, VecDotFn gemm, VecDotMultiFn multiGemm) {
        row(t).vecDot = dot;
        row(t).vecDotMulti = multi;
        row(t).vecDotGemm = gemm;
        row(t).vecDotMultiGemm = multiGemm;
    };
    set(GgmlType::GGML_TYPE_F32, vecDotF32, vecDotMultiLoop<vecDotF32>, vecDotF32Gemm, vecDotMultiLoop<vecDotF32Gemm>);
    set(GgmlType::GGML_TYPE_F16, vecDotF16, vecDotMultiLoop<vecDotF16>, vecDotF16Gemm, vecDotMultiLoop<vecDotF16Gemm>);
    set(GgmlType::GGML_TYPE_BF16, vecDotBF16, vecDotMultiLoop<vecDotBF16>, vecDotBF16Gemm, vecDotMultiLoop<vecDotBF16Gemm>);
    using Q8_0E = Entry<BlockQ8_0, BlockQ8_0, Q8_0K>;
    using Q5_KE = Entry<BlockQ5_K, BlockQ8_K, Q5_KK>;
    set(GgmlType::GGML_TYPE_Q8_0, Q8_0E::dot, Q8_0E::multi, Q8_0E::dot, Q8_0E::multi);
    // Q5_K: one column runs faster on the AVX2 kernel (no 512-bit joins and
    // folds to amortize); it gives the same bits, so only the multi-column
    // entry is replaced.
    row(GgmlType::GGML_TYPE_Q5_K).vecDotMulti = row(GgmlType::GGML_TYPE_Q5_K).vecDotMultiGemm = Q5_KE::multi;
    // Q2_K: the one-token form here, the batch form (per 128-element half)
    // stays AVX2's. Q3_K has one form.
    row(GgmlType::GGML_TYPE_Q2_K).vecDot = vecDotQ2_K;
    row(GgmlType::GGML_TYPE_Q2_K).vecDotMulti = vecDotMultiLoop<vecDotQ2_K>;
    set(GgmlType::GGML_TYPE_Q3_K, vecDotQ3_K, vecDotMultiLoop<vecDotQ3_K>, vecDotQ3_K, vecDotMultiLoop<vecDotQ3_K>);
}

} // namespace burrow::quant::x86
