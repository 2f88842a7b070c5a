// The lattice i-quants IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS and
// IQ3_S: their codebooks against the reference's (checksums and points
// taken from its ggml-common.h); blocks this test packs itself from the
// documented layouts (random grid indices, signs, scales) dequantized to
// exactly the values they stand for; dot products against those values;
// the float steps of the reference's x86 kernels (written out here from the
// layouts: 8 int32 lanes, one fused multiply-add per super-block and lane,
// hsum_float_8) on every path, bit for bit, one row and several at once;
// every SIMD path against the scalar twin on arbitrary bytes (every bit
// pattern is a valid block: indices cannot leave a grid); the prompt path's
// tiles; files mixing all seven types; hostile files (rows that end inside a
// block, data cut short) refused naming the tensor; and the tensors of
// ../shared's synthetic-types models.
#include "burrow/engine.h"
#include "common/ggml_types.h"
#include "gguf/gguf_reader.h"
#include "model/quant_mix.h"
#include "model/quantize_model.h"
#include "quant/cpu_features.h"
#include "quant/iq_grids.h"
#include "quant/iq_tiles.h"
#include "quant/packed.h"
#include "quant/quant_blocks.h"
#include "quant/quant_traits.h"
#if defined(__x86_64__)
#include "quant/x86/iq_simd.h"
#endif
#include "test_support.h"
#include "tiny_model.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
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

const GgmlType kIqTypes[] = {T::GGML_TYPE_IQ1_S, T::GGML_TYPE_IQ1_M, T::GGML_TYPE_IQ2_XXS, T::GGML_TYPE_IQ2_XS,
                             T::GGML_TYPE_IQ2_S, T::GGML_TYPE_IQ3_XXS, T::GGML_TYPE_IQ3_S};

void addTypeRows()
{
    QTest::addColumn<GgmlType>("type");
    for (GgmlType t : kIqTypes)
        QTest::newRow(ggmlTypeName(t).c_str()) << t;
}

// The tile types (iq_tiles.h): the lattice types and Q2_K.
void addTileTypeRows()
{
    addTypeRows();
    QTest::newRow("Q2_K") << GgmlType::GGML_TYPE_Q2_K;
    QTest::newRow("Q3_K") << GgmlType::GGML_TYPE_Q3_K;
}

// The path whose vecDot a tile type's tiles reproduce: the scalar twin for
// the lattice types and Q2_K (every path rounds alike), the x86 kernel for
// Q3_K (its 8 lanes of 4 weights per 32; the reference's generic code sums
// lanes of every 8th weight instead, see generic/vec_dot.cpp).
CpuPath tileFormPath(GgmlType type)
{
    return type == GgmlType::GGML_TYPE_Q3_K ? CpuPath::CPU_PATH_AVX2 : CpuPath::CPU_PATH_SCALAR;
}

int randInt(Rng &rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// IEEE half bits of +-2^-k (1 + j/8): exact, normal.
uint16_t randHalf(Rng &rng, double *value)
{
    const int k = randInt(rng, 4, 10), j = randInt(rng, 0, 7);
    const bool neg = randInt(rng, 0, 1) != 0;
    *value = std::ldexp(1.0 + j / 8.0, -k) * (neg ? -1 : 1);
    return static_cast<uint16_t>((neg ? 0x8000 : 0) | ((15 - k) << 10) | (j << 7));
}

void put16(uint8_t *p, uint16_t v) { std::memcpy(p, &v, 2); }
void put32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }

int parity(int s)
{
    int p = 0;
    for (; s; s >>= 1)
        p ^= s & 1;
    return p;
}

// Blocks of a lattice type with what they stand for: every element's value
// and its integers (the grid value with its sign, the scale 2s + 1 of its
// 16, IQ1's shift sign of its 8) and each super-block's scale as a float.
struct IqBlocks {
    std::vector<uint8_t> bytes;
    std::vector<double> values;
    std::vector<int> w, scale, shift;
    std::vector<float> d;
};

// Magnitude j of grid point `point` (bytes, little-endian).
int byteOf(uint64_t point, int j) { return static_cast<int>((point >> (8 * j)) & 0xff); }

