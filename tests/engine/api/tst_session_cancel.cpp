// Cancelling a request (issue #15): a CancelToken cancelled from another
// thread during a long prompt stops generate() within one chunk (and, with
// the per-layer check, inside one); a token cancelled before generate()
// starts stops it before anything is evaluated; a cancelled request leaves
// the KV cache at the completed chunks and the next request generates what a
// fresh session does; Session::cancel() while idle reaches no later call.
// The time from cancel to return is printed (qInfo), never asserted; with
// the bench model in ../shared the 2,000-token case is measured too.
#include "burrow/engine.h"
#include "api/model_impl.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/thread_pool.h"
#include "test_support.h"
#include "tiny_model.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

using namespace burrow;

namespace {

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

SamplingParams greedy()
{
    SamplingParams p;
    p.temperature = 0.0f;
    return p;
}

// n token ids of the tiny vocabulary (3..15: no BOS/EOS/unk), after BOS.
std::vector<Token> tinyPrompt(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> id(3, 15);
    std::vector<Token> out{1};
    while (out.size() < n)
        out.push_back(id(rng));
    return out;
}

// One signal from the generating thread to the cancelling one.
class Latch {
public:
    void open()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_open = true;
        m_cv.notify_all();
    }
    void wait()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [&] { return m_open; });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_open = false;
};

struct CancelRun {
    Status status;
    GenerateResult result;
    double cancelToReturnMs = 0;
    int progressCalls = 0;
};

// generate(prompt) on `session`; another thread cancels `token` once the
// prompt progress reaches `cancelAfterDone` tokens (0: as soon as the first
// chunk starts), after `delayMs` more. However slow that thread is to run,
// the cancel lands inside the next chunk or, at the latest, at the chunk
// boundary after it: the progress report there waits for it.
CancelRun cancelDuringPrompt(Session &session, const std::vector<Token> &prompt, int cancelAfterDone, int delayMs)
{
    CancelRun run;
    auto token = std::make_shared<CancelToken>();
    GenerateOptions go;
    go.maxTokens = 4;
    go.cancel = token;
    Latch reached, issued;
    std::atomic<bool> signalled{false};
    Clock::time_point cancelledAt;
    std::thread canceller([&] {
        reached.wait();
        if (delayMs > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
        cancelledAt = Clock::now();
        token->cancel();
        issued.open();
    });
    run.status = session.generate(prompt, greedy(), go, {}, &run.result, [&](int32_t done, int32_t) {
        ++run.progressCalls;
        if (done > cancelAfterDone && signalled.load())
            issued.wait();
        if (done >= cancelAfterDone && !signalled.exchange(true))
            reached.open();
    });
    const auto returned = Clock::now();
    if (!signalled.exchange(true))
        reached.open();   // never reached (the prompt was shorter): let the thread end
    canceller.join();
    run.cancelToReturnMs = msBetween(cancelledAt, returned);
    return run;
}

} // namespace

class TestSessionCancel : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<Model> m_tiny;

    // A random-weight model big enough that a 1,500-token prompt takes a
    // while (three chunks of 512), small enough to build in a moment.
    std::shared_ptr<Model> tiny()
    {
        if (m_tiny)
            return m_tiny;
        test::TinySpec spec;
        spec.nEmbd = 128;
        spec.nHead = 4;
        spec.nHeadKv = 2;
        spec.nFf = 256;
        spec.nLayer = 6;
        spec.nCtx = 2048;
        const std::string path = m_dir.filePath(QStringLiteral("cancel.gguf")).toStdString();
        if (!test::writeTinyModel(spec, path))
            return nullptr;
        auto m = Model::load(path);
        if (!m)
            qWarning("%s", m.message().c_str());
        else
            m_tiny = m.value();
        return m_tiny;
    }

    static std::unique_ptr<Session> newSession(const std::shared_ptr<Model> &m, uint32_t ctx = 2048, int threads = 2)
    {
        auto s = Session::create(m, SessionOptions{ctx, threads});
        return s ? std::move(s).value() : nullptr;
    }

