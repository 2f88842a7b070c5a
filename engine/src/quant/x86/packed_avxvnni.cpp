// AVX-VNNI (the 256-bit, VEX-encoded VNNI of CPUs with AVX2 but without
// AVX-512) kernels for packed weight groups: the 256-bit tiles
// (packed_avx2_tiles.h) with vpdpbusd, one instruction per 4-element dot
// product and exact for 8-bit codes, so Q8_0 too.
#include "quant/x86/in_order.h"
#include "quant/x86/packed_avx2_tiles.h"

namespace burrow::quant::x86 {

namespace {

struct DotVnni {
    static __m256i dot4(__m256i acc, __m256i w, __m256i a) { return _mm256_dpbusd_avx_epi32(acc, w, a); }
    static __m256i dot2(__m256i acc, __m256i p, __m256i s) { return _mm256_dpwssd_avx_epi32(acc, p, s); }
};

// The one-pass generation kernels' pair products: vpmaddwd then an add, so
// the accumulator's chain is the 1-cycle add, not vpdpwssd's 5 cycles
// (q6KBoth<DotVnni>: 24.5-24.8 t/s against 26.0 with this).
struct DotVnniChain {
    static __m256i dot4(__m256i acc, __m256i w, __m256i a) { return _mm256_dpbusd_avx_epi32(acc, w, a); }
    static __m256i dot2(__m256i acc, __m256i p, __m256i s)
    {
        return inOrder(_mm256_add_epi32(acc, _mm256_madd_epi16(p, s)));
    }
};

template <int NT> constexpr HalfFn kQ8_0 = q8_0Half<NT, DotVnni>;
template <int NT> constexpr HalfFn kQ4_0 = q4_0Half<NT, DotVnni>;
template <int NT> constexpr HalfFn kIQ4_NL = q4_0Half<NT, DotVnni, true>;
template <int NT> constexpr HalfFn kQ5_0 = q5_0Half<NT, DotVnni>;
template <int NT> constexpr HalfFn kQ4_K = q4KHalf<false, NT, DotVnni>;
template <int NT> constexpr HalfFn kQ4_KGemm = q4KHalf<true, NT, DotVnni>;
template <int NT> constexpr HalfFn kQ5_K = q5KHalf<NT, DotVnni>;
template <int NT> constexpr HalfFn kQ6_K = q6KHalf<NT, DotVnni>;
template <int NT> constexpr HalfFn kIQ4_XS = iq4XsHalf<NT, DotVnni>;

} // namespace

// Generation (one token) reads both 8-row halves of a group in one pass:
// Q5_K and Q6_K through q5KBoth / q6KBoth with this file's products (on a
// Xeon with AVX-VNNI, BURROW_CPU_PATH=avx2, 1.1B files, tg32 alternating,
// the halves gave Q6_K 22.4-22.6 t/s, Q5_K_M 26.5-27.1; one pass 25.3-26.6
// and 28.4-28.9), Q4_0 / IQ4_NL and Q8_0 through the plain AVX2 file's
// one-pass kernels (with its Intel prefetch: Q4_0 37.4 -> 41.5, Q8_0 22.1
// -> 26.9 against these halves). Q4_K keeps the halves (level), IQ4_XS too
// (38.6 against plain AVX2's 34.4).
//
// Tiles of 4 tokens (Q8_0 and Q5_0: 2), as the AVX2 file's: each unpacked
// weight register serves 4 vpdpbusd. Measured with the EVEX form of the
// same instructions on Zen 4 (CPU time of packedMatmul, 64 tokens, K =
// 2048; no AVX-VNNI CPU at hand), against tiles of 1-2 tokens: Q4_0 1.2x,
// Q4_K 1.2x, Q5_K 1.9x, Q6_K 2.0x, IQ4_XS 1.6x, Q8_0 1.4x (its 2-token
// tile; 3 and 4 were slower), Q5_0 1.3x (2 tokens).
void packedMatmulAvxVnni(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                         int64_t nGemm, float *y, size_t ldy)
{
#define BURROW_VNNI_TILES(k) {k<1>, k<2>, k<3>, k<4>}
    static constexpr HalfFn q8_0[4] = BURROW_VNNI_TILES(kQ8_0), q4_0[4] = BURROW_VNNI_TILES(kQ4_0),
                            iq4nl[4] = BURROW_VNNI_TILES(kIQ4_NL), q5_0[4] = BURROW_VNNI_TILES(kQ5_0),
                            q4K[4] = BURROW_VNNI_TILES(kQ4_K), q4KGemm[4] = BURROW_VNNI_TILES(kQ4_KGemm),
                            q5K[4] = BURROW_VNNI_TILES(kQ5_K), q6K[4] = BURROW_VNNI_TILES(kQ6_K),
                            iq4xs[4] = BURROW_VNNI_TILES(kIQ4_XS);
#undef BURROW_VNNI_TILES
    const HalfFn *fns = nullptr, *gemmFns = nullptr;
    BothFn both = nullptr;   // generation: both halves of a group in one pass
    int64_t tile = 4;
    switch (W.type) {
    case GgmlType::GGML_TYPE_Q8_0: fns = q8_0; tile = 2; break;
    case GgmlType::GGML_TYPE_Q4_0: fns = q4_0; break;
    case GgmlType::GGML_TYPE_IQ4_NL:
    case GgmlType::GGML_TYPE_MXFP4: fns = iq4nl; break;
    case GgmlType::GGML_TYPE_Q5_0: fns = q5_0; tile = 2; break;
    case GgmlType::GGML_TYPE_Q4_K: fns = q4K; gemmFns = q4KGemm; break;
    case GgmlType::GGML_TYPE_Q5_K: fns = q5K; both = q5KBoth<DotVnniChain>; break;
    case GgmlType::GGML_TYPE_Q6_K: fns = q6K; both = q6KBoth<DotVnniChain>; break;
    case GgmlType::GGML_TYPE_IQ4_XS: fns = iq4xs; break;
    default: return;
    }
    if (nTokens == 1 && both) {
        packedBothLoop(W, g0, g1, act, y, both);
        return;
    }
    if (nTokens == 1 && (W.type == GgmlType::GGML_TYPE_Q4_0 || W.type == GgmlType::GGML_TYPE_IQ4_NL ||
                         W.type == GgmlType::GGML_TYPE_MXFP4 || W.type == GgmlType::GGML_TYPE_Q8_0)) {
        packedMatmulAvx2(W, g0, g1, act, nTokens, nGemm, y, ldy);
        return;
    }
    packedHalvesLoop(W, g0, g1, act, nTokens, nGemm, y, ldy, fns, gemmFns ? gemmFns : fns, tile);
}

} // namespace burrow::quant::x86
