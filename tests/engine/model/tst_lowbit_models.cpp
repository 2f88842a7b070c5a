// Models in the 1- and 2-bit types and NVFP4, made here with the project's
// GGUF writer (no ../shared needed):
//   - a model in each type against an F32 model of its exactly dequantized
//     weights (the README's tolerance) on every kernel path; packed and
//     unpacked kernels bit for bit the same on each path;
//   - per-tensor scales: `<matrix>.scale` multiplies the outputs exactly as
//     the reference's ggml_mul (a scale of 2 equals doubling every UE4M3
//     scale byte, bit for bit); `.input_scale` is read and unused; FFN scales
//     are left unused where the reference's graph leaves them (qwen2);
//     malformed scales refused with the tensor's name;
//   - a mixed file (all five types beside Q4_K, Q6_K, Q8_0, F16): it loads,
//     inspectModel counts each type and its weight bytes are exactly the sum
//     of the blocks' sizes, and `burrow-cli info` lists the counts;
//   - burrow-cli synth's NVFP4 files with --tensor-scales (a .scale and an
//     .input_scale beside every layer matrix, one per expert for experts)
//     load and compute, the dense and the expert scales bound;
//   - an MXFP4 model whose block scale the packed layout cannot hold loads,
//     that matrix unpacked, packed and unpacked the same bits;
//   - hostile variants refused with the tensor's name: truncated data, a
//     non-finite F16 scale, a TQ2_0 code 3, a UE4M3 scale byte 0x7f or with
//     its sign bit.
#include "burrow/engine.h"
#include "gguf/gguf_writer.h"
#include "model/synthetic_model.h"
#include "quant/cpu_features.h"
#include "quant/quant_blocks.h"
#include "quant/quant_traits.h"
#include "cli_process.h"
#include "test_support.h"
#include "tiny_model.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>

using namespace burrow;
using T = GgmlType;

namespace {

struct Spec {
    std::string arch = "llama";
    T defaultType = T::GGML_TYPE_NVFP4;                 // every matrix but the embeddings
    std::map<std::string, T> types;                     // per-tensor overrides
    std::map<std::string, std::vector<float>> scales;   // "<matrix>.scale" / ".input_scale" values
    std::map<std::string, T> scaleTypes;                // their type (default F32)
    bool doubleNvfp4Scales = false;                     // every UE4M3 scale byte + 8 (x 2; normal codes only)
    float sigma = 0.05f;                                // spread of the matrices' values
    bool dequantizedF32 = false;                        // matrices as F32 of their quantized values
    std::function<void(const std::string &, T, std::vector<uint8_t> &)> patch;   // edit a tensor's bytes
};

constexpr int64_t kEmbd = 256, kFf = 512, kHeads = 4, kHeadsKv = 2, kLayers = 2;

std::vector<float> randomValues(size_t n, uint32_t seed, float sigma)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, sigma);
    std::vector<float> v(n);
    for (float &x : v)
        x = nd(rng);
    return v;
}

// Random Q2_K or Q3_K blocks (the project quantizes neither) whose f16
// scales are small normal numbers: every value of a row within about 0.05.
void randomKBlocks(T type, std::vector<uint8_t> &bytes, uint32_t seed)
{
    std::mt19937 rng(seed);
    for (uint8_t &b : bytes)
        b = static_cast<uint8_t>(rng());
    const size_t block = type == T::GGML_TYPE_Q2_K ? sizeof(quant::BlockQ2_K) : sizeof(quant::BlockQ3_K);
    for (size_t b = 0; b < bytes.size(); b += block) {
        const uint16_t d = type == T::GGML_TYPE_Q2_K ? 0x1000 : 0x0c00;   // 2^-11, 2^-12
        if (type == T::GGML_TYPE_Q2_K) {
            std::memcpy(&bytes[b + offsetof(quant::BlockQ2_K, d)], &d, 2);
            std::memcpy(&bytes[b + offsetof(quant::BlockQ2_K, dmin)], &d, 2);
        } else {
            std::memcpy(&bytes[b + offsetof(quant::BlockQ3_K, d)], &d, 2);
        }
    }
}