// One super-block; fills the element entries at e0 = 256 * block.
void encodeBlock(GgmlType type, uint8_t *p, IqBlocks &out, size_t e0, Rng &rng)
{
    double d = 0;
    const uint16_t dBits = randHalf(rng, &d);
    const auto setElement = [&](int e, int mag, bool negative, int scale16, double dl, int shift) {
        const size_t i = e0 + static_cast<size_t>(e);
        out.w[i] = negative ? -mag : mag;
        out.scale[(e0 + e) / 16] = scale16;
        out.shift[(e0 + e) / 8] = shift;
        out.values[i] = shift ? dl * (out.w[i] + shift / 8.0) : dl * out.w[i];
    };
    switch (type) {
    case T::GGML_TYPE_IQ2_XXS:
    case T::GGML_TYPE_IQ3_XXS: {
        // d | (IQ2_XXS: per 32 [4 index bytes][u32 fields | ls << 28]) (IQ3_XXS: 64 index bytes, then 8 u32)
        const bool three = type == T::GGML_TYPE_IQ3_XXS;
        put16(p, dBits);
        for (int ib = 0; ib < 8; ++ib) {
            const int ls = randInt(rng, 0, 15);
            uint32_t word = static_cast<uint32_t>(ls) << 28;
            for (int l = 0; l < 4; ++l) {
                const int f = randInt(rng, 0, 127), signs = f | (parity(f) << 7);
                word |= static_cast<uint32_t>(f) << (7 * l);
                uint64_t point;
                if (three) {
                    const int a = randInt(rng, 0, 255), b = randInt(rng, 0, 255);
                    p[2 + 8 * ib + 2 * l] = static_cast<uint8_t>(a);
                    p[2 + 8 * ib + 2 * l + 1] = static_cast<uint8_t>(b);
                    point = kIq3xxsGrid[a] | static_cast<uint64_t>(kIq3xxsGrid[b]) << 32;
                } else {
                    const int idx = randInt(rng, 0, 255);
                    p[2 + 8 * ib + l] = static_cast<uint8_t>(idx);
                    point = kIq2xxsGrid[idx];
                }
                const double dl = d * (0.5 + ls) * (three ? 0.5 : 0.25);
                for (int j = 0; j < 8; ++j)
                    setElement(32 * ib + 8 * l + j, byteOf(point, j), (signs >> j) & 1, 2 * ls + 1, dl, 0);
            }
            put32(p + (three ? 2 + 64 + 4 * ib : 2 + 8 * ib + 4), word);
        }
        break;
    }
    case T::GGML_TYPE_IQ2_XS:
    case T::GGML_TYPE_IQ2_S: {
        // XS: d | u16 (index | fields << 9) [32] | scales[8]
        // S:  d | index low bytes[32] | sign bytes[32] | qh[8] (2 bits per index) | scales[8]
        const bool s = type == T::GGML_TYPE_IQ2_S;
        put16(p, dBits);
        for (int ib = 0; ib < 8; ++ib) {
            const int lo = randInt(rng, 0, 15), hi = randInt(rng, 0, 15);
            p[s ? 74 + ib : 66 + ib] = static_cast<uint8_t>(lo | (hi << 4));
            for (int l = 0; l < 4; ++l) {
                int idx, signs;
                if (s) {
                    idx = randInt(rng, 0, 1023);
                    signs = randInt(rng, 0, 255);
                    p[2 + 4 * ib + l] = static_cast<uint8_t>(idx & 0xff);
                    p[2 + 32 + 4 * ib + l] = static_cast<uint8_t>(signs);
                    p[66 + ib] |= static_cast<uint8_t>((idx >> 8) << (2 * l));
                } else {
                    idx = randInt(rng, 0, 511);
                    const int f = randInt(rng, 0, 127);
                    signs = f | (parity(f) << 7);
                    put16(p + 2 + 2 * (4 * ib + l), static_cast<uint16_t>(idx | (f << 9)));
                }
                const uint64_t point = s ? kIq2sGrid[idx] : kIq2xsGrid[idx];
                const int ls = l < 2 ? lo : hi;
                for (int j = 0; j < 8; ++j)
                    setElement(32 * ib + 8 * l + j, byteOf(point, j), (signs >> j) & 1, 2 * ls + 1, d * (0.5 + ls) * 0.25, 0);
            }
        }
        break;
    }
    case T::GGML_TYPE_IQ3_S: {
        // d | index low bytes[64] | qh[8] (bit k: index 8ib + k) | sign bytes[32] | scales[4] (a nibble per 32)
        put16(p, dBits);
        for (int ib = 0; ib < 8; ++ib) {
            const int ls = randInt(rng, 0, 15);
            p[106 + ib / 2] |= static_cast<uint8_t>(ls << (4 * (ib % 2)));
            for (int l = 0; l < 4; ++l) {
                const int signs = randInt(rng, 0, 255);
                p[74 + 4 * ib + l] = static_cast<uint8_t>(signs);
                for (int h = 0; h < 2; ++h) {
                    const int k = 2 * l + h, idx = randInt(rng, 0, 511);
                    p[2 + 8 * ib + k] = static_cast<uint8_t>(idx & 0xff);
                    p[66 + ib] |= static_cast<uint8_t>((idx >> 8) << k);
                    for (int j = 0; j < 4; ++j) {
                        const int jj = 4 * h + j;
                        setElement(32 * ib + 8 * l + jj, byteOf(kIq3sGrid[idx], j), (signs >> jj) & 1, 2 * ls + 1,
                                   d * (1 + 2 * ls), 0);
                    }
                }
            }
        }
        break;
    }
    case T::GGML_TYPE_IQ1_S: {
        // d | index low bytes[32] | u16 per 32: 3 index bits per 8 | s << 12 | shift sign << 15
        put16(p, dBits);
        for (int ib = 0; ib < 8; ++ib) {
            const int ls = randInt(rng, 0, 7), neg = randInt(rng, 0, 1);
            uint16_t qh = static_cast<uint16_t>((ls << 12) | (neg << 15));
            for (int l = 0; l < 4; ++l) {
                const int idx = randInt(rng, 0, 2047);
                p[2 + 4 * ib + l] = static_cast<uint8_t>(idx & 0xff);
                qh = static_cast<uint16_t>(qh | ((idx >> 8) << (3 * l)));
                for (int j = 0; j < 8; ++j) {
                    const int g = static_cast<int8_t>(byteOf(kIq1sGrid[idx], j));
                    setElement(32 * ib + 8 * l + j, std::abs(g), g < 0, 2 * ls + 1, d * (2 * ls + 1), neg ? -1 : 1);
                }
            }
            put16(p + 34 + 2 * ib, qh);
        }
        break;
    }
    case T::GGML_TYPE_IQ1_M: {
        // index low bytes[32] | qh[16] (a nibble per 8: 3 index bits, shift sign) | 4 u16 of 3-bit scales per 16,
        // their top nibbles the f16 d
        uint16_t sc[4] = {};
        for (int q = 0; q < 4; ++q)
            sc[q] = static_cast<uint16_t>(((dBits >> (4 * q)) & 0xf) << 12);
        for (int ib = 0; ib < 8; ++ib) {
            const int s0 = randInt(rng, 0, 7), s1 = randInt(rng, 0, 7);
            sc[ib / 2] = static_cast<uint16_t>(sc[ib / 2] | ((s0 | (s1 << 3)) << (6 * (ib % 2))));
            for (int l = 0; l < 4; ++l) {
                const int idx = randInt(rng, 0, 2047), neg = randInt(rng, 0, 1);
                p[4 * ib + l] = static_cast<uint8_t>(idx & 0xff);
                p[32 + 2 * ib + l / 2] |= static_cast<uint8_t>(((idx >> 8) | (neg << 3)) << (4 * (l % 2)));
                const int ls = l < 2 ? s0 : s1;
                for (int j = 0; j < 8; ++j) {
                    const int g = static_cast<int8_t>(byteOf(kIq1sGrid[idx], j));
                    setElement(32 * ib + 8 * l + j, std::abs(g), g < 0, 2 * ls + 1, d * (2 * ls + 1), neg ? -1 : 1);
                }
            }
        }
        std::memcpy(p + 48, sc, 8);
        break;
    }
    default:
        qFatal("encodeBlock: not a lattice type");
    }
    out.d.push_back(static_cast<float>(d));
}

