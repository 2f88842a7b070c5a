#include "quant/packed.h"

#include "quant/cpu_features.h"
#include "quant/quant_blocks.h"
#include "quant/x86/x86_kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace burrow::quant {

namespace {

constexpr size_t kQ8_0Run = 8;                 // 4-byte runs per 32-element block
constexpr size_t kQ4_0Run = 4;
constexpr size_t kRunBytes = 4 * kPackRows;    // one run of 16 rows: 64 bytes
constexpr size_t kQ4KSuper = 64 + 128 + 128 + 32 * kRunBytes;   // 2368
constexpr size_t kQ6KSuper = 256 + 64 + 48 * kRunBytes;         // 3392
constexpr int64_t kMaxK = int64_t{1} << 20;

void freeAligned(uint8_t *p) { std::free(p); }

size_t groupBytesFor(GgmlType type, int64_t blocks)
{
    const auto nb = static_cast<size_t>(blocks);
    switch (type) {
    // (the scales after the runs, the group padded to 64 bytes)
    case GgmlType::GGML_TYPE_Q8_0: return (nb * (kQ8_0Run * kRunBytes + 2 * kPackRows) + 63) & ~size_t{63};
    case GgmlType::GGML_TYPE_Q4_0: return (nb * (kQ4_0Run * kRunBytes + 2 * kPackRows) + 63) & ~size_t{63};
    case GgmlType::GGML_TYPE_Q4_K: return nb * kQ4KSuper;
    case GgmlType::GGML_TYPE_Q6_K: return nb * kQ6KSuper;
    default: return 0;
    }
}

int64_t blockSizeOf(GgmlType type)
{
    return type == GgmlType::GGML_TYPE_Q4_K || type == GgmlType::GGML_TYPE_Q6_K ? QK_K : 32;
}

void put16(uint8_t *dst, fp16_t v) { std::memcpy(dst, &v, 2); }
fp16_t get16(const uint8_t *src)
{
    fp16_t v;
    std::memcpy(&v, src, 2);
    return v;
}

// Packs row `rr` (0..15) of a group from `src` (one row of the type).
void packRow(GgmlType type, const uint8_t *src, int64_t nb, uint8_t *g, int rr)
{
    const size_t lane = static_cast<size_t>(rr) * 4;
    switch (type) {
    case GgmlType::GGML_TYPE_Q8_0: {
        const auto *x = reinterpret_cast<const BlockQ8_0 *>(src);
        uint8_t *scales = g + static_cast<size_t>(nb) * kQ8_0Run * kRunBytes;
        for (int64_t b = 0; b < nb; ++b) {
            for (size_t c = 0; c < kQ8_0Run; ++c)
                for (int i = 0; i < 4; ++i)
                    g[(static_cast<size_t>(b) * kQ8_0Run + c) * kRunBytes + lane + i] =
                        static_cast<uint8_t>(x[b].qs[4 * c + i]) ^ 0x80u;
            put16(scales + (static_cast<size_t>(b) * kPackRows + rr) * 2, x[b].d);
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q4_0: {
        const auto *x = reinterpret_cast<const BlockQ4_0 *>(src);
        uint8_t *scales = g + static_cast<size_t>(nb) * kQ4_0Run * kRunBytes;
        for (int64_t b = 0; b < nb; ++b) {
            for (size_t c = 0; c < kQ4_0Run; ++c)
                std::memcpy(g + (static_cast<size_t>(b) * kQ4_0Run + c) * kRunBytes + lane, x[b].qs + 4 * c, 4);
            put16(scales + (static_cast<size_t>(b) * kPackRows + rr) * 2, x[b].d);
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q4_K: {
        const auto *x = reinterpret_cast<const BlockQ4_K *>(src);
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t *o = g + static_cast<size_t>(b) * kQ4KSuper;
            put16(o + 2 * rr, x[b].d);
            put16(o + 32 + 2 * rr, x[b].dmin);
            for (int s = 0; s < 8; ++s) {
                uint8_t sc = 0, m = 0;
                getScaleMinK4(s, x[b].scales, &sc, &m);
                o[64 + s * kPackRows + rr] = sc;
                o[192 + (s / 2) * 2 * kPackRows + rr * 2 + (s % 2)] = m;
            }
            for (size_t c = 0; c < 32; ++c)
                std::memcpy(o + 320 + c * kRunBytes + lane, x[b].qs + 4 * c, 4);
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q6_K: {
        const auto *x = reinterpret_cast<const BlockQ6_K *>(src);
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t *o = g + static_cast<size_t>(b) * kQ6KSuper;
            for (int s = 0; s < 16; ++s)
                o[s * kPackRows + rr] = static_cast<uint8_t>(x[b].scales[s]);
            put16(o + 256 + 2 * rr, x[b].d);
            for (int h = 0; h < 2; ++h)
                for (int r = 0; r < 8; ++r) {
                    uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + r) * 3 * kRunBytes + lane;
                    std::memcpy(run, x[b].ql + 64 * h + 4 * r, 4);
                    std::memcpy(run + kRunBytes, x[b].ql + 64 * h + 32 + 4 * r, 4);
                    std::memcpy(run + 2 * kRunBytes, x[b].qh + 32 * h + 4 * r, 4);
                }
        }
        break;
    }
    default: break;
    }
}

// Rows past N: codes that decode to zero with a zero scale.
void packPaddingRow(GgmlType type, int64_t nb, uint8_t *g, int rr)
{
    const size_t lane = static_cast<size_t>(rr) * 4;
    if (type == GgmlType::GGML_TYPE_Q8_0 || type == GgmlType::GGML_TYPE_Q4_0) {
        const size_t runs = type == GgmlType::GGML_TYPE_Q8_0 ? kQ8_0Run : kQ4_0Run;
        const uint8_t code = type == GgmlType::GGML_TYPE_Q8_0 ? 0x80 : 0x88;
        for (size_t c = 0; c < static_cast<size_t>(nb) * runs; ++c)
            std::memset(g + c * kRunBytes + lane, code, 4);
    }
    // K-quants: all zero bytes already (d = 0).
}

inline int32_t load32(const uint8_t *p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// --- scalar twin -----------------------------------------------------------

void scalarQ32(const PackedMatrix &W, bool four, const uint8_t *g, const PackedActivation &act, int64_t t, float *out)
{
    const int64_t nb = W.blocks;
    const size_t runs = four ? kQ4_0Run : kQ8_0Run;
    const uint8_t *scales = g + static_cast<size_t>(nb) * runs * kRunBytes;
    const auto *a = reinterpret_cast<const BlockQ8_0 *>(act.rows + static_cast<size_t>(t) * act.stride);
    const float *ad = act.scale + t * nb;
    const int32_t *as = act.sum + t * nb;
    for (int rr = 0; rr < kPackRows; ++rr) {
        float acc = 0.0f;
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *q = g + static_cast<size_t>(b) * runs * kRunBytes + static_cast<size_t>(rr) * 4;
            int32_t sumi = 0;
            if (four) {
                for (size_t c = 0; c < runs; ++c)
                    for (int i = 0; i < 4; ++i) {
                        const uint8_t v = q[c * kRunBytes + i];
                        sumi += (v & 0x0f) * a[b].qs[4 * c + i] + (v >> 4) * a[b].qs[16 + 4 * c + i];
                    }
                sumi -= 8 * as[b];
            } else {
                for (size_t c = 0; c < runs; ++c)
                    for (int i = 0; i < 4; ++i)
                        sumi += q[c * kRunBytes + i] * a[b].qs[4 * c + i];
                sumi -= 128 * as[b];
            }
            const float dw = fp16ToFp32(get16(scales + (static_cast<size_t>(b) * kPackRows + rr) * 2));
            acc = std::fma(static_cast<float>(sumi), dw * ad[b], acc);
        }
        out[rr] = acc;
    }
}

void scalarQ4K(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t, float *out)
{
    const auto *a = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t) * act.stride);
    for (int rr = 0; rr < kPackRows; ++rr) {
        float acc = 0.0f;
        for (int64_t b = 0; b < W.blocks; ++b) {
            const uint8_t *o = g + static_cast<size_t>(b) * kQ4KSuper;
            int32_t sums[8] = {};
            for (int c = 0; c < 32; ++c) {
                const int ch = c / 8, j0 = 4 * (c % 8);
                for (int i = 0; i < 4; ++i) {
                    const uint8_t v = o[320 + c * kRunBytes + rr * 4 + i];
                    sums[2 * ch] += (v & 0x0f) * a[b].qs[64 * ch + j0 + i];
                    sums[2 * ch + 1] += (v >> 4) * a[b].qs[64 * ch + 32 + j0 + i];
                }
            }
            int32_t tot = 0, mn = 0;
            for (int s = 0; s < 8; ++s) {
                tot += o[64 + s * kPackRows + rr] * sums[s];
                mn += o[192 + (s / 2) * 2 * kPackRows + rr * 2 + (s % 2)] * (a[b].bsums[2 * s] + a[b].bsums[2 * s + 1]);
            }
            const float d = fp16ToFp32(get16(o + 2 * rr)), dmin = fp16ToFp32(get16(o + 32 + 2 * rr));
            acc = std::fma(static_cast<float>(tot), d * a[b].d, acc);
            acc = std::fma(-static_cast<float>(mn), dmin * a[b].d, acc);
        }
        out[rr] = acc;
    }
}

void scalarQ6K(const PackedMatrix &W, const uint8_t *g, const PackedActivation &act, int64_t t, float *out)
{
    const auto *a = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t) * act.stride);
    for (int rr = 0; rr < kPackRows; ++rr) {
        float acc = 0.0f;
        for (int64_t b = 0; b < W.blocks; ++b) {
            const uint8_t *o = g + static_cast<size_t>(b) * kQ6KSuper;
            int32_t sums[16] = {};
            for (int h = 0; h < 2; ++h)
                for (int r = 0; r < 8; ++r) {
                    const uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + r) * 3 * kRunBytes + rr * 4;
                    for (int i = 0; i < 4; ++i) {
                        const int la = run[i], lb = run[kRunBytes + i], qh = run[2 * kRunBytes + i];
                        const int v[4] = {(la & 15) | ((qh & 3) << 4), (lb & 15) | (((qh >> 2) & 3) << 4),
                                          (la >> 4) | (((qh >> 4) & 3) << 4), (lb >> 4) | (((qh >> 6) & 3) << 4)};
                        for (int k = 0; k < 4; ++k) {
                            const int e = 128 * h + 32 * k + 4 * r + i;
                            sums[e / 16] += v[k] * a[b].qs[e];
                        }
                    }
                }
            int32_t tot = 0;
            for (int s = 0; s < 16; ++s)
                tot += static_cast<int8_t>(o[s * kPackRows + rr]) * (sums[s] - 32 * a[b].bsums[s]);
            const float d = fp16ToFp32(get16(o + 256 + 2 * rr));
            acc = std::fma(static_cast<float>(tot), d * a[b].d, acc);
        }
        out[rr] = acc;
    }
}

} // namespace

