// AVX2 + FMA + F16C kernels (this file is compiled with -mavx2 -mfma -mf16c;
// see x86_kernels.h). Integer dot products are exact and the float steps are
// those of the scalar twins (generic/vec_dot.cpp: the reference's AVX-512
// build), lane for lane, so results are bit-identical to them; 16-lane
// accumulators are kept as two 8-lane halves. Activation quantizers write
// the bytes the reference's x86 quantizers write.
//
// Everything here has internal linkage (anonymous namespace) except the fill
// function, so no AVX2 code can be picked by the linker for scalar callers.
#include "quant/x86/stream_prefetch.h"
#include "quant/x86/x86_kernels.h"

#include "quant/quant_blocks.h"
#include "quant/x86/q3k_scales.h"

#include <immintrin.h>

namespace burrow::quant::x86 {

namespace {

inline float halfToFloat(fp16_t h) { return _cvtsh_ss(h); }

inline float hsum(__m256 v)
{
    __m128 r = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

inline int hsumI32(__m256i v)
{
    __m128i r = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    r = _mm_add_epi32(r, _mm_unpackhi_epi64(r, r));
    r = _mm_add_epi32(r, _mm_shuffle_epi32(r, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(r);
}

// 8 int32 sums of 4 products x*y each. x: any int8 (-128 allowed);
// y: int8 in [-127, 127] (activations never hold -128).
inline __m256i dotI8(__m256i x, __m256i y)
{
    const __m256i ax = _mm256_sign_epi8(x, x);
    const __m256i sy = _mm256_sign_epi8(y, x);
    const __m256i pairs = _mm256_maddubs_epi16(ax, sy);
    return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
}

inline __m256i loadu256(const void *p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }

// 32 nibbles -> 32 bytes: low nibbles of 16 bytes, then high nibbles.
inline __m256i nibbles32(const uint8_t *p)
{
    const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    const __m256i both = _mm256_set_m128i(_mm_srli_epi16(t, 4), t);
    return _mm256_and_si256(both, _mm256_set1_epi8(0x0f));
}


// --- float types ---

// reduce16 (generic_kernels.h) of the 16 lanes lo (0..7), hi (8..15).
inline float reduce16(__m256 lo, __m256 hi) { return hsum(_mm256_add_ps(hi, lo)); }

inline __m256 loadHalf8(const fp16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))); }

struct LoadF32 {
    static __m256 load(const void *p, int64_t i) { return _mm256_loadu_ps(static_cast<const float *>(p) + i); }
    static float at(const void *p, int64_t i) { return static_cast<const float *>(p)[i]; }
};
struct LoadF16 {
    static __m256 load(const void *p, int64_t i) { return loadHalf8(static_cast<const fp16_t *>(p) + i); }
    static float at(const void *p, int64_t i) { return halfToFloat(static_cast<const fp16_t *>(p)[i]); }
};

// The one-token form (vecForm64 of the twin): 4 x 16 lanes over steps of 64,
// folded (s0 + s2) + (s1 + s3), reduce16; *done = n & ~63.
template <typename L>
float vecForm64(int64_t n, const void *x, const void *y, int64_t *done)
{
    __m256 acc[4][2];
    for (auto &a : acc)
        a[0] = a[1] = _mm256_setzero_ps();
    const int64_t np = n & ~int64_t{63};
    for (int64_t i = 0; i < np; i += 64)
        for (int j = 0; j < 4; ++j)
            for (int h = 0; h < 2; ++h)
                acc[j][h] = _mm256_fmadd_ps(L::load(x, i + 16 * j + 8 * h), L::load(y, i + 16 * j + 8 * h), acc[j][h]);
    for (int h = 0; h < 2; ++h) {
        acc[0][h] = _mm256_add_ps(acc[0][h], acc[2][h]);
        acc[1][h] = _mm256_add_ps(acc[1][h], acc[3][h]);
        acc[0][h] = _mm256_add_ps(acc[0][h], acc[1][h]);
    }
    *done = np;
    return reduce16(acc[0][0], acc[0][1]);
}

// The batch form (tinyBLAS): 16 lanes over steps of 16, reduce16, leftovers fused.
template <typename L>
float gemmForm16(int64_t n, const void *x, const void *y)
{
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        lo = _mm256_fmadd_ps(L::load(x, i), L::load(y, i), lo);
        hi = _mm256_fmadd_ps(L::load(x, i + 8), L::load(y, i + 8), hi);
    }
    float sum = reduce16(lo, hi);
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

// vdpbf16ps on 8 pair lanes (16 bf16 at p): c + odd products, then + even
// products, each add rounded (the products are exact).
inline __m256 dpbf16(__m256 c, const bf16_t *x, const bf16_t *y)
{
    const __m256i a = loadu256(x), b = loadu256(y);
    const __m256i highHalf = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
    c = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(a, highHalf)),
                        _mm256_castsi256_ps(_mm256_and_si256(b, highHalf)), c);
    return _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_slli_epi32(a, 16)), _mm256_castsi256_ps(_mm256_slli_epi32(b, 16)), c);
}

