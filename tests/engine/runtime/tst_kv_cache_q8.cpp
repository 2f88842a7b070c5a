// The Q8_0 KV cache (SessionOptions/SchedulerOptions::kvCacheType):
//   - memory: 34 bytes per 32 elements, 17/32 of the F16 cache, and
//     ModelInfo::kvCacheBytes(n, Q8_0) says what is allocated;
//   - rows written are quantized (each element within half a code step of
//     its float), block accounting holds as for F16;
//   - the errors: a Q8_0 cache without flash attention, head sizes that are
//     no multiple of 32;
//   - context shift re-rotates Q8_0 keys (dequantize, rotate, quantize) close
//     to a recompute at the new positions;
//   - logits with a Q8_0 cache against the F16 cache on generated and
//     ../shared models: the same argmax, a normalized RMS error within
//     kLogitsTolerance, greedy continuations mostly equal.
#include "burrow/engine.h"
#include "api/model_impl.h"
#include "api/session_impl.h"
#include "ops/f16.h"
#include "quant/quant_traits.h"
#include "runtime/kv_cache.h"
#include "test_support.h"
#include "tiny_model.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

using namespace burrow;

namespace {

using test::argmax;
using test::nrmse;

SamplingParams greedy()
{
    SamplingParams p;
    p.temperature = 0.0f;
    return p;
}

std::vector<Token> promptFor(const Model &m, size_t n)
{
    std::vector<Token> p{1};
    for (size_t i = 1; i < n; ++i)
        p.push_back(Token(3 + (i * 7) % (m.vocabSize() - 3)));
    return p;
}

// Logits with a Q8_0 cache against F16: the quantization error of keys and
// values (about 0.6% RMS per element) moves these small random-weight
// models' logits by 2-7% of their spread (the reference's own Q8_0 against
// its F16 cache: 1.8-2.2% on llama-Q8_0 and qwen3-Q4_K_M, docs/models.md);
// a wrong row, head offset or rotation gives errors of order 1.
constexpr double kLogitsTolerance = 0.1;

} // namespace

class TestKvCacheQ8 : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // A generated model with 4 heads of nEmbd / 4 (2 KV heads): head size 32
    // by default, 64 with nEmbd 256 (the Hadamard turn applies).
    std::shared_ptr<Model> tiny(uint32_t layers, const QString &name, uint32_t nEmbd = 128)
    {
        test::TinySpec spec;
        spec.nEmbd = nEmbd;
        spec.nFf = 256;
        spec.nLayer = layers;
        spec.nCtx = 256;
        const auto bytes = test::buildTinyModel(spec);
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return nullptr;
        f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size()));
        f.close();
        auto m = Model::load(path.toStdString());
        if (!m)
            qWarning("%s", m.message().c_str());
        return m ? m.value() : nullptr;
    }

    static std::unique_ptr<Session> session(const std::shared_ptr<Model> &m, uint32_t ctx, KvCacheType kv)
    {
        SessionOptions o;
        o.contextSize = ctx;
        o.threads = 2;
        o.kvCacheType = kv;
        auto s = Session::create(m, o);
        if (!s)
            qWarning("%s", s.message().c_str());
        return s ? std::move(s.value()) : nullptr;
    }