bool packSupported(GgmlType type, int64_t K)
{
    if (K <= 0 || K > kMaxK || groupBytesFor(type, 1) == 0)
        return false;
    return K % blockSizeOf(type) == 0;
}

Result<std::unique_ptr<PackedMatrix>> packMatrix(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K,
                                                 int64_t N)
{
    if (!packSupported(type, K) || N < 1 || N > (int64_t{1} << 32))
        return Status::error("packing weights: type " + std::to_string(static_cast<int>(type)) + " with rows of " +
                             std::to_string(K) + " elements x " + std::to_string(N) + " cannot be packed");
    auto m = std::make_unique<PackedMatrix>();
    m->type = type;
    m->K = K;
    m->N = N;
    m->groups = (N + kPackRows - 1) / kPackRows;
    m->blocks = K / blockSizeOf(type);
    m->groupBytes = groupBytesFor(type, m->blocks);
    const size_t total = m->bytes();   // <= 2^28 groups * (K/32 * 544) bytes: no overflow for K <= 2^20
    auto *p = static_cast<uint8_t *>(std::aligned_alloc(64, total));
    if (!p)
        return Status::error("packing weights: out of memory for " + std::to_string(total) + " bytes");
    std::memset(p, 0, total);
    m->data = std::unique_ptr<uint8_t[], void (*)(uint8_t *)>(p, freeAligned);
    for (int64_t g = 0; g < m->groups; ++g) {
        uint8_t *dst = p + static_cast<size_t>(g) * m->groupBytes;
        for (int rr = 0; rr < kPackRows; ++rr) {
            const int64_t r = g * kPackRows + rr;
            if (r < N)
                packRow(type, rows + static_cast<size_t>(r) * rowBytes, m->blocks, dst, rr);
            else
                packPaddingRow(type, m->blocks, dst, rr);
        }
    }
    return m;
}