// ggml_vec_dot_bf16 (twin: vecDotBF16).
void vecDotBF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const bf16_t *>(vx);
    const auto *y = static_cast<const bf16_t *>(vy);
    __m256 c[2][2];
    for (auto &a : c)
        a[0] = a[1] = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int h = 0; h < 2; ++h)
            for (int q = 0; q < 2; ++q)
                c[h][q] = dpbf16(c[h][q], x + i + 32 * h + 16 * q, y + i + 32 * h + 16 * q);
    double sum = 0.0;
    sum += static_cast<double>(reduce16(c[0][0], c[0][1]));
    sum += static_cast<double>(reduce16(c[1][0], c[1][1]));
    for (; i < n; ++i)
        sum += static_cast<double>(bf16ToFp32(x[i]) * bf16ToFp32(y[i]));
    *s = static_cast<float>(sum);
}

// tinyBLAS BF16 (twin: vecDotBF16Gemm).
void vecDotBF16Gemm(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const bf16_t *>(vx);
    const auto *y = static_cast<const bf16_t *>(vy);
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        lo = dpbf16(lo, x + i, y + i);
        hi = dpbf16(hi, x + i + 16, y + i + 16);
    }
    float sum = reduce16(lo, hi);
    for (; i < n; ++i)
        sum = __builtin_fmaf(bf16ToFp32(x[i]), bf16ToFp32(y[i]), sum);
    *s = sum;
}

// Rows of F32 -> F16 / BF16 (activations of F16 / BF16 weights).
void quantizeRowF16(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<fp16_t *>(dst);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i *>(y + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i)
        y[i] = fp32ToFp16(src[i]);
}

// Multi-column kernels: Kernel<NY> computes one weight row against NY
// activation rows with, per column, exactly the arithmetic of NY = 1, so
// vecDot and vecDotMulti agree bit for bit.
template <typename Block>
struct Columns {
    const Block *y[4];
    Columns(const void *base, size_t stride, int ny)
    {
        for (int j = 0; j < ny; ++j)
            y[j] = reinterpret_cast<const Block *>(static_cast<const uint8_t *>(base) + static_cast<size_t>(j) * stride);
    }
};

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

// --- 32-element block types against Q8_0 ---

// The row kernels below read the file's blocks one row after another; each
// asks for its stream ahead where the CPU wants it (stream_prefetch.h
// prefetchRowBlock). Without it they waited on memory: on a Xeon guest, 2 threads,
// tg32 of a gpt-oss-shaped MXFP4 file 13.4 -> 35.5 t/s, the 1.1B Q2_K and
// Q3_K_M files on this path 19.0 -> 35 and 21.1 -> 33.4, and with packing
// off (BURROW_PACK=0) Q4_K_M 11.6 -> 25, Q8_0 8.8 -> 17.1, IQ4_XS 13.3 ->
// 29.6 (docs/benchmarks.md, "The row kernels' prefetch").

// Q8_0: 8 lanes (elements 4m..4m+3 of each block), acc = fma(d_w d_a, lanes, acc), hsum8.
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
        const float dx = halfToFloat(x[ib].d);
        for (int j = 0; j < NY; ++j) {
            const __m256i p = dotI8(qx, loadu256(c.y[j][ib].qs));
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(dx * halfToFloat(c.y[j][ib].d)), _mm256_cvtepi32_ps(p), acc[j]);
        }
    }
    for (int j = 0; j < NY; ++j)
        out[j] = hsum(acc[j]);
}

// The 32 values of a 4-bit block as signed bytes, elements in order, and its
// weight scale: Q4_0 (code - 8, d), IQ4_NL (table, d), MXFP4 (table, e8m0 / 2).
inline __m128i table16(const int8_t *t) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(t)); }
inline __m256i lookup32(const uint8_t *qs, __m128i table)
{
    const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i *>(qs));
    const __m128i low4 = _mm_set1_epi8(0x0f);
    return _mm256_set_m128i(_mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(t, 4), low4)),
                            _mm_shuffle_epi8(table, _mm_and_si128(t, low4)));
}
struct DecodeQ4_0 {
    using Block = BlockQ4_0;
    static __m256i values(const Block &b, __m128i) { return _mm256_sub_epi8(nibbles32(b.qs), _mm256_set1_epi8(8)); }
    static float scale(const Block &b) { return halfToFloat(b.d); }
    static __m128i table() { return _mm_setzero_si128(); }
};
struct DecodeIQ4_NL {
    using Block = BlockIQ4_NL;
    static __m256i values(const Block &b, __m128i t) { return lookup32(b.qs, t); }
    static float scale(const Block &b) { return halfToFloat(b.d); }
    static __m128i table() { return table16(kValuesIq4nl); }
};
struct DecodeMXFP4 {
    using Block = BlockMXFP4;
    static __m256i values(const Block &b, __m128i t) { return lookup32(b.qs, t); }
    static float scale(const Block &b) { return e8m0ToFp32Half(b.e); }
    static __m128i table() { return table16(kValuesMxfp4); }
};

