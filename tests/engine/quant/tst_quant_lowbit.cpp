// The 1- and 2-bit types (Q1_0, Q2_0, TQ1_0, TQ2_0) and NVFP4:
//   - trait rows (block geometry, the reference's dot partner);
//   - UE4M3 scale bytes decoded and encoded as the reference's
//     ggml_ue4m3_to_fp32 / ggml_fp32_to_ue4m3, every byte value against the
//     format's definition written out here;
//   - dequantization of blocks this test packs itself from the documented
//     layouts, against the values it packed (exact: NVFP4 against the exact
//     float value of E2M1 code x UE4M3 scale), on every path;
//   - dot products on every path against the reference's float steps written
//     out here from its x86 kernels (bit for bit), against the exact dot
//     product of the values, and every SIMD kernel (one and several columns)
//     against the scalar twin bit for bit, including codes the quantizers
//     never write (Q2_0 / TQ2_0 code 3, every NVFP4 scale byte);
//   - the quantizers on hand-worked cases (scale rules, rounding ties, the
//     base-3 packing of TQ1_0) and on non-finite input (no crash);
//   - the ../shared fixtures: every TQ1_0, TQ2_0, Q1_0 and Q2_0 tensor
//     decodes and requantizes to its own bytes (the reference's quantizer is
//     a fixed point on its own output for these types).
#include "common/ggml_types.h"
#include "gguf/gguf_reader.h"
#include "quant/cpu_features.h"
#include "quant/generic/lowbit_kernels.h"
#include "quant/lowbit_blocks.h"
#include "quant/quant_traits.h"
#include "test_support.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace burrow;
using namespace burrow::quant;

Q_DECLARE_METATYPE(burrow::GgmlType)