IqBlocks encodeRandom(GgmlType type, int64_t nBlocks, Rng &rng)
{
    IqBlocks b;
    const size_t n = static_cast<size_t>(nBlocks) * 256;
    b.bytes.assign(static_cast<size_t>(nBlocks) * ggmlTypeInfo(type)->typeSize, 0);
    b.values.assign(n, 0);
    b.w.assign(n, 0);
    b.scale.assign(n / 16, 0);
    b.shift.assign(n / 8, 0);
    for (int64_t i = 0; i < nBlocks; ++i)
        encodeBlock(type, b.bytes.data() + static_cast<size_t>(i) * ggmlTypeInfo(type)->typeSize, b, static_cast<size_t>(i) * 256, rng);
    return b;
}

// A Q8_K row: f32 d | qs[256] (in [-127, 127]) | bsums[16]; its values.
struct Q8KRow {
    std::vector<uint8_t> bytes;
    std::vector<int> q;
    std::vector<float> d;
};

Q8KRow encodeQ8K(int64_t n, Rng &rng)
{
    Q8KRow r;
    const int64_t nb = n / 256;
    r.bytes.assign(static_cast<size_t>(nb) * 292, 0);
    r.q.resize(static_cast<size_t>(n));
    for (int64_t b = 0; b < nb; ++b) {
        uint8_t *p = r.bytes.data() + b * 292;
        double dd;
        randHalf(rng, &dd);
        const float d = static_cast<float>(dd * 0.37);   // not a short mantissa: the float steps round
        std::memcpy(p, &d, 4);
        r.d.push_back(d);
        for (int g = 0; g < 16; ++g) {
            int sum = 0;
            for (int j = 0; j < 16; ++j) {
                const int q = randInt(rng, -127, 127);
                p[4 + 16 * g + j] = static_cast<uint8_t>(static_cast<int8_t>(q));
                r.q[static_cast<size_t>(256 * b + 16 * g + j)] = q;
                sum += q;
            }
            put16(p + 260 + 2 * g, static_cast<uint16_t>(static_cast<int16_t>(sum)));
        }
    }
    return r;
}

// The reference's x86 float steps (see the file comment), from the integers.
float hsum8(const float a[8])
{
    float r[4];
    for (int i = 0; i < 4; ++i)
        r[i] = a[i + 4] + a[i];
    return (r[0] + r[2]) + (r[1] + r[3]);
}

float recipe(GgmlType type, const IqBlocks &w, const Q8KRow &a, int64_t n)
{
    float acc[8] = {}, accShift[8] = {}, accShift1 = 0;
    for (int64_t b = 0; b < n / 256; ++b) {
        int64_t lane[8] = {}, shiftLane[8] = {};
        for (int e = 0; e < 256; ++e) {
            const size_t i = static_cast<size_t>(256 * b + e);
            lane[(e / 4) % 8] += int64_t{w.scale[i / 16]} * w.w[i] * a.q[i];
            shiftLane[(e / 4) % 8] += int64_t{w.scale[i / 16]} * w.shift[i / 8] * a.q[i];
        }
        const float d = w.d[static_cast<size_t>(b)] * a.d[static_cast<size_t>(b)];
        int64_t shiftTotal = 0;
        for (int m = 0; m < 8; ++m) {
            acc[m] = std::fma(d, static_cast<float>(lane[m]), acc[m]);
            accShift[m] = std::fma(d, static_cast<float>(shiftLane[m]), accShift[m]);
            shiftTotal += shiftLane[m];
        }
        accShift1 = std::fma(d, static_cast<float>(shiftTotal), accShift1);
    }
    switch (type) {
    case T::GGML_TYPE_IQ1_S: return hsum8(acc) + 0.125f * accShift1;
    case T::GGML_TYPE_IQ1_M: return hsum8(acc) + 0.125f * hsum8(accShift);
    case T::GGML_TYPE_IQ3_S: return hsum8(acc);
    case T::GGML_TYPE_IQ3_XXS: return 0.25f * hsum8(acc);
    default: return 0.125f * hsum8(acc);
    }
}

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