// The repacked q4_b32 form: per block acc = fma(float(isum), d_w d_a, acc),
// one float chain per column.
template <int NY, typename D>
void chainCols(int64_t n, float *out, const typename D::Block *x, const Columns<BlockQ8_0> &c)
{
    const int64_t nb = n / QK8_0;
    const __m128i table = D::table();
    float acc[NY];
    for (int j = 0; j < NY; ++j)
        acc[j] = 0.0f;
    for (int64_t ib = 0; ib < nb; ++ib) {
        prefetchRowBlock(x, ib);
        const __m256i q = D::values(x[ib], table);
        const float dw = D::scale(x[ib]);
        for (int j = 0; j < NY; ++j) {
            const int isum = hsumI32(dotI8(q, loadu256(c.y[j][ib].qs)));
            acc[j] = __builtin_fmaf(static_cast<float>(isum), dw * halfToFloat(c.y[j][ib].d), acc[j]);
        }
    }
    for (int j = 0; j < NY; ++j)
        out[j] = acc[j];
}

// --- K-quants against Q8_K ---

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

// The 8 int16 scales of half h (0: low 128 bits, 1: high) in both 128-bit lanes.
inline __m256i halfScales(__m256i scales16, int h)
{
    return h ? _mm256_permute2x128_si256(scales16, scales16, 0x11) : _mm256_permute2x128_si256(scales16, scales16, 0x00);
}

// Shuffle control repeating 16-bit element e in every 16-bit lane.
inline __m256i repeatWord(int e) { return _mm256_set1_epi16(static_cast<int16_t>((2 * e) | ((2 * e + 1) << 8))); }

// Q4_K (the repacked 8x8 kernels' form, twin q4K): exact integer sums per
// part, the super-block (gemv) or a 64-element chunk (Gemm), then
// acc = fma(isum, d_w d_a, acc), accm = fma(imin, dmin_w d_a, accm); acc - accm.
// Q5_K (ggml_vec_dot_q5_K_q8_K): 8 lanes (elements 4m..4m+3 of each
// sub-block times its scale), acc = fma(d_a d_w, lanes, acc), summs =
// fma(-(d_a dmin_w), imin, summs); hsum8(acc) + summs.
template <int NY, bool Five, bool Gemm, typename Block>
void qkCols(int64_t n, float *out, const Block *x, const Columns<BlockQ8_K> &c)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i one = _mm256_set1_epi8(1);
    __m256 acc[NY];
    float accS[NY], accM[NY];
    for (int j = 0; j < NY; ++j) {
        acc[j] = _mm256_setzero_ps();
        accS[j] = accM[j] = 0.0f;
    }
    for (int64_t i = 0; i < n / QK_K; ++i) {
        prefetchRowBlock(x, i);
        const __m128i sm = unpackScaleMins(x[i].scales);
        const __m128i scales16 = _mm_cvtepu8_epi16(sm);
        const __m256i scales = _mm256_set_m128i(scales16, scales16);
        const __m128i mins16 = _mm_cvtepu8_epi16(_mm_srli_si128(sm, 8));
        const float dx = halfToFloat(x[i].d), dminx = halfToFloat(x[i].dmin);
        __m256i sumi[NY];
        alignas(16) int32_t mins[NY][4];
        for (int j = 0; j < NY; ++j) {
            sumi[j] = _mm256_setzero_si256();
            const __m128i prod = minsDot(mins16, c.y[j][i].bsums);   // lane p: the min term of chunk p
            _mm_store_si128(reinterpret_cast<__m128i *>(mins[j]), prod);
        }
        __m256i qh = _mm256_setzero_si256();
        if constexpr (Five)
            qh = loadu256(x[i].qh);
        for (int ch = 0; ch < 4; ++ch) {
            const __m256i q4 = loadu256(x[i].qs + 32 * ch);
            __m256i lo = _mm256_and_si256(q4, low4);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), low4);
            if constexpr (Five) {
                lo = _mm256_or_si256(lo, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * ch), one), 4));
                hi = _mm256_or_si256(hi, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * ch + 1), one), 4));
            }
            const __m256i scLo = _mm256_shuffle_epi8(scales, repeatWord(2 * ch));
            const __m256i scHi = _mm256_shuffle_epi8(scales, repeatWord(2 * ch + 1));
            for (int j = 0; j < NY; ++j) {
                const int8_t *q8 = c.y[j][i].qs + 64 * ch;
                const __m256i pl = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, loadu256(q8)), scLo);
                const __m256i ph = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, loadu256(q8 + 32)), scHi);
                if constexpr (!Five && Gemm) {
                    const float da = c.y[j][i].d;
                    accS[j] = __builtin_fmaf(static_cast<float>(hsumI32(_mm256_add_epi32(pl, ph))), dx * da, accS[j]);
                    accM[j] = __builtin_fmaf(static_cast<float>(mins[j][ch]), dminx * da, accM[j]);
                } else {
                    sumi[j] = _mm256_add_epi32(sumi[j], _mm256_add_epi32(pl, ph));
                }
            }
        }
        for (int j = 0; j < NY; ++j) {
            const float da = c.y[j][i].d;
            const int imin = (mins[j][0] + mins[j][1]) + (mins[j][2] + mins[j][3]);
            if constexpr (Five) {
                accM[j] = __builtin_fmaf(-(da * dminx), static_cast<float>(imin), accM[j]);
                acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(da * dx), _mm256_cvtepi32_ps(sumi[j]), acc[j]);
            } else if constexpr (!Gemm) {
                accS[j] = __builtin_fmaf(static_cast<float>(hsumI32(sumi[j])), dx * da, accS[j]);
                accM[j] = __builtin_fmaf(static_cast<float>(imin), dminx * da, accM[j]);
            }
        }
    }
    for (int j = 0; j < NY; ++j)
        out[j] = Five ? hsum(acc[j]) + accM[j] : accS[j] - accM[j];
}

