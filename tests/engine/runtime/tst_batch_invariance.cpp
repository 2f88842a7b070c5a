// Batch invariance (runtime/batch_invariance.h): the logits of a position
// are bit for bit the same computed alone (one token per pass), at the end
// of a long prompt chunk (tiled attention, packed and tiled multiplies), of a
// short one (a k-token verification pass), and batched with three other
// sequences of other lengths. Every architecture of ../shared, F16 and Q8_0
// caches, with and without flash attention; CTest runs it again on the
// scalar and AVX2 paths and without packing (as tst_parity). memcmp-equal:
// no tolerance.
#include "api/model_impl.h"
#include "burrow/engine.h"
#include "runtime/batch_invariance.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/thread_pool.h"
#include "test_support.h"

#include <QtTest>

#include <cstring>
#include <memory>

using namespace burrow;

namespace {

constexpr uint32_t kCtx = 128;
constexpr int kLen = 80;          // positions checked
constexpr int kMaxBatch = 96;

struct Setup {
    std::shared_ptr<const api::ModelImpl> impl;
    std::shared_ptr<Model> model;
};

std::vector<int32_t> tokensFor(uint32_t nVocab, uint32_t seed, int n)
{
    std::vector<int32_t> t(static_cast<size_t>(n));
    uint32_t s = seed * 2654435761u + 12345u;
    for (int i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        t[static_cast<size_t>(i)] = static_cast<int32_t>(1 + (s >> 8) % (nVocab - 1));
    }
    return t;
}

// The first position where two logit rows differ, or -1.
int firstDifference(const float *a, const float *b, uint32_t n)
{
    if (std::memcmp(a, b, sizeof(float) * n) == 0)
        return -1;
    for (uint32_t i = 0; i < n; ++i)
        if (std::memcmp(a + i, b + i, sizeof(float)) != 0)
            return static_cast<int>(i);
    return -1;
}

} // namespace

class TestBatchInvariance : public QObject {
    Q_OBJECT

private slots:
    // (BURROW_BATCH_INVARIANT=0, the opt-out, makes the chunked and batched
    // rows of every quantized K-quant, float and sliding-window model fail.)
    void initTestCase() { QVERIFY2(runtime::batchInvariant(), "batch invariance is on by default"); }