namespace {

using Rng = std::mt19937;
using T = GgmlType;

const GgmlType kTypes[] = {T::GGML_TYPE_Q1_0, T::GGML_TYPE_Q2_0, T::GGML_TYPE_TQ1_0, T::GGML_TYPE_TQ2_0,
                           T::GGML_TYPE_NVFP4};

void addTypeRows()
{
    QTest::addColumn<GgmlType>("type");
    for (GgmlType t : kTypes)
        QTest::newRow(ggmlTypeName(t).c_str()) << t;
}

int randInt(Rng &rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

std::vector<CpuPath> supportedPaths()
{
    std::vector<CpuPath> paths;
    for (CpuPath p : {CpuPath::CPU_PATH_SCALAR, CpuPath::CPU_PATH_AVX2, CpuPath::CPU_PATH_AVX512})
        if (cpuPathSupported(p))
            paths.push_back(p);
    return paths;
}

struct PathGuard {
    CpuPath saved = activeCpuPath();
    ~PathGuard() { setCpuPath(saved); }
};

// --- test-side codecs, from the format definitions -------------------------

// IEEE half bits of +-(1 + j/8) 2^-k (exact), and its value.
uint16_t halfBits(int sign, int k, int j) { return static_cast<uint16_t>((sign << 15) | ((15 - k) << 10) | (j << 7)); }
double halfValue(uint16_t h)
{
    const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    const double v = exp == 0 ? std::ldexp(mant, -24) : std::ldexp(1024 + mant, exp - 25);
    return (h & 0x8000) ? -v : v;
}

// E2M1 (OCP microscaling): sign bit 3, exponent bits 2-1 (bias 1), mantissa bit 0.
double e2m1(int q)
{
    const int e = (q >> 1) & 3, m = q & 1;
    const double mag = e == 0 ? 0.5 * m : (1.0 + 0.5 * m) * std::ldexp(1.0, e - 1);
    return (q & 8) ? -mag : mag;
}

// UE4M3 as the reference reads a scale byte: exponent bits 6-3 (bias 7),
// mantissa bits 2-0, subnormal at exponent 0; bit 7 ignored; 0x7f (the
// E4M3 NaN code) reads as 0.
double ue4m3(int b)
{
    if (b == 0x7f)
        return 0;
    const int e = (b >> 3) & 15, m = b & 7;
    return e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
}

struct Encoded {
    std::vector<uint8_t> bytes;
    std::vector<double> values;
};

void putU16(uint8_t *p, uint16_t v) { std::memcpy(p, &v, 2); }

// `nBlocks` random blocks with every code the layout can hold (`allCodes`:
// also Q2_0 / TQ2_0 code 3 and every NVFP4 scale byte).
Encoded encodeRandom(GgmlType type, int64_t nBlocks, Rng &rng, bool allCodes = true)
{
    const GgmlTypeInfo *info = ggmlTypeInfo(type);
    Encoded e;
    e.bytes.assign(static_cast<size_t>(nBlocks) * info->typeSize, 0);
    e.values.resize(static_cast<size_t>(nBlocks * info->blockSize));
    for (int64_t b = 0; b < nBlocks; ++b) {
        uint8_t *p = e.bytes.data() + b * info->typeSize;
        double *v = e.values.data() + b * info->blockSize;
        const uint16_t dh = halfBits(randInt(rng, 0, 1), randInt(rng, 3, 9), randInt(rng, 0, 7));
        const double d = halfValue(dh);
        switch (type) {
        case T::GGML_TYPE_Q1_0:   // d | qs[16]: bit j % 8 of byte j / 8
            putU16(p, dh);
            for (int j = 0; j < 128; ++j) {
                const int bit = randInt(rng, 0, 1);
                p[2 + j / 8] |= static_cast<uint8_t>(bit << (j % 8));
                v[j] = bit ? d : -d;
            }
            break;
        case T::GGML_TYPE_Q2_0:   // d | qs[16]: 2 bits at 2 (j % 4) of byte j / 4
            putU16(p, dh);
            for (int j = 0; j < 64; ++j) {
                const int q = randInt(rng, 0, allCodes ? 3 : 2);
                p[2 + j / 4] |= static_cast<uint8_t>(q << (2 * (j % 4)));
                v[j] = (q - 1) * d;
            }
            break;
        case T::GGML_TYPE_TQ2_0:  // qs[64] | d: element 128h + 32l + m at bits 2l of byte 32h + m
            putU16(p + 64, dh);
            for (int j = 0; j < 256; ++j) {
                const int q = randInt(rng, 0, allCodes ? 3 : 2);
                p[32 * (j / 128) + j % 32] |= static_cast<uint8_t>(q << (2 * ((j % 128) / 32)));
                v[j] = (q - 1) * d;
            }
            break;
        case T::GGML_TYPE_TQ1_0: {  // qs[48] | qh[4] | d; five trits a byte, ceil(t * 256 / 243)
            putU16(p + 52, dh);
            int trit[256];
            for (int &t : trit)
                t = randInt(rng, 0, 2);
            // byte k of the 48 holds elements (k < 32) k + 32n, (k >= 32) 160 + (k - 32) + 16n;
            // qh[k] elements 240 + k + 4n (n < 4), then a zero trit
            const auto pack = [](const int *t5) {
                int q = 0;
                for (int n = 0; n < 5; ++n)
                    q = q * 3 + t5[n];
                return static_cast<uint8_t>((q * 256 + 242) / 243);
            };
            for (int k = 0; k < 48; ++k) {
                int t5[5];
                for (int n = 0; n < 5; ++n)
                    t5[n] = trit[k < 32 ? k + 32 * n : 160 + (k - 32) + 16 * n];
                p[k] = pack(t5);
            }
            for (int k = 0; k < 4; ++k) {
                const int t5[5] = {trit[240 + k], trit[244 + k], trit[248 + k], trit[252 + k], 0};
                p[48 + k] = pack(t5);
            }
            for (int j = 0; j < 256; ++j)
                v[j] = (trit[j] - 1) * d;
            break;
        }
        case T::GGML_TYPE_NVFP4: {  // d[4] scale bytes | qs[32]
            for (int s = 0; s < 4; ++s) {
                const int sb = allCodes ? randInt(rng, 0, 255) : randInt(rng, 0x20, 0x50);
                p[s] = static_cast<uint8_t>(sb);
                for (int j = 0; j < 16; ++j) {
                    const int q = randInt(rng, 0, 15);
                    p[4 + 8 * s + j % 8] |= static_cast<uint8_t>(j < 8 ? q : q << 4);
                    v[16 * s + j] = e2m1(q) * ue4m3(sb);
                }
            }
            break;
        }
        default: qFatal("encodeRandom: %s", ggmlTypeName(type).c_str());
        }
    }
    return e;
}

// Activation rows of the partner with codes in [-127, 127]: Q8_0 (d | qs[32])
// or Q8_K (float d | qs[256] | bsums[16]).
Encoded encodeActivation(GgmlType type, int64_t n, Rng &rng)
{
    Encoded e;
    e.values.resize(static_cast<size_t>(n));
    if (type == T::GGML_TYPE_Q8_0) {
        e.bytes.assign(static_cast<size_t>(n / 32) * 34, 0);
        for (int64_t b = 0; b < n / 32; ++b) {
            uint8_t *p = e.bytes.data() + b * 34;
            const uint16_t dh = halfBits(0, randInt(rng, 5, 9), randInt(rng, 0, 7));
            putU16(p, dh);
            for (int j = 0; j < 32; ++j) {
                const int q = randInt(rng, -127, 127);
                p[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(q));
                e.values[static_cast<size_t>(b * 32 + j)] = q * halfValue(dh);
            }
        }
    } else {
        e.bytes.assign(static_cast<size_t>(n / 256) * 292, 0);
        for (int64_t b = 0; b < n / 256; ++b) {
            uint8_t *p = e.bytes.data() + b * 292;
            const float d = std::ldexp(1.0f + randInt(rng, 0, 255) / 256.0f, -randInt(rng, 5, 9));
            std::memcpy(p, &d, 4);
            int16_t bsums[16] = {};
            for (int j = 0; j < 256; ++j) {
                const int q = randInt(rng, -127, 127);
                p[4 + j] = static_cast<uint8_t>(static_cast<int8_t>(q));
                bsums[j / 16] = static_cast<int16_t>(bsums[j / 16] + q);
                e.values[static_cast<size_t>(b * 256 + j)] = q * double(d);
            }
            std::memcpy(p + 260, bsums, sizeof(bsums));
        }
    }
    return e;
}

// --- the reference's float steps (its x86 kernels), from the block layouts --

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

int8_t tQ8(const uint8_t *a, int64_t e) { return static_cast<int8_t>(a[(e / 32) * 34 + 2 + e % 32]); }
float tQ8d(const uint8_t *a, int64_t e) { return tHalf(a + (e / 32) * 34); }

// The weight codes as the test's encoder defined them (value / d), per element.
int codeOf(GgmlType type, const uint8_t *w, int64_t j)
{
    switch (type) {
    case T::GGML_TYPE_Q1_0: return ((w[(j / 128) * 18 + 2 + (j % 128) / 8] >> (j % 8)) & 1) ? 1 : -1;
    case T::GGML_TYPE_Q2_0: return ((w[(j / 64) * 18 + 2 + (j % 64) / 4] >> (2 * (j % 4))) & 3) - 1;
    case T::GGML_TYPE_TQ2_0: {
        const uint8_t *b = w + (j / 256) * 66;
        const int64_t k = j % 256;
        return ((b[32 * (k / 128) + k % 32] >> (2 * ((k % 128) / 32))) & 3) - 1;
    }
    case T::GGML_TYPE_TQ1_0: {
        const uint8_t *b = w + (j / 256) * 54;
        const int64_t k = j % 256;
        int byte, n;
        if (k < 160) { byte = static_cast<int>(k % 32); n = static_cast<int>(k / 32); }
        else if (k < 240) { byte = 32 + static_cast<int>((k - 160) % 16); n = static_cast<int>((k - 160) / 16); }
        else { byte = 48 + static_cast<int>((k - 240) % 4); n = static_cast<int>((k - 240) / 4); }
        int pow3 = 1;
        for (int i = 0; i < n; ++i)
            pow3 *= 3;
        return (((b[byte] * pow3) & 0xff) * 3 >> 8) - 1;
    }
    case T::GGML_TYPE_NVFP4: {
        const uint8_t *b = w + (j / 64) * 36;
        const int64_t k = j % 64, s = k / 16, i = k % 16;
        const int q = i < 8 ? b[4 + 8 * s + i] & 15 : b[4 + 8 * s + i - 8] >> 4;
        return static_cast<int>(2 * e2m1(q));   // the doubled value
    }
    default: return 0;
    }
}

float recipe(GgmlType type, int64_t n, const uint8_t *w, const uint8_t *a)
{
    float acc[8] = {};
    switch (type) {
    case T::GGML_TYPE_Q1_0:   // ggml_vec_dot_q1_0_q8_0, AVX2
        for (int64_t ib = 0; ib < n / 128; ++ib) {
            float b[8];
            for (int k = 0; k < 4; ++k)
                for (int m = 0; m < 8; ++m) {
                    int lane = 0;
                    for (int e = 0; e < 4; ++e) {
                        const int64_t j = 128 * ib + 32 * k + 4 * m + e;
                        lane += codeOf(type, w, j) * tQ8(a, j);
                    }
                    const float da = tQ8d(a, 128 * ib + 32 * k);
                    b[m] = k == 0 ? da * static_cast<float>(lane) : std::fma(da, static_cast<float>(lane), b[m]);
                }
            for (int m = 0; m < 8; ++m)
                acc[m] = std::fma(tHalf(w + ib * 18), b[m], acc[m]);
        }
        return tHsum8(acc);
    case T::GGML_TYPE_Q2_0: {  // ggml_vec_dot_q2_0_q8_0, generic, GCC-fused
        float sum = 0.0f;
        for (int64_t ib = 0; ib < n / 64; ++ib) {
            float sumi = 0.0f;
            for (int k = 0; k < 2; ++k) {
                int isum = 0;
                for (int e = 0; e < 32; ++e)
                    isum += codeOf(type, w, 64 * ib + 32 * k + e) * tQ8(a, 64 * ib + 32 * k + e);
                sumi = std::fma(tQ8d(a, 64 * ib + 32 * k), static_cast<float>(isum), sumi);
            }
            sum = std::fma(tHalf(w + ib * 18), sumi, sum);
        }
        return sum;
    }
    case T::GGML_TYPE_TQ1_0:
    case T::GGML_TYPE_TQ2_0: {  // AVX2: 16-bit lanes by byte position, bsums off
        const size_t bs = type == T::GGML_TYPE_TQ1_0 ? 54 : 66;
        for (int64_t i = 0; i < n / 256; ++i) {
            const uint8_t *ab = a + i * 292;
            float da;
            std::memcpy(&da, ab, 4);
            int lane[8] = {};
            for (int64_t k = 0; k < 256; ++k)
                lane[(k % 32) / 4] += (codeOf(type, w, 256 * i + k) + 1) * static_cast<int8_t>(ab[4 + k]);
            for (int m = 0; m < 8; ++m) {
                int16_t b0, b1;
                std::memcpy(&b0, ab + 260 + 4 * m, 2);
                std::memcpy(&b1, ab + 262 + 4 * m, 2);
                lane[m] -= b0 + b1;
                acc[m] = std::fma(static_cast<float>(lane[m]), da * tHalf(w + i * bs + bs - 2), acc[m]);
            }
        }
        return tHsum8(acc);
    }
    case T::GGML_TYPE_NVFP4:   // AVX2: scales s_k = ue4m3(d_k) * d_a, two fmas a block
        for (int64_t ib = 0; ib < n / 64; ++ib) {
            const uint8_t *b = w + ib * 36;
            for (int h = 0; h < 2; ++h)
                for (int m = 0; m < 8; ++m) {
                    int lane = 0;
                    for (int e = 0; e < 4; ++e) {
                        const int64_t j = 64 * ib + 32 * h + 4 * m + e;
                        lane += codeOf(type, w, j) * tQ8(a, j);
                    }
                    const float s = static_cast<float>(ue4m3(b[2 * h + m / 4]) / 2) * tQ8d(a, 64 * ib + 32 * h);
                    acc[m] = std::fma(s, static_cast<float>(lane), acc[m]);
                }
        }
        return tHsum8(acc);
    default: return NAN;
    }
}

// Weight and activation rows through the quantizers (realistic scales).
void realisticRows(GgmlType type, int64_t n, Rng &rng, std::vector<uint8_t> *w, std::vector<uint8_t> *a)
{
    const TypeTraits *t = typeTraits(type);
    const TypeTraits *p = typeTraits(t->vecDotType);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> f(static_cast<size_t>(n));
    for (float &v : f) v = nd(rng) * 0.03f;
    w->assign(static_cast<size_t>(n / t->blockSize) * t->typeSize, 0);
    t->quantize(f.data(), w->data(), n);
    for (float &v : f) v = nd(rng);
    a->assign(static_cast<size_t>(n / p->blockSize) * p->typeSize, 0);
    p->quantizeActivation(f.data(), a->data(), n);
}

std::vector<uint8_t> quantizeWith(GgmlType type, const std::vector<float> &x)
{
    const TypeTraits *t = typeTraits(type);
    std::vector<uint8_t> out(static_cast<size_t>(static_cast<int64_t>(x.size()) / t->blockSize) * t->typeSize);
    t->quantize(x.data(), out.data(), static_cast<int64_t>(x.size()));
    return out;
}

} // namespace

class TestQuantLowbit : public QObject {
    Q_OBJECT

private slots:
    void traitRows_data() { addTypeRows(); }
    void traitRows()
    {
        QFETCH(GgmlType, type);
        const TypeTraits *t = typeTraits(type);
        QVERIFY(t && isSupportedWeightType(type));
        QVERIFY(t->dequantize && t->quantize && t->vecDot && t->vecDotMulti && t->vecDotGemm && t->vecDotMultiGemm);
        QVERIFY(!t->quantizeActivation);
        struct Geometry { GgmlType type; int64_t block; size_t bytes; GgmlType partner; };
        const Geometry expected[] = {
            {T::GGML_TYPE_Q1_0, 128, 18, T::GGML_TYPE_Q8_0}, {T::GGML_TYPE_Q2_0, 64, 18, T::GGML_TYPE_Q8_0},
            {T::GGML_TYPE_TQ1_0, 256, 54, T::GGML_TYPE_Q8_K}, {T::GGML_TYPE_TQ2_0, 256, 66, T::GGML_TYPE_Q8_K},
            {T::GGML_TYPE_NVFP4, 64, 36, T::GGML_TYPE_Q8_0},
        };
        for (const Geometry &g : expected) {
            if (g.type != type)
                continue;
            QCOMPARE(t->blockSize, g.block);
            QCOMPARE(t->typeSize, g.bytes);
            QCOMPARE(t->vecDotType, g.partner);
        }
        QVERIFY(std::string(supportedWeightTypesText()).find(ggmlTypeName(type)) != std::string::npos);
    }