// Scale vector for group k (32 elements = sub-blocks 2k, 2k + 1 of a half):
// `hs` holds the half's 8 int16 scales in both 128-bit lanes (halfScales()).
inline __m256i groupScale(__m256i hs, int k)
{
    const __m256i ctrl = _mm256_set_m128i(_mm256_castsi256_si128(repeatWord(2 * k + 1)),
                                          _mm256_castsi256_si128(repeatWord(2 * k)));
    return _mm256_shuffle_epi8(hs, ctrl);
}


// Q6_K (ggml_vec_dot_q6_K_q8_K, twin vecDotQ6_KQ8_K): unsigned levels, 8
// lanes (elements 4m..4m+3 of each 32-element chunk times its half's scale),
// minus 32 (bsums[2m] sc[2m] + bsums[2m+1] sc[2m+1]) per lane;
// acc = fma(d_a d_w, lanes, acc); hsum8.
template <int NY>
void q6KCols(int64_t n, float *out, const BlockQ6_K *x, const Columns<BlockQ8_K> &c)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i mask2 = _mm256_set1_epi8(3);
    __m256 acc[NY];
    for (int j = 0; j < NY; ++j)
        acc[j] = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        prefetchRowBlock(x, i);
        const float dx = halfToFloat(x[i].d);
        const __m256i scales16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x[i].scales)));
        __m256i sumi[NY];
        for (int j = 0; j < NY; ++j)
            sumi[j] = _mm256_slli_epi32(_mm256_madd_epi16(loadu256(c.y[j][i].bsums), scales16), 5);
        for (int j = 0; j < NY; ++j)
            sumi[j] = _mm256_sub_epi32(_mm256_setzero_si256(), sumi[j]);
        for (int half = 0; half < 2; ++half) {
            const uint8_t *ql = x[i].ql + 64 * half;
            const __m256i qh = loadu256(x[i].qh + 32 * half);
            const __m256i ql0 = loadu256(ql), ql1 = loadu256(ql + 32);
            const __m256i q[4] = {
                _mm256_or_si256(_mm256_and_si256(ql0, low4), _mm256_slli_epi16(_mm256_and_si256(qh, mask2), 4)),
                _mm256_or_si256(_mm256_and_si256(ql1, low4),
                                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), mask2), 4)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4),
                                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), mask2), 4)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4),
                                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 6), mask2), 4)),
            };
            const __m256i hs = halfScales(scales16, half);
            __m256i scale[4];
            for (int k = 0; k < 4; ++k)
                scale[k] = groupScale(hs, k);
            for (int j = 0; j < NY; ++j) {
                const int8_t *q8 = c.y[j][i].qs + 128 * half;
                __m256i p[4];
                for (int k = 0; k < 4; ++k)
                    p[k] = _mm256_madd_epi16(_mm256_maddubs_epi16(q[k], loadu256(q8 + 32 * k)), scale[k]);
                sumi[j] = _mm256_add_epi32(sumi[j], _mm256_add_epi32(p[0], p[1]));
                sumi[j] = _mm256_add_epi32(sumi[j], _mm256_add_epi32(p[2], p[3]));
            }
        }
        for (int j = 0; j < NY; ++j)
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(c.y[j][i].d * dx), _mm256_cvtepi32_ps(sumi[j]), acc[j]);
    }
    for (int j = 0; j < NY; ++j)
        out[j] = hsum(acc[j]);
}

// --- the remaining types, one column (vecDotMulti loops) ---

// 32 bits -> 32 bytes, 0xFF where the bit is set (byte i <- bit i).
inline __m256i bitsToBytes(const uint8_t *p)
{
    uint32_t bits;
    __builtin_memcpy(&bits, p, 4);
    const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)),
                                               _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                                                2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
    const __m256i mask = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    return _mm256_cmpeq_epi8(_mm256_and_si256(spread, mask), mask);
}