private slots:
    void statusCode()
    {
        const Status c = Status::cancelled();
        QVERIFY(!c.isOk());
        QVERIFY(c.isCancelled());
        QVERIFY(c.code() == StatusCode::STATUS_CODE_CANCELLED);
        QVERIFY(c.withContext("model.gguf").isCancelled());   // context keeps the code
        QVERIFY(!Status::error("cancelled").isCancelled());   // the message is not the code
        QVERIFY(!Status::ok().isCancelled());
        QVERIFY(Status::ok().code() == StatusCode::STATUS_CODE_OK);
        const Result<int> r(Status::cancelled("stopped"));
        QVERIFY(r.isCancelled());
        QCOMPARE(QString::fromStdString(r.message()), QStringLiteral("stopped"));
    }

    // The per-layer hook: a check that says "cancelled" before layer 3
    // stops eval() with Status::cancelled() and leaves the cache as it was;
    // the same batch then evaluates as if nothing had happened.
    void forwardCancelCheck()
    {
        auto m = tiny();
        QVERIFY(m);
        const auto impl = std::dynamic_pointer_cast<const api::ModelImpl>(m);
        QVERIFY(impl);
        auto cache = runtime::KvCache::create(impl->config(), 256, 64);
        QVERIFY(cache);
        runtime::ThreadPool pool(2);
        auto forward = runtime::Forward::create(impl->config(), impl->weights(), *cache.value(), pool, 64);
        QVERIFY(forward);
        runtime::Forward &f = *forward.value();
        const std::vector<Token> tokens = tinyPrompt(40, 9);
        std::vector<float> reference(impl->config().nVocab), logits(impl->config().nVocab);
        QVERIFY(f.eval(tokens.data(), 10, nullptr));
        QVERIFY(f.eval(tokens.data() + 10, 30, reference.data()));
        cache.value()->setSize(10);

        int checks = 0;
        f.setCancelCheck([&] { return ++checks == 3; });
        const Status st = f.eval(tokens.data() + 10, 30, logits.data());
        QVERIFY(st.isCancelled());
        QCOMPARE(checks, 3);
        QCOMPARE(cache.value()->size(), 10u);
        f.setCancelCheck({});
        QVERIFY(f.eval(tokens.data() + 10, 30, logits.data()));
        QCOMPARE(cache.value()->size(), 40u);
        QVERIFY(logits == reference);
    }

    // A token cancelled before generate() starts: nothing is evaluated, the
    // cache is what the previous call left, no progress is reported.
    void cancelledBeforeStart()
    {
        auto m = tiny();
        QVERIFY(m);
        auto s = newSession(m);
        QVERIFY(s);
        const std::vector<Token> first = tinyPrompt(40, 1);
        GenerateOptions plain;
        plain.maxTokens = 2;
        GenerateResult r0;
        QVERIFY(s->generate(first, greedy(), plain, {}, &r0));
        const std::vector<Token> cached = s->cachedTokens();

        auto token = std::make_shared<CancelToken>();
        token->cancel();
        GenerateOptions go;
        go.cancel = token;
        int progress = 0, pieces = 0;
        GenerateResult r;
        const Status st = s->generate(tinyPrompt(300, 2), greedy(), go, [&](std::string_view) { ++pieces; return true; },
                                      &r, [&](int32_t, int32_t) { ++progress; });
        QVERIFY2(st, st.message().c_str());
        QVERIFY(r.stopReason == StopReason::STOP_REASON_CANCELLED);
        QCOMPARE(progress, 0);
        QCOMPARE(pieces, 0);
        QVERIFY(r.tokens.empty());
        QCOMPARE(r.timings.promptTokens, 0);
        QVERIFY(s->cachedTokens() == cached);
    }

    // Cancel from another thread after the first chunk: generate() returns
    // with STOP_REASON_CANCELLED, the cache holds whole chunks of the prompt.
    void cancelDuringLongPrompt_data()
    {
        QTest::addColumn<int>("afterDone");
        QTest::addColumn<int>("delayMs");
        QTest::newRow("after chunk 1") << 512 << 0;
        QTest::newRow("inside chunk 2") << 512 << 15;
        QTest::newRow("inside chunk 1") << 0 << 15;
    }

    void cancelDuringLongPrompt()
    {
        QFETCH(int, afterDone);
        QFETCH(int, delayMs);
        auto m = tiny();
        QVERIFY(m);
        auto s = newSession(m);
        QVERIFY(s);
        const std::vector<Token> prompt = tinyPrompt(1500, 3);
        const CancelRun run = cancelDuringPrompt(*s, prompt, afterDone, delayMs);
        QVERIFY2(run.status, run.status.message().c_str());
        QVERIFY(run.result.stopReason == StopReason::STOP_REASON_CANCELLED);
        QVERIFY(run.result.tokens.empty());
        const size_t cached = s->cachedTokens().size();
        QVERIFY2(cached < prompt.size(), qPrintable(QString::number(cached)));
        QCOMPARE(cached % 512, size_t(0));   // whole chunks only
        QCOMPARE(size_t(run.result.timings.promptTokens), cached);
        QVERIFY(std::equal(s->cachedTokens().begin(), s->cachedTokens().end(), prompt.begin()));
        qInfo("tiny model, 1500-token prompt: cancel -> return %.1f ms (cached %zu tokens)", run.cancelToReturnMs,
              cached);
    }

    // After a cancelled request the next one generates exactly what a fresh
    // session does; Session::cancel() while idle changes nothing.
    void nextRequestIsUnaffected_data()
    {
        QTest::addColumn<bool>("idleSessionCancel");
        QTest::newRow("after a cancelled request") << false;
        QTest::newRow("and Session::cancel while idle") << true;
    }

    void nextRequestIsUnaffected()
    {
        QFETCH(bool, idleSessionCancel);
        auto m = tiny();
        QVERIFY(m);
        const std::vector<Token> prompt = tinyPrompt(1100, 4);
        GenerateOptions go;
        go.maxTokens = 8;

        auto fresh = newSession(m);
        QVERIFY(fresh);
        GenerateResult expected;
        QVERIFY(fresh->generate(prompt, greedy(), go, {}, &expected));
        QCOMPARE(expected.tokens.size(), size_t(8));

        auto s = newSession(m);
        QVERIFY(s);
        const CancelRun run = cancelDuringPrompt(*s, prompt, 512, 0);
        QVERIFY(run.result.stopReason == StopReason::STOP_REASON_CANCELLED);
        if (idleSessionCancel)
            s->cancel();
        GenerateResult again;
        QVERIFY(s->generate(prompt, greedy(), go, {}, &again));
        QVERIFY(again.stopReason == StopReason::STOP_REASON_MAX_TOKENS);
        QVERIFY(again.tokens == expected.tokens);
        QCOMPARE(size_t(again.timings.reusedTokens + again.timings.promptTokens), prompt.size());

        // The token of the cancelled request stays cancelled; a new one is not.
        std::vector<float> logits;
        s->cancel();   // idle: no effect on evaluate either
        QVERIFY(s->evaluate(prompt, &logits));
    }

    // A token cancelled during generation (from another thread) stops it
    // between tokens; the reply so far is kept. (A scripted model whose
    // reply a b c a b c ... never ends by itself.)
    void cancelDuringReply()
    {
        const std::string path = m_dir.filePath(QStringLiteral("cycle.gguf")).toStdString();
        QVERIFY(test::writeTinyModel(test::scriptedSpec({{5, 6}, {6, 7}, {7, 5}}), path));
        auto m = Model::load(path);
        QVERIFY2(m, m.message().c_str());
        auto s = newSession(m.value(), 64);
        QVERIFY(s);
        auto token = std::make_shared<CancelToken>();
        GenerateOptions go;
        go.maxTokens = 100000;   // only the cancel ends it (the context shifts when full)
        go.cancel = token;
        std::atomic<int> pieces{0};
        std::atomic<bool> finished{false};
        GenerateResult r;
        Status st;
        std::thread worker([&] {
            st = s->generate({1, 5}, greedy(), go, [&](std::string_view) { ++pieces; return true; }, &r);
            finished = true;
        });
        while (pieces.load() < 3 && !finished.load())
            std::this_thread::yield();
        token->cancel();
        worker.join();
        QVERIFY2(st, st.message().c_str());
        QVERIFY(r.stopReason == StopReason::STOP_REASON_CANCELLED);
        QVERIFY(r.timings.generatedTokens >= 3);
        QVERIFY(r.text.rfind("bca", 0) == 0);
    }

    // The bench model, 2 threads, a 2,000-token prompt: the time from cancel
    // to return, cancelled inside the second chunk (printed; the target of
    // issue #15 is <= 0.3 s on the project machine).
    void benchModelCancelLatency_data()
    {
        QTest::addColumn<int>("delayMs");
        QTest::newRow("cancel 0 ms into chunk 2") << 0;
        QTest::newRow("cancel 100 ms into chunk 2") << 100;
        QTest::newRow("cancel 250 ms into chunk 2") << 250;
    }

    void benchModelCancelLatency()
    {
        QFETCH(int, delayMs);
        const QString rel = QStringLiteral("models/bench/llama-155M-Q4_K_M.gguf");
        BURROW_REQUIRE_SHARED(rel);
        static std::shared_ptr<Model> bench;
        if (!bench) {
            auto m = Model::load(test::sharedPath(rel).toStdString());
            QVERIFY2(m, m.message().c_str());
            bench = m.value();
        }
        auto s = newSession(bench, 4096, 2);
        QVERIFY(s);
        std::string text;
        while (bench->tokenize(text, true, false).size() < 2000)
            text += "Once upon a time, a little fox lived in a burrow under an old oak tree. ";
        std::vector<Token> prompt = bench->tokenize(text, true, false);
        prompt.resize(2000);
        const CancelRun run = cancelDuringPrompt(*s, prompt, 512, delayMs);
        QVERIFY2(run.status, run.status.message().c_str());
        QVERIFY(run.result.stopReason == StopReason::STOP_REASON_CANCELLED);
        qInfo("bench model, 2 threads, 2000-token prompt, cancel %d ms into chunk 2: cancel -> return %.1f ms "
              "(%d prompt tokens computed in %.0f ms)",
              delayMs, run.cancelToReturnMs, run.result.timings.promptTokens, run.result.timings.promptMs);
    }
};

QTEST_MAIN(TestSessionCancel)
#include "tst_session_cancel.moc"