    // Every scale byte decodes to half the UE4M3 value (kValuesMxfp4 holds
    // doubled E2M1 values); encoding follows ggml_fp32_to_ue4m3.
    void ue4m3Scales()
    {
        for (int b = 0; b < 256; ++b) {
            const double want = ue4m3(b) / 2;
            const float got = ue4m3ToFp32Half(static_cast<uint8_t>(b));
            if (double(got) != want)
                QFAIL(qPrintable(QStringLiteral("byte 0x%1: %2, expected %3").arg(b, 2, 16, QLatin1Char('0')).arg(got).arg(want)));
        }
        QCOMPARE(ue4m3ToFp32Half(0xff), 240.0f);   // 1.875 * 2^8 / 2: only 0x7f is read as the NaN code
        QCOMPARE(ue4m3ToFp32Half(0x80), 0.0f);
        // encoding: exact values map to their code; rounding by the 4th mantissa bit; limits
        QCOMPARE(int(fp32ToUe4m3(1.0f)), 0x38);                 // 2^0: exponent 7
        QCOMPARE(int(fp32ToUe4m3(1.125f)), 0x39);
        QCOMPARE(int(fp32ToUe4m3(1.0625f)), 0x39);              // halfway: rounds up
        QCOMPARE(int(fp32ToUe4m3(1.0624f)), 0x38);
        QCOMPARE(int(fp32ToUe4m3(1.9375f)), 0x40);              // rounds into the next exponent
        QCOMPARE(int(fp32ToUe4m3(448.0f)), 0x7e);
        QCOMPARE(int(fp32ToUe4m3(1e30f)), 0x7e);
        QCOMPARE(int(fp32ToUe4m3(240.0f)), 0x77);               // 1.875 * 2^7
        QCOMPARE(int(fp32ToUe4m3(std::ldexp(1.0f, -6))), 0x08); // smallest normal
        QCOMPARE(int(fp32ToUe4m3(std::ldexp(3.0f, -9))), 0x03); // subnormal 3 * 2^-9
        QCOMPARE(int(fp32ToUe4m3(std::ldexp(0.49f, -9))), 0x00);
        QCOMPARE(int(fp32ToUe4m3(std::ldexp(0.5f, -9))), 0x01);
        QCOMPARE(int(fp32ToUe4m3(0.0f)), 0);
        QCOMPARE(int(fp32ToUe4m3(-2.0f)), 0);
        QCOMPARE(int(fp32ToUe4m3(NAN)), 0);
        // every code below exponent 15 decodes and encodes back to itself (the
        // encoder gives 0x7e for anything of exponent 15)
        QCOMPARE(int(fp32ToUe4m3(256.0f)), 0x7e);
        for (int b = 1; b < 0x78; ++b)
            QCOMPARE(int(fp32ToUe4m3(static_cast<float>(ue4m3(b)))), b);
    }