// sum u*y over 32 pairs, u unsigned bytes < 128.
inline __m256i dotU8(__m256i u, __m256i y)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, y), _mm256_set1_epi16(1));
}

void vecDotQ4_1Q8_1(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ4_1 *>(vx);
    const auto *y = static_cast<const BlockQ8_1 *>(vy);
    __m256 acc = _mm256_setzero_ps();
    float accMin = 0.0f;
    for (int64_t ib = 0; ib < n / QK8_1; ++ib) {
        prefetchRowBlock(x, ib);
        const __m256i p = dotU8(nibbles32(x[ib].qs), loadu256(y[ib].qs));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(halfToFloat(x[ib].d) * halfToFloat(y[ib].d)), _mm256_cvtepi32_ps(p), acc);
        accMin += halfToFloat(x[ib].m) * halfToFloat(y[ib].s);
    }
    *s = hsum(acc) + accMin;
}

void vecDotQ5_1Q8_1(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ5_1 *>(vx);
    const auto *y = static_cast<const BlockQ8_1 *>(vy);
    const __m256i bit4 = _mm256_set1_epi8(0x10);
    __m256 acc = _mm256_setzero_ps();
    float accMin = 0.0f;
    for (int64_t ib = 0; ib < n / QK8_1; ++ib) {
        prefetchRowBlock(x, ib);
        const __m256i q = _mm256_or_si256(nibbles32(x[ib].qs), _mm256_and_si256(bitsToBytes(x[ib].qh), bit4));
        const __m256i p = dotU8(q, loadu256(y[ib].qs));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(halfToFloat(x[ib].d) * halfToFloat(y[ib].d)), _mm256_cvtepi32_ps(p), acc);
        accMin += halfToFloat(x[ib].m) * halfToFloat(y[ib].s);
    }
    *s = hsum(acc) + accMin;
}

void vecDotQ5_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ5_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    const __m256i bit4 = _mm256_set1_epi8(0x10);
    const __m256i sixteen = _mm256_set1_epi8(16);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t ib = 0; ib < n / QK8_0; ++ib) {
        prefetchRowBlock(x, ib);
        const __m256i u = _mm256_or_si256(nibbles32(x[ib].qs), _mm256_and_si256(bitsToBytes(x[ib].qh), bit4));
        const __m256i p = dotI8(_mm256_sub_epi8(u, sixteen), loadu256(y[ib].qs));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(halfToFloat(x[ib].d) * halfToFloat(y[ib].d)), _mm256_cvtepi32_ps(p), acc);
    }
    *s = hsum(acc);
}

inline __m256i iq4Table()
{
    const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i *>(kValuesIq4nl));
    return _mm256_set_m128i(t, t);
}

void vecDotIQ4_XSQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockIQ4_XS *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m256i table = iq4Table();
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        prefetchRowBlock(x, i);
        __m256i sumi = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K / 32; ++ib) {
            const int ls = ((x[i].scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf) | (((x[i].scales_h >> (2 * ib)) & 3) << 4);
            const __m256i q = _mm256_shuffle_epi8(table, nibbles32(x[i].qs + 16 * ib));
            const __m256i y8 = loadu256(y[i].qs + 32 * ib);
            const __m256i p16 = _mm256_maddubs_epi16(_mm256_sign_epi8(q, q), _mm256_sign_epi8(y8, q));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(p16, _mm256_set1_epi16(static_cast<int16_t>(ls - 32))));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(halfToFloat(x[i].d) * y[i].d), _mm256_cvtepi32_ps(sumi), acc);
    }
    *s = hsum(acc);
}