uint64_t fnv1a(const void *data, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) {
        h ^= static_cast<const uint8_t *>(data)[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

QString hex(uint64_t v) { return QStringLiteral("0x%1").arg(v, 16, 16, QLatin1Char('0')); }

} // namespace

class TestQuantIq : public QObject {
    Q_OBJECT

private:
    // Random rows of `type` (N x K) and maxTokens Q8_K activations; then
    // iqTileMatmul over each count of tokens equals each row's vecDot bit for
    // bit, on every path.
    struct TileCase {
        std::vector<uint8_t> w, act, side;
        size_t rowBytes = 0, actBytes = 0;
        PackedActivation pa;
    };
    static TileCase makeTileCase(GgmlType type, int64_t K, int64_t N, int64_t maxTokens, uint32_t seed)
    {
        TileCase c;
        Rng rng(seed);
        const TypeTraits *t = typeTraits(type);
        c.rowBytes = static_cast<size_t>(K / 256) * t->typeSize;
        c.w.resize(c.rowBytes * static_cast<size_t>(N));
        for (uint8_t &b : c.w)
            b = static_cast<uint8_t>(randInt(rng, 0, 255));
        for (size_t b = 0; b < c.w.size(); b += t->typeSize) {   // finite, normal-range scales
            if (type == T::GGML_TYPE_Q2_K) {
                c.w[b + offsetof(BlockQ2_K, d) + 1] &= 0x3b;
                c.w[b + offsetof(BlockQ2_K, dmin) + 1] &= 0x3b;
            } else if (type == T::GGML_TYPE_Q3_K) {
                c.w[b + offsetof(BlockQ3_K, d) + 1] &= 0x3b;
            } else {
                c.w[b + (type == T::GGML_TYPE_IQ1_M ? 55 : 1)] &= 0x3b;
            }
        }
        const TypeTraits *q8 = typeTraits(T::GGML_TYPE_Q8_K);
        c.actBytes = static_cast<size_t>(K / 256) * 292;
        c.act.resize(c.actBytes * static_cast<size_t>(maxTokens));
        std::vector<float> x(static_cast<size_t>(K));
        for (int64_t tk = 0; tk < maxTokens; ++tk) {
            for (float &v : x)
                v = std::normal_distribution<float>(0.0f, 1.0f)(rng);
            q8->quantize(x.data(), c.act.data() + static_cast<size_t>(tk) * c.actBytes, K);
        }
        c.side.resize(packedSideBytes(type, K, maxTokens));
        c.pa = packedActivation(type, K, c.act.data(), c.actBytes, maxTokens, c.side.data());
        for (int64_t tk = 0; tk < maxTokens; ++tk)
            preparePackedRow(type, K, c.pa, tk);
        return c;
    }
    // Each row's vecDot on the path of the tiles' form, [token][row].
    static std::vector<float> tileFormDots(GgmlType type, const TileCase &c, int64_t K, int64_t N, int64_t nTokens)
    {
        std::vector<float> out(static_cast<size_t>(nTokens * N), NAN);
        const CpuPath saved = activeCpuPath();
        if (!setCpuPath(tileFormPath(type)))
            return out;
        for (int64_t tk = 0; tk < nTokens; ++tk)
            for (int64_t r = 0; r < N; ++r)
                typeTraits(type)->vecDot(K, &out[static_cast<size_t>(tk * N + r)], c.w.data() + static_cast<size_t>(r) * c.rowBytes,
                                         c.act.data() + static_cast<size_t>(tk) * c.actBytes);
        setCpuPath(saved);
        return out;
    }
    static void matmulEqualsVecDot(GgmlType type, const TileCase &c, int64_t K, int64_t N, std::initializer_list<int64_t> counts)
    {
        QVERIFY(cpuPathSupported(tileFormPath(type)));
        int64_t most = 0;
        for (int64_t n : counts)
            most = std::max(most, n);
        const std::vector<float> expected = tileFormDots(type, c, K, N, most);
        struct Variant {
            CpuPath path;
            bool vnni;   // the AVX2 path with AVX-VNNI (where the CPU has it) or without
        };
        std::vector<Variant> variants;
        for (CpuPath path : supportedPaths()) {
            variants.push_back({path, true});
            if (path == CpuPath::CPU_PATH_AVX2)
                variants.push_back({path, false});
        }
        for (const Variant &v : variants) {
            const CpuPath path = v.path;
            QVERIFY(setCpuPath(path));
            setPackedAvxVnni(v.vnni);
            for (int64_t nTokens : counts) {
                std::vector<float> y(static_cast<size_t>(nTokens * N), NAN);
                iqTileMatmul(type, c.w.data(), c.rowBytes, K, N, 0, (N + 15) / 16, c.pa, nTokens, y.data(), static_cast<size_t>(N));
                for (int64_t tk = 0; tk < nTokens; ++tk)
                    for (int64_t r = 0; r < N; ++r) {
                        const float got = y[static_cast<size_t>(tk * N + r)], want = expected[static_cast<size_t>(tk * N + r)];
                        QVERIFY2(std::memcmp(&got, &want, 4) == 0,
                                 qPrintable(QStringLiteral("%1%2 tokens %3: row %4 token %5: %6, vecDot %7").arg(cpuPathName(path))
                                                .arg(v.vnni ? "" : " (no AVX-VNNI)").arg(nTokens).arg(r).arg(tk)
                                                .arg(got, 0, 'g', 9).arg(want, 0, 'g', 9)));
                    }
            }
        }
        setPackedAvxVnni(true);
    }


private slots:
    void traitRows_data() { addTypeRows(); }
    void traitRows()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        for (CpuPath path : supportedPaths()) {
            QVERIFY(setCpuPath(path));
            const TypeTraits *t = typeTraits(type);
            QVERIFY(t);
            QVERIFY(isSupportedWeightType(type));
            QVERIFY(checkWeightType(type, "blk.0.ffn_up.weight").isOk());
            QCOMPARE(t->blockSize, int64_t(256));
            QCOMPARE(t->typeSize, ggmlTypeInfo(type)->typeSize);
            // the reference's CPU type traits: vec_dot_type Q8_K for every lattice type
            QCOMPARE(t->vecDotType, T::GGML_TYPE_Q8_K);
            QVERIFY(t->dequantize && t->vecDot && t->vecDotMulti && t->vecDotGemm && t->vecDotMultiGemm);
            QCOMPARE(gemmFormTokens(type, 4096, 16), int64_t(0));   // one form, as the reference
        }
        QVERIFY(QString::fromLatin1(supportedWeightTypesText()).contains(QString::fromStdString(ggmlTypeName(type))));
    }

    // The codebooks are the reference's: FNV-1a of all bytes of each table
    // (as ggml-common.h lists them, little-endian) and a few points by hand.
    void gridsMatchReference()
    {
        QCOMPARE(hex(fnv1a(kIq2xxsGrid.data(), sizeof kIq2xxsGrid)), hex(0xbb4ee025b5ac6e8eull));
        QCOMPARE(hex(fnv1a(kIq2xsGrid.data(), sizeof kIq2xsGrid)), hex(0xc9b1ee61e79909bdull));
        QCOMPARE(hex(fnv1a(kIq2sGrid.data(), sizeof kIq2sGrid)), hex(0x123edd38a3b62b90ull));
        QCOMPARE(hex(fnv1a(kIq3xxsGrid.data(), sizeof kIq3xxsGrid)), hex(0xdfa5dc83d6a155d5ull));
        QCOMPARE(hex(fnv1a(kIq3sGrid.data(), sizeof kIq3sGrid)), hex(0xfa37020c25b44829ull));
        QCOMPARE(hex(fnv1a(kIq1sGrid.data(), sizeof kIq1sGrid)), hex(0x6703ed863501ae2eull));
        QCOMPARE(hex(kIq2xxsGrid[1]), hex(0x080808080808082bull));
        QCOMPARE(hex(kIq2xxsGrid[255]), hex(0x2b2b2b1908081908ull));
        QCOMPARE(hex(kIq2xsGrid[259]), hex(0x190808080819082bull));
        QCOMPARE(hex(kIq2sGrid[515]), hex(0x190808191908192bull));
        QCOMPARE(hex(kIq3xxsGrid[255]), hex(0x3e341c04ull));
        QCOMPARE(hex(kIq3sGrid[259]), hex(0x05090903ull));
        QCOMPARE(hex(kIq1sGrid[1]), hex(0xffffffffffffff01ull));
        QCOMPARE(hex(kIq1sGrid[1027]), hex(0x000000000000ff01ull));
        QCOMPARE(hex(kIq1sGrid[2047]), hex(0x0101010101010101ull));
        // even signs: the 8th sign makes the count of minus signs even
        for (int s = 0; s < 128; ++s) {
            QCOMPARE(kIqEvenSigns[static_cast<size_t>(s)] & 127, s);
            QCOMPARE(parity(kIqEvenSigns[static_cast<size_t>(s)]), 0);
            for (int j = 0; j < 8; ++j)
                QCOMPARE(static_cast<int8_t>(kIqEvenSignBytes[static_cast<size_t>(s)] >> (8 * j)),
                         static_cast<int8_t>(((kIqEvenSigns[static_cast<size_t>(s)] >> j) & 1) ? -1 : 1));
        }
    }

    // Dequantization gives exactly the values the packed fields stand for
    // (every product is exact in float for these magnitudes and scales).
    void dequantizeHandBuilt_data() { addTypeRows(); }
    void dequantizeHandBuilt()
    {
        QFETCH(GgmlType, type);
        Rng rng(11 + static_cast<int>(type));
        const IqBlocks b = encodeRandom(type, 6, rng);
        std::vector<float> out(b.values.size(), NAN);
        typeTraits(type)->dequantize(b.bytes.data(), out.data(), static_cast<int64_t>(out.size()));
        for (size_t i = 0; i < out.size(); ++i)
            QVERIFY2(static_cast<double>(out[i]) == b.values[i],
                     qPrintable(QStringLiteral("element %1: %2, expected %3").arg(i).arg(out[i]).arg(b.values[i])));
    }

    // Every path's dot product against the exact sum of value * activation.
    void vecDotMatchesValues_data() { addTypeRows(); }
    void vecDotMatchesValues()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Rng rng(23 + static_cast<int>(type));
        for (int64_t n : {int64_t(256), int64_t(2048)}) {
            const IqBlocks w = encodeRandom(type, n / 256, rng);
            const Q8KRow a = encodeQ8K(n, rng);
            double exact = 0, sumAbs = 0;
            for (int64_t i = 0; i < n; ++i) {
                const double t = w.values[static_cast<size_t>(i)] * a.d[static_cast<size_t>(i / 256)] * a.q[static_cast<size_t>(i)];
                exact += t;
                sumAbs += std::fabs(t);
            }
            for (CpuPath path : supportedPaths()) {
                QVERIFY(setCpuPath(path));
                float got = NAN;
                typeTraits(type)->vecDot(n, &got, w.bytes.data(), a.bytes.data());
                QVERIFY2(std::fabs(got - exact) <= 1e-5 * sumAbs,
                         qPrintable(QStringLiteral("%1 n=%2: %3, exact %4").arg(cpuPathName(path)).arg(n).arg(got).arg(exact)));
            }
        }
    }

    // The float steps of the reference's x86 kernels, bit for bit, on every
    // path, for one activation row (vecDot) and for 1..7 at once (vecDotMulti).
    void floatStepsOnEveryPath_data() { addTypeRows(); }
    void floatStepsOnEveryPath()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Rng rng(2026 + static_cast<int>(type));
        for (int64_t n : {int64_t(256), int64_t(1280), int64_t(4096)}) {
            const IqBlocks w = encodeRandom(type, n / 256, rng);
            constexpr int kCols = 7;
            std::vector<Q8KRow> cols;
            const size_t rowBytes = static_cast<size_t>(n / 256) * 292, stride = rowBytes + 32;
            std::vector<uint8_t> act(stride * kCols);
            std::vector<float> expected;
            for (int j = 0; j < kCols; ++j) {
                cols.push_back(encodeQ8K(n, rng));
                std::memcpy(act.data() + j * stride, cols.back().bytes.data(), rowBytes);
                expected.push_back(recipe(type, w, cols.back(), n));
            }
            for (CpuPath path : supportedPaths()) {
                QVERIFY(setCpuPath(path));
                const TypeTraits *t = typeTraits(type);
                for (int j = 0; j < kCols; ++j) {
                    float got = NAN;
                    t->vecDot(n, &got, w.bytes.data(), act.data() + j * stride);
                    QVERIFY2(std::memcmp(&got, &expected[static_cast<size_t>(j)], 4) == 0,
                             qPrintable(QStringLiteral("%1 n=%2 column %3: %4, recipe %5").arg(cpuPathName(path)).arg(n)
                                            .arg(j).arg(got, 0, 'g', 9).arg(expected[static_cast<size_t>(j)], 0, 'g', 9)));
                }
                for (int ny = 1; ny <= kCols; ++ny) {
                    std::vector<float> multi(static_cast<size_t>(ny), NAN);
                    t->vecDotMulti(n, multi.data(), w.bytes.data(), act.data(), stride, ny);
                    QVERIFY2(std::memcmp(multi.data(), expected.data(), 4 * static_cast<size_t>(ny)) == 0,
                             qPrintable(QStringLiteral("%1 n=%2 ny=%3").arg(cpuPathName(path)).arg(n).arg(ny)));
                }
            }
        }
    }

    // Any bytes are a valid block (8- to 11-bit indices address whole grids):
    // arbitrary bytes (finite scales) give finite values, and every SIMD path
    // the scalar result bit for bit.
    void arbitraryBytes_data() { addTypeRows(); }
    void arbitraryBytes()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Rng rng(99 + static_cast<int>(type));
        const size_t blockBytes = ggmlTypeInfo(type)->typeSize;
        for (int rep = 0; rep < 8; ++rep) {
            const int64_t n = 256 * (1 + rep % 4);
            std::vector<uint8_t> w(static_cast<size_t>(n / 256) * blockBytes);
            for (uint8_t &b : w)
                b = static_cast<uint8_t>(rep == 0 ? 0xff : rep == 1 ? 0x00 : randInt(rng, 0, 255));
            for (size_t b = 0; b < w.size(); b += blockBytes) {
                // a finite scale: IQ1_M's is spread over the scale words' top nibbles
                if (type == T::GGML_TYPE_IQ1_M)
                    w[b + 55] &= 0x3f;   // exponent bits of the assembled half below 31
                else
                    w[b + 1] &= 0x3f;
            }
            const Q8KRow a = encodeQ8K(n, rng);
            std::vector<float> values(static_cast<size_t>(n));
            QVERIFY(setCpuPath(CpuPath::CPU_PATH_SCALAR));
            typeTraits(type)->dequantize(w.data(), values.data(), n);
            for (float v : values)
                QVERIFY(std::isfinite(v));
            float scalar = NAN;
            typeTraits(type)->vecDot(n, &scalar, w.data(), a.bytes.data());
            QVERIFY(std::isfinite(scalar));
            for (CpuPath path : supportedPaths()) {
                QVERIFY(setCpuPath(path));
                float got = NAN;
                typeTraits(type)->vecDot(n, &got, w.data(), a.bytes.data());
                QVERIFY2(std::memcmp(&got, &scalar, 4) == 0,
                         qPrintable(QStringLiteral("%1 rep %2: %3, scalar %4").arg(cpuPathName(path)).arg(rep)
                                        .arg(got, 0, 'g', 9).arg(scalar, 0, 'g', 9)));
            }
        }
    }

    // The prompt path's tiles (iq_tiles.h; the lattice types and Q2_K): a
    // multiply of 1..19 tokens over 37 rows (a partial last group) equals
    // each row's vecDot bit for bit,
    // with the active path's kernels and with the scalar twins, and the
    // conversions of every path (scalar, AVX2, AVX-512) give the same tile bytes.
    void tilesMatchVecDot_data() { addTileTypeRows(); }
    void tilesMatchVecDot()
    {
        QFETCH(GgmlType, type);
        if (!cpuPathSupported(tileFormPath(type)))
            QSKIP("this CPU lacks the path whose kernel the tiles reproduce (AVX2 for Q3_K)");
        PathGuard guard;
        const int64_t K = 768, N = 37, maxTokens = 19;
        const TileCase c = makeTileCase(type, K, N, maxTokens, 314 + static_cast<uint32_t>(type));
        const std::vector<uint8_t> &w = c.w, &act = c.act;
        const size_t rowBytes = c.rowBytes, actBytes = c.actBytes;
        const PackedActivation &pa = c.pa;
        matmulEqualsVecDot(type, c, K, N, {1, 8, maxTokens});
        if (QTest::currentTestFailed())
            return;
        // the scalar twins: conversion, and the multiply of the converted group
        std::vector<uint8_t> tile(iqTileSuperBytes(type) * static_cast<size_t>(K / 256));
        QVERIFY(!tile.empty());
        for (int64_t g = 0; g < (N + 15) / 16; ++g) {
            iqTileConvertScalar(type, w.data(), rowBytes, K, N, g, tile.data());
            const int rows = static_cast<int>(std::min<int64_t>(16, N - 16 * g));
#if defined(__x86_64__)
            if (cpuPathSupported(CpuPath::CPU_PATH_AVX512)) {
                std::vector<uint8_t> simdTile(tile.size(), 0xcd);
                burrow::quant::x86::iqTileConvertAvx512(type, w.data() + static_cast<size_t>(16 * g) * rowBytes, rowBytes, K, rows,
                                         simdTile.data());
                QVERIFY2(simdTile == tile, qPrintable(QStringLiteral("group %1: the AVX-512 tile differs").arg(g)));
            }
            if (cpuPathSupported(CpuPath::CPU_PATH_AVX2)) {
                std::vector<uint8_t> simdTile(tile.size(), 0xcd);
                burrow::quant::x86::iqTileConvertAvx2(type, w.data() + static_cast<size_t>(16 * g) * rowBytes, rowBytes, K, rows,
                                                      simdTile.data());
                QVERIFY2(simdTile == tile, qPrintable(QStringLiteral("group %1: the AVX2 tile differs").arg(g)));
            }
#endif
            std::vector<float> y(static_cast<size_t>(maxTokens * 16), NAN);
            iqTileMultiplyScalar(type, tile.data(), K, rows, pa, 0, maxTokens, y.data(), 16);
            QVERIFY(setCpuPath(tileFormPath(type)));
            for (int64_t tk = 0; tk < maxTokens; ++tk)
                for (int r = 0; r < rows; ++r) {
                    float expected = NAN;
                    typeTraits(type)->vecDot(K, &expected, w.data() + static_cast<size_t>(16 * g + r) * rowBytes,
                                             act.data() + static_cast<size_t>(tk) * actBytes);
                    QVERIFY(std::memcmp(&y[static_cast<size_t>(tk * 16 + r)], &expected, 4) == 0);
                }
        }
    }

    // Long rows and many tokens: the groups are converted in batches and the
    // tokens run through them in chunks (iqTileMatmul's cache blocking: here
    // 3 groups a batch, 48 tokens a chunk), still each row's vecDot.
    void tilesInBatchesAndChunks_data() { addTileTypeRows(); }
    void tilesInBatchesAndChunks()
    {
        QFETCH(GgmlType, type);
        if (!cpuPathSupported(tileFormPath(type)))
            QSKIP("this CPU lacks the path whose kernel the tiles reproduce (AVX2 for Q3_K)");
        PathGuard guard;
        const int64_t K = 6144, N = 69, maxTokens = 61;
        const TileCase c = makeTileCase(type, K, N, maxTokens, 2718 + static_cast<uint32_t>(type));
        matmulEqualsVecDot(type, c, K, N, {48, 53, maxTokens});
    }

    // A file mixing all seven lattice types (and Q4_K) loads and evaluates
    // prompts of 1 and 12 tokens (the one-token and the tile path) to finite
    // logits; rows that end inside a block and data cut short are refused
    // with the tensor's name.
    void latticeFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto write = [&](const QString &name, const std::vector<uint8_t> &bytes) {
            QFile f(dir.filePath(name));
            if (!f.open(QIODevice::WriteOnly) || f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size())) != qint64(bytes.size()))
                return std::string();
            return dir.filePath(name).toStdString();
        };
        test::TinySpec s;
        s.nEmbd = 256;
        s.nFf = 512;
        s.nHead = 4;
        s.nHeadKv = 2;
        const char *const names[] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};
        for (int layer = 0; layer < 2; ++layer)
            for (int k = 0; k < 7; ++k)
                s.types["blk." + std::to_string(layer) + "." + names[k] + ".weight"] = kIqTypes[(k + layer) % 7];
        s.types["blk.0.ffn_down.weight"] = T::GGML_TYPE_Q4_K;
        const std::string good = write(QStringLiteral("mixed.gguf"), test::buildTinyModel(s));
        auto m = Model::load(good);
        QVERIFY2(m, m.message().c_str());
        for (size_t n : {size_t(1), size_t(12)}) {
            auto session = Session::create(m.value(), SessionOptions{});
            QVERIFY2(session, session.message().c_str());
            std::vector<Token> prompt(n, 5);
            prompt[0] = 1;
            std::vector<float> logits;
            const Status st = session.value()->evaluate(prompt, &logits);
            QVERIFY2(st, st.message().c_str());
            QVERIFY(!logits.empty());
            for (float v : logits)
                QVERIFY(std::isfinite(v));
        }

        // the last tensor in the data section, cut short by one block
        auto opened = gguf::GgufFile::open(good);
        QVERIFY2(opened, opened.message().c_str());
        const gguf::TensorInfo *last = nullptr;
        for (const gguf::TensorInfo &ti : opened.value()->tensors())
            if (!last || ti.offset > last->offset)
                last = &ti;
        QVERIFY(last && std::find(std::begin(kIqTypes), std::end(kIqTypes), last->type) != std::end(kIqTypes));
        const std::string lastName(last->name);
        std::vector<uint8_t> bytes = test::buildTinyModel(s);
        bytes.resize(bytes.size() - ggmlTypeInfo(last->type)->typeSize);
        auto cut = Model::load(write(QStringLiteral("cut.gguf"), bytes));
        QVERIFY(!cut);
        QVERIFY2(cut.message().find("'" + lastName + "'") != std::string::npos && cut.message().find("past the end") != std::string::npos,
                 cut.message().c_str());

        // rows of 128 elements (a lattice block holds 256): the mixed file with
        // blk.0.ffn_up.weight's dims [256, 512] rewritten as [128, 1024]
        // (the writer refuses such rows, so the header is patched)
        std::vector<uint8_t> patched = test::buildTinyModel(s);
        const std::string target = "blk.0.ffn_up.weight";
        const auto at = std::search(patched.begin(), patched.end(), target.begin(), target.end());
        QVERIFY(at != patched.end());
        const size_t dims = static_cast<size_t>(at - patched.begin()) + target.size() + 4;   // after the name and n_dims
        int64_t ne[2];
        std::memcpy(ne, patched.data() + dims, sizeof ne);
        QCOMPARE(ne[0], int64_t(256));
        ne[0] /= 2;
        ne[1] *= 2;
        std::memcpy(patched.data() + dims, ne, sizeof ne);
        auto partial = Model::load(write(QStringLiteral("partial.gguf"), patched));
        QVERIFY(!partial);
        QVERIFY2(partial.message().find(target) != std::string::npos
                     && partial.message().find("not a multiple") != std::string::npos,
                 partial.message().c_str());
    }

    // burrow-cli quantize's IQ3_S (no importance matrix) writes the same file
    // as the reference's llama-quantize: FNV-1a of the whole output, taken
    // from llama-quantize IN OUT IQ3_S (build 9749) on these F32 bases.
    void quantizeIQ3_SMatchesReference_data()
    {
        QTest::addColumn<QString>("base");
        QTest::addColumn<quint64>("fnv");
        QTest::addColumn<qint64>("size");
        QTest::newRow("llama") << "models/synthetic/llama-f32.gguf" << quint64(0xc3c8d0fb23122492ull) << qint64(857504);
        QTest::newRow("qwen3 (tied output)") << "models/synthetic-2026/qwen3-f32.gguf" << quint64(0x1f4c7693a706597eull)
                                             << qint64(1398528);
    }
    void quantizeIQ3_SMatchesReference()
    {
        QFETCH(QString, base);
        QFETCH(quint64, fnv);
        QFETCH(qint64, size);
        BURROW_REQUIRE_SHARED(base);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const model::QuantFileType *ft = model::findQuantFileType("IQ3_S");
        QVERIFY(ft);
        const std::string out = dir.filePath(QStringLiteral("out.gguf")).toStdString();
        auto done = model::quantizeModelFile(test::sharedPath(base).toStdString(), out, *ft);
        QVERIFY2(done, done.message().c_str());
        QFile f(QString::fromStdString(out));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QCOMPARE(qint64(bytes.size()), size);
        QCOMPARE(hex(fnv1a(bytes.constData(), size_t(bytes.size()))), hex(fnv));
    }

    // The quantizer on its own: finite data quantizes to valid blocks whose
    // values stay close (relative RMS error), zero sub-blocks included.
    void quantizeIQ3_SRoundTrip()
    {
        Rng rng(8);
        const int64_t n = 4096;
        std::vector<float> x(static_cast<size_t>(n));
        for (float &v : x)
            v = std::normal_distribution<float>(0.0f, 0.02f)(rng);
        // an all-zero sub-block (the reference then writes the next sub-blocks
        // of that super-block one place early: the same bytes here, so that
        // super-block is left out of the error)
        std::fill(x.begin() + 512, x.begin() + 544, 0.0f);
        const TypeTraits *t = typeTraits(T::GGML_TYPE_IQ3_S);
        QVERIFY(t && t->quantize);
        std::vector<uint8_t> q(static_cast<size_t>(n / 256) * t->typeSize);
        t->quantize(x.data(), q.data(), n);
        std::vector<float> back(static_cast<size_t>(n));
        t->dequantize(q.data(), back.data(), n);
        double err = 0, ref = 0;
        for (int64_t i = 0; i < n; ++i) {
            QVERIFY(std::isfinite(back[static_cast<size_t>(i)]));
            if (i / 256 == 2)
                continue;
            err += std::pow(back[static_cast<size_t>(i)] - x[static_cast<size_t>(i)], 2);
            ref += std::pow(x[static_cast<size_t>(i)], 2);
        }
        QVERIFY2(std::sqrt(err / ref) < 0.2, qPrintable(QStringLiteral("relative RMS error %1").arg(std::sqrt(err / ref))));
    }

    // Every lattice tensor of the synthetic-types models (weights drawn from
    // N(0, 0.02), quantized by the reference) dequantizes to finite values
    // centred on 0, and its rows' dot products on every path equal the scalar ones.
    void syntheticTypesTensors_data()
    {
        QTest::addColumn<QString>("file");
        for (const char *name : {"llama-IQ1_S", "llama-IQ1_M", "llama-IQ2_XXS", "llama-IQ2_XS", "llama-IQ2_S",
                                 "llama-IQ2_M", "llama-IQ3_XXS", "llama-IQ3_S", "llama-IQ3_M", "llama-UD-mix",
                                 "qwen3moe-IQ-mix"})
            QTest::newRow(name) << QStringLiteral("models/synthetic-types/%1.gguf").arg(QLatin1String(name));
    }
    void syntheticTypesTensors()
    {
        QFETCH(QString, file);
        BURROW_REQUIRE_SHARED(file);
        PathGuard guard;
        auto opened = gguf::GgufFile::open(burrow::test::sharedPath(file).toStdString());
        QVERIFY2(opened.isOk(), opened.message().c_str());
        Rng rng(5);
        int checked = 0;
        for (const gguf::TensorInfo &ti : opened.value()->tensors()) {
            bool lattice = false;
            for (GgmlType t : kIqTypes)
                lattice = lattice || ti.type == t;
            if (!lattice)
                continue;
            const QString name = QString::fromLatin1(ti.name.data(), int(ti.name.size()));
            QVERIFY(setCpuPath(CpuPath::CPU_PATH_SCALAR));
            const TypeTraits *t = typeTraits(ti.type);
            std::vector<float> values(static_cast<size_t>(ti.nElements));
            t->dequantize(ti.data, values.data(), ti.nElements);
            double s = 0, s2 = 0;
            for (float v : values) {
                QVERIFY2(std::isfinite(v), qPrintable(name));
                s += v;
                s2 += double(v) * v;
            }
            const double mean = s / double(values.size()), sd = std::sqrt(s2 / double(values.size()) - mean * mean);
            QVERIFY2(std::fabs(mean) < 0.004 && sd > 0.01 && sd < 0.03,
                     qPrintable(QStringLiteral("%1 (%2): mean %3, std %4").arg(name).arg(t->name).arg(mean).arg(sd)));
            // a few rows against a random activation row on every path
            const int64_t K = ti.ne[0];
            size_t rowBytes = 0;
            QVERIFY(ggmlRowBytes(ti.type, K, &rowBytes));
            const Q8KRow a = encodeQ8K(K, rng);
            for (int64_t r = 0; r < std::min<int64_t>(ti.nElements / K, 8); ++r) {
                const uint8_t *row = ti.data + static_cast<size_t>(r) * rowBytes;
                QVERIFY(setCpuPath(CpuPath::CPU_PATH_SCALAR));
                float scalar = NAN;
                typeTraits(ti.type)->vecDot(K, &scalar, row, a.bytes.data());
                for (CpuPath path : supportedPaths()) {
                    QVERIFY(setCpuPath(path));
                    float got = NAN;
                    typeTraits(ti.type)->vecDot(K, &got, row, a.bytes.data());
                    QVERIFY2(std::memcmp(&got, &scalar, 4) == 0, qPrintable(name + QLatin1Char(' ') + QLatin1String(cpuPathName(path))));
                }
            }
            ++checked;
        }
        QVERIFY(checked > 0);
    }
};

QTEST_MAIN(TestQuantIq)
#include "tst_quant_iq.moc"