    // Packed blocks -> dequantize, against the values packed (exact).
    void dequantizeHandBuilt_data() { addTypeRows(); }
    void dequantizeHandBuilt()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Rng rng(11 + static_cast<int>(type));
        const int64_t n = 4 * 256;
        const Encoded e = encodeRandom(type, n / ggmlTypeInfo(type)->blockSize, rng);
        for (CpuPath path : supportedPaths()) {
            QVERIFY(setCpuPath(path));
            std::vector<float> out(static_cast<size_t>(n), -1234.5f);
            typeTraits(type)->dequantize(e.bytes.data(), out.data(), n);
            for (int64_t i = 0; i < n; ++i)
                if (double(out[i]) != e.values[i])
                    QFAIL(qPrintable(QStringLiteral("%1: element %2 is %3, expected %4").arg(cpuPathName(path)).arg(i)
                                         .arg(out[i], 0, 'g', 9).arg(e.values[i], 0, 'g', 17)));
        }
    }

    // Every path: the reference's float steps bit for bit (realistic rows and
    // random blocks with every code), and within float rounding of the exact
    // dot product of the packed values.
    void vecDotRecipe_data() { addTypeRows(); }
    void vecDotRecipe()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Rng rng(2026 + static_cast<int>(type));
        for (int64_t n : {int64_t(256), int64_t(2048), int64_t(4096 + 256)}) {
            for (int kind = 0; kind < 2; ++kind) {
                std::vector<uint8_t> w, a;
                double exact = 0, sumAbs = 0;
                if (kind == 0) {
                    realisticRows(type, n, rng, &w, &a);
                } else {
                    const Encoded we = encodeRandom(type, n / ggmlTypeInfo(type)->blockSize, rng);
                    const Encoded ae = encodeActivation(typeTraits(type)->vecDotType, n, rng);
                    w = we.bytes;
                    a = ae.bytes;
                    for (size_t i = 0; i < we.values.size(); ++i) {
                        exact += we.values[i] * ae.values[i];
                        sumAbs += std::fabs(we.values[i] * ae.values[i]);
                    }
                }
                const float want = recipe(type, n, w.data(), a.data());
                for (CpuPath path : supportedPaths()) {
                    QVERIFY(setCpuPath(path));
                    float got = NAN, gemm = NAN;
                    typeTraits(type)->vecDot(n, &got, w.data(), a.data());
                    typeTraits(type)->vecDotGemm(n, &gemm, w.data(), a.data());
                    QVERIFY2(std::memcmp(&got, &want, 4) == 0 && std::memcmp(&gemm, &want, 4) == 0,
                             qPrintable(QStringLiteral("%1 n=%2 kind %3: %4 (gemm %5), recipe %6").arg(cpuPathName(path))
                                            .arg(n).arg(kind).arg(got, 0, 'g', 9).arg(gemm, 0, 'g', 9).arg(want, 0, 'g', 9)));
                    if (kind == 1)
                        QVERIFY2(std::fabs(got - exact) <= 1e-5 * sumAbs,
                                 qPrintable(QStringLiteral("%1: %2, exact %3").arg(cpuPathName(path)).arg(got).arg(exact)));
                }
            }
        }
    }

    // vecDotMulti gives each column's vecDot exactly, any column count, every path.
    void vecDotMultiMatchesVecDot_data() { addTypeRows(); }
    void vecDotMultiMatchesVecDot()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Rng rng(31 + static_cast<int>(type));
        const int64_t n = 3 * 256;
        constexpr int kColumns = 7;
        const Encoded w = encodeRandom(type, n / ggmlTypeInfo(type)->blockSize, rng);
        std::vector<Encoded> cols;
        for (int j = 0; j < kColumns; ++j)
            cols.push_back(encodeActivation(typeTraits(type)->vecDotType, n, rng));
        const size_t rowBytes = cols[0].bytes.size(), stride = rowBytes + 64;
        std::vector<uint8_t> act(stride * kColumns);
        for (int j = 0; j < kColumns; ++j)
            std::memcpy(act.data() + j * stride, cols[j].bytes.data(), rowBytes);
        for (CpuPath path : supportedPaths()) {
            QVERIFY(setCpuPath(path));
            const TypeTraits *t = typeTraits(type);
            for (int ny = 1; ny <= kColumns; ++ny) {
                std::vector<float> multi(static_cast<size_t>(ny), NAN);
                t->vecDotMulti(n, multi.data(), w.bytes.data(), act.data(), stride, ny);
                for (int j = 0; j < ny; ++j) {
                    float single = NAN;
                    t->vecDot(n, &single, w.bytes.data(), act.data() + j * stride);
                    QVERIFY2(std::memcmp(&single, &multi[j], 4) == 0,
                             qPrintable(QStringLiteral("%1 ny=%2 column %3: %4 vs %5").arg(cpuPathName(path)).arg(ny).arg(j)
                                            .arg(multi[j]).arg(single)));
                }
            }
        }
    }

    // Q1_0: d = mean |x| (rounded to half), bit set for x >= 0 (-0 included).
    void quantizeQ1_0()
    {
        std::vector<float> x(128);
        for (int j = 0; j < 128; ++j)
            x[j] = (j % 3 == 0 ? -1.0f : 1.0f) * (0.25f + 0.25f * float(j % 4));   // |x| mean 0.625
        x[5] = -0.0f;
        const std::vector<uint8_t> q = quantizeWith(T::GGML_TYPE_Q1_0, x);
        uint16_t d;
        std::memcpy(&d, q.data(), 2);
        double mean = 0;
        for (float v : x)
            mean += std::fabs(v);
        QCOMPARE(halfValue(d), mean / 128);
        for (int j = 0; j < 128; ++j)
            QCOMPARE((q[2 + j / 8] >> (j % 8)) & 1, (x[j] >= 0.0f || j == 5) ? 1 : 0);
    }

    // Q2_0: d = max |x|, q = round(x / d) + 1 with ties away from zero (x / d = +-0.5).
    void quantizeQ2_0()
    {
        std::vector<float> x(64, 0.0f);
        x[0] = 2.0f;     // d: q 2
        x[1] = 1.0f;     // 0.5 -> 1 -> q 2
        x[2] = -1.0f;    // -0.5 -> -1 -> q 0
        x[3] = 0.99f;    // 0.495 -> 0 -> q 1
        x[4] = -2.0f;    // -1 -> q 0
        const std::vector<uint8_t> q = quantizeWith(T::GGML_TYPE_Q2_0, x);
        uint16_t d;
        std::memcpy(&d, q.data(), 2);
        QCOMPARE(halfValue(d), 2.0);
        const int want[5] = {2, 2, 0, 1, 0};
        for (int j = 0; j < 64; ++j)
            QCOMPARE((q[2 + j / 4] >> (2 * (j % 4))) & 3, j < 5 ? want[j] : 1);
    }

    // TQ1_0 / TQ2_0: trits round(x / max|x|) + 1 (ties away from zero); the
    // base-3 bytes are ceil(value * 256 / 243).
    void quantizeTernary()
    {
        std::vector<float> x(256);
        for (int j = 0; j < 256; ++j)
            x[j] = float((j * 7) % 3 - 1) * 0.75f;             // -0.75, 0, 0.75
        x[17] = 1.5f;                                          // d; x / d = 0.5 ties to 1
        const std::vector<uint8_t> q2 = quantizeWith(T::GGML_TYPE_TQ2_0, x);
        const std::vector<uint8_t> q1 = quantizeWith(T::GGML_TYPE_TQ1_0, x);
        uint16_t d1, d2;
        std::memcpy(&d2, q2.data() + 64, 2);
        std::memcpy(&d1, q1.data() + 52, 2);
        QCOMPARE(halfValue(d2), 1.5);
        QCOMPARE(halfValue(d1), 1.5);
        for (int j = 0; j < 256; ++j) {
            const int want = j == 17 ? 1 : (j * 7) % 3 - 1;
            QCOMPARE(codeOf(T::GGML_TYPE_TQ2_0, q2.data(), j), want);
            QCOMPARE(codeOf(T::GGML_TYPE_TQ1_0, q1.data(), j), want);
        }
        // all-zero trits pack to 0 except ... (value 121 = 11111 base 3 -> ceil(121 * 256 / 243) = 128)
        std::vector<float> zeros(256, 0.0f);
        const std::vector<uint8_t> z1 = quantizeWith(T::GGML_TYPE_TQ1_0, zeros);
        for (int k = 0; k < 48; ++k)
            QCOMPARE(int(z1[k]), 128);
        for (int k = 48; k < 52; ++k)
            QCOMPARE(int(z1[k]), (120 * 256 + 242) / 243);   // 1111 then a 0 trit = 120
    }

    // NVFP4: per sub-block the UE4M3 code of max|x| / 6, then the nearest
    // E2M1 value (the first code on ties: +0 before -0).
    void quantizeNVFP4()
    {
        std::vector<float> x(64, 0.0f);
        for (int j = 0; j < 16; ++j)
            x[j] = float(e2m1(j)) * 0.5f;       // sub-block 0: the E2M1 grid times 0.5 (amax 3 -> scale 0.5)
        x[16] = 6.0f * 448.0f * 2;              // sub-block 1: beyond the largest scale
        const std::vector<uint8_t> q = quantizeWith(T::GGML_TYPE_NVFP4, x);
        QCOMPARE(int(q[0]), int(fp32ToUe4m3(0.5f)));
        QCOMPARE(int(q[1]), 0x7e);
        QCOMPARE(int(q[2]), 0);
        for (int j = 0; j < 16; ++j)
            QCOMPARE(codeOf(T::GGML_TYPE_NVFP4, q.data(), j), static_cast<int>(2 * e2m1(j == 8 ? 0 : j)));
        std::vector<float> back(64);
        typeTraits(T::GGML_TYPE_NVFP4)->dequantize(q.data(), back.data(), 64);
        for (int j = 0; j < 16; ++j)
            QCOMPARE(back[j], x[j] == 0.0f ? 0.0f : x[j]);
        QCOMPARE(back[16], 6.0f * 448.0f);      // saturated
    }

    // Non-finite input never crashes a quantizer and the row stays whole.
    void quantizeNonFinite_data() { addTypeRows(); }
    void quantizeNonFinite()
    {
        QFETCH(GgmlType, type);
        for (float bad : {NAN, INFINITY, -INFINITY, 1e38f}) {
            std::vector<float> x(256, 0.25f);
            x[3] = bad;
            const std::vector<uint8_t> q = quantizeWith(type, x);
            QCOMPARE(q.size(), size_t(256 / ggmlTypeInfo(type)->blockSize) * ggmlTypeInfo(type)->typeSize);
        }
    }

    // Quantizing the dequantized values of a quantized row gives the same
    // bytes back (the reference's quantizer on its own output) for the ternary
    // and sign types.
    void requantizeIsIdentity_data()
    {
        QTest::addColumn<GgmlType>("type");
        for (GgmlType t : {T::GGML_TYPE_Q1_0, T::GGML_TYPE_TQ1_0, T::GGML_TYPE_TQ2_0})
            QTest::newRow(ggmlTypeName(t).c_str()) << t;
    }
    void requantizeIsIdentity()
    {
        QFETCH(GgmlType, type);
        Rng rng(5 + static_cast<int>(type));
        std::normal_distribution<float> nd(0.0f, 0.02f);
        std::vector<float> x(4096);
        for (float &v : x) v = nd(rng);
        const std::vector<uint8_t> q = quantizeWith(type, x);
        std::vector<float> back(x.size());
        typeTraits(type)->dequantize(q.data(), back.data(), static_cast<int64_t>(x.size()));
        QVERIFY(quantizeWith(type, back) == q);
    }

    // Every tensor of these types in the ../shared fixtures (made by the
    // reference's llama-quantize) is reproduced by requantizing its values.
    void fixtureTensorsRequantize_data()
    {
        QTest::addColumn<QString>("file");
        for (const char *f : {"llama-TQ1_0", "llama-TQ2_0", "llama-Q1_0"})
            QTest::newRow(f) << QStringLiteral("models/synthetic-types/%1.gguf").arg(QLatin1String(f));
    }
    void fixtureTensorsRequantize()
    {
        QFETCH(QString, file);
        BURROW_REQUIRE_SHARED(file);
        auto f = gguf::GgufFile::open(test::sharedPath(file).toStdString());
        QVERIFY2(f, f.message().c_str());
        int checked = 0;
        for (const gguf::TensorInfo &t : (*f)->tensors()) {
            if (t.type != T::GGML_TYPE_TQ1_0 && t.type != T::GGML_TYPE_TQ2_0 && t.type != T::GGML_TYPE_Q1_0)
                continue;
            std::vector<float> values(static_cast<size_t>(t.nElements));
            typeTraits(t.type)->dequantize(t.data, values.data(), t.nElements);
            const std::vector<uint8_t> again = quantizeWith(t.type, values);
            QVERIFY2(again.size() == t.nBytes && std::memcmp(again.data(), t.data, t.nBytes) == 0,
                     qPrintable(QString::fromUtf8(t.name.data(), int(t.name.size()))));
            ++checked;
        }
        QVERIFY(checked >= 14);   // 2 layers x 7 matrices at least
    }
};

QTEST_MAIN(TestQuantLowbit)
#include "tst_quant_lowbit.moc"