// Q2_K (the repacked 8x8 kernels' form, twin q2K): exact integer sums per
// part, the super-block (gemv) or a 128-element half (Gemm), then
// acc = fma(isum, d_w d_a, acc), accm = fma(imin, dmin_w d_a, accm); acc - accm.
template <bool Gemm>
void q2K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ2_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m256i mask2 = _mm256_set1_epi8(3);
    const __m128i low4 = _mm_set1_epi8(0x0f);
    float acc = 0.0f, accm = 0.0f;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        prefetchRowBlock(x, i);
        const __m128i sc = _mm_loadu_si128(reinterpret_cast<const __m128i *>(x[i].scales));
        const __m256i scales16 = _mm256_cvtepu8_epi16(_mm_and_si128(sc, low4));
        const __m256i mins16 = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sc, 4), low4));
        // lanes 0..3: the first half's sub-blocks, 4..7: the second's
        const __m256i summs = _mm256_madd_epi16(mins16, loadu256(y[i].bsums));
        const float d = halfToFloat(x[i].d) * y[i].d, dmin = halfToFloat(x[i].dmin) * y[i].d;
        __m256i sumi = _mm256_setzero_si256();   // one-token form: the whole super-block (exact)
        for (int half = 0; half < 2; ++half) {
            const __m256i q2 = loadu256(x[i].qs + 32 * half);
            const __m256i hs = halfScales(scales16, half);
            __m256i p[4];
            for (int k = 0; k < 4; ++k) {
                const __m256i q = _mm256_and_si256(_mm256_srli_epi16(q2, 2 * k), mask2);
                p[k] = _mm256_madd_epi16(_mm256_maddubs_epi16(q, loadu256(y[i].qs + 128 * half + 32 * k)),
                                         groupScale(hs, k));
            }
            const __m256i part = _mm256_add_epi32(_mm256_add_epi32(p[0], p[1]), _mm256_add_epi32(p[2], p[3]));
            if constexpr (Gemm) {
                alignas(32) int32_t m[8];
                _mm256_store_si256(reinterpret_cast<__m256i *>(m), summs);
                const int imin = (m[4 * half] + m[4 * half + 1]) + (m[4 * half + 2] + m[4 * half + 3]);
                acc = __builtin_fmaf(static_cast<float>(hsumI32(part)), d, acc);
                accm = __builtin_fmaf(static_cast<float>(imin), dmin, accm);
            } else {
                sumi = _mm256_add_epi32(sumi, part);
            }
        }
        if constexpr (!Gemm) {
            acc = __builtin_fmaf(static_cast<float>(hsumI32(sumi)), d, acc);
            accm = __builtin_fmaf(static_cast<float>(hsumI32(summs)), dmin, accm);
        }
    }
    *s = acc - accm;
}

void vecDotQ2_KQ8_K(int64_t n, float *s, const void *x, const void *y) { q2K<false>(n, s, x, y); }
void vecDotQ2_KQ8_KGemm(int64_t n, float *s, const void *x, const void *y) { q2K<true>(n, s, x, y); }

// Levels low2 - (high bit ? 0 : 4): the 4 is subtracted per element pair in
// 16 bits (maddubs of 4 * q8), as the reference's x86 kernel does.
void vecDotQ3_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ3_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m256i mask2 = _mm256_set1_epi8(3);
    const __m256i one = _mm256_set1_epi8(1);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        prefetchRowBlock(x, i);
        const __m256i scales16 = _mm256_cvtepi8_epi16(unpackQ3KScales128(x[i].scales));
        __m256i sumi = _mm256_setzero_si256();
        const __m256i hm = loadu256(x[i].hmask);
        for (int half = 0; half < 2; ++half) {
            const __m256i q3 = loadu256(x[i].qs + 32 * half);
            const __m256i hs = halfScales(scales16, half);
            __m256i p[4];
            for (int k = 0; k < 4; ++k) {
                const __m256i low = _mm256_and_si256(_mm256_srli_epi16(q3, 2 * k), mask2);
                const __m256i high = _mm256_and_si256(_mm256_srli_epi16(hm, 4 * half + k), one);
                const __m256i minus = _mm256_slli_epi16(_mm256_xor_si256(high, one), 2); // 4 where the bit is clear
                const __m256i y8 = loadu256(y[i].qs + 128 * half + 32 * k);
                const __m256i p16 = _mm256_sub_epi16(_mm256_maddubs_epi16(low, y8), _mm256_maddubs_epi16(minus, y8));
                p[k] = _mm256_madd_epi16(p16, groupScale(hs, k));
            }
            sumi = _mm256_add_epi32(sumi, _mm256_add_epi32(_mm256_add_epi32(p[0], p[1]), _mm256_add_epi32(p[2], p[3])));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(halfToFloat(x[i].d) * y[i].d), _mm256_cvtepi32_ps(sumi), acc);
    }
    *s = hsum(acc);
}

template <int NY> struct Q8_0K { static void run(int64_t n, float *o, const BlockQ8_0 *x, const Columns<BlockQ8_0> &c) { q8_0Cols<NY>(n, o, x, c); } };
template <int NY> struct Q4_0K { static void run(int64_t n, float *o, const BlockQ4_0 *x, const Columns<BlockQ8_0> &c) { chainCols<NY, DecodeQ4_0>(n, o, x, c); } };
template <int NY> struct IQ4_NLK { static void run(int64_t n, float *o, const BlockIQ4_NL *x, const Columns<BlockQ8_0> &c) { chainCols<NY, DecodeIQ4_NL>(n, o, x, c); } };
template <int NY> struct MXFP4K { static void run(int64_t n, float *o, const BlockMXFP4 *x, const Columns<BlockQ8_0> &c) { chainCols<NY, DecodeMXFP4>(n, o, x, c); } };
template <int NY> struct Q4_KK { static void run(int64_t n, float *o, const BlockQ4_K *x, const Columns<BlockQ8_K> &c) { qkCols<NY, false, false>(n, o, x, c); } };
template <int NY> struct Q4_KGemmK { static void run(int64_t n, float *o, const BlockQ4_K *x, const Columns<BlockQ8_K> &c) { qkCols<NY, false, true>(n, o, x, c); } };
template <int NY> struct Q5_KK { static void run(int64_t n, float *o, const BlockQ5_K *x, const Columns<BlockQ8_K> &c) { qkCols<NY, true, false>(n, o, x, c); } };
template <int NY> struct Q6_KK { static void run(int64_t n, float *o, const BlockQ6_K *x, const Columns<BlockQ8_K> &c) { q6KCols<NY>(n, o, x, c); } };