size_t packedSideBytes(GgmlType type, int64_t K, int64_t nTokens)
{
    if (type != GgmlType::GGML_TYPE_Q8_0 && type != GgmlType::GGML_TYPE_Q4_0)
        return 0;
    return static_cast<size_t>(K / 32) * static_cast<size_t>(nTokens) * (sizeof(float) + sizeof(int32_t));
}

PackedActivation packedActivation(GgmlType type, int64_t K, const uint8_t *rows, size_t stride, int64_t nTokens,
                                  void *side)
{
    PackedActivation out;
    out.rows = rows;
    out.stride = stride;
    if (type == GgmlType::GGML_TYPE_Q8_0 || type == GgmlType::GGML_TYPE_Q4_0) {
        out.scale = static_cast<float *>(side);
        out.sum = reinterpret_cast<int32_t *>(out.scale + (K / 32) * nTokens);
    }
    return out;
}

void preparePackedRow(GgmlType type, int64_t K, const PackedActivation &act, int64_t t)
{
    if (type != GgmlType::GGML_TYPE_Q8_0 && type != GgmlType::GGML_TYPE_Q4_0)
        return;
    const int64_t nb = K / 32;
    const auto *a = reinterpret_cast<const BlockQ8_0 *>(act.rows + static_cast<size_t>(t) * act.stride);
    for (int64_t b = 0; b < nb; ++b) {
        int32_t s = 0;
        for (int i = 0; i < 32; ++i)
            s += a[b].qs[i];
        act.scale[t * nb + b] = fp16ToFp32(a[b].d);
        act.sum[t * nb + b] = s;
    }
}