    void positionAloneInChunkAndBatch_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("flash");
        QTest::addColumn<bool>("q8");
        const struct {
            const char *file;
            bool flash, q8;
        } rows[] = {
            {"models/stories260K.gguf", false, false},
            {"models/stories260K.gguf", true, false},
            {"models/synthetic/llama-f32.gguf", true, false},
            {"models/synthetic/llama-F16.gguf", true, false},
            {"models/synthetic/llama-BF16.gguf", true, false},
            {"models/synthetic/llama-Q4_0.gguf", true, false},
            {"models/synthetic/llama-Q8_0.gguf", true, false},
            {"models/synthetic/llama-Q2_K.gguf", true, false},
            {"models/synthetic/llama-Q4_K_M.gguf", true, false},
            {"models/synthetic/llama-Q4_K_M.gguf", false, false},
            {"models/synthetic/llama-Q4_K_M.gguf", true, true},
            {"models/synthetic/llama-IQ4_XS.gguf", true, false},
            {"models/synthetic/qwen2-Q4_K_M.gguf", true, false},
            {"models/synthetic/phi3-Q4_K_M.gguf", true, false},
            {"models/synthetic/gemma2-Q4_K_M.gguf", false, false},
            {"models/synthetic-2026/qwen3-Q4_K_M.gguf", true, false},
            {"models/synthetic-2026/qwen3moe-Q4_K_M.gguf", true, false},
            {"models/synthetic-2026/gemma3-Q4_K_M.gguf", true, false},
            {"models/synthetic-2026/gemma3-Q8_0.gguf", true, true},
            {"models/synthetic-2026/gpt-oss-MXFP4.gguf", true, false},
            {"models/synthetic-2026/qwen35-Q4_K_M.gguf", true, false},
            {"models/synthetic-2026/qwen35moe-Q8_0.gguf", true, false},
            {"models/synthetic-2026/gemma4-Q4_K_M.gguf", true, false},
            {"models/synthetic-2026/gemma4moe-Q4_K_M.gguf", true, false},
            {"models/synthetic-types/llama-IQ2_XXS.gguf", true, false},
            {"models/synthetic-types/qwen3moe-IQ-mix.gguf", true, false},
        };
        for (const auto &r : rows)
            QTest::newRow(qPrintable(QString::fromLatin1(r.file).section(QLatin1Char('/'), -1) +
                                     (r.flash ? QString() : QStringLiteral(" no flash")) +
                                     (r.q8 ? QStringLiteral(" Q8_0 KV") : QString())))
                << QString::fromLatin1(r.file) << r.flash << r.q8;
    }

    void positionAloneInChunkAndBatch()
    {
        QFETCH(QString, file);
        QFETCH(bool, flash);
        QFETCH(bool, q8);
        BURROW_REQUIRE_SHARED(file);
        auto loaded = Model::load(test::sharedPath(file).toStdString());
        QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
        auto impl = std::dynamic_pointer_cast<const api::ModelImpl>(loaded.value());
        QVERIFY(impl);
        const model::ModelConfig &c = impl->config();
        const uint32_t V = c.nVocab;
        const GgmlType kvType = q8 ? GgmlType::GGML_TYPE_Q8_0 : GgmlType::GGML_TYPE_F16;
        runtime::ThreadPool pool(2);
        const std::vector<int32_t> tokens = tokensFor(V, 1, kLen);

        // Alone: one token per pass, the logits of every position.
        std::vector<float> alone(static_cast<size_t>(kLen) * V);
        {
            auto cache = runtime::KvCache::create(c, kCtx, kMaxBatch, 1, 0, kvType);
            QVERIFY2(cache, cache ? "" : cache.message().c_str());
            auto fwd = runtime::Forward::create(c, impl->weights(), *cache.value(), pool, kMaxBatch, flash);
            QVERIFY2(fwd, fwd ? "" : fwd.message().c_str());
            // (logits only where the chunks and batches below end: the output
            // matrix is most of a step on the scalar path)
            const auto wanted = [](int p) { return p == 69 || p == 70 || p == 73 || p == 74 || p == 79; };
            for (int p = 0; p < kLen; ++p)
                QVERIFY(fwd.value()->eval(&tokens[static_cast<size_t>(p)], 1,
                                          wanted(p) ? alone.data() + static_cast<size_t>(p) * V : nullptr));
        }
        const auto expectAlone = [&](const float *got, int pos, const char *what) {
            const int d = firstDifference(got, alone.data() + static_cast<size_t>(pos) * V, V);
            if (d >= 0)
                QFAIL(qPrintable(QStringLiteral("%1, position %2: logit %3 is %4 alone, %5 here")
                                     .arg(QLatin1String(what)).arg(pos).arg(d)
                                     .arg(double(alone[static_cast<size_t>(pos) * V + static_cast<size_t>(d)]), 0, 'g', 9)
                                     .arg(double(got[d]), 0, 'g', 9)));
        };

        // Chunks: 70 (a prompt: tiled attention, packed / tiled multiplies),
        // 4 (a verification pass), 1, 5.
        {
            auto cache = runtime::KvCache::create(c, kCtx, kMaxBatch, 1, 0, kvType);
            QVERIFY(cache);
            auto fwd = runtime::Forward::create(c, impl->weights(), *cache.value(), pool, kMaxBatch, flash);
            QVERIFY(fwd);
            std::vector<float> logits(V);
            int p = 0;
            for (int n : {70, 4, 1, 5}) {
                QVERIFY(fwd.value()->eval(&tokens[static_cast<size_t>(p)], n, logits.data()));
                p += n;
                expectAlone(logits.data(), p - 1, "in a chunk");
                if (QTest::currentTestFailed())
                    return;
            }
        }

        // Batched: sequence 0 beside three others of other lengths and chunk sizes.
        {
            auto cache = runtime::KvCache::create(c, kCtx, kMaxBatch, 4, 0, kvType);
            QVERIFY(cache);
            auto fwd = runtime::Forward::create(c, impl->weights(), *cache.value(), pool, kMaxBatch, flash);
            QVERIFY(fwd);
            std::vector<std::vector<int32_t>> other;
            for (uint32_t s = 1; s < 4; ++s)
                other.push_back(tokensFor(V, 10 + s, kLen));
            // Lengths before the batches: sequence 0 at 66, the others 3, 12, 20.
            const int start[4] = {66, 3, 12, 20};
            {
                std::vector<int32_t> all;
                std::vector<runtime::BatchSpan> spans;
                for (uint32_t s = 0; s < 4; ++s) {
                    const std::vector<int32_t> &src = s == 0 ? tokens : other[s - 1];
                    runtime::BatchSpan sp;
                    sp.seq = s;
                    sp.row0 = static_cast<int32_t>(all.size());
                    sp.n = start[s];
                    spans.push_back(sp);
                    all.insert(all.end(), src.begin(), src.begin() + start[s]);
                }
                // Two passes (sequences 0 and 1, then 2 and 3).
                QVERIFY(fwd.value()->evalBatch(all.data(), spans.data(), 2, nullptr));
                spans[2].row0 = 0;
                spans[3].row0 = spans[2].n;
                QVERIFY(fwd.value()->evalBatch(all.data() + start[0] + start[1], spans.data() + 2, 2, nullptr));
            }
            // Then passes of (sequence 0's rows, the others' rows): a
            // verification of 4, one token, a chunk of 9.
            const int steps[][4] = {{4, 1, 6, 1}, {1, 3, 1, 1}, {9, 1, 1, 4}};
            int len[4] = {start[0], start[1], start[2], start[3]};
            for (const auto &st : steps) {
                std::vector<int32_t> all;
                std::vector<runtime::BatchSpan> spans;
                for (uint32_t s = 0; s < 4; ++s) {
                    const std::vector<int32_t> &src = s == 0 ? tokens : other[s - 1];
                    runtime::BatchSpan sp;
                    sp.seq = s;
                    sp.row0 = static_cast<int32_t>(all.size());
                    sp.n = st[s];
                    sp.logits = true;
                    spans.push_back(sp);
                    all.insert(all.end(), src.begin() + len[s], src.begin() + len[s] + st[s]);
                    len[s] += st[s];
                }
                std::vector<float> logits(static_cast<size_t>(4) * V);
                QVERIFY(fwd.value()->evalBatch(all.data(), spans.data(), 4, logits.data()));
                expectAlone(logits.data(), len[0] - 1, "batched with 3 others");
                if (QTest::currentTestFailed())
                    return;
            }
        }
    }

    // The thread count changes nothing either: one token per pass on 1
    // thread and on 7 (more threads than KV heads: a generated token's query
    // heads are split over several work items, attentionTiledRows).
    void threadCountChangesNothing_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("llama") << QStringLiteral("models/synthetic/llama-Q4_K_M.gguf");
        QTest::newRow("gemma3 (sliding window)") << QStringLiteral("models/synthetic-2026/gemma3-Q4_K_M.gguf");
        QTest::newRow("gpt-oss (sinks)") << QStringLiteral("models/synthetic-2026/gpt-oss-MXFP4.gguf");
    }

    void threadCountChangesNothing()
    {
        QFETCH(QString, file);
        BURROW_REQUIRE_SHARED(file);
        auto loaded = Model::load(test::sharedPath(file).toStdString());
        QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
        auto impl = std::dynamic_pointer_cast<const api::ModelImpl>(loaded.value());
        QVERIFY(impl);
        const model::ModelConfig &c = impl->config();
        const uint32_t V = c.nVocab;
        const std::vector<int32_t> tokens = tokensFor(V, 2, kLen);
        const auto logitsWith = [&](int threads, std::vector<float> &out) {
            runtime::ThreadPool pool(threads);
            out.assign(static_cast<size_t>(kLen) * V, 0.0f);
            auto cache = runtime::KvCache::create(c, kCtx, kMaxBatch, 1, 0, GgmlType::GGML_TYPE_F16);
            if (!cache)
                return false;
            auto fwd = runtime::Forward::create(c, impl->weights(), *cache.value(), pool, kMaxBatch, true);
            if (!fwd)
                return false;
            for (int p = 0; p < kLen; ++p)
                if (!fwd.value()->eval(&tokens[static_cast<size_t>(p)], 1, p >= 63 ? out.data() + static_cast<size_t>(p) * V : nullptr))
                    return false;
            return true;
        };
        std::vector<float> one, seven;
        QVERIFY(logitsWith(1, one));
        QVERIFY(logitsWith(7, seven));
        for (int p = 63; p < kLen; ++p) {
            const int d = firstDifference(seven.data() + static_cast<size_t>(p) * V, one.data() + static_cast<size_t>(p) * V, V);
            QVERIFY2(d < 0, qPrintable(QStringLiteral("position %1: logit %2 differs on 7 threads").arg(p).arg(d)));
        }
    }
};

QTEST_MAIN(TestBatchInvariance)
#include "tst_batch_invariance.moc"
