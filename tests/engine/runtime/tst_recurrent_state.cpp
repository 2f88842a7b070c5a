// The recurrent state of qwen35's Gated DeltaNet layers through the forward
// pass and the KV cache (runtime/recurrent_state.h), on the reference's
// random qwen35 / qwen35moe files:
//   - a prompt evaluated in one pass (chunks of the delta rule) leaves the
//     same state and logits as the same tokens one at a time (steps);
//   - two sequences in one batch = each alone (the scheduler's step);
//   - a prompt chunk cancelled between layers leaves the state as it was;
//   - snapshots: truncating to a snapshot and generating again gives the
//     tokens of a fresh run from there; a Session reuses the prompt minus
//     its last token (regenerate) and refuses to shift the context;
//   - the state's bookkeeping: reachable positions, rewind, no prefix sharing.
// Skips without ../shared.
#include "burrow/engine.h"
#include "api/model_impl.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/recurrent_state.h"
#include "runtime/thread_pool.h"
#include "test_support.h"

#include <QtTest>

#include <atomic>
#include <cmath>
#include <memory>

using namespace burrow;

namespace {

const char *const kDense = "models/synthetic-2026/qwen35-f32.gguf";
const char *const kMoe = "models/synthetic-2026/qwen35moe-Q8_0.gguf";

// Prompt 2 of the reference set (45 tokens with BOS): three chunks of the delta rule.
const std::vector<int32_t> kPrompt = {1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317,
                                      426, 338, 401, 396, 267, 337, 410, 408, 419, 292, 411, 322, 265, 282, 295,
                                      433, 335, 311, 374, 419, 269, 311, 370, 268, 420, 327, 416, 400, 428, 426};

struct Engine {
    std::shared_ptr<Model> model;
    const api::ModelImpl *impl = nullptr;
    std::unique_ptr<runtime::ThreadPool> pool;
    std::unique_ptr<runtime::KvCache> cache;
    std::unique_ptr<runtime::Forward> forward;
};

bool makeEngine(const char *file, uint32_t sequences, Engine &e, uint32_t snapshots = 2)
{
    auto loaded = Model::load(test::sharedPath(QString::fromLatin1(file)).toStdString());
    if (!loaded)
        return false;
    e.model = loaded.value();
    e.impl = dynamic_cast<const api::ModelImpl *>(e.model.get());
    const model::ModelConfig &c = e.impl->config();
    e.pool = std::make_unique<runtime::ThreadPool>(2);
    auto cache = runtime::KvCache::create(c, 256, 64, sequences, 0, GgmlType::GGML_TYPE_F16, snapshots);
    if (!cache)
        return false;
    e.cache = std::move(cache.value());
    auto forward = runtime::Forward::create(c, e.impl->weights(), *e.cache, *e.pool, 64);
    if (!forward)
        return false;
    e.forward = std::move(forward.value());
    return true;
}

// All recurrent layers' state of `seq`, copied.
std::vector<float> stateOf(Engine &e, uint32_t seq)
{
    const model::ModelConfig &c = e.impl->config();
    std::vector<float> out;
    for (uint32_t il = 0; il < c.nLayer; ++il)
        if (c.layers[il].recurrent) {
            const float *p = e.cache->recurrent()->conv(il, seq);
            out.insert(out.end(), p, p + c.ssmStateFloats());
        }
    return out;
}

double maxDiff(const std::vector<float> &a, const std::vector<float> &b)
{
    double m = a.size() == b.size() ? 0.0 : 1e30;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        m = std::max(m, std::fabs(double(a[i]) - b[i]));
    return m;
}

std::vector<float> evalAll(Engine &e, const std::vector<int32_t> &tokens)
{
    std::vector<float> logits(e.impl->config().nVocab);
    const Status s = e.forward->eval(tokens.data(), int(tokens.size()), logits.data());
    return s ? logits : std::vector<float>{};
}

std::vector<float> evalOneByOne(Engine &e, const std::vector<int32_t> &tokens)
{
    std::vector<float> logits(e.impl->config().nVocab);
    for (size_t i = 0; i < tokens.size(); ++i)
        if (!e.forward->eval(&tokens[i], 1, i + 1 == tokens.size() ? logits.data() : nullptr))
            return {};
    return logits;
}

std::vector<int32_t> greedy(Engine &e, std::vector<float> logits, int n)
{
    std::vector<int32_t> out;
    for (int i = 0; i < n; ++i) {
        const int32_t t = int32_t(test::argmax(logits));
        out.push_back(t);
        if (!e.forward->eval(&t, 1, logits.data()))
            return {};
    }
    return out;
}

} // namespace