void packedMatmulScalar(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                        int64_t nTokens, float *y, size_t ldy)
{
    float out[kPackRows];
    for (int64_t g = g0; g < g1; ++g) {
        const uint8_t *grp = W.group(g);
        const int64_t rows = std::min<int64_t>(kPackRows, W.N - g * kPackRows);
        for (int64_t t = 0; t < nTokens; ++t) {
            switch (W.type) {
            case GgmlType::GGML_TYPE_Q8_0: scalarQ32(W, false, grp, act, t, out); break;
            case GgmlType::GGML_TYPE_Q4_0: scalarQ32(W, true, grp, act, t, out); break;
            case GgmlType::GGML_TYPE_Q4_K: scalarQ4K(W, grp, act, t, out); break;
            case GgmlType::GGML_TYPE_Q6_K: scalarQ6K(W, grp, act, t, out); break;
            default: return;
            }
            std::memcpy(y + static_cast<size_t>(t) * ldy + static_cast<size_t>(g) * kPackRows, out,
                        static_cast<size_t>(rows) * sizeof(float));
        }
    }
}

namespace {
std::atomic<bool> g_avxVnniAllowed{true};

bool useAvxVnni()
{
    return g_avxVnniAllowed.load(std::memory_order_relaxed) && cpuFeatures().avxvnni;
}
} // namespace

void setPackedAvxVnni(bool allowed)
{
    g_avxVnniAllowed.store(allowed, std::memory_order_relaxed);
}

bool packedKernelsActive(GgmlType type)
{
#if defined(BURROW_QUANT_X86)
    switch (activeCpuPath()) {
    case CpuPath::CPU_PATH_AVX512: return groupBytesFor(type, 1) != 0;
    case CpuPath::CPU_PATH_AVX2: return useAvxVnni() ? groupBytesFor(type, 1) != 0 : x86::packedAvx2Supports(type);
    default: return false;
    }
#else
    (void)type;
    return false;
#endif
}

void packedMatmul(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                  float *y, size_t ldy)
{
#if defined(BURROW_QUANT_X86)
    if (packedKernelsActive(W.type)) {
        if (activeCpuPath() == CpuPath::CPU_PATH_AVX512)
            x86::packedMatmulAvx512(W, g0, g1, act, nTokens, y, ldy);
        else if (useAvxVnni())
            x86::packedMatmulAvxVnni(W, g0, g1, act, nTokens, y, ldy);
        else
            x86::packedMatmulAvx2(W, g0, g1, act, nTokens, y, ldy);
        return;
    }
#endif
    packedMatmulScalar(W, g0, g1, act, nTokens, y, ldy);
}

} // namespace burrow::quant