// A llama (or qwen2) model: 256 wide, 2 layers, 4 heads (2 KV), FFN 512, the
// 16-token vocabulary of tiny_model.h.
std::vector<uint8_t> buildModel(const Spec &s)
{
    gguf::GgufWriter w;
    const std::string p = s.arch + ".";
    w.addString("general.architecture", s.arch);
    w.addU32(p + "context_length", 128);
    w.addU32(p + "embedding_length", kEmbd);
    w.addU32(p + "block_count", kLayers);
    w.addU32(p + "feed_forward_length", kFf);
    w.addU32(p + "attention.head_count", kHeads);
    w.addU32(p + "attention.head_count_kv", kHeadsKv);
    w.addF32(p + "attention.layer_norm_rms_epsilon", 1e-5f);
    const std::vector<std::string> &vocab = test::tinyVocab();
    w.addString("tokenizer.ggml.model", "llama");
    w.addStringArray("tokenizer.ggml.tokens", vocab);
    std::vector<float> scores(vocab.size(), 0.0f);
    std::vector<int32_t> tokenTypes(vocab.size(), 1);
    tokenTypes[0] = 2;
    tokenTypes[1] = tokenTypes[2] = 3;
    w.addArray("tokenizer.ggml.scores", gguf::ValueType::VALUE_TYPE_F32, scores);
    w.addArray("tokenizer.ggml.token_type", gguf::ValueType::VALUE_TYPE_I32, tokenTypes);
    w.addU32("tokenizer.ggml.bos_token_id", 1);
    w.addU32("tokenizer.ggml.eos_token_id", 2);

    uint32_t seed = 7;
    const auto add = [&](const std::string &name, std::vector<int64_t> dims, T type, float sigma, bool norm) {
        const size_t n = static_cast<size_t>(dims[0] * (dims.size() > 1 ? dims[1] : 1));
        std::vector<float> v = randomValues(n, seed++, sigma);
        if (norm)
            for (float &x : v)
                x += 1.0f;
        std::vector<uint8_t> bytes;
        if (type == T::GGML_TYPE_F32) {
            bytes.resize(n * 4);
            std::memcpy(bytes.data(), v.data(), bytes.size());
        } else {
            const quant::TypeTraits *t = quant::typeTraits(type);
            bytes.resize(n / static_cast<size_t>(t->blockSize) * t->typeSize);
            if (t->quantize)
                t->quantize(v.data(), bytes.data(), static_cast<int64_t>(n));
            else
                randomKBlocks(type, bytes, seed++);   // Q2_K, Q3_K: no quantizer here
            if (type == T::GGML_TYPE_NVFP4 && s.doubleNvfp4Scales)
                for (size_t b = 0; b < bytes.size(); b += 36)
                    for (size_t k = 0; k < 4; ++k) {
                        QVERIFY(bytes[b + k] >= 8 && bytes[b + k] < 0x77);   // exponent 1..14: + 8 doubles it
                        bytes[b + k] = static_cast<uint8_t>(bytes[b + k] + 8);
                    }
            if (s.dequantizedF32) {
                std::vector<float> back(n);
                t->dequantize(bytes.data(), back.data(), static_cast<int64_t>(n));
                if (auto it = s.scales.find(name.substr(0, name.size() - 7) + ".scale"); it != s.scales.end())
                    for (float &x : back)
                        x *= it->second[0];
                bytes.resize(n * 4);
                std::memcpy(bytes.data(), back.data(), bytes.size());
                type = T::GGML_TYPE_F32;
            }
        }
        if (s.patch)
            s.patch(name, type, bytes);
        QVERIFY(w.addTensor(name, type, dims, bytes));
    };
    const auto matrix = [&](const std::string &name, int64_t in, int64_t out) {
        auto it = s.types.find(name);
        add(name, {in, out}, it != s.types.end() ? it->second : s.defaultType, s.sigma, false);
    };
    const int64_t kv = kEmbd / kHeads * kHeadsKv;
    add("token_embd.weight", {kEmbd, int64_t(vocab.size())}, s.types.count("token_embd.weight") ? s.types.at("token_embd.weight") : T::GGML_TYPE_F32, 0.5f, false);
    add("output_norm.weight", {kEmbd}, T::GGML_TYPE_F32, 0.02f, true);
    matrix("output.weight", kEmbd, int64_t(vocab.size()));
    for (int l = 0; l < kLayers; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        add(b + "attn_norm.weight", {kEmbd}, T::GGML_TYPE_F32, 0.02f, true);
        matrix(b + "attn_q.weight", kEmbd, kEmbd);
        matrix(b + "attn_k.weight", kEmbd, kv);
        matrix(b + "attn_v.weight", kEmbd, kv);
        if (s.arch == "qwen2")
            for (auto [bias, size] : {std::pair{"attn_q.bias", kEmbd}, {"attn_k.bias", kv}, {"attn_v.bias", kv}})
                add(b + bias, {size}, T::GGML_TYPE_F32, 0.02f, false);
        matrix(b + "attn_output.weight", kEmbd, kEmbd);
        add(b + "ffn_norm.weight", {kEmbd}, T::GGML_TYPE_F32, 0.02f, true);
        matrix(b + "ffn_gate.weight", kEmbd, kFf);
        matrix(b + "ffn_up.weight", kEmbd, kFf);
        matrix(b + "ffn_down.weight", kFf, kEmbd);
    }
    for (const auto &[name, values] : s.scales) {
        if (s.dequantizedF32)
            break;   // the twin holds the scaled values
        std::vector<uint8_t> bytes(values.size() * 4);
        std::memcpy(bytes.data(), values.data(), bytes.size());
        const T type = s.scaleTypes.count(name) ? s.scaleTypes.at(name) : T::GGML_TYPE_F32;
        if (type != T::GGML_TYPE_F32)
            bytes.assign(bytes.size() / 2, 0);
        w.addTensor(name, type, {int64_t(values.size())}, bytes);
    }
    return w.bytes();
}

