// Quantized types: every weight type's dequantization and dot product on
// hand-built blocks, checked against values this test works out itself from
// the documented block layouts (it packs the bytes; the engine unpacks them);
// reference-quantizer round trips within named tolerances; every SIMD path
// against the scalar twin (bit for bit where the twin follows the reference's
// AVX-512 build); the dot products' float steps on every path against the
// reference's recipes written out here from the block layouts (lanes, fused
// multiply-adds, reduction trees; the batch and one-token forms, on rows
// where they round differently); and tensors of the synthetic ../shared models.
#include "common/ggml_types.h"
#include "gguf/gguf_reader.h"
#include "quant/cpu_features.h"
#include "quant/generic/generic_kernels.h"
#include "quant/quant_blocks.h"
#include "quant/quant_traits.h"
#include "test_support.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstring>
#include <random>
#include <vector>

using namespace burrow;
using namespace burrow::quant;

Q_DECLARE_METATYPE(burrow::GgmlType)

namespace {

using Rng = std::mt19937;

// --- test-side half/bfloat16 codecs, written from the IEEE definitions ---

double halfValue(uint16_t h)
{
    const int sign = (h >> 15) & 1;
    const int exp = (h >> 10) & 0x1f;
    const int mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = std::ldexp(mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = std::ldexp(1024 + mant, exp - 25);
    return sign ? -v : v;
}

// Bits of a value that a half represents exactly (normal range); fails the test otherwise.
uint16_t exactHalf(double v)
{
    if (v == 0)
        return 0;
    const uint16_t sign = v < 0 ? 0x8000 : 0;
    int e = 0;
    const double m = std::frexp(std::fabs(v), &e); // |v| = m * 2^e, m in [0.5, 1)
    const int biased = e - 1 + 15;
    const double frac = (m * 2 - 1) * 1024;
    if (biased < 1 || biased > 30 || frac != std::floor(frac))
        qFatal("exactHalf: %g is not a normal half", v);
    return static_cast<uint16_t>(sign | (biased << 10) | static_cast<int>(frac));
}

double bf16Value(uint16_t b)
{
    const uint32_t u = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

int randInt(Rng &rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// The value of a 4-bit E2M1 code (OCP microscaling spec): sign bit 3,
// exponent bits 2-1 (bias 1), mantissa bit 0; exponent 0 is subnormal (0, 0.5).
double e2m1Value(int q)
{
    const int exp = (q >> 1) & 3, man = q & 1;
    const double mag = exp == 0 ? 0.5 * man : (1.0 + 0.5 * man) * std::ldexp(1.0, exp - 1);
    return (q & 8) ? -mag : mag;
}

// An MXFP4 element: E2M1(q) * 2^(e - 127) (E8M0 scale; e = 255 not special).
double mxfp4Value(int e, int q) { return e2m1Value(q) * std::ldexp(1.0, e - 127); }

// A block scale: +-2^-k * (1 + j/8), exactly a half.
double randScale(Rng &rng, int kLo = 4, int kHi = 9)
{
    const double v = std::ldexp(1.0 + randInt(rng, 0, 7) / 8.0, -randInt(rng, kLo, kHi));
    return randInt(rng, 0, 1) ? -v : v;
}

void putHalf(uint8_t *p, double v) { const uint16_t h = exactHalf(v); std::memcpy(p, &h, 2); }

// Blocks of one type together with the values they stand for.
struct Encoded {
    std::vector<uint8_t> bytes;
    std::vector<double> values;
};

// Packs `nBlocks` random blocks of `type` from the layouts documented in
// quant_blocks.h / the GGUF notes, and the value of every element.
Encoded encodeRandom(GgmlType type, int64_t nBlocks, Rng &rng)
{
    const GgmlTypeInfo *info = ggmlTypeInfo(type);
    Encoded e;
    e.bytes.assign(static_cast<size_t>(nBlocks) * info->typeSize, 0);
    e.values.resize(static_cast<size_t>(nBlocks * info->blockSize));
    for (int64_t b = 0; b < nBlocks; ++b) {
        uint8_t *p = e.bytes.data() + b * info->typeSize;
        double *v = e.values.data() + b * info->blockSize;
        switch (type) {
        case GgmlType::GGML_TYPE_F32: {
            const float f = static_cast<float>(std::normal_distribution<double>(0, 1)(rng));
            std::memcpy(p, &f, 4);
            v[0] = f;
            break;
        }
        case GgmlType::GGML_TYPE_F16: {
            const double x = randInt(rng, -2000, 2000) / 512.0;
            putHalf(p, x == 0 ? 1.0 : x);
            v[0] = x == 0 ? 1.0 : x;
            break;
        }
        case GgmlType::GGML_TYPE_BF16: {
            // sign, exponent 120..130, 7 mantissa bits
            const uint16_t bits = static_cast<uint16_t>((randInt(rng, 0, 1) << 15) | (randInt(rng, 120, 130) << 7)
                                                        | randInt(rng, 0, 127));
            std::memcpy(p, &bits, 2);
            v[0] = bf16Value(bits);
            break;
        }
        case GgmlType::GGML_TYPE_Q4_0:
        case GgmlType::GGML_TYPE_IQ4_NL: {
            const double d = randScale(rng);
            putHalf(p, d);
            for (int j = 0; j < 32; ++j) {
                const int q = randInt(rng, 0, 15);
                p[2 + j % 16] |= static_cast<uint8_t>(j < 16 ? q : q << 4);
                v[j] = type == GgmlType::GGML_TYPE_Q4_0 ? d * (q - 8) : d * kValuesIq4nl[q];
            }
            break;
        }
        case GgmlType::GGML_TYPE_MXFP4: {
            // e | qs[16], nibble order as Q4_0
            const int e = randInt(rng, 118, 133);
            p[0] = static_cast<uint8_t>(e);
            for (int j = 0; j < 32; ++j) {
                const int q = randInt(rng, 0, 15);
                p[1 + j % 16] |= static_cast<uint8_t>(j < 16 ? q : q << 4);
                v[j] = mxfp4Value(e, q);
            }
            break;
        }
        case GgmlType::GGML_TYPE_Q4_1: {
            const double d = std::fabs(randScale(rng)), m = randScale(rng);
            putHalf(p, d);
            putHalf(p + 2, m);
            for (int j = 0; j < 32; ++j) {
                const int q = randInt(rng, 0, 15);
                p[4 + j % 16] |= static_cast<uint8_t>(j < 16 ? q : q << 4);
                v[j] = d * q + m;
            }
            break;
        }
        case GgmlType::GGML_TYPE_Q5_0:
        case GgmlType::GGML_TYPE_Q5_1: {
            const bool hasMin = type == GgmlType::GGML_TYPE_Q5_1;
            const double d = randScale(rng), m = hasMin ? randScale(rng) : 0.0;
            putHalf(p, d);
            if (hasMin)
                putHalf(p + 2, m);
            uint8_t *qh = p + (hasMin ? 4 : 2);
            uint8_t *qs = qh + 4;
            for (int j = 0; j < 32; ++j) {
                const int q = randInt(rng, 0, 31);
                qs[j % 16] |= static_cast<uint8_t>(j < 16 ? (q & 15) : (q & 15) << 4);
                qh[j / 8] |= static_cast<uint8_t>((q >> 4) << (j % 8));
                v[j] = hasMin ? d * q + m : d * (q - 16);
            }
            break;
        }
        case GgmlType::GGML_TYPE_Q8_0: {
            const double d = randScale(rng);
            putHalf(p, d);
            for (int j = 0; j < 32; ++j) {
                const int q = randInt(rng, -128, 127);
                p[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(q));
                v[j] = d * q;
            }
            break;
        }
        case GgmlType::GGML_TYPE_Q2_K: {
            // scales[16] | qs[64] | d | dmin
            const double d = randScale(rng), dmin = randScale(rng);
            putHalf(p + 80, d);
            putHalf(p + 82, dmin);
            int sc[16], mn[16];
            for (int s = 0; s < 16; ++s) {
                sc[s] = randInt(rng, 0, 15);
                mn[s] = randInt(rng, 0, 15);
                p[s] = static_cast<uint8_t>(sc[s] | (mn[s] << 4));
            }
            for (int el = 0; el < 256; ++el) {
                const int q = randInt(rng, 0, 3);
                p[16 + 32 * (el / 128) + el % 32] |= static_cast<uint8_t>(q << (2 * ((el / 32) % 4)));
                v[el] = d * sc[el / 16] * q - dmin * mn[el / 16];
            }
            break;
        }
        case GgmlType::GGML_TYPE_Q3_K: {
            // hmask[32] | qs[64] | scales[12] | d
            const double d = randScale(rng);
            putHalf(p + 108, d);
            uint8_t *hmask = p, *qs = p + 32, *scales = p + 96;
            int s6[16];
            for (int s = 0; s < 16; ++s) {
                s6[s] = randInt(rng, 0, 63);
                const int low = s6[s] & 15, high = s6[s] >> 4;
                scales[s % 8] |= static_cast<uint8_t>(s < 8 ? low : low << 4);
                scales[8 + s % 4] |= static_cast<uint8_t>(high << (2 * (s / 4)));
            }
            for (int el = 0; el < 256; ++el) {
                const int q = randInt(rng, -4, 3);        // stored as low2 + 4*high - 4
                const int u = q + 4, low2 = u & 3, high = u >> 2;
                qs[32 * (el / 128) + el % 32] |= static_cast<uint8_t>(low2 << (2 * ((el / 32) % 4)));
                hmask[el % 32] |= static_cast<uint8_t>(high << (el / 32));
                v[el] = d * (s6[el / 16] - 32) * q;
            }
            break;
        }
        case GgmlType::GGML_TYPE_Q4_K:
        case GgmlType::GGML_TYPE_Q5_K: {
            // d | dmin | scales[12] | (qh[32]) | qs[128]
            const bool five = type == GgmlType::GGML_TYPE_Q5_K;
            const double d = randScale(rng), dmin = randScale(rng);
            putHalf(p, d);
            putHalf(p + 2, dmin);
            uint8_t *scales = p + 4;
            uint8_t *qh = five ? p + 16 : nullptr;
            uint8_t *qs = five ? p + 48 : p + 16;
            int sc[8], mn[8];
            for (int j = 0; j < 8; ++j) {
                sc[j] = randInt(rng, 0, 63);
                mn[j] = randInt(rng, 0, 63);
            }
            for (int j = 0; j < 4; ++j) {
                scales[j] = static_cast<uint8_t>(sc[j] | ((sc[j + 4] >> 4) << 6));
                scales[j + 4] = static_cast<uint8_t>(mn[j] | ((mn[j + 4] >> 4) << 6));
                scales[j + 8] = static_cast<uint8_t>((sc[j + 4] & 15) | ((mn[j + 4] & 15) << 4));
            }
            for (int el = 0; el < 256; ++el) {
                const int q = randInt(rng, 0, five ? 31 : 15);
                const int c = el / 64, h = (el / 32) % 2, l = el % 32;
                qs[32 * c + l] |= static_cast<uint8_t>(h ? (q & 15) << 4 : (q & 15));
                if (five)
                    qh[l] |= static_cast<uint8_t>((q >> 4) << (2 * c + h));
                v[el] = d * sc[el / 32] * q - dmin * mn[el / 32];
            }
            break;
        }
        case GgmlType::GGML_TYPE_Q6_K: {
            // ql[128] | qh[64] | scales[16] (int8) | d
            const double d = randScale(rng);
            putHalf(p + 208, d);
            uint8_t *ql = p, *qh = p + 128;
            int sc[16];
            for (int s = 0; s < 16; ++s) {
                sc[s] = randInt(rng, -128, 127);
                p[192 + s] = static_cast<uint8_t>(static_cast<int8_t>(sc[s]));
            }
            for (int el = 0; el < 256; ++el) {
                const int u = randInt(rng, 0, 63);
                const int half = el / 128, k = (el / 32) % 4, l = el % 32;
                const int qlIndex = 64 * half + 32 * (k % 2) + l;
                ql[qlIndex] |= static_cast<uint8_t>(k < 2 ? (u & 15) : (u & 15) << 4);
                qh[32 * half + l] |= static_cast<uint8_t>((u >> 4) << (2 * k));
                v[el] = d * sc[el / 16] * (u - 32);
            }
            break;
        }
        case GgmlType::GGML_TYPE_IQ4_XS: {
            // d | scales_h (u16) | scales_l[4] | qs[128]
            const double d = randScale(rng);
            putHalf(p, d);
            uint16_t scalesH = 0;
            int ls[8];
            for (int ib = 0; ib < 8; ++ib) {
                ls[ib] = randInt(rng, 0, 63);
                p[4 + ib / 2] |= static_cast<uint8_t>((ls[ib] & 15) << (4 * (ib % 2)));
                scalesH |= static_cast<uint16_t>((ls[ib] >> 4) << (2 * ib));
            }
            std::memcpy(p + 2, &scalesH, 2);
            for (int el = 0; el < 256; ++el) {
                const int q = randInt(rng, 0, 15);
                const int ib = el / 32, j = el % 32;
                p[8 + 16 * ib + j % 16] |= static_cast<uint8_t>(j < 16 ? q : q << 4);
                v[el] = d * (ls[ib] - 32) * kValuesIq4nl[q];
            }
            break;
        }
        default:
            qFatal("encodeRandom: no encoder for %s", ggmlTypeName(type).c_str());
        }
    }
    return e;
}

// Activation rows of a dot partner, hand-packed: Q8_0 (d, q in [-127, 127]), Q8_1 (d, s =
// d * sum q), Q8_K (f32 d, q, bsums); float partners reuse encodeRandom.
Encoded encodeActivation(GgmlType type, int64_t n, Rng &rng)
{
    const GgmlTypeInfo *info = ggmlTypeInfo(type);
    const int64_t nBlocks = n / info->blockSize;
    if (type == GgmlType::GGML_TYPE_F32 || type == GgmlType::GGML_TYPE_F16 || type == GgmlType::GGML_TYPE_BF16)
        return encodeRandom(type, nBlocks, rng);
    Encoded e;
    e.bytes.assign(static_cast<size_t>(nBlocks) * info->typeSize, 0);
    e.values.resize(static_cast<size_t>(n));
    for (int64_t b = 0; b < nBlocks; ++b) {
        uint8_t *p = e.bytes.data() + b * info->typeSize;
        double *v = e.values.data() + b * info->blockSize;
        if (type == GgmlType::GGML_TYPE_Q8_0) {
            // activations hold [-127, 127] (the quantizers never produce -128)
            const double d = randScale(rng);
            putHalf(p, d);
            for (int j = 0; j < 32; ++j) {
                const int q = randInt(rng, -127, 127);
                p[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(q));
                v[j] = d * q;
            }
        } else if (type == GgmlType::GGML_TYPE_Q8_1) {
            // d a power of two and |sum| < 2048, so d * sum is an exact half
            const double d = std::ldexp(randInt(rng, 0, 1) ? 1.0 : -1.0, -randInt(rng, 5, 9));
            int sum = 0;
            for (int j = 0; j < 32; ++j) {
                const int q = randInt(rng, -60, 60);
                p[4 + j] = static_cast<uint8_t>(static_cast<int8_t>(q));
                sum += q;
                v[j] = d * q;
            }
            putHalf(p, d);
            putHalf(p + 2, d * sum);
        } else if (type == GgmlType::GGML_TYPE_Q8_K) {
            const float d = static_cast<float>(randScale(rng) * 0.37);
            std::memcpy(p, &d, 4);
            for (int g = 0; g < 16; ++g) {
                int16_t sum = 0;
                for (int j = 0; j < 16; ++j) {
                    const int q = randInt(rng, -127, 127);
                    p[4 + 16 * g + j] = static_cast<uint8_t>(static_cast<int8_t>(q));
                    sum = static_cast<int16_t>(sum + q);
                    v[16 * g + j] = static_cast<double>(d) * q;
                }
                std::memcpy(p + 260 + 2 * g, &sum, 2);
            }
        } else {
            qFatal("encodeActivation: no encoder for %s", ggmlTypeName(type).c_str());
        }
    }
    return e;
}

const GgmlType kWeightTypes[] = {
    GgmlType::GGML_TYPE_F32,  GgmlType::GGML_TYPE_F16,  GgmlType::GGML_TYPE_BF16,   GgmlType::GGML_TYPE_Q4_0,
    GgmlType::GGML_TYPE_Q4_1, GgmlType::GGML_TYPE_Q5_0, GgmlType::GGML_TYPE_Q5_1,   GgmlType::GGML_TYPE_Q8_0,
    GgmlType::GGML_TYPE_Q2_K, GgmlType::GGML_TYPE_Q3_K, GgmlType::GGML_TYPE_Q4_K,   GgmlType::GGML_TYPE_Q5_K,
    GgmlType::GGML_TYPE_Q6_K, GgmlType::GGML_TYPE_IQ4_NL, GgmlType::GGML_TYPE_IQ4_XS, GgmlType::GGML_TYPE_MXFP4,
};

void addTypeRows(const GgmlType *types, size_t count)
{
    QTest::addColumn<GgmlType>("type");
    for (size_t i = 0; i < count; ++i)
        QTest::newRow(ggmlTypeName(types[i]).c_str()) << types[i];
}

// Named tolerances.
// A float dot product of n exact terms accumulated in float differs from the
// exact sum by at most ~n * 2^-24 * sum|terms|; kernels here sum at most a few
// hundred partial sums, so 1e-5 of sum|terms| is a loose, safe bound.
constexpr double kDotRelTolerance = 1e-5;
// SIMD kernels reorder float accumulation only.
constexpr double kSimdRelTolerance = 1e-5;

double dotExpected(const std::vector<double> &a, const std::vector<double> &b, double *sumAbs)
{
    double s = 0, sa = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        s += a[i] * b[i];
        sa += std::fabs(a[i] * b[i]);
    }
    *sumAbs = sa;
    return s;
}

std::vector<CpuPath> supportedPaths()
{
    std::vector<CpuPath> paths;
    for (CpuPath p : {CpuPath::CPU_PATH_SCALAR, CpuPath::CPU_PATH_AVX2, CpuPath::CPU_PATH_AVX512})
        if (cpuPathSupported(p))
            paths.push_back(p);
    return paths;
}

// Restores the default path when a test that switches paths ends.
struct PathGuard {
    CpuPath saved = activeCpuPath();
    ~PathGuard() { setCpuPath(saved); }
};


// --- the reference's float steps (AVX-512 build), from the block layouts ---

float tReduce16(const float *a)
{
    float h[8], q[4];
    for (int i = 0; i < 8; ++i)
        h[i] = a[i + 8] + a[i];
    for (int i = 0; i < 4; ++i)
        q[i] = h[i + 4] + h[i];
    return (q[0] + q[2]) + (q[1] + q[3]);
}

float tHsum8(const float *a)
{
    float r[4];
    for (int i = 0; i < 4; ++i)
        r[i] = a[i + 4] + a[i];
    return (r[0] + r[2]) + (r[1] + r[3]);
}

float tHalf(const uint8_t *p)
{
    uint16_t h;
    std::memcpy(&h, p, 2);
    return static_cast<float>(halfValue(h));
}

int tU16(const uint8_t *p)
{
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}

uint32_t tU32(const uint8_t *p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

float tBf16(const uint8_t *p)
{
    uint16_t h;
    std::memcpy(&h, p, 2);
    return static_cast<float>(bf16Value(h));
}

void tScaleMin(int j, const uint8_t *q, int *d, int *m)
{
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = (q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4);
        *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

// Element e's float of an F32 / F16 / BF16 row.
float tFloatAt(GgmlType t, const uint8_t *p, int64_t e)
{
    if (t == GgmlType::GGML_TYPE_F32) {
        float f;
        std::memcpy(&f, p + 4 * e, 4);
        return f;
    }
    return t == GgmlType::GGML_TYPE_F16 ? tHalf(p + 2 * e) : tBf16(p + 2 * e);
}

// ggml_vec_dot_f32 / _f16 / _bf16 (one token) and tinyBLAS (batch).
float recipeFloat(GgmlType t, int64_t n, const uint8_t *x, const uint8_t *y, bool gemm)
{
    const auto prod = [&](int64_t e) { return tFloatAt(t, x, e) * tFloatAt(t, y, e); };
    const auto fmaAt = [&](int64_t e, float c) { return std::fma(tFloatAt(t, x, e), tFloatAt(t, y, e), c); };
    if (t == GgmlType::GGML_TYPE_BF16) {
        const auto lane = [&](float c, int64_t e) { return fmaAt(e, fmaAt(e + 1, c)); };   // odd pair first
        if (gemm) {
            float c[16] = {};
            for (int64_t i = 0; i < n; i += 32)
                for (int l = 0; l < 16; ++l)
                    c[l] = lane(c[l], i + 2 * l);
            return tReduce16(c);
        }
        float c[2][16] = {};
        int64_t i = 0;
        for (; i + 64 <= n; i += 64)
            for (int h = 0; h < 2; ++h)
                for (int l = 0; l < 16; ++l)
                    c[h][l] = lane(c[h][l], i + 32 * h + 2 * l);
        double sum = static_cast<double>(tReduce16(c[0])) + static_cast<double>(tReduce16(c[1]));
        for (; i < n; ++i)
            sum += static_cast<double>(prod(i));
        return static_cast<float>(sum);
    }
    if (gemm) {
        float c[16] = {};
        for (int64_t i = 0; i < n; i += 16)
            for (int l = 0; l < 16; ++l)
                c[l] = fmaAt(i + l, c[l]);
        return tReduce16(c);
    }
    float a[4][16] = {};
    const int64_t np = n & ~int64_t{63};
    for (int64_t i = 0; i < np; i += 64)
        for (int j = 0; j < 4; ++j)
            for (int l = 0; l < 16; ++l)
                a[j][l] = fmaAt(i + 16 * j + l, a[j][l]);
    float f[16];
    for (int l = 0; l < 16; ++l)
        f[l] = (a[0][l] + a[2][l]) + (a[1][l] + a[3][l]);
    const float red = tReduce16(f);
    if (t == GgmlType::GGML_TYPE_F32) {
        float sum = red;
        for (int64_t i = np; i < n; ++i)
            sum = fmaAt(i, sum);
        return sum;
    }
    double sum = static_cast<double>(red);
    for (int64_t i = np; i < n; ++i)
        sum += static_cast<double>(prod(i));
    return static_cast<float>(sum);
}

// Q8_0: 8 lanes of 4 elements per block, fused per lane, hsum8. Q4_0 / IQ4_NL
// / MXFP4 (repacked q4_b32): per block acc = fma(isum, d_w d_a, acc).
float recipeQ32(GgmlType t, int64_t n, const uint8_t *x, const uint8_t *y)
{
    const size_t wb = ggmlTypeInfo(t)->typeSize;
    float lanes[8] = {}, chain = 0.0f;
    for (int64_t b = 0; b < n / 32; ++b) {
        const uint8_t *w = x + b * wb, *a = y + b * 34;
        const auto av = [a](int e) { return static_cast<int>(static_cast<int8_t>(a[2 + e])); };
        const float da = tHalf(a);
        if (t == GgmlType::GGML_TYPE_Q8_0 || t == GgmlType::GGML_TYPE_Q5_0) {
            // Q5_0: d, qh (u32: bit e the fifth bit of element e), qs[16] as Q4_0
            const auto value = [t, w](int e) {
                if (t == GgmlType::GGML_TYPE_Q8_0)
                    return static_cast<int>(static_cast<int8_t>(w[2 + e]));
                const int nibble = e < 16 ? w[6 + e] & 0xf : w[6 + e - 16] >> 4;
                return (nibble | static_cast<int>(((tU32(w + 2) >> e) & 1u) << 4)) - 16;
            };
            const float d = tHalf(w) * da;
            for (int m = 0; m < 8; ++m) {
                int s = 0;
                for (int e = 4 * m; e < 4 * m + 4; ++e)
                    s += value(e) * av(e);
                lanes[m] = std::fma(d, static_cast<float>(s), lanes[m]);
            }
            continue;
        }
        const bool mx = t == GgmlType::GGML_TYPE_MXFP4;
        const uint8_t *qs = w + (mx ? 1 : 2);
        int s = 0;
        for (int e = 0; e < 32; ++e) {
            const int code = e < 16 ? qs[e] & 0xf : qs[e - 16] >> 4;
            const int v = t == GgmlType::GGML_TYPE_Q4_0 ? code - 8 : mx ? kValuesMxfp4[code] : kValuesIq4nl[code];
            s += v * av(e);
        }
        const float dw = mx ? static_cast<float>(std::ldexp(1.0, w[0] - 128)) : tHalf(w);
        chain = std::fma(static_cast<float>(s), dw * da, chain);
    }
    return t == GgmlType::GGML_TYPE_Q8_0 || t == GgmlType::GGML_TYPE_Q5_0 ? tHsum8(lanes) : chain;
}

// Q4_K / Q2_K (repacked 8x8): sum and min chains per super-block (gemv) or
// per part (gemm: 64 elements for Q4_K, 128 for Q2_K); acc - accm.
float recipeChainsK(GgmlType t, int64_t n, const uint8_t *x, const uint8_t *y, bool gemm)
{
    const size_t wb = ggmlTypeInfo(t)->typeSize;
    float acc = 0.0f, accm = 0.0f;
    for (int64_t b = 0; b < n / 256; ++b) {
        const uint8_t *w = x + b * wb, *a = y + b * 292;
        float ad;
        std::memcpy(&ad, a, 4);
        const auto av = [a](int e) { return static_cast<int>(static_cast<int8_t>(a[4 + e])); };
        const auto bsum = [a](int g) { int16_t v; std::memcpy(&v, a + 260 + 2 * g, 2); return static_cast<int>(v); };
        const bool q4 = t == GgmlType::GGML_TYPE_Q4_K;
        const float d = (q4 ? tHalf(w) : tHalf(w + 80)) * ad, dmin = (q4 ? tHalf(w + 2) : tHalf(w + 82)) * ad;
        const int parts = q4 ? 4 : 2, partLen = 256 / parts;
        int isumAll = 0, iminAll = 0;
        for (int part = 0; part < parts; ++part) {
            int isum = 0, imin = 0;
            for (int e = part * partLen; e < (part + 1) * partLen; ++e) {
                int q, sc;
                if (q4) {
                    int m;
                    tScaleMin(e / 32, w + 4, &sc, &m);
                    const uint8_t byte = w[16 + 32 * (e / 64) + e % 32];
                    q = (e / 32) % 2 ? byte >> 4 : byte & 0xf;
                } else {
                    sc = w[e / 16] & 0xf;
                    q = (w[16 + 32 * (e / 128) + e % 32] >> (2 * ((e / 32) % 4))) & 3;
                }
                isum += sc * q * av(e);
            }
            if (q4)
                for (int sb = 2 * part; sb < 2 * part + 2; ++sb) {
                    int sc, m;
                    tScaleMin(sb, w + 4, &sc, &m);
                    imin += m * (bsum(2 * sb) + bsum(2 * sb + 1));
                }
            else
                for (int g = 8 * part; g < 8 * part + 8; ++g)
                    imin += (w[g] >> 4) * bsum(g);
            if (gemm) {
                acc = std::fma(static_cast<float>(isum), d, acc);
                accm = std::fma(static_cast<float>(imin), dmin, accm);
            }
            isumAll += isum;
            iminAll += imin;
        }
        if (!gemm) {
            acc = std::fma(static_cast<float>(isumAll), d, acc);
            accm = std::fma(static_cast<float>(iminAll), dmin, accm);
        }
    }
    return acc - accm;
}

// Q5_K / Q6_K / IQ4_XS (their AVX2 code): 8 lanes, lane m = elements
// 4m..4m+3 of every 32 times the scale; Q5_K's mins in a fused float summs,
// Q6_K's levels unsigned with 32 (bsums[2m] sc[2m] + bsums[2m+1] sc[2m+1])
// off lane m, IQ4_XS's scale ls - 32 over its value table.
float recipeLanesK(GgmlType t, int64_t n, const uint8_t *x, const uint8_t *y)
{
    const size_t wb = ggmlTypeInfo(t)->typeSize;
    float acc[8] = {}, summs = 0.0f;
    for (int64_t b = 0; b < n / 256; ++b) {
        const uint8_t *w = x + b * wb, *a = y + b * 292;
        float ad;
        std::memcpy(&ad, a, 4);
        const auto av = [a](int e) { return static_cast<int>(static_cast<int8_t>(a[4 + e])); };
        const auto bsum = [a](int g) { int16_t v; std::memcpy(&v, a + 260 + 2 * g, 2); return static_cast<int>(v); };
        int lane[8] = {};
        if (t == GgmlType::GGML_TYPE_Q5_K) {
            int imin = 0;
            for (int e = 0; e < 256; ++e) {
                int sc, m;
                tScaleMin(e / 32, w + 4, &sc, &m);
                const uint8_t byte = w[48 + 32 * (e / 64) + e % 32];
                const int lo = (e / 32) % 2 ? byte >> 4 : byte & 0xf;
                const int q = lo | (((w[16 + e % 32] >> (e / 32)) & 1) << 4);
                lane[(e % 32) / 4] += sc * q * av(e);
            }
            for (int sb = 0; sb < 8; ++sb) {
                int sc, m;
                tScaleMin(sb, w + 4, &sc, &m);
                imin += m * (bsum(2 * sb) + bsum(2 * sb + 1));
            }
            summs = std::fma(-ad * tHalf(w + 2), static_cast<float>(imin), summs);
            const float d = ad * tHalf(w);
            for (int m = 0; m < 8; ++m)
                acc[m] = std::fma(d, static_cast<float>(lane[m]), acc[m]);
            continue;
        }
        if (t == GgmlType::GGML_TYPE_IQ4_XS) {
            // d, scales_h (u16), scales_l[4], qs[128]
            for (int e = 0; e < 256; ++e) {
                const int ib = e / 32, j = e % 32;
                const int ls = ((w[4 + ib / 2] >> (4 * (ib % 2))) & 0xf) | (((tU16(w + 2) >> (2 * ib)) & 3) << 4);
                const uint8_t byte = w[8 + 16 * ib + j % 16];
                lane[(e % 32) / 4] += (ls - 32) * kValuesIq4nl[j < 16 ? byte & 0xf : byte >> 4] * av(e);
            }
            const float d = tHalf(w) * ad;
            for (int m = 0; m < 8; ++m)
                acc[m] = std::fma(d, static_cast<float>(lane[m]), acc[m]);
            continue;
        }
        // Q6_K: ql[128], qh[64], scales[16], d
        const auto sc = [w](int g) { return static_cast<int>(static_cast<int8_t>(w[192 + g])); };
        for (int e = 0; e < 256; ++e) {
            const int h = e / 128, k = (e % 128) / 32, l = e % 32;
            const uint8_t ql = w[64 * h + 32 * (k % 2) + l];
            const int q = (k < 2 ? ql & 0xf : ql >> 4) | (((w[128 + 32 * h + l] >> (2 * k)) & 3) << 4);
            lane[l / 4] += sc(e / 16) * q * av(e);
        }
        const float d = ad * tHalf(w + 208);
        for (int m = 0; m < 8; ++m) {
            lane[m] -= 32 * (bsum(2 * m) * sc(2 * m) + bsum(2 * m + 1) * sc(2 * m + 1));
            acc[m] = std::fma(d, static_cast<float>(lane[m]), acc[m]);
        }
    }
    return tHsum8(acc) + summs;
}

float recipe(GgmlType t, int64_t n, const uint8_t *x, const uint8_t *y, bool gemm)
{
    switch (t) {
    case GgmlType::GGML_TYPE_F32:
    case GgmlType::GGML_TYPE_F16:
    case GgmlType::GGML_TYPE_BF16: return recipeFloat(t, n, x, y, gemm);
    case GgmlType::GGML_TYPE_Q4_K:
    case GgmlType::GGML_TYPE_Q2_K: return recipeChainsK(t, n, x, y, gemm);
    case GgmlType::GGML_TYPE_Q5_K:
    case GgmlType::GGML_TYPE_Q6_K:
    case GgmlType::GGML_TYPE_IQ4_XS: return recipeLanesK(t, n, x, y);
    default: return recipeQ32(t, n, x, y);
    }
}

// The types whose dot products follow the reference's AVX-512 build on
// every path (the others follow its generic C code on the scalar path and
// its AVX2 code on the x86 paths).
const GgmlType kRecipeTypes[] = {
    GgmlType::GGML_TYPE_F32,  GgmlType::GGML_TYPE_F16,  GgmlType::GGML_TYPE_BF16,   GgmlType::GGML_TYPE_Q4_0,
    GgmlType::GGML_TYPE_Q5_0, GgmlType::GGML_TYPE_Q8_0, GgmlType::GGML_TYPE_Q2_K, GgmlType::GGML_TYPE_Q4_K,   GgmlType::GGML_TYPE_Q5_K,
    GgmlType::GGML_TYPE_Q6_K, GgmlType::GGML_TYPE_IQ4_NL, GgmlType::GGML_TYPE_IQ4_XS, GgmlType::GGML_TYPE_MXFP4,
};

bool followsRecipe(GgmlType t)
{
    return std::find(std::begin(kRecipeTypes), std::end(kRecipeTypes), t) != std::end(kRecipeTypes);
}

// A weight row of `type` and an activation row of its partner from normal
// floats through the quantizers (realistic scales: the float steps round),
// or random blocks for the types without a quantizer (Q2_K).
void realisticRows(GgmlType type, int64_t n, Rng &rng, std::vector<uint8_t> *w, std::vector<uint8_t> *a)
{
    const TypeTraits *t = typeTraits(type);
    const TypeTraits *p = typeTraits(t->vecDotType);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> f(static_cast<size_t>(n));
    if (t->quantize) {
        for (float &v : f) v = nd(rng) * 0.3f;
        w->assign(static_cast<size_t>(n / t->blockSize) * t->typeSize, 0);
        t->quantize(f.data(), w->data(), n);
    } else {
        *w = encodeRandom(type, n / t->blockSize, rng).bytes;
    }
    for (float &v : f) v = nd(rng);
    a->assign(static_cast<size_t>(n / p->blockSize) * p->typeSize, 0);
    p->quantize(f.data(), a->data(), n);
}

} // namespace

class TestQuant : public QObject {
    Q_OBJECT

private slots:
    void traitRows_data() { addTypeRows(kWeightTypes, std::size(kWeightTypes)); }
    void traitRows()
    {
        QFETCH(GgmlType, type);
        const TypeTraits *t = typeTraits(type);
        QVERIFY(t);
        QVERIFY(isSupportedWeightType(type));
        QCOMPARE(t->type, type);
        QCOMPARE(t->blockSize, ggmlTypeInfo(type)->blockSize);
        QCOMPARE(t->typeSize, ggmlTypeInfo(type)->typeSize);
        QVERIFY(t->dequantize);
        QVERIFY(t->vecDot);
        // the reference engine's vec_dot_type of each weight type
        GgmlType partner;
        switch (type) {
        case GgmlType::GGML_TYPE_F32: case GgmlType::GGML_TYPE_F16: case GgmlType::GGML_TYPE_BF16:
            partner = type; break;
        case GgmlType::GGML_TYPE_Q4_0: case GgmlType::GGML_TYPE_Q5_0: case GgmlType::GGML_TYPE_Q8_0:
        case GgmlType::GGML_TYPE_IQ4_NL: case GgmlType::GGML_TYPE_MXFP4:
            partner = GgmlType::GGML_TYPE_Q8_0; break;
        case GgmlType::GGML_TYPE_Q4_1: case GgmlType::GGML_TYPE_Q5_1:
            partner = GgmlType::GGML_TYPE_Q8_1; break;
        default:
            partner = GgmlType::GGML_TYPE_Q8_K; break;
        }
        QCOMPARE(t->vecDotType, partner);
        const TypeTraits *p = typeTraits(partner);
        QVERIFY(p && p->quantize && p->dequantize && p->quantizeActivation);
    }

    void unsupportedTypeIsRefusedByName()
    {
        QVERIFY(!isSupportedWeightType(GgmlType::GGML_TYPE_I32));
        QVERIFY(!isSupportedWeightType(GgmlType::GGML_TYPE_Q8_K));
        QVERIFY(checkWeightType(GgmlType::GGML_TYPE_Q4_K, "blk.0.attn_q.weight").isOk());
        const Status s = checkWeightType(GgmlType::GGML_TYPE_I32, "blk.3.ffn_up.weight");
        QVERIFY(!s.isOk());
        QVERIFY2(s.message().find("blk.3.ffn_up.weight") != std::string::npos, s.message().c_str());
        QVERIFY2(s.message().find("I32") != std::string::npos, s.message().c_str());
        QVERIFY(typeTraits(GgmlType::GGML_TYPE_I32) == nullptr);
    }

    void halfConversion_data()
    {
        QTest::addColumn<float>("value");
        QTest::addColumn<int>("bits");
        QTest::newRow("one") << 1.0f << 0x3c00;
        QTest::newRow("minus two") << -2.0f << 0xc000;
        QTest::newRow("max") << 65504.0f << 0x7bff;
        QTest::newRow("just below overflow") << 65519.0f << 0x7bff;
        QTest::newRow("overflow tie to inf") << 65520.0f << 0x7c00;
        QTest::newRow("tie rounds to even down") << 1.0f + std::ldexp(1.0f, -11) << 0x3c00;
        QTest::newRow("tie rounds to even up") << 1.0f + 3 * std::ldexp(1.0f, -11) << 0x3c02;
        QTest::newRow("above tie rounds up") << 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20) << 0x3c01;
        QTest::newRow("smallest normal") << std::ldexp(1.0f, -14) << 0x0400;
        QTest::newRow("smallest subnormal") << std::ldexp(1.0f, -24) << 0x0001;
        QTest::newRow("half of smallest subnormal ties to zero") << std::ldexp(1.0f, -25) << 0x0000;
        QTest::newRow("1.5 smallest subnormal ties to even") << 3 * std::ldexp(1.0f, -25) << 0x0002;
        QTest::newRow("negative subnormal") << -5 * std::ldexp(1.0f, -24) << 0x8005;
        QTest::newRow("largest subnormal rounds to normal") << std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)
                                                             << 0x0400;
        QTest::newRow("infinity") << INFINITY << 0x7c00;
        QTest::newRow("nan") << NAN << 0x7e00;
        QTest::newRow("negative zero") << -0.0f << 0x8000;
    }
    void halfConversion()
    {
        QFETCH(float, value);
        QFETCH(int, bits);
        QCOMPARE(static_cast<int>(fp32ToFp16(value)), bits);
        if (!std::isnan(value)) {
            // decoding gives back the exactly representable value
            const double back = fp16ToFp32(static_cast<fp16_t>(bits));
            QCOMPARE(back, halfValue(static_cast<uint16_t>(bits)));
        }
        // the F16 row's quantizer uses the same rounding
        uint16_t viaRow = 0;
        typeTraits(GgmlType::GGML_TYPE_F16)->quantize(&value, &viaRow, 1);
        QCOMPARE(static_cast<int>(viaRow), bits);
    }

    void halfDecodeEveryValue()
    {
        for (uint32_t h = 0; h < 0x10000; ++h) {
            const double expected = halfValue(static_cast<uint16_t>(h));
            const float got = fp16ToFp32(static_cast<uint16_t>(h));
            if (std::isnan(expected))
                QVERIFY(std::isnan(got));
            else if (static_cast<double>(got) != expected)
                QFAIL(qPrintable(QStringLiteral("half 0x%1 decodes to %2, expected %3")
                                     .arg(h, 4, 16, QLatin1Char('0')).arg(got).arg(expected)));
        }
    }

    void bf16Conversion_data()
    {
        QTest::addColumn<float>("value");
        QTest::addColumn<int>("bits");
        QTest::newRow("one") << 1.0f << 0x3f80;
        QTest::newRow("minus three") << -3.0f << 0xc040;
        QTest::newRow("tie rounds to even down") << 1.0f + std::ldexp(1.0f, -8) << 0x3f80;
        QTest::newRow("tie rounds to even up") << 1.0f + 3 * std::ldexp(1.0f, -8) << 0x3f82;
        QTest::newRow("above tie") << 1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20) << 0x3f81;
        QTest::newRow("subnormal kept") << std::ldexp(1.0f, -130) << 0x0008;
        QTest::newRow("infinity") << INFINITY << 0x7f80;
    }
    void bf16Conversion()
    {
        QFETCH(float, value);
        QFETCH(int, bits);
        QCOMPARE(static_cast<int>(fp32ToBf16(value)), bits);
        QCOMPARE(static_cast<double>(bf16ToFp32(static_cast<bf16_t>(bits))), bf16Value(static_cast<uint16_t>(bits)));
        uint16_t viaRow = 0;
        typeTraits(GgmlType::GGML_TYPE_BF16)->quantize(&value, &viaRow, 1);
        QCOMPARE(static_cast<int>(viaRow), bits);
    }

    // Hand-built blocks -> dequantize, against the values the test packed.
    void dequantizeHandBuilt_data() { addTypeRows(kWeightTypes, std::size(kWeightTypes)); }
    void dequantizeHandBuilt()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Rng rng(1234 + static_cast<int>(type));
        const TypeTraits *t = typeTraits(type);
        const int64_t n = 4 * 256;
        const Encoded e = encodeRandom(type, n / t->blockSize, rng);
        for (CpuPath path : supportedPaths()) {
            QVERIFY(setCpuPath(path));
            std::vector<float> out(static_cast<size_t>(n), -1234.5f);
            typeTraits(type)->dequantize(e.bytes.data(), out.data(), n);
            for (int64_t i = 0; i < n; ++i) {
                // the packed values are exact in float except products like d*sc*q,
                // which float rounds once or twice
                const double tol = 4e-7 * std::fabs(e.values[i]) + 1e-30;
                if (std::fabs(out[i] - e.values[i]) > tol)
                    QFAIL(qPrintable(QStringLiteral("%1: element %2 is %3, expected %4")
                                         .arg(cpuPathName(path)).arg(i).arg(out[i]).arg(e.values[i])));
            }
        }
    }