class TestRecurrentState : public QObject {
    Q_OBJECT

private slots:
    void promptInChunksEqualsTokenByToken_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("qwen35 F32") << QString::fromLatin1(kDense);
        QTest::newRow("qwen35moe Q8_0") << QString::fromLatin1(kMoe);
    }
    void promptInChunksEqualsTokenByToken()
    {
        QFETCH(QString, file);
        BURROW_REQUIRE_SHARED(file);
        Engine chunked, stepped;
        QVERIFY(makeEngine(qPrintable(file), 1, chunked));
        QVERIFY(makeEngine(qPrintable(file), 1, stepped));
        const std::vector<float> a = evalAll(chunked, kPrompt), b = evalOneByOne(stepped, kPrompt);
        QVERIFY(!a.empty() && !b.empty());
        QCOMPARE(chunked.cache->length(0), uint32_t(kPrompt.size()));
        const double state = maxDiff(stateOf(chunked, 0), stateOf(stepped, 0));
        const double logits = test::nrmse(a, b);
        qInfo("state max difference %.3g, logits normalized RMS %.3g", state, logits);
        QVERIFY2(state < 1e-4, qPrintable(QStringLiteral("states differ by %1").arg(state)));
        QVERIFY2(logits < 1e-4, qPrintable(QStringLiteral("logits differ by %1").arg(logits)));
        QCOMPARE(test::argmax(a), test::argmax(b));
        // A state that did change (a test that cannot pass on zeros).
        double norm = 0;
        for (float x : stateOf(chunked, 0))
            norm += std::fabs(x);
        QVERIFY(norm > 1.0);
    }

    void batchedEqualsAlone()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kDense));
        Engine both, alone;
        QVERIFY(makeEngine(kDense, 2, both));
        QVERIFY(makeEngine(kDense, 1, alone));
        // Sequence 0: the prompt's first 20 tokens, sequence 1: all 45, in one batch.
        std::vector<int32_t> rows(kPrompt.begin(), kPrompt.begin() + 20);
        rows.insert(rows.end(), kPrompt.begin(), kPrompt.begin() + 44);
        runtime::BatchSpan spans[2];
        spans[0] = {0, 0, 20, true};
        spans[1] = {1, 20, 44, true};
        std::vector<float> logits(2 * size_t(both.impl->config().nVocab));
        QVERIFY(both.forward->evalBatch(rows.data(), spans, 2, logits.data()));
        // Then one generation step for both at once.
        const int32_t next[2] = {kPrompt[20], kPrompt[44]};
        runtime::BatchSpan step[2] = {{0, 0, 1, true}, {1, 1, 1, true}};
        QVERIFY(both.forward->evalBatch(next, step, 2, logits.data()));
        const std::vector<float> mine1(logits.begin() + both.impl->config().nVocab, logits.end());
        const std::vector<float> ref1 = evalAll(alone, kPrompt);
        QVERIFY(test::nrmse(mine1, ref1) < 1e-4);
        QVERIFY(maxDiff(stateOf(both, 1), stateOf(alone, 0)) < 1e-4);
        alone.cache->clear(0);
        const std::vector<float> ref0 = evalAll(alone, std::vector<int32_t>(kPrompt.begin(), kPrompt.begin() + 21));
        const std::vector<float> mine0(logits.begin(), logits.begin() + both.impl->config().nVocab);
        QVERIFY(test::nrmse(mine0, ref0) < 1e-4);
        QVERIFY(maxDiff(stateOf(both, 0), stateOf(alone, 0)) < 1e-4);
    }

    void cancelledChunkLeavesTheState()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kDense));
        Engine e, fresh;
        QVERIFY(makeEngine(kDense, 1, e));
        QVERIFY(makeEngine(kDense, 1, fresh));
        const std::vector<int32_t> first(kPrompt.begin(), kPrompt.begin() + 10), rest(kPrompt.begin() + 10, kPrompt.end());
        QVERIFY(!evalAll(e, first).empty());
        const std::vector<float> before = stateOf(e, 0);
        // Cancelled before layer 2: layers 0 and 1 (recurrent) already changed their state.
        std::atomic<int> checks{0};
        e.forward->setCancelCheck([&] { return ++checks == 3; });
        std::vector<float> logits(e.impl->config().nVocab);
        const Status s = e.forward->eval(rest.data(), int(rest.size()), logits.data());
        QVERIFY(s.isCancelled());
        QCOMPARE(checks.load(), 3);
        QCOMPARE(e.cache->length(0), uint32_t(first.size()));
        QCOMPARE(maxDiff(stateOf(e, 0), before), 0.0);
        e.forward->setCancelCheck({});
        const std::vector<float> resumed = evalAll(e, rest), whole = evalAll(fresh, kPrompt);
        QVERIFY(test::nrmse(resumed, whole) < 1e-4);
    }

    void snapshotAndResume()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kDense));
        Engine e, fresh;
        QVERIFY(makeEngine(kDense, 1, e));
        QVERIFY(makeEngine(kDense, 1, fresh));
        runtime::RecurrentState &rs = *e.cache->recurrent();
        const std::vector<int32_t> head(kPrompt.begin(), kPrompt.begin() + 30);
        QVERIFY(!evalAll(e, head).empty());
        rs.snapshot(0, 30);
        const std::vector<float> at30 = stateOf(e, 0);
        const std::vector<int32_t> tail(kPrompt.begin() + 30, kPrompt.end());
        const std::vector<int32_t> firstRun = greedy(e, evalAll(e, tail), 8);
        QCOMPARE(e.cache->length(0), uint32_t(kPrompt.size() + 8));
        // Positions that can be had: the length, the snapshot, 0.
        QCOMPARE(e.cache->reusableLength(0, 53), 53u);
        QCOMPARE(e.cache->reusableLength(0, 52), 30u);
        QCOMPARE(e.cache->reusableLength(0, 30), 30u);
        QCOMPARE(e.cache->reusableLength(0, 29), 0u);
        e.cache->truncate(0, 30);
        QCOMPARE(e.cache->length(0), 30u);
        QCOMPARE(maxDiff(stateOf(e, 0), at30), 0.0);
        const std::vector<int32_t> again = greedy(e, evalAll(e, tail), 8);
        QCOMPARE(again, firstRun);
        const std::vector<int32_t> freshRun = greedy(fresh, evalAll(fresh, kPrompt), 8);
        QCOMPARE(freshRun, firstRun);
        // A position without a snapshot is not reachable: truncating there drops the sequence.
        e.cache->truncate(0, 20);
        QCOMPARE(e.cache->length(0), 0u);
        double norm = 0;
        for (float x : stateOf(e, 0))
            norm += std::fabs(x);
        QCOMPARE(norm, 0.0);
        QCOMPARE(rs.snapshotCount(0), 0u);
    }

    void snapshotsAreBounded()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kDense));
        Engine e;
        QVERIFY(makeEngine(kDense, 1, e, 2));
        runtime::RecurrentState &rs = *e.cache->recurrent();
        for (uint32_t i = 0; i < 4; ++i) {
            QVERIFY(!evalAll(e, {kPrompt[i]}).empty());
            rs.snapshot(0, e.cache->length(0));
        }
        QCOMPARE(rs.snapshotCount(0), 2u);   // positions 3 and 4 kept
        QCOMPARE(e.cache->reusableLength(0, 3), 3u);
        QCOMPARE(e.cache->reusableLength(0, 2), 0u);
        Engine none;
        QVERIFY(makeEngine(kDense, 1, none, 0));
        none.cache->recurrent()->snapshot(0, 0);
        QCOMPARE(none.cache->recurrent()->snapshotCount(0), 0u);
        // No prefix sharing for recurrent models.
        QCOMPARE(e.cache->adoptPrefix(0, kPrompt.data(), uint32_t(kPrompt.size())), e.cache->length(0));
        e.cache->clear(0);
        QCOMPARE(e.cache->adoptPrefix(0, kPrompt.data(), uint32_t(kPrompt.size())), 0u);
    }

    // Through a Session: the same prompt again reuses all but its last token
    // (the snapshot before it) and generates the same reply; the context does
    // not shift.
    void sessionRegenerates()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kMoe));
        auto loaded = Model::load(test::sharedPath(QString::fromLatin1(kMoe)).toStdString());
        QVERIFY(loaded);
        SessionOptions so;
        so.contextSize = 64;
        so.threads = 2;
        auto session = Session::create(loaded.value(), so);
        QVERIFY(session);
        SamplingParams greedyParams;
        greedyParams.temperature = 0.0f;
        GenerateOptions go;
        go.maxTokens = 6;
        GenerateResult first, second;
        QVERIFY(session.value()->generate(kPrompt, greedyParams, go, {}, &first));
        QVERIFY(session.value()->generate(kPrompt, greedyParams, go, {}, &second));
        QCOMPARE(second.tokens, first.tokens);
        QCOMPARE(second.timings.reusedTokens, int32_t(kPrompt.size() - 1));
        QCOMPARE(second.timings.promptTokens, 1);

        // The context fills: the reply stops there (no shift of a recurrent state).
        GenerateOptions longer;
        longer.maxTokens = 100;
        longer.overflow = ContextOverflow::CONTEXT_OVERFLOW_SHIFT;
        GenerateResult full;
        QVERIFY(session.value()->generate(kPrompt, greedyParams, longer, {}, &full));
        QCOMPARE(full.stopReason, StopReason::STOP_REASON_CONTEXT_FULL);
        // 64 positions: the prompt and 19 replies evaluated, the 20th sampled from the last logits.
        QCOMPARE(int(full.tokens.size()), 64 - int(kPrompt.size()) + 1);
    }

    void modelInfoCountsTheState()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kDense));
        auto info = inspectModel(test::sharedPath(QString::fromLatin1(kDense)).toStdString());
        QVERIFY(info);
        const ModelInfo &i = info.value();
        QCOMPARE(i.recurrentLayerCount, 3u);
        // Per recurrent layer: conv window (4 - 1) x 512 channels + 4 heads x 64 x 64, as floats.
        QCOMPARE(i.recurrentStateBytes, uint64_t(3) * (3 * 512 + 4 * 64 * 64) * 4);
        // Keys and values only for the one attention layer: 1 KV head x (128 + 128) halves.
        QCOMPARE(i.kvBytesPerToken, uint64_t(1) * 256 * 2);
        QCOMPARE(i.kvCacheBytes(100), uint64_t(100) * 512 + i.recurrentStateBytes * ModelInfo::kRecurrentStateCopies);
    }
};

QTEST_MAIN(TestRecurrentState)
#include "tst_recurrent_state.moc"
