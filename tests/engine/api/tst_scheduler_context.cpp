// What the scheduler does when a reply fills its context (issue #26):
//   - CONTEXT_OVERFLOW_SHIFT keeps nKeep tokens, drops half of the rest and
//     computes the kept tail again (its blocks may be shared, so they are not
//     moved): the reply goes on past the context, and the token after a
//     shift is exactly what a fresh request on the shifted tokens gives
//     (batch invariance: the recompute is an ordinary prompt);
//   - CONTEXT_OVERFLOW_STOP ends the reply with STOP_REASON_CONTEXT_FULL at
//     the request's own context (Request::contextSize, smaller than the
//     scheduler's), and so does SHIFT on a model with recurrent layers;
//   - Request::onToken counts tokens, one call per token, where the text
//     callbacks see pieces.
#include "burrow/engine.h"
#include "test_support.h"

#include <QtTest>

#include <condition_variable>
#include <mutex>

using namespace burrow;
using burrow::test::sharedAvailable;
using burrow::test::sharedPath;

namespace {

std::shared_ptr<Model> load(const QString &relative)
{
    const QString path = sharedPath(relative);
    if (!QFileInfo::exists(path))
        return nullptr;
    auto m = Model::load(path.toStdString());
    return m ? m.value() : nullptr;
}

struct Outcome {
    GenerateResult result;
    Status status;
    std::vector<int32_t> counts;   // onToken's arguments
};

// Runs one greedy request through the end of generation tokens.
Outcome run(Scheduler &s, std::vector<Token> prompt, int maxTokens, ContextOverflow overflow, int32_t nKeep = 0,
            uint32_t contextSize = 0)
{
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    Outcome out;
    Request r;
    r.prompt = std::move(prompt);
    r.sampling.temperature = 0.0f;
    r.options.maxTokens = maxTokens;
    r.options.overflow = overflow;
    r.options.nKeep = nKeep;
    r.contextSize = contextSize;
    r.ignoreEndOfGeneration = true;
    r.onToken = [&out](int32_t n) { out.counts.push_back(n); };
    r.onDone = [&](const GenerateResult &res, const Status &st) {
        std::lock_guard<std::mutex> lock(m);
        out.result = res;
        out.status = st;
        done = true;
        cv.notify_all();
    };
    auto id = s.submit(std::move(r));
    if (!id) {
        out.status = id.status();
        return out;
    }
    std::unique_lock<std::mutex> lock(m);
    cv.wait_for(lock, std::chrono::seconds(120), [&] { return done; });
    return out;
}

} // namespace