// --- activation quantizers ---

// 32 int32 in four vectors (elements in order) -> 32 int8 (saturating).
inline __m256i packI32ToI8(__m256i a, __m256i b, __m256i c, __m256i d)
{
    const __m256i ab = _mm256_packs_epi32(a, b);   // lanes interleaved by 128-bit halves
    const __m256i cd = _mm256_packs_epi32(c, d);
    const __m256i abcd = _mm256_packs_epi16(ab, cd);
    return _mm256_permutevar8x32_epi32(abcd, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// Q8_0 / Q8_1 activations as the reference engine quantizes them on x86
// (its AVX2 quantize_row_q8_0/q8_1, which every x86 build with AVX2 runs):
// d = amax / 127, q = round-to-nearest-even(x * (127 / amax)). This differs
// from the reference quantizer (1 / d, ties away from zero) in rare ties, and
// matching it keeps our logits on the reference's side of every such tie.
template <bool WithSum, typename Block>
void quantizeRowQ8x86(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<Block *>(dst);
    const __m256 signMask = _mm256_set1_ps(-0.0f);
    for (int64_t i = 0; i < n / QK8_0; ++i, src += QK8_0) {
        __m256 v[4];
        __m256 m = _mm256_setzero_ps();
        for (int k = 0; k < 4; ++k) {
            v[k] = _mm256_loadu_ps(src + 8 * k);
            m = _mm256_max_ps(m, _mm256_andnot_ps(signMask, v[k]));
        }
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
        const float amax = _mm_cvtss_f32(m4);
        const float d = amax / 127.f;
        y[i].d = fp32ToFp16(d);
        const __m256 mul = _mm256_set1_ps(amax != 0.0f ? 127.f / amax : 0.0f);
        __m256i q[4];
        for (int k = 0; k < 4; ++k)
            q[k] = _mm256_cvtps_epi32(_mm256_round_ps(_mm256_mul_ps(v[k], mul), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        if constexpr (WithSum) {
            const int sum = hsumI32(_mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3])));
            y[i].s = fp32ToFp16(d * static_cast<float>(sum));
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(y[i].qs), packI32ToI8(q[0], q[1], q[2], q[3]));
    }
}

void quantizeRowQ8_0(const float *src, void *dst, int64_t n) { quantizeRowQ8x86<false, BlockQ8_0>(src, dst, n); }
void quantizeRowQ8_1(const float *src, void *dst, int64_t n) { quantizeRowQ8x86<true, BlockQ8_1>(src, dst, n); }

// Q8_K: the reference engine uses its reference quantizer on x86; same bytes here.
void quantizeRowQ8_K(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ8_K *>(dst);
    const __m256 signMask = _mm256_set1_ps(-0.0f);
    for (int64_t i = 0; i < n / QK_K; ++i, src += QK_K) {
        __m256 m = _mm256_setzero_ps();
        for (int k = 0; k < QK_K; k += 8)
            m = _mm256_max_ps(m, _mm256_andnot_ps(signMask, _mm256_loadu_ps(src + k)));
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
        const float amax = _mm_cvtss_f32(m4);
        if (amax == 0.0f) {
            __builtin_memset(&y[i], 0, sizeof(BlockQ8_K));
            continue;
        }
        // the first element of largest magnitude gives the sign (as the scalar scan)
        float max = 0.0f;
        for (int k = 0; k < QK_K; k += 8) {
            const __m256 a = _mm256_andnot_ps(signMask, _mm256_loadu_ps(src + k));
            const int hit = _mm256_movemask_ps(_mm256_cmp_ps(a, _mm256_set1_ps(amax), _CMP_EQ_OQ));
            if (hit) {
                max = src[k + __builtin_ctz(static_cast<unsigned>(hit))];
                break;
            }
        }
        const float iscale = -127.f / max;
        const __m256 mul = _mm256_set1_ps(iscale);
        for (int k = 0; k < QK_K; k += 32) {
            __m256i q[4];
            for (int j = 0; j < 4; ++j) // cvtps rounds to nearest even, as nearestInt
                q[j] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(src + k + 8 * j), mul));
            // 16-element sums for bsums
            y[i].bsums[k / 16] = static_cast<int16_t>(hsumI32(_mm256_add_epi32(q[0], q[1])));
            y[i].bsums[k / 16 + 1] = static_cast<int16_t>(hsumI32(_mm256_add_epi32(q[2], q[3])));
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(y[i].qs + k), packI32ToI8(q[0], q[1], q[2], q[3]));
        }
        y[i].d = 1 / iscale;
    }
}

} // namespace