bool writeBytes(const std::string &path, const std::vector<uint8_t> &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return bool(out.flush());
}

const std::vector<Token> kPrompt = {1, 3, 5, 7, 4, 9, 12, 6, 3};

struct PathGuard {
    quant::CpuPath saved = quant::activeCpuPath();
    ~PathGuard() { quant::setCpuPath(saved); }
};

// Loads `bytes` from a temporary file and evaluates `prompt`.
Result<std::vector<float>> logitsOf(const std::vector<uint8_t> &bytes, const std::vector<Token> &prompt = kPrompt)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("m.gguf")).toStdString();
    if (!writeBytes(path, bytes))
        return Status::error("cannot write " + path);
    auto m = Model::load(path);
    if (!m)
        return m.status();
    SessionOptions so;
    so.contextSize = 64;
    auto session = Session::create(m.value(), so);
    if (!session)
        return session.status();
    std::vector<float> logits;
    if (Status s = session.value()->evaluate(prompt, &logits); !s)
        return s;
    return logits;
}

Status loadStatus(const std::vector<uint8_t> &bytes)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("m.gguf")).toStdString();
    if (!writeBytes(path, bytes))
        return Status::error("cannot write");
    auto m = Model::load(path);
    return m ? Status::ok() : m.status();
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<std::pair<quant::CpuPath, bool>> pathsAndPacking()
{
    std::vector<std::pair<quant::CpuPath, bool>> out;
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512})
        if (quant::cpuPathSupported(p))
            for (bool pack : {true, false})
                out.emplace_back(p, pack);
    return out;
}

void setPacking(bool on)
{
    if (on)
        qunsetenv("BURROW_PACK");
    else
        qputenv("BURROW_PACK", "0");
}

} // namespace