class TestSchedulerContext : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void shiftGoesOnAndMatchesAFreshPrompt()
    {
        if (!sharedAvailable())
            QSKIP("../shared is absent");
        auto model = load(QStringLiteral("models/stories260K.gguf"));
        QVERIFY2(model, "models/stories260K.gguf does not load");
        SchedulerOptions o;
        o.contextSize = 64;
        o.parallel = 2;
        o.threads = 2;
        auto s = Scheduler::create(model, o);
        QVERIFY2(s, s ? "" : s.status().message().c_str());
        const std::vector<Token> prompt = model->tokenize("Once upon a time", true, false);
        const int32_t keep = 4;
        const int maxTokens = 100;   // two shifts at a context of 64
        const Outcome shifted = run(*s.value(), prompt, maxTokens, ContextOverflow::CONTEXT_OVERFLOW_SHIFT, keep);
        QVERIFY2(shifted.status, shifted.status.message().c_str());
        QCOMPARE(int(shifted.result.stopReason), int(StopReason::STOP_REASON_MAX_TOKENS));
        QCOMPARE(int(shifted.result.tokens.size()), maxTokens);

        // The first shift: the context held prompt + g generated tokens when
        // token g was sampled; then tokens [keep, keep + (64 - keep) / 2) left.
        const size_t g = 64 - prompt.size();
        std::vector<Token> seq = prompt;
        seq.insert(seq.end(), shifted.result.tokens.begin(), shifted.result.tokens.begin() + long(g));
        QCOMPARE(seq.size(), size_t(64));
        const size_t discard = (64 - keep) / 2;
        std::vector<Token> after(seq.begin(), seq.begin() + keep);
        after.insert(after.end(), seq.begin() + long(keep + discard), seq.end());
        after.push_back(shifted.result.tokens[g]);
        const Outcome fresh = run(*s.value(), after, 1, ContextOverflow::CONTEXT_OVERFLOW_STOP);
        QVERIFY2(fresh.status, fresh.status.message().c_str());
        QCOMPARE(fresh.result.tokens.size(), size_t(1));
        QCOMPARE(shifted.result.tokens[g + 1], fresh.result.tokens[0]);

        // The same request stopped by its context instead.
        const Outcome stopped = run(*s.value(), prompt, maxTokens, ContextOverflow::CONTEXT_OVERFLOW_STOP, keep);
        QVERIFY(stopped.status);
        QCOMPARE(int(stopped.result.stopReason), int(StopReason::STOP_REASON_CONTEXT_FULL));
        QCOMPARE(stopped.result.tokens.size(), g + 1);
        // Up to the shift, the two replies are the same.
        QVERIFY(std::equal(stopped.result.tokens.begin(), stopped.result.tokens.end(), shifted.result.tokens.begin()));
        QTRY_COMPARE(s.value()->stats().kvBlocksUsed, 0u);
    }

    // A request may use less than the scheduler's context (a chat asking
    // for a smaller one): it stops, or shifts, there.
    void requestContextBoundsTheReply()
    {
        if (!sharedAvailable())
            QSKIP("../shared is absent");
        auto model = load(QStringLiteral("models/stories260K.gguf"));
        QVERIFY(model);
        SchedulerOptions o;
        o.contextSize = 128;
        o.parallel = 1;
        o.threads = 2;
        auto s = Scheduler::create(model, o);
        QVERIFY(s);
        const std::vector<Token> prompt = model->tokenize("Lily and Tom went to the", true, false);
        const Outcome stopped = run(*s.value(), prompt, 200, ContextOverflow::CONTEXT_OVERFLOW_STOP, 0, 48);
        QVERIFY(stopped.status);
        QCOMPARE(int(stopped.result.stopReason), int(StopReason::STOP_REASON_CONTEXT_FULL));
        QCOMPARE(stopped.result.tokens.size(), 48 - prompt.size() + 1);
        // A prompt longer than the request's context is refused at submit.
        std::vector<Token> tooLong(60, prompt[1]);
        const Outcome refused = run(*s.value(), tooLong, 4, ContextOverflow::CONTEXT_OVERFLOW_STOP, 0, 48);
        QVERIFY(!refused.status);
        QVERIFY2(QString::fromStdString(refused.status.message()).contains(QLatin1String("48")),
                 refused.status.message().c_str());
        const Outcome shifted = run(*s.value(), prompt, 120, ContextOverflow::CONTEXT_OVERFLOW_SHIFT, 1, 48);
        QVERIFY(shifted.status);
        QCOMPARE(shifted.result.tokens.size(), size_t(120));
    }

    // A recurrent state cannot forget its oldest tokens: SHIFT stops like STOP.
    void recurrentModelStopsWhenFull()
    {
        if (!sharedAvailable())
            QSKIP("../shared is absent");
        auto model = load(QStringLiteral("models/synthetic-2026/qwen35-f32.gguf"));
        QVERIFY2(model, "models/synthetic-2026/qwen35-f32.gguf does not load");
        QVERIFY(!model->info().canShiftContext());
        SchedulerOptions o;
        o.contextSize = 48;
        o.parallel = 1;
        o.threads = 2;
        auto s = Scheduler::create(model, o);
        QVERIFY2(s, s ? "" : s.status().message().c_str());
        const std::vector<Token> prompt = model->tokenize("Once upon a time", true, false);
        const Outcome out = run(*s.value(), prompt, 200, ContextOverflow::CONTEXT_OVERFLOW_SHIFT, 1);
        QVERIFY(out.status);
        QCOMPARE(int(out.result.stopReason), int(StopReason::STOP_REASON_CONTEXT_FULL));
        QCOMPARE(out.result.tokens.size(), 48 - prompt.size() + 1);
    }

    // onToken: 1, 2, 3, ... one call per generated token, the last the total.
    void onTokenCountsTokens()
    {
        if (!sharedAvailable())
            QSKIP("../shared is absent");
        auto model = load(QStringLiteral("models/stories260K.gguf"));
        QVERIFY(model);
        SchedulerOptions o;
        o.contextSize = 256;
        o.parallel = 1;
        o.threads = 2;
        auto s = Scheduler::create(model, o);
        QVERIFY(s);
        const Outcome out = run(*s.value(), model->tokenize("Once upon a time", true, false), 40,
                                ContextOverflow::CONTEXT_OVERFLOW_STOP);
        QVERIFY(out.status);
        QCOMPARE(out.result.tokens.size(), size_t(40));
        QCOMPARE(out.counts.size(), size_t(40));
        for (size_t i = 0; i < out.counts.size(); ++i)
            QCOMPARE(out.counts[i], int32_t(i + 1));
        QCOMPARE(out.result.timings.generatedTokens, 40);
    }
};

QTEST_GUILESS_MAIN(TestSchedulerContext)
#include "tst_scheduler_context.moc"