void fillAvx2(TypeTraits *rows)
{
    auto row = [rows](GgmlType t) -> TypeTraits & { return rows[static_cast<size_t>(t)]; };
    // One form: the batch form is the same kernel.
    auto set = [&](GgmlType t, VecDotFn dot, VecDotMultiFn multi) {
        row(t).vecDot = row(t).vecDotGemm = dot;
        row(t).vecDotMulti = row(t).vecDotMultiGemm = multi;
    };
    auto setGemm = [&](GgmlType t, VecDotFn gemm, VecDotMultiFn multi) {
        row(t).vecDotGemm = gemm;
        row(t).vecDotMultiGemm = multi;
    };
    set(GgmlType::GGML_TYPE_F32, vecDotF32, vecDotMultiLoop<vecDotF32>);
    setGemm(GgmlType::GGML_TYPE_F32, vecDotF32Gemm, vecDotMultiLoop<vecDotF32Gemm>);
    set(GgmlType::GGML_TYPE_F16, vecDotF16, vecDotMultiLoop<vecDotF16>);
    setGemm(GgmlType::GGML_TYPE_F16, vecDotF16Gemm, vecDotMultiLoop<vecDotF16Gemm>);
    set(GgmlType::GGML_TYPE_BF16, vecDotBF16, vecDotMultiLoop<vecDotBF16>);
    setGemm(GgmlType::GGML_TYPE_BF16, vecDotBF16Gemm, vecDotMultiLoop<vecDotBF16Gemm>);
    using Q8_0E = Entry<BlockQ8_0, BlockQ8_0, Q8_0K>;
    using Q4_0E = Entry<BlockQ4_0, BlockQ8_0, Q4_0K>;
    using IQ4_NLE = Entry<BlockIQ4_NL, BlockQ8_0, IQ4_NLK>;
    using MXFP4E = Entry<BlockMXFP4, BlockQ8_0, MXFP4K>;
    using Q4_KE = Entry<BlockQ4_K, BlockQ8_K, Q4_KK>;
    using Q4_KGemmE = Entry<BlockQ4_K, BlockQ8_K, Q4_KGemmK>;
    using Q5_KE = Entry<BlockQ5_K, BlockQ8_K, Q5_KK>;
    using Q6_KE = Entry<BlockQ6_K, BlockQ8_K, Q6_KK>;
    set(GgmlType::GGML_TYPE_Q8_0, Q8_0E::dot, Q8_0E::multi);
    set(GgmlType::GGML_TYPE_Q4_0, Q4_0E::dot, Q4_0E::multi);
    set(GgmlType::GGML_TYPE_IQ4_NL, IQ4_NLE::dot, IQ4_NLE::multi);
    set(GgmlType::GGML_TYPE_MXFP4, MXFP4E::dot, MXFP4E::multi);
    set(GgmlType::GGML_TYPE_Q4_K, Q4_KE::dot, Q4_KE::multi);
    setGemm(GgmlType::GGML_TYPE_Q4_K, Q4_KGemmE::dot, Q4_KGemmE::multi);
    set(GgmlType::GGML_TYPE_Q5_K, Q5_KE::dot, Q5_KE::multi);
    set(GgmlType::GGML_TYPE_Q6_K, Q6_KE::dot, Q6_KE::multi);
    set(GgmlType::GGML_TYPE_Q4_1, vecDotQ4_1Q8_1, vecDotMultiLoop<vecDotQ4_1Q8_1>);
    set(GgmlType::GGML_TYPE_Q5_0, vecDotQ5_0Q8_0, vecDotMultiLoop<vecDotQ5_0Q8_0>);
    set(GgmlType::GGML_TYPE_Q5_1, vecDotQ5_1Q8_1, vecDotMultiLoop<vecDotQ5_1Q8_1>);
    set(GgmlType::GGML_TYPE_IQ4_XS, vecDotIQ4_XSQ8_K, vecDotMultiLoop<vecDotIQ4_XSQ8_K>);
    set(GgmlType::GGML_TYPE_Q2_K, vecDotQ2_KQ8_K, vecDotMultiLoop<vecDotQ2_KQ8_K>);
    setGemm(GgmlType::GGML_TYPE_Q2_K, vecDotQ2_KQ8_KGemm, vecDotMultiLoop<vecDotQ2_KQ8_KGemm>);
    set(GgmlType::GGML_TYPE_Q3_K, vecDotQ3_KQ8_K, vecDotMultiLoop<vecDotQ3_KQ8_K>);
    row(GgmlType::GGML_TYPE_F16).quantizeActivation = quantizeRowF16;
    row(GgmlType::GGML_TYPE_Q8_0).quantizeActivation = quantizeRowQ8_0;
    row(GgmlType::GGML_TYPE_Q8_1).quantizeActivation = quantizeRowQ8_1;
    row(GgmlType::GGML_TYPE_Q8_K).quantizeActivation = quantizeRowQ8_K;
}

} // namespace burrow::quant::x86