class TestLowbitModels : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { setPacking(true); }

    // NVFP4 (and each other new type) against F32 weights holding exactly
    // the dequantized values; every path gives the scalar path's bits.
    void typeMatchesDequantizedAndPaths_data()
    {
        QTest::addColumn<GgmlType>("type");
        for (T t : {T::GGML_TYPE_NVFP4, T::GGML_TYPE_Q1_0, T::GGML_TYPE_Q2_0, T::GGML_TYPE_TQ1_0, T::GGML_TYPE_TQ2_0})
            QTest::newRow(ggmlTypeName(t).c_str()) << t;
    }
    void typeMatchesDequantizedAndPaths()
    {
        QFETCH(GgmlType, type);
        PathGuard guard;
        Spec s;
        s.defaultType = type;
        s.scales["blk.0.ffn_down.scale"] = {0.75f};
        s.scales["blk.1.attn_q.scale"] = {1.5f};
        const std::vector<uint8_t> model = buildModel(s);
        s.dequantizedF32 = true;
        const std::vector<uint8_t> twin = buildModel(s);

        QVERIFY(quant::setCpuPath(quant::CpuPath::CPU_PATH_SCALAR));
        auto scalar = logitsOf(model);
        QVERIFY2(scalar, scalar.message().c_str());
        auto exact = logitsOf(twin);
        QVERIFY2(exact, exact.message().c_str());
        const double e = test::nrmse(*scalar, *exact);
        qInfo("%s vs its dequantized F32 twin: normalized RMS error %.5f", ggmlTypeName(type).c_str(), e);
        QCOMPARE(test::argmax(*scalar), test::argmax(*exact));
        QVERIFY2(e <= 0.03, qPrintable(QString::number(e)));
        // Packed and unpacked kernels give the same bits on each path; every
        // path is as close to the twin (the scalar path quantizes activations
        // as the reference's scalar code, the x86 paths as its x86 code: a
        // tie rounded the other way can move a 1-bit model's logits by ~1e-2).
        std::map<quant::CpuPath, std::vector<float>> byPath;
        for (auto [path, pack] : pathsAndPacking()) {
            QVERIFY(quant::setCpuPath(path));
            setPacking(pack);
            auto got = logitsOf(model);
            QVERIFY2(got, got.message().c_str());
            const QString where = QStringLiteral("%1%2").arg(quant::cpuPathName(path), pack ? "" : " unpacked");
            QCOMPARE(test::argmax(*got), test::argmax(*exact));
            QVERIFY2(test::nrmse(*got, *exact) <= 0.03, qPrintable(where));
            if (!byPath.count(path))
                byPath[path] = *got;
            QVERIFY2(sameBits(*got, byPath[path]), qPrintable(where + QStringLiteral(": packed and unpacked differ")));
        }
    }

    // `.scale` 2 on every matrix == every UE4M3 scale byte doubled: the same
    // bits (power-of-two scaling is exact); `.input_scale` changes nothing.
    void scaleTensorsApplied()
    {
        Spec a;
        a.sigma = 0.5f;   // no sub-block maximum below 6 x 2^-6: every scale byte normal
        const char *matrices[] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};
        for (int l = 0; l < kLayers; ++l)
            for (const char *m : matrices)
                a.scales["blk." + std::to_string(l) + "." + m + ".scale"] = {2.0f};
        a.scales["output.scale"] = {2.0f};
        Spec b;
        b.sigma = 0.5f;
        b.doubleNvfp4Scales = true;
        auto withScales = logitsOf(buildModel(a));
        QVERIFY2(withScales, withScales.message().c_str());
        auto doubled = logitsOf(buildModel(b));
        QVERIFY2(doubled, doubled.message().c_str());
        QVERIFY(sameBits(*withScales, *doubled));
        Spec plainSpec;
        plainSpec.sigma = 0.5f;
        auto plain = logitsOf(buildModel(plainSpec));
        QVERIFY(plain && !sameBits(*plain, *withScales));

        Spec c = a;
        c.scales["blk.0.attn_q.input_scale"] = {5.0f};
        c.scales["output.input_scale"] = {5.0f};
        auto withInput = logitsOf(buildModel(c));
        QVERIFY2(withInput, withInput.message().c_str());
        QVERIFY(sameBits(*withInput, *withScales));
    }

    // qwen2: the reference's graph applies attention scales but not FFN ones.
    void ffnScalesUnusedWhereTheReferenceIgnoresThem()
    {
        Spec base;
        base.arch = "qwen2";
        Spec ffn = base;
        ffn.scales["blk.0.ffn_up.scale"] = {3.0f};
        Spec attn = base;
        attn.scales["blk.0.attn_v.scale"] = {3.0f};
        auto plain = logitsOf(buildModel(base));
        auto withFfn = logitsOf(buildModel(ffn));
        auto withAttn = logitsOf(buildModel(attn));
        QVERIFY2(plain && withFfn && withAttn, "load failed");
        QVERIFY(sameBits(*plain, *withFfn));
        QVERIFY(!sameBits(*plain, *withAttn));
    }

    void badScalesRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("count");
        QTest::addColumn<bool>("f16");
        QTest::addColumn<float>("value");
        QTest::addColumn<bool>("quantizedOutput");
        QTest::addColumn<QString>("message");
        QTest::newRow("two values") << "blk.0.attn_q.scale" << 2 << false << 1.0f << true << "must be F32 with 1 element";
        QTest::newRow("F16") << "blk.1.ffn_up.scale" << 1 << true << 1.0f << true << "must be F32 with 1 element";
        QTest::newRow("NaN") << "blk.0.ffn_down.scale" << 1 << false << NAN << true << "not a finite number";
        QTest::newRow("unknown matrix") << "blk.0.attn_qkv.scale" << 1 << false << 1.0f << true
                                         << "a matrix that the model does not multiply with";
        QTest::newRow("non-NVFP4 output") << "output.scale" << 1 << false << 1.0f << false << "'output.scale'";
        QTest::newRow("token_embd") << "token_embd.scale" << 1 << false << 1.0f << true << "'token_embd.scale'";
    }
    void badScalesRefused()
    {
        QFETCH(QString, name);
        QFETCH(int, count);
        QFETCH(bool, f16);
        QFETCH(float, value);
        QFETCH(bool, quantizedOutput);
        QFETCH(QString, message);
        Spec s;
        s.scales[name.toStdString()] = std::vector<float>(static_cast<size_t>(count), value);
        if (f16)
            s.scaleTypes[name.toStdString()] = T::GGML_TYPE_F16;
        if (!quantizedOutput)
            s.types["output.weight"] = T::GGML_TYPE_Q8_0;
        const Status st = loadStatus(buildModel(s));
        QVERIFY(!st);
        QVERIFY2(QString::fromStdString(st.message()).contains(name), st.message().c_str());
        QVERIFY2(QString::fromStdString(st.message()).contains(message), st.message().c_str());
    }

    // Each group of multiplies of one input mixes kinds of matrix: tiles
    // (Q2_K, Q3_K, IQ3_S) beside a packed Q4_K, over a prompt as long as the
    // context: the group's input slots fit the scratch (they wrote past it,
    // a Q2_K file's first prompt then crashed the app) and the logits are the
    // dequantized twin's on every path.
    void groupsOfMixedKinds()
    {
        PathGuard guard;
        Spec s;
        s.defaultType = T::GGML_TYPE_Q4_K;
        s.types = {{"output.weight", T::GGML_TYPE_Q6_K},
                   {"blk.0.attn_q.weight", T::GGML_TYPE_Q2_K},   {"blk.0.attn_k.weight", T::GGML_TYPE_Q3_K},
                   {"blk.0.ffn_gate.weight", T::GGML_TYPE_Q2_K}, {"blk.0.ffn_up.weight", T::GGML_TYPE_IQ3_S},
                   {"blk.0.ffn_down.weight", T::GGML_TYPE_Q3_K}, {"blk.1.attn_q.weight", T::GGML_TYPE_IQ3_S},
                   {"blk.1.attn_k.weight", T::GGML_TYPE_Q2_K},   {"blk.1.attn_v.weight", T::GGML_TYPE_Q3_K}};
        const std::vector<uint8_t> model = buildModel(s);
        s.dequantizedF32 = true;
        const std::vector<uint8_t> twin = buildModel(s);
        std::vector<Token> prompt;
        for (int i = 0; i < 60; ++i)
            prompt.push_back(static_cast<Token>(3 + (i * 7) % 13));
        auto exact = logitsOf(twin, prompt);
        QVERIFY2(exact, exact.message().c_str());
        for (auto [path, pack] : pathsAndPacking()) {
            QVERIFY(quant::setCpuPath(path));
            setPacking(pack);
            auto got = logitsOf(model, prompt);
            QVERIFY2(got, got.message().c_str());
            const QString where = QStringLiteral("%1%2").arg(quant::cpuPathName(path), pack ? "" : " unpacked");
            const double e = test::nrmse(*got, *exact);
            QVERIFY2(test::argmax(*got) == test::argmax(*exact), qPrintable(where));
            QVERIFY2(e <= 0.03, qPrintable(QStringLiteral("%1: %2").arg(where).arg(e)));
        }
    }

    // Every new type beside the common ones in one file.
    void mixedFile()
    {
        Spec s;
        s.defaultType = T::GGML_TYPE_Q4_K;
        s.types = {{"token_embd.weight", T::GGML_TYPE_Q1_0},     {"output.weight", T::GGML_TYPE_Q6_K},
                   {"blk.0.attn_q.weight", T::GGML_TYPE_TQ1_0},  {"blk.0.attn_k.weight", T::GGML_TYPE_TQ2_0},
                   {"blk.0.attn_v.weight", T::GGML_TYPE_Q2_0},   {"blk.0.attn_output.weight", T::GGML_TYPE_NVFP4},
                   {"blk.0.ffn_gate.weight", T::GGML_TYPE_Q1_0}, {"blk.1.ffn_up.weight", T::GGML_TYPE_Q8_0},
                   {"blk.1.ffn_down.weight", T::GGML_TYPE_F16}};
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("mix.gguf")).toStdString();
        QVERIFY(writeBytes(path, buildModel(s)));
        auto logits = logitsOf(buildModel(s));
        QVERIFY2(logits, logits.message().c_str());
        for (float v : *logits)
            QVERIFY(std::isfinite(v));

        auto info = inspectModel(path);
        QVERIFY2(info, info.message().c_str());
        const std::map<std::string, int> counts = {{"F32", 5}, {"Q1_0", 2}, {"TQ1_0", 1}, {"TQ2_0", 1}, {"Q2_0", 1},
                                                   {"NVFP4", 1}, {"Q6_K", 1}, {"Q8_0", 1}, {"F16", 1}, {"Q4_K", 7}};
        QCOMPARE(info->tensorTypeCounts, counts);
        // bytes from the block geometry (elements / block x block bytes), worked out here
        const int64_t kv = kEmbd / kHeads * kHeadsKv, V = int64_t(test::tinyVocab().size());
        const auto bytes = [](int64_t n, int64_t block, int64_t size) { return uint64_t(n / block * size); };
        uint64_t want = 4 * (kEmbd * (1 + 2 * kLayers));                       // norms
        want += bytes(kEmbd * V, 128, 18) + bytes(kEmbd * V, 256, 210);        // Q1_0 embeddings, Q6_K output
        want += bytes(kEmbd * kEmbd, 256, 54) + bytes(kEmbd * kv, 256, 66) + bytes(kEmbd * kv, 64, 18) +
                bytes(kEmbd * kEmbd, 64, 36) + bytes(kEmbd * kFf, 128, 18);    // layer 0: q k v o gate
        want += bytes(kEmbd * kFf, 256, 144) + bytes(kFf * kEmbd, 256, 144);   // layer 0: up, down Q4_K
        want += bytes(kEmbd * kEmbd, 256, 144) * 2 + bytes(kEmbd * kv, 256, 144) * 2 +
                bytes(kEmbd * kFf, 256, 144);                                  // layer 1: q o k v gate
        want += bytes(kEmbd * kFf, 32, 34) + uint64_t(kFf * kEmbd * 2);        // layer 1: up Q8_0, down F16
        QCOMPARE(info->weightBytes, want);

        const test::ProcessResult r = test::runCli({QStringLiteral("info"), QString::fromStdString(path)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        for (const char *t : {"TQ1_0: 1", "TQ2_0: 1", "Q1_0: 2", "Q2_0: 1", "NVFP4: 1"})
            QVERIFY2(r.out.contains(t), r.out.constData());
    }

    void synthesizedScales_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("matrices");   // layer matrices, each with two scale tensors
        QTest::newRow("llama-tiny") << "llama-tiny" << 14;
        QTest::newRow("qwen3moe-tiny") << "qwen3moe-tiny" << 14;   // q k v o + 3 expert tensors, 2 layers
    }
    void synthesizedScales()
    {
        QFETCH(QString, preset);
        QFETCH(int, matrices);
        QTemporaryDir dir;
        const std::string plainPath = dir.filePath(QStringLiteral("plain.gguf")).toStdString();
        const std::string path = dir.filePath(QStringLiteral("scales.gguf")).toStdString();
        model::SyntheticSpec spec;
        const model::SyntheticPreset *p = model::findSyntheticPreset(preset.toStdString());
        QVERIFY(p);
        spec.arch = p->arch;
        spec.shape = p->shape;
        spec.fileType = "NVFP4";
        spec.threads = 2;
        QVERIFY(model::writeSyntheticModel(spec, plainPath));
        spec.shape.tensorScales = true;
        QVERIFY(model::writeSyntheticModel(spec, path));
        auto plain = inspectModel(plainPath), scaled = inspectModel(path);
        QVERIFY2(plain && scaled, "inspect failed");
        QCOMPARE(scaled->tensorTypeCounts.at("F32"), plain->tensorTypeCounts.at("F32") + 2 * matrices);
        QCOMPARE(scaled->tensorTypeCounts.at("NVFP4"), plain->tensorTypeCounts.at("NVFP4"));
        std::vector<float> a, b;
        for (const auto &[file, out] : {std::pair{plainPath, &a}, std::pair{path, &b}}) {
            auto m = Model::load(file);
            QVERIFY2(m, m.message().c_str());
            SessionOptions so;
            so.contextSize = 64;
            auto session = Session::create(m.value(), so);
            QVERIFY2(session, session.message().c_str());
            QVERIFY(session.value()->evaluate({1, 20, 30, 40}, out));
        }
        // the scales (1 + N(0, 0.02)) move the logits, a little
        const double moved = test::nrmse(b, a);
        QVERIFY2(moved > 1e-4 && moved < 0.2, qPrintable(QString::number(moved)));
    }

    // MXFP4 matrices are packed at load; one with a block scale the packed
    // layout cannot hold (E8M0 exponent 100, 2^-28: no f16) loads all the
    // same with that matrix on its row kernels, and on each path packed and
    // unpacked give the same bits, close to the model's F32 twin.
    void mxfp4OutsideF16StaysUnpacked()
    {
        PathGuard guard;
        Spec s;
        s.defaultType = T::GGML_TYPE_MXFP4;
        s.patch = [](const std::string &name, T t, std::vector<uint8_t> &bytes) {
            if (name == "blk.1.ffn_down.weight" && t == T::GGML_TYPE_MXFP4)
                bytes[3 * sizeof(quant::BlockMXFP4)] = 100;   // block 3's exponent
        };
        const std::vector<uint8_t> model = buildModel(s);
        s.dequantizedF32 = true;
        auto exact = logitsOf(buildModel(s));
        QVERIFY2(exact, exact.message().c_str());
        std::map<quant::CpuPath, std::vector<float>> byPath;
        for (auto [path, pack] : pathsAndPacking()) {
            QVERIFY(quant::setCpuPath(path));
            setPacking(pack);
            auto got = logitsOf(model);
            const QString where = QStringLiteral("%1%2").arg(quant::cpuPathName(path), pack ? "" : " unpacked");
            QVERIFY2(got, qPrintable(where + QStringLiteral(": ") + QString::fromStdString(got.message())));
            QCOMPARE(test::argmax(*got), test::argmax(*exact));
            QVERIFY2(test::nrmse(*got, *exact) <= 0.03, qPrintable(where));
            if (!byPath.count(path))
                byPath[path] = *got;
            QVERIFY2(sameBits(*got, byPath[path]), qPrintable(where + QStringLiteral(": packed and unpacked differ")));
        }
        setPacking(true);
    }

    void hostileRefused_data()
    {
        QTest::addColumn<GgmlType>("type");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("message");
        QTest::newRow("Q1_0 infinite scale") << T::GGML_TYPE_Q1_0 << "inf" << "not a finite number (F16 0x7c00)";
        QTest::newRow("Q2_0 NaN scale") << T::GGML_TYPE_Q2_0 << "nan" << "not a finite number (F16 0x7e00)";
        QTest::newRow("TQ1_0 NaN scale") << T::GGML_TYPE_TQ1_0 << "nan" << "not a finite number";
        QTest::newRow("TQ2_0 code 3") << T::GGML_TYPE_TQ2_0 << "code3" << "holds the code 3";
        QTest::newRow("NVFP4 NaN scale byte") << T::GGML_TYPE_NVFP4 << "0x7f" << "scale byte 0x7f";
        QTest::newRow("NVFP4 signed scale byte") << T::GGML_TYPE_NVFP4 << "0x80" << "scale byte 0xb8";
        QTest::newRow("TQ1_0 truncated") << T::GGML_TYPE_TQ1_0 << "truncated" << "blk.1.ffn_down.weight";
    }
    void hostileRefused()
    {
        QFETCH(GgmlType, type);
        QFETCH(QString, kind);
        QFETCH(QString, message);
        const std::string victim = "blk.1.ffn_down.weight";
        Spec s;
        s.defaultType = type;
        s.patch = [&](const std::string &name, T t, std::vector<uint8_t> &bytes) {
            if (name != victim || t != type)
                return;
            const size_t block = ggmlTypeInfo(type)->typeSize, at = 3 * block;   // block 3
            const size_t dOffset = type == T::GGML_TYPE_TQ1_0 ? 52 : type == T::GGML_TYPE_TQ2_0 ? 64 : 0;
            if (kind == "inf" || kind == "nan") {
                const uint16_t h = kind == "inf" ? 0x7c00 : 0x7e00;
                std::memcpy(bytes.data() + at + dOffset, &h, 2);
            } else if (kind == "code3") {
                bytes[at + 10] |= 0x30;   // bits 4-5: code 3
            } else if (kind == "0x7f") {
                bytes[at + 2] = 0x7f;
            } else if (kind == "0x80") {
                bytes[at + 1] = 0xb8;
            }
        };
        std::vector<uint8_t> file = buildModel(s);
        if (kind == "truncated")
            file.resize(file.size() - 100);   // the last tensor, ffn_down of layer 1 (scales come after none)
        const Status st = loadStatus(file);
        QVERIFY(!st);
        QVERIFY2(QString::fromStdString(st.message()).contains(QString::fromStdString(victim)), st.message().c_str());
        QVERIFY2(QString::fromStdString(st.message()).contains(message), st.message().c_str());
        if (kind != "truncated")
            QVERIFY2(QString::fromStdString(st.message()).contains(QStringLiteral("block 3")), st.message().c_str());
    }
};

QTEST_MAIN(TestLowbitModels)
#include "tst_lowbit_models.moc"
