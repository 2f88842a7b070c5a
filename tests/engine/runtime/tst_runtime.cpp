// The runtime's building blocks and invariants: F16 conversion, RMSNorm,
// RoPE (both pairings, factors), GELU/softcap, the thread pool, and the
// forward pass's invariants: 1 thread == N threads, batch == token by token,
// prefix reuse == full recompute, context shift ~= recompute at the new
// positions, and the errors (prompt longer than the context, KV cache too
// large, token outside the vocabulary).
#include "burrow/engine.h"
#include "quant/cpu_features.h"
#include "ops/f16.h"
#include "runtime/kv_cache.h"
#include "ops/ops.h"
#include "api/session_impl.h"
#include "runtime/thread_pool.h"
#include "test_support.h"
#include "tiny_model.h"

#include <array>
#include <chrono>
#include <thread>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <limits>

using namespace burrow;

namespace {

using test::argmax;
using test::nrmse;

} // namespace

class TestRuntime : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<Model> m_tiny;

    static double nrmseOf(const std::vector<float> &x, const std::vector<float> &ref)
    {
        double e = 0, n = 0;
        for (size_t i = 0; i < x.size() && i < ref.size(); ++i) {
            e += (double(x[i]) - ref[i]) * (double(x[i]) - ref[i]);
            n += double(ref[i]) * ref[i];
        }
        return std::sqrt(e / std::max(n, 1e-30));
    }

    // Writes the generated model of `spec` into the test's folder and loads it
    // (null on failure).
    std::shared_ptr<Model> loadTiny(const test::TinySpec &spec, const QString &name)
    {
        const auto bytes = test::buildTinyModel(spec);
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return nullptr;
        f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size()));
        f.close();
        auto m = Model::load(path.toStdString());
        return m ? m.value() : nullptr;
    }

    std::shared_ptr<Model> tinyModel()
    {
        if (m_tiny)
            return m_tiny;
        test::TinySpec spec;
        spec.nCtx = 256;
        m_tiny = loadTiny(spec, QStringLiteral("tiny.gguf"));
        return m_tiny;
    }

    static std::unique_ptr<Session> session(const std::shared_ptr<Model> &m, uint32_t ctx, int threads)
    {
        auto s = Session::create(m, SessionOptions{ctx, threads});
        return s ? std::move(s.value()) : nullptr;
    }

    // The models the invariants are checked on: our own tiny one always,
    // the reference files when ../shared is there.
    void addModels()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("tiny (generated)") << QString();
        QTest::newRow("stories260K") << QStringLiteral("models/stories260K.gguf");
        QTest::newRow("llama-Q4_K_M") << QStringLiteral("models/synthetic/llama-Q4_K_M.gguf");
        QTest::newRow("qwen2-Q8_0") << QStringLiteral("models/synthetic/qwen2-Q8_0.gguf");
        QTest::newRow("gemma2-Q4_K_M") << QStringLiteral("models/synthetic/gemma2-Q4_K_M.gguf");
    }

    std::shared_ptr<Model> modelFor(const QString &file)
    {
        if (file.isEmpty())
            return tinyModel();
        auto m = Model::load(test::sharedPath(file).toStdString());
        return m ? m.value() : nullptr;
    }

    static std::vector<Token> promptFor(const Model &m, size_t n)
    {
        std::vector<Token> p{1};
        for (size_t i = 1; i < n; ++i)
            p.push_back(Token(3 + (i * 7) % (m.vocabSize() - 3)));
        return p;
    }