    // Hand-built weight blocks . hand-built activation blocks, against the
    // exact dot product of the values both stand for.
    void vecDotHandBuilt_data() { addTypeRows(kWeightTypes, std::size(kWeightTypes)); }
    void vecDotHandBuilt()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Rng rng(99 + static_cast<int>(type));
        const TypeTraits *t = typeTraits(type);
        for (int64_t n : {int64_t(256), int64_t(8 * 256)}) {
            const Encoded w = encodeRandom(type, n / t->blockSize, rng);
            const Encoded a = encodeActivation(t->vecDotType, n, rng);
            double sumAbs = 0;
            const double expected = dotExpected(w.values, a.values, &sumAbs);
            for (CpuPath path : supportedPaths()) {
                QVERIFY(setCpuPath(path));
                float got = NAN;
                typeTraits(type)->vecDot(n, &got, w.bytes.data(), a.bytes.data());
                QVERIFY2(std::fabs(got - expected) <= kDotRelTolerance * sumAbs,
                         qPrintable(QStringLiteral("%1 n=%2: %3, expected %4 (sum|terms| %5)")
                                        .arg(cpuPathName(path)).arg(n).arg(got).arg(expected).arg(sumAbs)));
            }
        }
    }

    // The scalar twin reproduces the reference's float order bit for bit on a
    // case small enough to follow by hand: Q8_0, two blocks.
    void q8_0DotFloatOrder()
    {
        BlockQ8_0 x[2] = {}, y[2] = {};
        x[0].d = exactHalf(0.5);
        y[0].d = exactHalf(0.25);
        x[1].d = exactHalf(1.5);
        y[1].d = exactHalf(-0.125);
        for (int j = 0; j < 32; ++j) {
            x[0].qs[j] = static_cast<int8_t>(j - 16);
            y[0].qs[j] = static_cast<int8_t>(3);
            x[1].qs[j] = static_cast<int8_t>(j % 5);
            y[1].qs[j] = static_cast<int8_t>(-j);
        }
        int s0 = 0, s1 = 0;
        for (int j = 0; j < 32; ++j) {
            s0 += x[0].qs[j] * y[0].qs[j];
            s1 += x[1].qs[j] * y[1].qs[j];
        }
        // 8 lanes of 4 elements: lane m of block b sums elements 4m..4m+3,
        // acc[m] = fma(d_w d_a, lane, acc[m]), then hsum8.
        (void)s0;
        (void)s1;
        float lanes[8] = {};
        for (int b = 0; b < 2; ++b)
            for (int m = 0; m < 8; ++m) {
                int lane = 0;
                for (int e = 4 * m; e < 4 * m + 4; ++e)
                    lane += x[b].qs[e] * y[b].qs[e];
                lanes[m] = std::fma(b == 0 ? 0.5f * 0.25f : 1.5f * -0.125f, static_cast<float>(lane), lanes[m]);
            }
        const float expected = ((lanes[4] + lanes[0]) + (lanes[6] + lanes[2])) + ((lanes[5] + lanes[1]) + (lanes[7] + lanes[3]));
        float got = 0;
        generic::vecDotQ8_0Q8_0(64, &got, x, y);
        QCOMPARE(got, expected);
    }

    // Activation quantizers on hand-picked rows.
    void quantizeQ8_0Exact()
    {
        float x[32];
        for (int j = 0; j < 32; ++j)
            x[j] = static_cast<float>(j - 16) * 0.5f;   // amax 8 -> d = 8/127
        x[5] = 8.0f * 2.5f / 127.0f;                   // 2.5 steps: rounds away from zero -> 3
        BlockQ8_0 b;
        typeTraits(GgmlType::GGML_TYPE_Q8_0)->quantize(x, &b, 32);
        QCOMPARE(static_cast<int>(b.d), static_cast<int>(fp32ToFp16(8.0f / 127.0f)));
        QCOMPARE(static_cast<int>(b.qs[0]), -127);
        QCOMPARE(static_cast<int>(b.qs[16]), 0);
        QCOMPARE(static_cast<int>(b.qs[24]), static_cast<int>(std::lround(4.0 * 127.0 / 8.0)));
        QVERIFY(std::abs(b.qs[5]) == 3 || std::abs(b.qs[5]) == 2); // float 1/d rounding decides the tie
        float zeros[32] = {};
        typeTraits(GgmlType::GGML_TYPE_Q8_0)->quantize(zeros, &b, 32);
        QCOMPARE(static_cast<int>(b.d), 0);
        for (int j = 0; j < 32; ++j)
            QCOMPARE(static_cast<int>(b.qs[j]), 0);
    }

    // Activation rounding ties: the reference quantizer rounds half away from
    // zero; on x86 the reference engine's activation quantizer (which our SIMD
    // paths reproduce) scales by 127/amax and rounds half to even.
    void q8ActivationTies_data()
    {
        QTest::addColumn<GgmlType>("type");
        QTest::newRow("Q8_0") << GgmlType::GGML_TYPE_Q8_0;
        QTest::newRow("Q8_1") << GgmlType::GGML_TYPE_Q8_1;
    }
    void q8ActivationTies()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        float x[32] = {};
        x[0] = 127.0f;      // amax 127: d = 1, both scales are exactly 1
        x[1] = 2.5f;
        x[2] = -3.5f;
        x[3] = 0.5f;
        x[4] = -126.5f;
        const int ref[5] = {127, 3, -4, 1, -127};
        const int even[5] = {127, 2, -4, 0, -126};
        const size_t qsOffset = type == GgmlType::GGML_TYPE_Q8_0 ? 2 : 4;
        for (CpuPath path : supportedPaths()) {
            QVERIFY(setCpuPath(path));
            uint8_t block[36] = {};
            typeTraits(type)->quantizeActivation(x, block, 32);
            const int *expected = path == CpuPath::CPU_PATH_SCALAR ? ref : even;
            for (int j = 0; j < 5; ++j)
                QCOMPARE(static_cast<int>(static_cast<int8_t>(block[qsOffset + j])), expected[j]);
            uint16_t d;
            std::memcpy(&d, block, 2);
            QCOMPARE(static_cast<int>(d), 0x3c00);
            if (type == GgmlType::GGML_TYPE_Q8_1) {
                int sum = 0;
                for (int j = 0; j < 5; ++j)
                    sum += expected[j];
                uint16_t s;
                std::memcpy(&s, block + 2, 2);
                QCOMPARE(halfValue(s), static_cast<double>(sum));
            }
        }
        // the weight quantizer always rounds as the reference quantizer
        uint8_t block[36] = {};
        typeTraits(type)->quantize(x, block, 32);
        for (int j = 0; j < 5; ++j)
            QCOMPARE(static_cast<int>(static_cast<int8_t>(block[qsOffset + j])), ref[j]);
    }

    void quantizeQ8_1SumField()
    {
        Rng rng(7);
        std::normal_distribution<float> nd(0.0f, 1.0f);
        std::vector<float> x(128);
        for (float &v : x) v = nd(rng);
        std::vector<BlockQ8_1> b(4);
        typeTraits(GgmlType::GGML_TYPE_Q8_1)->quantize(x.data(), b.data(), 128);
        for (int i = 0; i < 4; ++i) {
            int sum = 0;
            float amax = 0;
            for (int j = 0; j < 32; ++j) {
                sum += b[i].qs[j];
                amax = std::max(amax, std::fabs(x[32 * i + j]));
            }
            const float d = amax / 127;
            QCOMPARE(static_cast<int>(b[i].d), static_cast<int>(fp32ToFp16(d)));
            QCOMPARE(static_cast<int>(b[i].s), static_cast<int>(fp32ToFp16(static_cast<float>(sum) * d)));
        }
    }

    void quantizeQ8_KExact()
    {
        Rng rng(11);
        std::normal_distribution<float> nd(0.0f, 1.0f);
        std::vector<float> x(512);
        for (float &v : x) v = nd(rng);
        x[77] = 9.0f;     // block 0: largest magnitude positive -> q = -127, d negative
        x[300] = -9.0f;   // block 1: largest magnitude negative -> q = -127 too, d positive
        std::vector<BlockQ8_K> b(2);
        typeTraits(GgmlType::GGML_TYPE_Q8_K)->quantize(x.data(), b.data(), 512);
        QCOMPARE(static_cast<int>(b[0].qs[77]), -127);
        QCOMPARE(static_cast<int>(b[1].qs[300 - 256]), -127);
        QCOMPARE(b[0].d, 1.0f / (-127.f / 9.0f));
        QCOMPARE(b[1].d, 1.0f / (-127.f / -9.0f));
        for (int i = 0; i < 2; ++i) {
            for (int g = 0; g < 16; ++g) {
                int sum = 0;
                for (int j = 0; j < 16; ++j)
                    sum += b[i].qs[16 * g + j];
                QCOMPARE(static_cast<int>(b[i].bsums[g]), sum);
            }
            for (int j = 0; j < 256; ++j) {
                const float step = std::fabs(b[i].d);
                QVERIFY(std::fabs(b[i].d * b[i].qs[j] - x[256 * i + j]) <= 0.5f * step * 1.0001f);
            }
        }
    }

    // quantize -> dequantize error, RMS relative to the input's RMS, on N(0,1) rows.
    void roundTrip_data()
    {
        QTest::addColumn<GgmlType>("type");
        QTest::addColumn<double>("tolerance");
        // Named tolerances: roughly 1.5x the error a uniform quantizer of that
        // many levels makes on Gaussian data (step / sqrt(12) over the range used).
        QTest::newRow("F16") << GgmlType::GGML_TYPE_F16 << 5e-4;
        QTest::newRow("BF16") << GgmlType::GGML_TYPE_BF16 << 4e-3;
        QTest::newRow("Q8_0") << GgmlType::GGML_TYPE_Q8_0 << 0.01;
        QTest::newRow("Q8_1") << GgmlType::GGML_TYPE_Q8_1 << 0.01;
        QTest::newRow("Q8_K") << GgmlType::GGML_TYPE_Q8_K << 0.01;
        QTest::newRow("Q4_0") << GgmlType::GGML_TYPE_Q4_0 << 0.15;
        QTest::newRow("Q4_1") << GgmlType::GGML_TYPE_Q4_1 << 0.12;
        QTest::newRow("Q5_0") << GgmlType::GGML_TYPE_Q5_0 << 0.07;
        QTest::newRow("Q5_1") << GgmlType::GGML_TYPE_Q5_1 << 0.06;
        QTest::newRow("Q4_K") << GgmlType::GGML_TYPE_Q4_K << 0.12;
        QTest::newRow("Q5_K") << GgmlType::GGML_TYPE_Q5_K << 0.06;
        QTest::newRow("Q6_K") << GgmlType::GGML_TYPE_Q6_K << 0.03;
        QTest::newRow("MXFP4") << GgmlType::GGML_TYPE_MXFP4 << 0.17;
    }
    void roundTrip()
    {
        QFETCH(GgmlType, type);
        QFETCH(double, tolerance);
        const TypeTraits *t = typeTraits(type);
        QVERIFY(t && t->quantize);
        Rng rng(5);
        std::normal_distribution<float> nd(0.0f, 1.0f);
        const int64_t n = 16 * 256;
        std::vector<float> x(static_cast<size_t>(n));
        for (float &v : x) v = nd(rng);
        std::vector<uint8_t> q(static_cast<size_t>(n / t->blockSize) * t->typeSize);
        std::vector<float> back(static_cast<size_t>(n));
        t->quantize(x.data(), q.data(), n);
        t->dequantize(q.data(), back.data(), n);
        double err2 = 0, x2 = 0;
        for (int64_t i = 0; i < n; ++i) {
            err2 += (back[i] - x[i]) * double(back[i] - x[i]);
            x2 += x[i] * double(x[i]);
        }
        const double rel = std::sqrt(err2 / x2);
        qInfo("%s round-trip relative RMS error %.5f (tolerance %.5f)", t->name, rel, tolerance);
        QVERIFY2(rel <= tolerance, qPrintable(QStringLiteral("relative RMS error %1").arg(rel)));
        // the fast activation quantizer writes the same bytes (on this random
        // data there are no rounding ties; q8ActivationTies covers those)
        if (t->quantizeActivation) {
            PathGuard guard;
            for (CpuPath path : supportedPaths()) {
                QVERIFY(setCpuPath(path));
                std::vector<uint8_t> q2(q.size(), 0xAA);
                typeTraits(type)->quantizeActivation(x.data(), q2.data(), n);
                QVERIFY2(q2 == q, cpuPathName(path));
            }
        }
    }

    // vecDot(w, quantize(x)) against dequantize(w) . dequantize(quantize(x))
    // (only float rounding apart) and against dequantize(w) . x (activation
    // quantization apart; ggml's test-quantize-fns allows 0.02 there too).
    void vecDotMatchesDequantized_data() { addTypeRows(kWeightTypes, std::size(kWeightTypes)); }
    void vecDotMatchesDequantized()
    {
        QFETCH(GgmlType, type);
        constexpr double kActivationQuantTolerance = 0.02; // of sum|w*x|
        PathGuard guard;
        Rng rng(4242 + static_cast<int>(type));
        const int64_t n = 16 * 256;
        const TypeTraits *t = typeTraits(type);
        const Encoded w = encodeRandom(type, n / t->blockSize, rng);
        std::normal_distribution<float> nd(0.0f, 1.0f);
        std::vector<float> x(static_cast<size_t>(n));
        for (float &v : x) v = nd(rng);
        const TypeTraits *p = typeTraits(t->vecDotType);
        std::vector<uint8_t> xq(static_cast<size_t>(n / p->blockSize) * p->typeSize);
        p->quantize(x.data(), xq.data(), n);
        std::vector<float> xBack(static_cast<size_t>(n)), wBack(static_cast<size_t>(n));
        p->dequantize(xq.data(), xBack.data(), n);
        t->dequantize(w.bytes.data(), wBack.data(), n);
        double viaDequant = 0, exact = 0, sumAbs = 0, sumAbsExact = 0;
        for (int64_t i = 0; i < n; ++i) {
            viaDequant += double(wBack[i]) * xBack[i];
            sumAbs += std::fabs(double(wBack[i]) * xBack[i]);
            exact += double(wBack[i]) * x[i];
            sumAbsExact += std::fabs(double(wBack[i]) * x[i]);
        }
        for (CpuPath path : supportedPaths()) {
            QVERIFY(setCpuPath(path));
            float got = NAN;
            typeTraits(type)->vecDot(n, &got, w.bytes.data(), xq.data());
            QVERIFY2(std::fabs(got - viaDequant) <= kDotRelTolerance * sumAbs,
                     qPrintable(QStringLiteral("%1: %2 vs %3").arg(cpuPathName(path)).arg(got).arg(viaDequant)));
            QVERIFY2(std::fabs(got - exact) <= kActivationQuantTolerance * sumAbsExact,
                     qPrintable(QStringLiteral("%1: %2 vs unquantized %3").arg(cpuPathName(path)).arg(got).arg(exact)));
        }
    }

    // Every SIMD path against the scalar twin on random blocks, several
    // lengths (bit for bit where the type follows the reference's recipe on
    // every path, else within rounding), and the x86 paths against each
    // other bit for bit.
    void simdMatchesScalar_data() { addTypeRows(kWeightTypes, std::size(kWeightTypes)); }
    void simdMatchesScalar()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        const std::vector<CpuPath> paths = supportedPaths();
        if (paths.size() < 2)
            QSKIP("this CPU offers only the scalar path");
        Rng rng(777 + static_cast<int>(type));
        for (int64_t n : {int64_t(256), int64_t(512), int64_t(1280), int64_t(4096)}) {
            QVERIFY(setCpuPath(CpuPath::CPU_PATH_SCALAR));
            const TypeTraits *t = typeTraits(type);
            const Encoded w = encodeRandom(type, n / t->blockSize, rng);
            const Encoded a = encodeActivation(t->vecDotType, n, rng);
            float scalar = NAN, scalarGemm = NAN;
            t->vecDot(n, &scalar, w.bytes.data(), a.bytes.data());
            t->vecDotGemm(n, &scalarGemm, w.bytes.data(), a.bytes.data());
            double sumAbs = 0;
            dotExpected(w.values, a.values, &sumAbs);
            float x86 = NAN, x86Gemm = NAN;   // the first x86 path's: the others give its bits
            for (CpuPath path : paths) {
                QVERIFY(setCpuPath(path));
                float got = NAN, gotGemm = NAN;
                typeTraits(type)->vecDot(n, &got, w.bytes.data(), a.bytes.data());
                typeTraits(type)->vecDotGemm(n, &gotGemm, w.bytes.data(), a.bytes.data());
                if (path != CpuPath::CPU_PATH_SCALAR) {
                    if (std::isnan(x86)) {
                        x86 = got;
                        x86Gemm = gotGemm;
                    }
                    QVERIFY2(std::memcmp(&got, &x86, 4) == 0 && std::memcmp(&gotGemm, &x86Gemm, 4) == 0,
                             qPrintable(QStringLiteral("%1 n=%2: %3 / %4, the first x86 path %5 / %6").arg(cpuPathName(path)).arg(n)
                                            .arg(got, 0, 'g', 9).arg(gotGemm, 0, 'g', 9).arg(x86, 0, 'g', 9).arg(x86Gemm, 0, 'g', 9)));
                }
                if (followsRecipe(type)) {   // the same float steps: bit for bit
                    QVERIFY2(std::memcmp(&got, &scalar, 4) == 0 && std::memcmp(&gotGemm, &scalarGemm, 4) == 0,
                             qPrintable(QStringLiteral("%1 n=%2: %3 / %4, scalar %5 / %6").arg(cpuPathName(path)).arg(n)
                                            .arg(got, 0, 'g', 9).arg(gotGemm, 0, 'g', 9).arg(scalar, 0, 'g', 9)
                                            .arg(scalarGemm, 0, 'g', 9)));
                    continue;
                }
                QVERIFY2(std::fabs(got - scalar) <= kSimdRelTolerance * sumAbs,
                         qPrintable(QStringLiteral("%1 n=%2: %3, scalar %4").arg(cpuPathName(path)).arg(n)
                                        .arg(got).arg(scalar)));
            }
        }
    }

    // vecDotMulti (one weight row, several activation rows) gives exactly the
    // vecDot result for every column, on every path, for any column count.
    void vecDotMultiMatchesVecDot_data() { addTypeRows(kWeightTypes, std::size(kWeightTypes)); }
    void vecDotMultiMatchesVecDot()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Rng rng(31 + static_cast<int>(type));
        const int64_t n = 3 * 256 + (ggmlTypeInfo(type)->blockSize == 32 ? 32 : 0); // odd block count too
        constexpr int kColumns = 7;
        for (CpuPath path : supportedPaths()) {
            QVERIFY(setCpuPath(path));
            const TypeTraits *t = typeTraits(type);
            QVERIFY(t->vecDotMulti);
            const int64_t nCheck = n % ggmlTypeInfo(t->vecDotType)->blockSize == 0 ? n : 4 * 256;
            const Encoded w = encodeRandom(type, nCheck / t->blockSize, rng);
            std::vector<Encoded> cols;
            for (int j = 0; j < kColumns; ++j)
                cols.push_back(encodeActivation(t->vecDotType, nCheck, rng));
            const size_t rowBytes = cols[0].bytes.size();
            const size_t stride = rowBytes + 64; // rows need not be adjacent
            std::vector<uint8_t> act(stride * kColumns);
            for (int j = 0; j < kColumns; ++j)
                std::memcpy(act.data() + j * stride, cols[j].bytes.data(), rowBytes);
            QVERIFY(t->vecDotMultiGemm && t->vecDotGemm);
            for (int form = 0; form < 2; ++form)
                for (int ny = 1; ny <= kColumns; ++ny) {
                    std::vector<float> multi(static_cast<size_t>(ny), NAN);
                    (form ? t->vecDotMultiGemm : t->vecDotMulti)(nCheck, multi.data(), w.bytes.data(), act.data(), stride, ny);
                    for (int j = 0; j < ny; ++j) {
                        float single = NAN;
                        (form ? t->vecDotGemm : t->vecDot)(nCheck, &single, w.bytes.data(), act.data() + j * stride);
                        QVERIFY2(std::memcmp(&single, &multi[j], sizeof(float)) == 0,
                                 qPrintable(QStringLiteral("%1 form %2 ny=%3 column %4: multi %5, single %6")
                                                .arg(cpuPathName(path)).arg(form).arg(ny).arg(j).arg(multi[j]).arg(single)));
                    }
                }
        }
    }

    // Every path's dot products against the reference's recipe (above),
    // both forms, on realistic rows of several lengths (whole and partial
    // 64-element steps for the float types). Where a type has two forms the
    // rows are checked to tell them apart: the per-64 (Q4_K), per-128 (Q2_K)
    // and per-256 accumulations, tinyBLAS and vec_dot, round differently.
    void floatOrderRecipes_data() { addTypeRows(kRecipeTypes, std::size(kRecipeTypes)); }
    void floatOrderRecipes()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Rng rng(2026 + static_cast<int>(type));
        const bool twoForms = gemmFormTokens(type, 4096, 8) > 0;
        int formsDiffer = 0, rowsChecked = 0;
        const bool floatType = type == GgmlType::GGML_TYPE_F32 || type == GgmlType::GGML_TYPE_F16 || type == GgmlType::GGML_TYPE_BF16;
        std::vector<int64_t> lengths = {256, 2048, 4096, 11008};
        if (floatType)
            lengths = {32, 96, 160, 2048, 2080};
        for (int rep = 0; rep < 6; ++rep)
            for (int64_t n : lengths) {
                QVERIFY(setCpuPath(CpuPath::CPU_PATH_SCALAR));
                std::vector<uint8_t> w, a;
                realisticRows(type, n, rng, &w, &a);
                const float one = recipe(type, n, w.data(), a.data(), false);
                const float batch = twoForms ? recipe(type, n, w.data(), a.data(), true) : one;
                formsDiffer += std::memcmp(&one, &batch, 4) != 0;
                ++rowsChecked;
                for (CpuPath path : supportedPaths()) {
                    QVERIFY(setCpuPath(path));
                    const TypeTraits *t = typeTraits(type);
                    float got = NAN, gotGemm = NAN;
                    t->vecDot(n, &got, w.data(), a.data());
                    t->vecDotGemm(n, &gotGemm, w.data(), a.data());
                    QVERIFY2(std::memcmp(&got, &one, 4) == 0,
                             qPrintable(QStringLiteral("%1 n=%2 one-token form: %3, recipe %4").arg(cpuPathName(path))
                                            .arg(n).arg(got, 0, 'g', 9).arg(one, 0, 'g', 9)));
                    if (twoForms || gemmFormTokens(type, n, 8) == 0)
                        QVERIFY2(std::memcmp(&gotGemm, twoForms ? &batch : &one, 4) == 0 || (floatType && n % 16 != 0),
                                 qPrintable(QStringLiteral("%1 n=%2 batch form: %3, recipe %4").arg(cpuPathName(path))
                                                .arg(n).arg(gotGemm, 0, 'g', 9).arg(batch, 0, 'g', 9)));
                }
            }
        QVERIFY(rowsChecked > 0);
        if (twoForms)
            QVERIFY2(formsDiffer > 0, "no row tells the batch form from the one-token form");
    }

    // Which activation rows of a multiply take the batch form.
    void gemmFormRows()
    {
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_Q4_K, 256, 1), int64_t(0));
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_Q4_K, 256, 7), int64_t(4));
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_Q4_K, 256, 8), int64_t(8));
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_Q4_K, 256, 3), int64_t(0));
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_Q2_K, 256, 9), int64_t(8));
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_Q4_K, 256, 9, true), int64_t(0));   // expert rows
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_F32, 64, 2), int64_t(2));
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_F32, 40, 5), int64_t(0));             // K % 16 != 0: vec_dot
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_F32, 64, 1), int64_t(0));
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_F16, 48, 3), int64_t(3));
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_BF16, 48, 3), int64_t(0));            // K % 32 != 0
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_BF16, 64, 3), int64_t(3));
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_Q8_0, 64, 8), int64_t(0));
        QCOMPARE(gemmFormTokens(GgmlType::GGML_TYPE_Q6_K, 256, 8), int64_t(0));
    }

    // MXFP4 scales at the ends of E8M0 and every code: x = E2M1(q) * 2^(e - 127),
    // worked out here from the two formats' definitions. e = 0 and 1 are
    // float subnormals (2^-128, 2^-127 for the halved scale), e = 255 is 2^128
    // (code 6 and 12 then overflow to infinity, as in the reference); code 8,
    // E2M1's -0, decodes to +0 (the reference's table holds 0).
    void mxfp4ScaleEdges_data()
    {
        QTest::addColumn<int>("e");
        for (int e : {0, 1, 2, 3, 100, 126, 127, 128, 129, 200, 253, 254, 255})
            QTest::addRow("e=%d", e) << e;
    }
    void mxfp4ScaleEdges()
    {
        QFETCH(int, e);
        BlockMXFP4 b[2] = {};
        for (int blk = 0; blk < 2; ++blk) {
            b[blk].e = static_cast<uint8_t>(e);
            for (int j = 0; j < 16; ++j)   // block 0: codes 0..15 in the low nibbles, 15..0 in the high ones
                b[blk].qs[j] = static_cast<uint8_t>(blk == 0 ? (j | ((15 - j) << 4)) : ((j / 2) | ((8 + j / 2) << 4)));
        }
        float out[64];
        typeTraits(GgmlType::GGML_TYPE_MXFP4)->dequantize(b, out, 64);
        for (int i = 0; i < 64; ++i) {
            const int blk = i / 32, j = i % 32;
            const int byte = b[blk].qs[j % 16], q = j < 16 ? byte & 15 : byte >> 4;
            const float expected = static_cast<float>(mxfp4Value(e, q));   // overflow: inf, as float math gives
            QVERIFY2(std::memcmp(&out[i], &expected, 4) == 0 || (q == 8 && out[i] == 0.0f && !std::signbit(out[i])),
                     qPrintable(QStringLiteral("e %1 code %2: %3, expected %4").arg(e).arg(q).arg(out[i]).arg(expected)));
            if (q == 8)
                QVERIFY(!std::signbit(out[i]));
        }
        // The dot product's scale: one block of code 2 (value 1) against 32 ones at d = 1.
        BlockMXFP4 one = {};
        one.e = static_cast<uint8_t>(e);
        std::memset(one.qs, 0x22, sizeof one.qs);
        BlockQ8_0 y = {};
        y.d = exactHalf(1.0);
        for (int j = 0; j < 32; ++j)
            y.qs[j] = 1;
        PathGuard guard;
        for (CpuPath path : supportedPaths()) {
            QVERIFY(setCpuPath(path));
            float got = NAN;
            typeTraits(GgmlType::GGML_TYPE_MXFP4)->vecDot(32, &got, &one, &y);
            // 32 products of 2 (the doubled code) times the halved scale 2^(e - 128)
            QCOMPARE(got, static_cast<float>(64.0 * std::ldexp(1.0, e - 128)));
        }
    }

    // The scalar twin follows the reference's repacked float order on a case
    // small enough to follow by hand: three blocks, sum = fma(low-half sum +
    // high-half sum, fp16(y.d) * 2^(e-128), sum).
    void mxfp4DotFloatOrder()
    {
        BlockMXFP4 x[3] = {};
        BlockQ8_0 y[3] = {};
        const int es[3] = {125, 131, 119};
        const double yd[3] = {0.3125, -0.0078125, 1.75};
        float expected = 0.0f;
        for (int b = 0; b < 3; ++b) {
            x[b].e = static_cast<uint8_t>(es[b]);
            y[b].d = exactHalf(yd[b]);
            int sum = 0;
            for (int j = 0; j < 32; ++j) {
                const int q = (7 * j + 3 * b) % 16;
                x[b].qs[j % 16] |= static_cast<uint8_t>(j < 16 ? q : q << 4);
                y[b].qs[j] = static_cast<int8_t>((j * 37 + b * 11) % 255 - 127);
                sum += static_cast<int>(std::lround(2 * e2m1Value(q))) * y[b].qs[j];
            }
            const float d = static_cast<float>(yd[b]) * static_cast<float>(std::ldexp(1.0, es[b] - 128));
            expected = std::fma(static_cast<float>(sum), d, expected);
        }
        float got = NAN;
        generic::vecDotMXFP4Q8_0(96, &got, x, y);
        QCOMPARE(got, expected);
    }

    // Every path keeps the float sum where the reference's repacked kernel
    // (the q4_b32 form) keeps it: one chain, per block
    // acc = fma(float(isum), 2^(e-128) * fp16(y.d), acc). Emulated here step by step.
    void mxfp4RepackFloatOrder()
    {
        PathGuard guard;
        Rng rng(2718);
        for (int64_t nb : {int64_t(1), int64_t(2), int64_t(3), int64_t(8), int64_t(90), int64_t(91)}) {
            const int64_t n = nb * 32;
            const Encoded w = encodeRandom(GgmlType::GGML_TYPE_MXFP4, nb, rng);
            const Encoded a = encodeActivation(GgmlType::GGML_TYPE_Q8_0, n, rng);
            const auto *x = reinterpret_cast<const BlockMXFP4 *>(w.bytes.data());
            const auto *y = reinterpret_cast<const BlockQ8_0 *>(a.bytes.data());
            float expected = 0.0f;
            for (int64_t ib = 0; ib < nb; ++ib) {
                int s = 0;
                for (int j = 0; j < 32; ++j) {
                    const int byte = x[ib].qs[j % 16], q = j < 16 ? byte & 15 : byte >> 4;
                    s += static_cast<int>(std::lround(2 * e2m1Value(q))) * y[ib].qs[j];
                }
                const float d = static_cast<float>(std::ldexp(1.0, x[ib].e - 128)) * static_cast<float>(halfValue(y[ib].d));
                expected = std::fma(static_cast<float>(s), d, expected);
            }
            for (CpuPath path : supportedPaths()) {
                if (!setCpuPath(path))
                    continue;
                float got = NAN;
                typeTraits(GgmlType::GGML_TYPE_MXFP4)->vecDot(n, &got, w.bytes.data(), a.bytes.data());
                QVERIFY2(std::memcmp(&got, &expected, 4) == 0,
                         qPrintable(QStringLiteral("%1, %2 blocks: %3, expected %4").arg(cpuPathName(path)).arg(nb)
                                        .arg(got, 0, 'g', 9).arg(expected, 0, 'g', 9)));
            }
        }
    }

    // The reference quantizer on hand-picked blocks: e = floor(log2(amax)) - 2
    // + 127, each value to the nearest of the 16 codes times 2^(e - 128), the
    // first code on a tie (so 0, never code 8's -0).
    void quantizeMXFP4Exact()
    {
        const TypeTraits *t = typeTraits(GgmlType::GGML_TYPE_MXFP4);
        QVERIFY(t->quantize);
        float x[32] = {};
        // amax 6: floor(log2 6) = 2, e = 127, codes step in units of 2^-1
        const float vals[] = {6.0f, -6.0f, 0.25f, -0.25f, 5.0f, -5.0f, 0.75f, 1.2f, -2.9f, 3.5f, 0.0f, -0.0f};
        const int codes[] = {7, 15, 0, 0, 6, 14, 1, 2, 13, 5, 0, 0};
        // 0.25: |0 - .25| = |.5 - .25|, first code wins; 5: between 4 (code 6)
        // and 6 (code 7), first wins; 0.75 between 0.5 and 1: first wins (code 1);
        // 1.2 -> 1 (code 2); -2.9 -> -3 (code 13); 3.5 between 3 and 4 -> 3 (code 5)
        for (size_t i = 0; i < std::size(vals); ++i)
            x[i] = vals[i];
        BlockMXFP4 b;
        t->quantize(x, &b, 32);
        QCOMPARE(static_cast<int>(b.e), 127);
        for (size_t i = 0; i < std::size(vals); ++i) {
            const int q = i < 16 ? b.qs[i] & 15 : b.qs[i - 16] >> 4;
            QVERIFY2(q == codes[i], qPrintable(QStringLiteral("%1 -> code %2, expected %3").arg(vals[i]).arg(q).arg(codes[i])));
        }
        // amax exactly 2^k: floor(log2) = k; amax 8 -> e = 128, 7.99 -> 127
        for (auto [amax, e] : {std::pair{8.0f, 128}, std::pair{7.99f, 127}, std::pair{0.0078125f, 118}, std::pair{1e30f, 224}}) {
            float y[32] = {};
            y[17] = -amax;
            t->quantize(y, &b, 32);
            QCOMPARE(static_cast<int>(b.e), e);
        }
        // all zero: e = 0 and every code 0
        float zeros[32] = {};
        t->quantize(zeros, &b, 32);
        QCOMPARE(static_cast<int>(b.e), 0);
        for (uint8_t q : b.qs)
            QCOMPARE(static_cast<int>(q), 0);
        // amax below 2^-125: floor(log2) - 2 + 127 < 0 wraps to a byte as the
        // reference's x86 build does (e = 255 for -1); the codes are then all
        // 0, an error below 2^-125.
        float tiny[32] = {};
        tiny[3] = std::ldexp(1.0f, -126);
        t->quantize(tiny, &b, 32);
        QCOMPARE(static_cast<int>(b.e), 255);
        for (uint8_t q : b.qs)
            QCOMPARE(static_cast<int>(q), 0);
    }

    // On random rows each block's exponent is floor(log2(amax)) + 125 and each
    // code a nearest one, so every element is within half the gap between its
    // neighbouring grid values (or beyond the largest, within amax - 6 * 2^(e-127)).
    void quantizeMXFP4Nearest()
    {
        Rng rng(99);
        std::normal_distribution<float> nd(0.0f, 1.0f);
        const int64_t n = 64 * 32;
        std::vector<float> x(static_cast<size_t>(n));
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = nd(rng) * std::ldexp(1.0f, static_cast<int>(i / 32) % 20 - 10);   // scales 2^-10 .. 2^9
        std::vector<BlockMXFP4> b(static_cast<size_t>(n / 32));
        typeTraits(GgmlType::GGML_TYPE_MXFP4)->quantize(x.data(), b.data(), n);
        for (int64_t ib = 0; ib < n / 32; ++ib) {
            double amax = 0;
            for (int j = 0; j < 32; ++j)
                amax = std::max(amax, std::fabs(double(x[static_cast<size_t>(32 * ib + j)])));
            int exp2 = 0;
            std::frexp(amax, &exp2);   // amax = m 2^exp2, m in [0.5, 1): floor(log2 amax) = exp2 - 1
            QCOMPARE(static_cast<int>(b[static_cast<size_t>(ib)].e), exp2 - 1 + 125);
            for (int j = 0; j < 32; ++j) {
                const double v = x[static_cast<size_t>(32 * ib + j)];
                const int byte = b[static_cast<size_t>(ib)].qs[j % 16], q = j < 16 ? byte & 15 : byte >> 4;
                double best = INFINITY;
                for (int c = 0; c < 16; ++c)
                    best = std::min(best, std::fabs(mxfp4Value(b[static_cast<size_t>(ib)].e, c) - v));
                QVERIFY2(std::fabs(mxfp4Value(b[static_cast<size_t>(ib)].e, q) - v) <= best,
                         qPrintable(QStringLiteral("block %1 element %2: %3 -> code %4").arg(ib).arg(j).arg(v).arg(q)));
            }
        }
    }

    // gpt-oss-MXFP4.gguf was quantized by the reference's llama-quantize from
    // N(0, 0.02) weights: its MXFP4 tensors dequantize to that spread, and
    // their blocks always hold a code of magnitude 8 or 12 (amax / 2^(e-128)
    // is in [8, 16)), so quantizing the dequantized values again must give the
    // file's bytes back, block for block.
    void mxfp4FileRequantizes()
    {
        const QString file = QStringLiteral("models/synthetic-2026/gpt-oss-MXFP4.gguf");
        BURROW_REQUIRE_SHARED(file);
        auto opened = gguf::GgufFile::open(burrow::test::sharedPath(file).toStdString());
        QVERIFY2(opened.isOk(), opened.message().c_str());
        const TypeTraits *t = typeTraits(GgmlType::GGML_TYPE_MXFP4);
        int compared = 0;
        for (const gguf::TensorInfo &ti : opened.value()->tensors()) {
            if (ti.type != GgmlType::GGML_TYPE_MXFP4)
                continue;
            std::vector<float> values(static_cast<size_t>(ti.nElements));
            t->dequantize(ti.data, values.data(), ti.nElements);
            double sum = 0, sum2 = 0;
            for (float v : values) {
                QVERIFY(std::isfinite(v));
                sum += v;
                sum2 += double(v) * v;
            }
            const double mean = sum / values.size(), sd = std::sqrt(sum2 / values.size() - mean * mean);
            QVERIFY2(std::fabs(mean) < 0.004 && sd > 0.015 && sd < 0.025,
                     qPrintable(QStringLiteral("%1: mean %2, std %3").arg(QLatin1String(ti.name.data(), int(ti.name.size())))
                                    .arg(mean).arg(sd)));
            std::vector<uint8_t> again(ti.nBytes);
            t->quantize(values.data(), again.data(), ti.nElements);
            QVERIFY2(std::memcmp(again.data(), ti.data, ti.nBytes) == 0,
                     qPrintable(QLatin1String(ti.name.data(), int(ti.name.size()))));
            ++compared;
        }
        QVERIFY(compared > 0);
    }

    void cpuPathNames()
    {
        for (CpuPath p : {CpuPath::CPU_PATH_SCALAR, CpuPath::CPU_PATH_AVX2, CpuPath::CPU_PATH_AVX512}) {
            CpuPath back;
            QVERIFY(cpuPathFromName(cpuPathName(p), &back));
            QCOMPARE(back, p);
        }
        CpuPath unused;
        QVERIFY(!cpuPathFromName("sse9", &unused));
        QVERIFY(cpuPathSupported(CpuPath::CPU_PATH_SCALAR));
        QVERIFY(cpuPathSupported(bestCpuPath()));
        qInfo("best CPU path: %s (active: %s)", cpuPathName(bestCpuPath()), cpuPathName(activeCpuPath()));
    }

    // The synthetic models were quantized by the reference engine (llama-quantize,
    // no importance matrix) from llama-f32.gguf: the reference quantizers here
    // must reproduce every tensor of a type they cover byte for byte.
    void quantizersReproduceReferenceFiles_data()
    {
        QTest::addColumn<QString>("file");
        for (const char *name : {"F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q6_K", "Q4_K_M", "Q5_K_M"})
            QTest::newRow(name) << QStringLiteral("models/synthetic/llama-%1.gguf").arg(QLatin1String(name));
    }
    void quantizersReproduceReferenceFiles()
    {
        QFETCH(QString, file);
        const QString source = QStringLiteral("models/synthetic/llama-f32.gguf");
        BURROW_REQUIRE_SHARED(source);
        BURROW_REQUIRE_SHARED(file);
        auto f32 = gguf::GgufFile::open(burrow::test::sharedPath(source).toStdString());
        auto quantized = gguf::GgufFile::open(burrow::test::sharedPath(file).toStdString());
        QVERIFY2(f32.isOk(), f32.message().c_str());
        QVERIFY2(quantized.isOk(), quantized.message().c_str());
        int compared = 0;
        for (const gguf::TensorInfo &ti : quantized.value()->tensors()) {
            const TypeTraits *t = typeTraits(ti.type);
            if (ti.type == GgmlType::GGML_TYPE_F32 || !t || !t->quantize)
                continue;
            const gguf::TensorInfo *src = f32.value()->tensor(ti.name);
            QVERIFY(src && src->type == GgmlType::GGML_TYPE_F32 && src->nElements == ti.nElements);
            const int64_t rowLength = ti.ne[0];
            const int64_t rows = ti.nElements / rowLength;
            const size_t rowBytes = ti.nBytes / static_cast<size_t>(rows);
            std::vector<uint8_t> out(ti.nBytes);
            for (int64_t r = 0; r < rows; ++r)
                t->quantize(reinterpret_cast<const float *>(src->data) + r * rowLength, out.data() + r * rowBytes,
                            rowLength);
            size_t firstDiff = out.size();
            for (size_t i = 0; i < out.size() && firstDiff == out.size(); ++i)
                if (out[i] != ti.data[i])
                    firstDiff = i;
            QVERIFY2(firstDiff == out.size(),
                     qPrintable(QStringLiteral("%1 (%2): first differing byte at %3 of %4")
                                    .arg(QLatin1String(ti.name.data(), int(ti.name.size()))).arg(t->name)
                                    .arg(firstDiff).arg(out.size())));
            ++compared;
        }
        QVERIFY(compared > 0);
    }

    // Tensors of the synthetic models (weights drawn from N(0, 0.02)) dequantize
    // to values with that spread, for every weight type the files use.
    void syntheticModelTensors_data()
    {
        QTest::addColumn<QString>("file");
        for (const char *name : {"f32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K_M",
                                 "Q4_K_M", "Q5_K_M", "Q6_K", "IQ4_NL", "IQ4_XS"})
            QTest::newRow(name) << QStringLiteral("models/synthetic/llama-%1.gguf").arg(QLatin1String(name));
    }
    void syntheticModelTensors()
    {
        QFETCH(QString, file);
        BURROW_REQUIRE_SHARED(file);
        auto opened = gguf::GgufFile::open(burrow::test::sharedPath(file).toStdString());
        QVERIFY2(opened.isOk(), opened.message().c_str());
        const gguf::GgufFile &g = *opened.value();
        int checked = 0;
        for (const gguf::TensorInfo &ti : g.tensors()) {
            if (ti.nDims < 2 || ti.name.find("norm") != std::string_view::npos)
                continue;
            const Status ok = checkWeightType(ti.type, ti.name);
            QVERIFY2(ok.isOk(), ok.message().c_str());
            const TypeTraits *t = typeTraits(ti.type);
            std::vector<float> values(static_cast<size_t>(ti.nElements));
            t->dequantize(ti.data, values.data(), ti.nElements);
            double s = 0, s2 = 0;
            for (float v : values) {
                QVERIFY(std::isfinite(v));
                s += v;
                s2 += double(v) * v;
            }
            const double mean = s / values.size();
            const double sd = std::sqrt(s2 / values.size() - mean * mean);
            // 2-bit and 3-bit types shrink or widen the spread most; 25% covers them.
            QVERIFY2(std::fabs(mean) < 0.004, qPrintable(QStringLiteral("%1 (%2): mean %3")
                     .arg(QLatin1String(ti.name.data(), int(ti.name.size()))).arg(t->name).arg(mean)));
            QVERIFY2(sd > 0.015 && sd < 0.025, qPrintable(QStringLiteral("%1 (%2): std %3")
                     .arg(QLatin1String(ti.name.data(), int(ti.name.size()))).arg(t->name).arg(sd)));
            ++checked;
        }
        QVERIFY(checked > 0);
    }
};

QTEST_MAIN(TestQuant)
#include "tst_quant.moc"