private slots:
    void memoryIsSeventeenThirtySeconds()
    {
        auto m = tiny(2, QStringLiteral("mem.gguf"));
        QVERIFY(m);
        const model::ModelConfig &c = std::dynamic_pointer_cast<api::ModelImpl>(m)->config();
        QCOMPARE(c.headDimK, 32u);
        auto f16 = runtime::KvCache::create(c, 256, 64, 1, 0, GgmlType::GGML_TYPE_F16);
        auto q8 = runtime::KvCache::create(c, 256, 64, 1, 0, GgmlType::GGML_TYPE_Q8_0);
        QVERIFY(f16 && q8);
        QCOMPARE(q8.value()->bytes() * 32, f16.value()->bytes() * 17);
        QCOMPARE(q8.value()->kStride(), size_t(c.nEmbdKv(0)) / 32 * 17);
        QCOMPARE(m->info().kvCacheBytes(256, KvCacheType::KV_CACHE_F16), f16.value()->bytes());
        QCOMPARE(m->info().kvCacheBytes(256, KvCacheType::KV_CACHE_Q8_0), q8.value()->bytes());
        QCOMPARE(m->info().kvCacheBytes(256), m->info().kvCacheBytes(256, KvCacheType::KV_CACHE_F16));
        // The Hadamard turn: keys in the largest power-of-2 block >= 64 that
        // divides the head size, values in blocks of 64; none for F16 or
        // sizes that are no multiple of 64 (the reference's attn_rot).
        QCOMPARE(f16.value()->kRotation(), 0);
        QCOMPARE(q8.value()->kRotation(), 0);   // head size 32
        for (auto [head, kRot, vRot] : {std::tuple{64u, 64, 64}, std::tuple{128u, 128, 64}, std::tuple{192u, 64, 64},
                                        std::tuple{256u, 256, 64}, std::tuple{96u, 0, 0}}) {
            model::ModelConfig other = c;
            other.headDimK = other.headDimV = head;
            for (model::LayerSpec &l : other.layers)
                l.headDimK = l.headDimV = head;
            auto made = runtime::KvCache::create(other, 64, 16, 1, 0, GgmlType::GGML_TYPE_Q8_0);
            QVERIFY(made);
            QCOMPARE(made.value()->kRotation(), kRot);
            QCOMPARE(made.value()->vRotation(), vRot);
        }
        // Saturates like the F16 form.
        ModelInfo huge;
        huge.kvBytesPerToken = UINT64_MAX / 2;
        QCOMPARE(huge.kvCacheBytes(4, KvCacheType::KV_CACHE_Q8_0), UINT64_MAX);
    }

    void rowsAreQuantized()
    {
        auto m = tiny(1, QStringLiteral("rows.gguf"));
        QVERIFY(m);
        const model::ModelConfig &c = std::dynamic_pointer_cast<api::ModelImpl>(m)->config();
        auto made = runtime::KvCache::create(c, 64, 16, 2, 0, GgmlType::GGML_TYPE_Q8_0);
        QVERIFY(made);
        runtime::KvCache &kv = *made.value();
        QVERIFY(kv.quantized());
        std::mt19937 rng(3);
        std::normal_distribution<float> nd(0.0f, 2.0f);
        std::vector<float> row(c.nEmbdKv(0)), back(c.nEmbdKv(0));
        for (float &x : row)
            x = nd(rng);
        QVERIFY(kv.reserve(1, 20));
        kv.writeK(0, 1, 19, row.data());
        kv.writeV(0, 1, 19, row.data());
        kv.commit(1, 20);
        QCOMPARE(kv.checkInvariants(), std::string());
        const quant::TypeTraits &t = *quant::typeTraits(GgmlType::GGML_TYPE_Q8_0);
        std::vector<uint16_t> kRow(kv.kStride()), vRow(kv.vStride());
        kv.readK(0, 1, 19, kRow.data());
        kv.readV(0, 1, 19, vRow.data());
        for (const uint16_t *cells : {kRow.data(), vRow.data()}) {
            t.dequantize(cells, back.data(), int64_t(back.size()));
            for (size_t b = 0; b < row.size(); b += 32) {
                float amax = 0;
                for (size_t i = b; i < b + 32; ++i)
                    amax = std::max(amax, std::fabs(row[i]));
                for (size_t i = b; i < b + 32; ++i)   // half a step of amax / 127, plus the F16 scale's rounding
                    QVERIFY2(std::fabs(back[i] - row[i]) <= amax / 127.0f * 0.5f + amax * 1e-3f,
                             qPrintable(QString("element %1: %2 for %3").arg(i).arg(back[i]).arg(row[i])));
            }
        }
        // Block accounting is the F16 cache's: truncate, prefix sharing.
        const std::vector<int32_t> tokens(64, 5);
        kv.truncate(1, 3);
        QCOMPARE(kv.checkInvariants(), std::string());
        QVERIFY(kv.reserve(0, 40));
        kv.commit(0, 40);
        kv.publish(0, tokens.data());
        kv.clear(1);
        QCOMPARE(kv.adoptPrefix(1, tokens.data(), 40), 32u);
        QCOMPARE(kv.checkInvariants(), std::string());
        kv.clear(0);
        kv.clear(1);
        QCOMPARE(kv.checkInvariants(), std::string());
    }

    void errors()
    {
        auto m = tiny(1, QStringLiteral("err.gguf"));
        QVERIFY(m);
        SessionOptions o;
        o.contextSize = 64;
        o.kvCacheType = KvCacheType::KV_CACHE_Q8_0;
        o.flashAttention = false;
        auto noFa = Session::create(m, o);
        QVERIFY(!noFa);
        QVERIFY2(noFa.message().find("kvCacheType Q8_0 needs flashAttention") != std::string::npos, noFa.message().c_str());
        o.flashAttention = true;
        QVERIFY(Session::create(m, o));

        // Head size 8 (nEmbd 32, 4 heads): no multiple of Q8_0's 32.
        test::TinySpec spec;
        const auto bytes = test::buildTinyModel(spec);
        const QString path = m_dir.filePath(QStringLiteral("head8.gguf"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size()));
        f.close();
        auto small = Model::load(path.toStdString());
        QVERIFY(small);
        auto head = Session::create(small.value(), o);
        QVERIFY(!head);
        QVERIFY2(head.message().find("multiples of 32") != std::string::npos, head.message().c_str());
        o.kvCacheType = KvCacheType::KV_CACHE_F16;
        QVERIFY(Session::create(small.value(), o));
    }

    void contextShiftRequantizes()
    {
        auto m = tiny(1, QStringLiteral("shift.gguf"), 256);
        QVERIFY(m);
        const auto prompt = promptFor(*m, 41);
        auto s = session(m, 48, KvCacheType::KV_CACHE_Q8_0);
        QVERIFY(s);
        QVERIFY(s->evaluate(prompt, nullptr));
        auto *impl = dynamic_cast<api::SessionImpl *>(s.get());
        QVERIFY(impl->shiftContext(4));
        std::vector<Token> kept(prompt.begin(), prompt.begin() + 4);
        kept.insert(kept.end(), prompt.begin() + 22, prompt.end());
        QCOMPARE(s->cachedTokens(), kept);
        auto fresh = session(m, 48, KvCacheType::KV_CACHE_Q8_0);
        QVERIFY(fresh->evaluate(kept, nullptr));
        const runtime::KvCache &a = impl->kvCache();
        const runtime::KvCache &b = dynamic_cast<api::SessionImpl *>(fresh.get())->kvCache();
        const model::ModelConfig &c = std::dynamic_pointer_cast<api::ModelImpl>(m)->config();
        QCOMPARE(a.kRotation(), 64);   // head size 64: the keys are turned (and must be turned back to rotate)
        const quant::TypeTraits &t = *quant::typeTraits(GgmlType::GGML_TYPE_Q8_0);
        std::vector<float> ka(c.nEmbdKv(0)), kb(c.nEmbdKv(0));
        double maxDiff = 0, maxAbs = 0;
        std::vector<uint16_t> ra(a.kStride()), rb(b.kStride()), va(a.vStride()), vb(b.vStride());
        for (uint32_t pos = 0; pos + 1 < kept.size(); ++pos) {
            a.readK(0, 0, pos, ra.data());
            b.readK(0, 0, pos, rb.data());
            t.dequantize(ra.data(), ka.data(), int64_t(ka.size()));
            t.dequantize(rb.data(), kb.data(), int64_t(kb.size()));
            for (size_t i = 0; i < ka.size(); ++i) {
                maxDiff = std::max(maxDiff, double(std::fabs(ka[i] - kb[i])));
                maxAbs = std::max(maxAbs, double(std::fabs(kb[i])));
            }
            // Values move without being touched.
            a.readV(0, 0, pos, va.data());
            b.readV(0, 0, pos, vb.data());
            QVERIFY(va == vb);
        }
        qInfo("keys after the shift: largest difference %.2e (largest key %.2e)", maxDiff, maxAbs);
        // A shifted key is quantized twice (before and after the rotation):
        // up to about a code step (amax / 127) from a fresh one.
        QVERIFY(maxDiff <= 1.5 / 127.0 * maxAbs);
        QVERIFY(maxDiff > 0);   // (it did re-rotate and re-quantize: a copy would be exact or far off)

        std::vector<Token> next = kept;
        next.push_back(prompt[7]);
        std::vector<float> shifted, recomputed;
        QVERIFY(s->evaluate(next, &shifted));
        auto again = session(m, 48, KvCacheType::KV_CACHE_Q8_0);
        QVERIFY(again->evaluate(next, &recomputed));
        const double err = nrmse(shifted, recomputed);
        qInfo("logits after the shift vs a full recompute: normalized RMS error %.2e", err);
        QCOMPARE(argmax(shifted), argmax(recomputed));
        QVERIFY(err < 2e-2);
    }

    void logitsCloseToF16_data()
    {
        QTest::addColumn<QString>("file");      // "" = generated (head size 32)
        QTest::addColumn<int>("promptLength");  // >= 64: the F16 cache tiles the prompt, Q8_0 does not
        QTest::newRow("tiny (generated), 100") << QString() << 100;
        QTest::newRow("tiny (generated), 20") << QString() << 20;
        QTest::newRow("llama-Q8_0") << QStringLiteral("models/synthetic/llama-Q8_0.gguf") << 100;
        QTest::newRow("qwen2-Q8_0") << QStringLiteral("models/synthetic/qwen2-Q8_0.gguf") << 100;
        QTest::newRow("qwen3-Q4_K_M") << QStringLiteral("models/synthetic-2026/qwen3-Q4_K_M.gguf") << 100;
        QTest::newRow("gemma3-Q8_0 (sliding)") << QStringLiteral("models/synthetic-2026/gemma3-Q8_0.gguf") << 100;
        QTest::newRow("gpt-oss (sinks)") << QStringLiteral("models/synthetic-2026/gpt-oss-MXFP4.gguf") << 100;
        QTest::newRow("llama-155M (bench)") << QStringLiteral("models/bench/llama-155M-Q4_K_M.gguf") << 100;
    }

    void logitsCloseToF16()
    {
        QFETCH(QString, file);
        QFETCH(int, promptLength);
        std::shared_ptr<Model> m;
        if (file.isEmpty()) {
            m = tiny(2, QStringLiteral("logits.gguf"));
        } else {
            BURROW_REQUIRE_SHARED(file);
            auto loaded = Model::load(test::sharedPath(file).toStdString());
            QVERIFY2(loaded, loaded.message().c_str());
            m = loaded.value();
        }
        QVERIFY(m);
        const ModelInfo &info = m->info();
        const model::ModelConfig &c = std::dynamic_pointer_cast<api::ModelImpl>(m)->config();
        if (c.headDimK % 32 != 0 || c.headDimV % 32 != 0) {
            QVERIFY(!session(m, 64, KvCacheType::KV_CACHE_Q8_0));
            QSKIP(qPrintable(QString("head size %1/%2 is no multiple of 32: the Q8_0 cache is refused").arg(c.headDimK).arg(c.headDimV)));
        }
        const std::vector<Token> prompt = promptFor(*m, size_t(promptLength));
        constexpr uint32_t kCtx = 160;
        auto f16 = session(m, kCtx, KvCacheType::KV_CACHE_F16);
        QVERIFY(f16);
        std::vector<float> a, b;
        QVERIFY(f16->evaluate(prompt, &a));
        auto q8 = session(m, kCtx, KvCacheType::KV_CACHE_Q8_0);
        QVERIFY(q8);
        QVERIFY(q8->evaluate(prompt, &b));
        const double err = nrmse(b, a);
        qInfo("%s (head size %u): Q8_0 vs F16 KV logits after %d tokens: normalized RMS error %.2e",
              qPrintable(info.name.c_str()), info.headDim, promptLength, err);
        QCOMPARE(argmax(b), argmax(a));
        QVERIFY2(err <= kLogitsTolerance, qPrintable(QString("normalized RMS error %1").arg(err)));
        QVERIFY2(err > 0, "the Q8_0 cache gave F16's logits bit for bit: it is not in use");

        // Greedy continuations: mostly equal (random-weight models have near
        // ties that a small error may flip; from there on they may part).
        constexpr int kTokens = 16;
        GenerateOptions go;
        go.maxTokens = kTokens;
        go.overflow = ContextOverflow::CONTEXT_OVERFLOW_STOP;
        GenerateResult ra, rb;
        QVERIFY(f16->generate(prompt, greedy(), go, {}, &ra));
        QVERIFY(q8->generate(prompt, greedy(), go, {}, &rb));
        size_t same = 0;
        while (same < ra.tokens.size() && same < rb.tokens.size() && ra.tokens[same] == rb.tokens[same])
            ++same;
        qInfo("greedy: the first %zu of %zu tokens equal", same, ra.tokens.size());
        if (same < ra.tokens.size() && same < rb.tokens.size()) {
            // Where they part, the two choices must be a near tie of the F16
            // logits (within the tolerance of the logits' spread).
            std::vector<Token> prefix = prompt;
            prefix.insert(prefix.end(), ra.tokens.begin(), ra.tokens.begin() + static_cast<std::ptrdiff_t>(same));
            std::vector<float> l;
            auto fresh = session(m, kCtx, KvCacheType::KV_CACHE_F16);
            QVERIFY(fresh && fresh->evaluate(prefix, &l));
            double mean = 0, var = 0;
            for (float v : l)
                mean += v;
            mean /= double(l.size());
            for (float v : l)
                var += (v - mean) * (v - mean);
            const double sd = std::sqrt(var / double(l.size()));
            const double gap = double(l[size_t(ra.tokens[same])]) - l[size_t(rb.tokens[same])];
            qInfo("token %zu: F16 picks %d, Q8_0 %d, %.3g apart (logit spread %.3g)", same, ra.tokens[same],
                  rb.tokens[same], gap, sd);
            QVERIFY2(gap <= kLogitsTolerance * sd, qPrintable(QString("not a near tie: %1 of spread %2").arg(gap).arg(sd)));
        }
    }
};

QTEST_MAIN(TestKvCacheQ8)
#include "tst_kv_cache_q8.moc"