private slots:
    void f16Conversion_data()
    {
        QTest::addColumn<float>("value");
        QTest::addColumn<int>("half");
        QTest::addColumn<bool>("exact");   // value is a half: converting back gives it
        QTest::newRow("one") << 1.0f << 0x3C00 << true;
        QTest::newRow("minus two") << -2.0f << 0xC000 << true;
        QTest::newRow("max") << 65504.0f << 0x7BFF << true;
        QTest::newRow("rounds to inf") << 65520.0f << 0x7C00 << false;
        QTest::newRow("just below inf") << 65519.0f << 0x7BFF << false;
        QTest::newRow("smallest subnormal") << std::ldexp(1.0f, -24) << 0x0001 << true;
        QTest::newRow("half of smallest: ties to even 0") << std::ldexp(1.0f, -25) << 0x0000 << false;
        QTest::newRow("0.1") << 0.1f << 0x2E66 << false;
        QTest::newRow("tie to even up") << 1.0f + 3.0f * std::ldexp(1.0f, -11) << 0x3C02 << false;
        QTest::newRow("tie to even down") << 1.0f + std::ldexp(1.0f, -11) << 0x3C00 << false;
        QTest::newRow("largest subnormal") << std::ldexp(1023.0f, -24) << 0x03FF << true;
    }

    void f16Conversion()
    {
        QFETCH(float, value);
        QFETCH(int, half);
        QFETCH(bool, exact);
        QCOMPARE(int(ops::f32ToF16(value)), half);
        if (exact)
            QCOMPARE(ops::f16ToF32(uint16_t(half)), value);
    }

    void rmsNorm()
    {
        const float x[4] = {1.0f, -2.0f, 3.0f, -4.0f};
        const float w[4] = {1.0f, 0.5f, 2.0f, 1.0f};
        float y[4];
        ops::rmsNorm(x, w, y, 4, 1e-5f);
        const double rms = std::sqrt((1.0 + 4.0 + 9.0 + 16.0) / 4.0 + 1e-5);
        for (int i = 0; i < 4; ++i)
            QVERIFY(std::fabs(y[i] - x[i] / rms * w[i]) < 1e-6);
    }

    void rope_data()
    {
        QTest::addColumn<bool>("neox");
        QTest::addColumn<bool>("factors");
        QTest::newRow("norm") << false << false;
        QTest::newRow("neox") << true << false;
        QTest::newRow("norm with factors") << false << true;
    }

    void rope()
    {
        QFETCH(bool, neox);
        QFETCH(bool, factors);
        const int headDim = 8, nRot = 6, heads = 2;
        const float pos = 5.0f, base = 10000.0f;
        const float ff[3] = {1.0f, 2.0f, 8.0f};
        std::vector<float> x(heads * headDim), orig;
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = float(i) * 0.25f - 1.0f;
        orig = x;
        std::vector<float> cs(nRot);
        ops::ropeCache(pos, nRot, base, 1.0f, factors ? ff : nullptr, cs.data());
        ops::ropeApply(x.data(), heads, headDim, nRot,
                           neox ? model::RopeType::ROPE_TYPE_NEOX : model::RopeType::ROPE_TYPE_NORM, cs.data());
        for (int h = 0; h < heads; ++h) {
            const float *o = orig.data() + h * headDim;
            const float *r = x.data() + h * headDim;
            for (int i = 0; i < nRot / 2; ++i) {
                const double theta = pos * std::pow(double(base), -2.0 * i / nRot) / (factors ? ff[i] : 1.0);
                const int a = neox ? i : 2 * i, b = neox ? i + nRot / 2 : 2 * i + 1;
                const double ea = o[a] * std::cos(theta) - o[b] * std::sin(theta);
                const double eb = o[a] * std::sin(theta) + o[b] * std::cos(theta);
                QVERIFY2(std::fabs(r[a] - ea) < 1e-4 && std::fabs(r[b] - eb) < 1e-4, qPrintable(QString::number(i)));
            }
            for (int i = nRot; i < headDim; ++i)   // not rotated
                QCOMPARE(r[i], o[i]);
        }
        // Rotating by p then by -p gives the input back.
        std::vector<float> back(nRot);
        ops::ropeCache(-pos, nRot, base, 1.0f, factors ? ff : nullptr, back.data());
        ops::ropeApply(x.data(), heads, headDim, nRot,
                           neox ? model::RopeType::ROPE_TYPE_NEOX : model::RopeType::ROPE_TYPE_NORM, back.data());
        for (size_t i = 0; i < x.size(); ++i)
            QVERIFY(std::fabs(x[i] - orig[i]) < 1e-5);
    }

    void activations()
    {
        for (float x : {-12.0f, -3.0f, -0.5f, 0.0f, 0.7f, 2.5f, 9.0f, 11.0f}) {
            const double exact = 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
            QVERIFY2(std::fabs(ops::geluTanh(x) - exact) <= 2e-3 * std::max(1.0, std::fabs(exact)),
                     qPrintable(QString::number(x)));
        }
        float v[3] = {0.0f, 30.0f, -1000.0f};
        ops::softcap(v, 3, 30.0f);
        QCOMPARE(v[0], 0.0f);
        QVERIFY(std::fabs(v[1] - 30.0 * std::tanh(1.0)) < 1e-5);
        QVERIFY(std::fabs(v[2] + 30.0f) < 1e-4);
        const float g[2] = {1.0f, -2.0f}, u[2] = {3.0f, 0.5f};
        float o[2];
        ops::swiglu(g, u, o, 2);
        QVERIFY(std::fabs(o[0] - 3.0 / (1.0 + std::exp(-1.0))) < 1e-6);
        QVERIFY(std::fabs(o[1] - 0.5 * -2.0 / (1.0 + std::exp(2.0))) < 1e-6);
    }

    // rmsNorm on every CPU path against the double-precision formula: rows of
    // 1024 (the 16-lane loop only), 1000 (with a tail) and 7 (tail only),
    // also in place (y == x, as the post-norms call it).
    void rmsNormPaths_data()
    {
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("n");
        QTest::addColumn<bool>("inPlace");
        for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2,
                                 quant::CpuPath::CPU_PATH_AVX512})
            for (int n : {1024, 1000, 7})
                for (bool inPlace : {false, true})
                    QTest::addRow("%s n=%d%s", quant::cpuPathName(p), n, inPlace ? " in place" : "")
                        << static_cast<int>(p) << n << inPlace;
    }

    void rmsNormPaths()
    {
        QFETCH(int, path);
        QFETCH(int, n);
        QFETCH(bool, inPlace);
        if (!quant::setCpuPath(static_cast<quant::CpuPath>(path)))
            QSKIP("this CPU lacks the path");
        std::vector<float> x(static_cast<size_t>(n)), w(static_cast<size_t>(n)), y(static_cast<size_t>(n));
        double sum = 0.0;
        for (int i = 0; i < n; ++i) {
            x[static_cast<size_t>(i)] = std::sin(0.37f * static_cast<float>(i)) * (1.0f + static_cast<float>(i % 13));
            w[static_cast<size_t>(i)] = 0.5f + 0.01f * static_cast<float>(i % 97);
            sum += static_cast<double>(x[static_cast<size_t>(i)]) * x[static_cast<size_t>(i)];
        }
        const std::vector<float> x0 = x;
        float *out = inPlace ? x.data() : y.data();
        ops::rmsNorm(x.data(), w.data(), out, n, 1e-5f);
        quant::setCpuPath(quant::bestCpuPath());
        const double inv = 1.0 / std::sqrt(sum / n + 1e-5);
        for (int i = 0; i < n; ++i) {
            const double exact = x0[static_cast<size_t>(i)] * inv * w[static_cast<size_t>(i)];
            QVERIFY2(std::fabs(out[i] - exact) <= 3e-7 * std::max(1.0, std::fabs(exact)),
                     qPrintable(QStringLiteral("element %1: %2, expected %3").arg(i).arg(out[i]).arg(exact)));
        }
    }

    // swiglu on every CPU path against the double-precision formula, over a
    // row long enough for the 16-lane loop plus a tail, including the
    // saturating ends of e^-g.
    void swigluPaths_data()
    {
        QTest::addColumn<int>("path");
        for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2,
                                 quant::CpuPath::CPU_PATH_AVX512})
            QTest::newRow(quant::cpuPathName(p)) << static_cast<int>(p);
    }

    void swigluPaths()
    {
        QFETCH(int, path);
        if (!quant::setCpuPath(static_cast<quant::CpuPath>(path)))
            QSKIP("this CPU lacks the path");
        std::vector<float> g, u;
        for (float v : {0.0f, -0.0f, 1e-6f, -1e-6f, 0.5f, -0.5f, 1.0f, -2.0f, 10.0f, -10.0f, 80.0f, -80.0f,
                        88.0f, -88.0f, 89.0f, -89.0f, 104.0f, -104.0f, 1000.0f, -1000.0f})
            g.push_back(v);
        for (int i = 0; i < 300; ++i)
            g.push_back(-20.0f + 0.1337f * static_cast<float>(i));
        for (size_t i = 0; i < g.size(); ++i)
            u.push_back(i % 3 == 0 ? 1.0f : -0.75f + 0.01f * static_cast<float>(i % 50));
        std::vector<float> out(g.size());
        ops::swiglu(g.data(), u.data(), out.data(), static_cast<int64_t>(g.size()));
        quant::setCpuPath(quant::bestCpuPath());
        for (size_t i = 0; i < g.size(); ++i) {
            const double x = g[i];
            const double exact = x / (1.0 + std::exp(-x)) * u[i];
            const double tol = 4 * std::numeric_limits<float>::epsilon() * std::max(1e-30, std::fabs(exact));
            QVERIFY2(std::isfinite(out[i]) && std::fabs(out[i] - exact) <= tol,
                     qPrintable(QStringLiteral("g %1: got %2, expected %3").arg(x).arg(out[i]).arg(exact)));
        }
    }

    void threadPool()
    {
        for (int threads : {1, 2, 3, 8}) {
            runtime::ThreadPool pool(threads);
            QCOMPARE(pool.size(), threads);
            std::vector<int> hits(1000, 0);
            for (int round = 0; round < 200; ++round) {
                pool.run([&](int ith, int nth) {
                    int64_t b, e;
                    runtime::ThreadPool::split(int64_t(hits.size()), ith, nth, &b, &e);
                    for (int64_t i = b; i < e; ++i)
                        ++hits[size_t(i)];
                });
            }
            for (int h : hits)
                QCOMPARE(h, 200);
            std::atomic<int> calls{0};
            pool.run([&](int, int) { ++calls; }, 1);   // small work: the caller alone
            QCOMPARE(calls.load(), 1);
        }
    }

    // Each part runs exactly once, by its worker or by the caller when the
    // worker has not started it: with workers asleep between rounds (more
    // threads than cores), the caller takes parts whose workers are still
    // waking, and no part is run twice or skipped.
    void threadPoolCallerTakesLateParts()
    {
        const int threads = 8;
        runtime::ThreadPool pool(threads);
        const std::thread::id caller = std::this_thread::get_id();
        int takenByCaller = 0;
        for (int round = 0; round < 300; ++round) {
            std::array<std::atomic<int>, threads> runs{};
            std::array<std::thread::id, threads> by{};
            pool.run([&](int ith, int nth) {
                QCOMPARE(nth, threads);
                runs[size_t(ith)].fetch_add(1);
                by[size_t(ith)] = std::this_thread::get_id();
            });
            for (int i = 0; i < threads; ++i) {
                QCOMPARE(runs[size_t(i)].load(), 1);
                if (i > 0 && by[size_t(i)] == caller)
                    ++takenByCaller;
            }
            QCOMPARE(by[0], caller);
            if (round % 3 == 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));   // let the workers sleep
        }
        qInfo("the caller ran %d of %d worker parts", takenByCaller, 300 * (threads - 1));
        QVERIFY2(takenByCaller > 0, "the caller never ran a part whose worker was late");
    }

    void threadsGiveSameLogits_data() { addModels(); }
    void threadsGiveSameLogits()
    {
        QFETCH(QString, file);
        if (!file.isEmpty())
            BURROW_REQUIRE_SHARED(file);
        auto m = modelFor(file);
        QVERIFY(m);
        const auto prompt = promptFor(*m, 20);
        std::vector<float> one, many;
        auto s1 = session(m, 64, 1), s4 = session(m, 64, 4);
        QVERIFY(s1 && s4);
        QVERIFY(s1->evaluate(prompt, &one));
        QVERIFY(s4->evaluate(prompt, &many));
        QCOMPARE(one, many);
    }

    void prefixReuseMatchesRecompute_data() { addModels(); }
    void prefixReuseMatchesRecompute()
    {
        QFETCH(QString, file);
        if (!file.isEmpty())
            BURROW_REQUIRE_SHARED(file);
        auto m = modelFor(file);
        QVERIFY(m);
        const auto full = promptFor(*m, 24);
        std::vector<Token> head(full.begin(), full.begin() + 10);
        std::vector<Token> other = head;
        other.push_back(full[20]);
        other.push_back(full[5]);

        std::vector<float> fresh, freshOther, reused, reusedOther, stepwise;
        auto a = session(m, 64, 2);
        QVERIFY(a->evaluate(full, &fresh));
        auto b = session(m, 64, 2);
        QVERIFY(b->evaluate(other, &freshOther));

        // The reference's dot products round differently in a batch than for
        // one token (F32/F16: tinyBLAS vs vec_dot; Q4_K: its gemm for the
        // first n - n % 4 rows), and so do ours: how a prompt is split into
        // evaluations moves the logits by float noise, which a random model
        // amplifies (8-bit activation rounding) to up to a few percent for
        // quantized weights; an engine bug (a cache row, a mask) moves them
        // by O(1). Splits whose rows all take the same forms agree bit for
        // bit (qwen2-Q8_0: one form).
        const bool oneForm = file.contains(QLatin1String("Q8_0"));
        const auto agree = [oneForm](const std::vector<float> &got, const std::vector<float> &want) {
            if (oneForm)
                return got == want;
            return got.size() == want.size() && nrmse(got, want) < 5e-2;
        };
        auto s = session(m, 64, 2);
        QVERIFY(s->evaluate(head, nullptr));
        QCOMPARE(s->cachedTokens(), head);
        QVERIFY(s->evaluate(full, &reused));               // reuses the 10 cached tokens
        QCOMPARE(s->cachedTokens(), full);
        QVERIFY2(agree(reused, fresh), qPrintable(QString::number(nrmse(reused, fresh))));
        QVERIFY(s->evaluate(other, &reusedOther));         // diverges after 10: recomputes the rest
        QVERIFY2(agree(reusedOther, freshOther), qPrintable(QString::number(nrmse(reusedOther, freshOther))));
        QVERIFY(s->evaluate(full, &reused));                // the same prompt again: only the last token
        QVERIFY2(agree(reused, fresh), qPrintable(QString::number(nrmse(reused, fresh))));

        // Token by token gives the same as the batch (up to the forms).
        auto t = session(m, 64, 2);
        for (size_t n = 1; n <= full.size(); ++n)
            QVERIFY(t->evaluate(std::vector<Token>(full.begin(), full.begin() + long(n)), &stepwise));
        QVERIFY2(agree(stepwise, fresh), qPrintable(QString::number(nrmse(stepwise, fresh))));
    }

    // Head size 64 with 4 query heads per KV head: prompts take the blocked
    // attention kernel (16 queries per pass on AVX-512, 8 on AVX2), tokens one
    // by one the per-token kernel, the scalar path its own. All agree up to
    // float summation order, for several block boundaries.
    void blockedAttentionMatchesPerToken_data()
    {
        QTest::addColumn<int>("promptLength");
        QTest::newRow("one block (3 tokens)") << 3;
        QTest::newRow("4 tokens: one full block") << 4;
        QTest::newRow("37 tokens: blocks and a tail") << 37;
    }
    void blockedAttentionMatchesPerToken()
    {
        QFETCH(int, promptLength);
        test::TinySpec spec;
        spec.nEmbd = 256;
        spec.nHead = 4;
        spec.nHeadKv = 1;
        spec.nFf = 128;
        spec.nCtx = 128;
        spec.withVocab = true;
        auto m = loadTiny(spec, QStringLiteral("head64.gguf"));
        QVERIFY(m);
        std::vector<Token> prompt{1};
        for (int i = 1; i < promptLength; ++i)
            prompt.push_back(Token(3 + (i * 5) % 13));

        std::vector<float> batch, stepwise, scalar, avx2;
        auto a = session(m, 64, 2);
        QVERIFY(a->evaluate(prompt, &batch));
        auto t = session(m, 64, 2);
        for (size_t n = 1; n <= prompt.size(); ++n)
            QVERIFY(t->evaluate(std::vector<Token>(prompt.begin(), prompt.begin() + long(n)), &stepwise));
        QVERIFY(quant::setCpuPath(quant::CpuPath::CPU_PATH_SCALAR));
        auto sc = session(m, 64, 2);
        bool ok = bool(sc->evaluate(prompt, &scalar));
        if (ok && quant::setCpuPath(quant::CpuPath::CPU_PATH_AVX2)) {   // the 8-query blocks
            auto s2 = session(m, 64, 2);
            ok = bool(s2->evaluate(prompt, &avx2));
        }
        quant::setCpuPath(quant::bestCpuPath());
        QVERIFY(ok);
        // The AVX2 path keeps 8 float lanes where the scalar one sums in
        // double; on this random model its per-token kernel is already ~5e-4
        // from the scalar logits at 37 tokens (probabilities rounding to the
        // neighbouring F16), so its bound is the parity tests' for float models.
        if (!avx2.empty())
            QVERIFY2(nrmseOf(avx2, scalar) < 5e-3, qPrintable(QString::number(nrmseOf(avx2, scalar))));
        QCOMPARE(batch.size(), scalar.size());
        QVERIFY2(nrmseOf(batch, stepwise) < 1e-4, qPrintable(QString::number(nrmseOf(batch, stepwise))));
        QVERIFY2(nrmseOf(batch, scalar) < 1e-4, qPrintable(QString::number(nrmseOf(batch, scalar))));
    }

    // A context shift drops cells and re-rotates the keys of the later ones.
    // Layer 0's keys and values depend only on the token and its position,
    // so after a shift they must equal those computed afresh at the new
    // positions (values exactly, keys up to F16 rounding). On a one-layer
    // model the next logits must then match a full recompute.
    void contextShiftMatchesRecompute_data() { addModels(); }
    void contextShiftMatchesRecompute()
    {
        QFETCH(QString, file);
        if (!file.isEmpty())
            BURROW_REQUIRE_SHARED(file);
        std::shared_ptr<Model> m;
        if (file.isEmpty()) {
            test::TinySpec spec;
            spec.nLayer = 1;
            const auto bytes = test::buildTinyModel(spec);
            const QString path = m_dir.filePath(QStringLiteral("one-layer.gguf"));
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size()));
            f.close();
            auto loaded = Model::load(path.toStdString());
            QVERIFY2(loaded, loaded.message().c_str());
            m = loaded.value();
        } else {
            m = modelFor(file);
        }
        QVERIFY(m);
        const auto prompt = promptFor(*m, 41);
        auto s = session(m, 48, 2);
        QVERIFY(s->evaluate(prompt, nullptr));
        auto *impl = dynamic_cast<api::SessionImpl *>(s.get());
        QVERIFY(impl);
        QVERIFY(impl->shiftContext(4));   // keep 4, drop half of the other 37 (18)
        std::vector<Token> kept(prompt.begin(), prompt.begin() + 4);
        kept.insert(kept.end(), prompt.begin() + 22, prompt.end());
        QCOMPARE(s->cachedTokens(), kept);

        auto fresh = session(m, 48, 2);
        QVERIFY(fresh->evaluate(kept, nullptr));
        const runtime::KvCache &a = impl->kvCache();
        const runtime::KvCache &b = dynamic_cast<api::SessionImpl *>(fresh.get())->kvCache();
        QCOMPARE(a.size(), uint32_t(kept.size()));
        // b holds all of `kept` except the last token (recomputed for logits): compare those.
        auto cfg = std::dynamic_pointer_cast<api::ModelImpl>(m)->config();
        double maxDiff = 0, maxAbs = 0;
        std::vector<uint16_t> ra(a.kStride()), rb(b.kStride()), va(a.vStride()), vb(b.vStride());
        for (uint32_t pos = 0; pos + 1 < kept.size(); ++pos) {
            a.readK(0, 0, pos, ra.data());
            b.readK(0, 0, pos, rb.data());
            for (uint32_t i = 0; i < cfg.nEmbdKv(0); ++i) {
                const float ka = ops::f16ToF32(ra[i]), kb = ops::f16ToF32(rb[i]);
                maxDiff = std::max(maxDiff, double(std::fabs(ka - kb)));
                maxAbs = std::max(maxAbs, double(std::fabs(kb)));
            }
            a.readV(0, 0, pos, va.data());
            b.readV(0, 0, pos, vb.data());
            QVERIFY(va == vb);
        }
        qInfo("layer 0 keys after the shift: largest difference %.2e (largest key %.2e)", maxDiff, maxAbs);
        QVERIFY(maxDiff <= 4e-3 * maxAbs);

        if (cfg.nLayer == 1) {
            std::vector<Token> next = kept;
            next.push_back(prompt[7]);
            std::vector<float> shifted, recomputed;
            QVERIFY(s->evaluate(next, &shifted));
            auto again = session(m, 48, 2);
            QVERIFY(again->evaluate(next, &recomputed));
            const double err = nrmse(shifted, recomputed);
            qInfo("one layer: logits after the shift vs a full recompute: normalized RMS error %.2e", err);
            QCOMPARE(argmax(shifted), argmax(recomputed));
            QVERIFY(err < 2e-3);
        }
    }

    void errors()
    {
        auto m = tinyModel();
        QVERIFY(m);
        auto s = session(m, 16, 1);
        QVERIFY(s);
        QCOMPARE(s->contextSize(), 16u);
        std::vector<float> logits;
        std::vector<Token> tooLong(17, 5);
        Status st = s->evaluate(tooLong, &logits);
        QVERIFY(!st);
        QVERIFY2(QString::fromStdString(st.message()).contains(QLatin1String("the prompt has 17 tokens, more than the context size of 16 tokens")),
                 st.message().c_str());
        GenerateResult r;
        st = s->generate(tooLong, SamplingParams{}, GenerateOptions{}, {}, &r);
        QVERIFY(!st);
        QVERIFY(QString::fromStdString(st.message()).contains(QLatin1String("more than the context size")));
        st = s->evaluate({}, &logits);
        QVERIFY(!st);
        QVERIFY(QString::fromStdString(st.message()).contains(QLatin1String("empty")));
        st = s->evaluate({1, 16}, &logits);
        QVERIFY(!st);
        QVERIFY2(QString::fromStdString(st.message()).contains(QLatin1String("outside the vocabulary")), st.message().c_str());
        QVERIFY(s->evaluate({1, 15}, &logits));   // still usable

        // Context size is clamped to the trained context.
        auto big = session(m, 100000, 1);
        QVERIFY(big);
        QCOMPARE(big->contextSize(), 256u);

        // A KV cache larger than the memory of any computer is refused with a message.
        model::ModelConfig c;
        c.nLayer = 1000;
        c.nHead = c.nHeadKv = 64;
        c.headDimK = c.headDimV = 128;
        c.nRot = 128;
        for (uint32_t il = 0; il < c.nLayer; ++il)
            c.layers.push_back(c.uniformLayer(il));
        auto cache = runtime::KvCache::create(c, 1u << 24, 512);
        QVERIFY(!cache);
        QVERIFY2(QString::fromStdString(cache.message()).contains(QLatin1String("KV cache")), cache.message().c_str());
    }
};

QTEST_MAIN(TestRuntime)
#include "tst_runtime.moc"
