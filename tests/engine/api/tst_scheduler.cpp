// The scheduler (issue #16): N sequences decoded together give, greedily,
// the same tokens as each alone in a Session, for every architecture in
// ../shared (full attention, sliding windows, sinks, experts); prompts that
// start alike share their cached blocks; a KV cache too small for all
// sequences at once preempts and recomputes, and still gives the solo
// tokens; cancels (by id, by token, by callback) finish within a step; a
// full queue says busy; bad requests are refused at submit; a request of
// higher priority runs ahead of those queued before it (a chat ahead of the
// local server's load), and setPriority reorders a queue that waits; every
// block is released when the requests are done.
#include "burrow/engine.h"
#include "test_support.h"

#include <QtTest>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <mutex>

using namespace burrow;
using burrow::test::sharedAvailable;
using burrow::test::sharedPath;

namespace {

SamplingParams greedy()
{
    SamplingParams p;
    p.temperature = 0.0f;
    return p;
}

// Waits for onDone of a set of requests.
class Results {
public:
    std::function<void(const GenerateResult &, const Status &)> slot(size_t i)
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_results.size() <= i) {
                m_results.resize(i + 1);
                m_status.resize(i + 1);
                m_done.resize(i + 1, 0);
            }
        }
        return [this, i](const GenerateResult &r, const Status &s) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_results[i] = r;
            m_status[i] = s;
            ++m_done[i];
            m_cv.notify_all();
        };
    }
    bool waitAll(int seconds = 120)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        return m_cv.wait_for(lock, std::chrono::seconds(seconds), [&] {
            for (int d : m_done)
                if (d == 0)
                    return false;
            return true;
        });
    }
    const GenerateResult &result(size_t i) const { return m_results[i]; }
    const Status &status(size_t i) const { return m_status[i]; }
    int doneCount(size_t i) const { return m_done[i]; }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::vector<GenerateResult> m_results;
    std::vector<Status> m_status;
    std::vector<int> m_done;
};

const char *const kPrompts[] = {
    "Once upon a time there was a little",
    "The quick brown fox jumps over the lazy dog and then",
    "In a small village by the sea, an old fisherman",
    "Tom and Lily went to the park. They saw a big",
    "Tell me a story about a dragon who could not fly because",
    "One day, a girl named Sue found a shiny",
};

std::shared_ptr<Model> load(const QString &relative)
{
    const QString path = sharedPath(relative);
    if (!QFileInfo::exists(path))
        return nullptr;
    auto m = Model::load(path.toStdString());
    if (!m)
        qWarning("%s", m.status().message().c_str());
    return m ? m.value() : nullptr;
}

std::vector<Token> soloTokens(const std::shared_ptr<Model> &model, const std::vector<Token> &prompt, int maxTokens,
                              uint32_t ctx, KvCacheType kv = KvCacheType::KV_CACHE_F16,
                              SpeculativeMode spec = SpeculativeMode::SPECULATIVE_OFF, int32_t *drafted = nullptr)
{
    SessionOptions so;
    so.contextSize = ctx;
    so.threads = 2;
    so.kvCacheType = kv;
    auto session = Session::create(model, so);
    if (!session)
        return {};
    GenerateOptions go;
    go.maxTokens = maxTokens;
    go.overflow = ContextOverflow::CONTEXT_OVERFLOW_STOP;
    go.speculative.mode = spec;
    GenerateResult r;
    if (!session.value()->generate(prompt, greedy(), go, {}, &r))
        return {};
    if (drafted)
        *drafted += r.timings.draftedTokens;
    return r.tokens;
}

// Submits the prompts at once; returns each one's tokens.
std::vector<std::vector<Token>> batched(Scheduler &s, const std::vector<std::vector<Token>> &prompts, int maxTokens,
                                        bool *ok, SpeculativeMode spec = SpeculativeMode::SPECULATIVE_OFF,
                                        int32_t *drafted = nullptr)
{
    Results results;
    for (size_t i = 0; i < prompts.size(); ++i) {
        Request r;
        r.prompt = prompts[i];
        r.sampling = greedy();
        r.options.maxTokens = maxTokens;
        r.options.speculative.mode = spec;
        r.onDone = results.slot(i);
        auto id = s.submit(std::move(r));
        if (!id) {
            qWarning("submit: %s", id.status().message().c_str());
            *ok = false;
            return {};
        }
    }
    *ok = results.waitAll();
    std::vector<std::vector<Token>> out;
    for (size_t i = 0; i < prompts.size() && *ok; ++i) {
        if (!results.status(i)) {
            qWarning("request %zu: %s", i, results.status(i).message().c_str());
            *ok = false;
        }
        out.push_back(results.result(i).tokens);
        if (drafted)
            *drafted += results.result(i).timings.draftedTokens;
    }
    return out;
}

// Holds the scheduler's thread inside a request's callback until opened, so
// a test can queue requests behind it; opened however the test ends (a
// failed check returns early; the scheduler, made before, is destroyed
// after this).
class Gate {
public:
    ~Gate() { open(); }
    // On the scheduler's thread: says it is held, then waits to be opened.
    void hold()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_held = true;
        m_cv.notify_all();
        m_cv.wait(lock, [&] { return m_open; });
    }
    bool waitHeld(int seconds = 60)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        return m_cv.wait_for(lock, std::chrono::seconds(seconds), [&] { return m_held; });
    }
    void open()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_open = true;
        m_cv.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_held = false, m_open = false;
};

// Submits one greedy request and waits for it; false on any failure.
bool runOne(Scheduler &s, const std::vector<Token> &prompt, int maxTokens, GenerateResult *out)
{
    Results r;
    Request q;
    q.prompt = prompt;
    q.sampling = greedy();
    q.options.maxTokens = maxTokens;
    q.onDone = r.slot(0);
    if (!s.submit(std::move(q)) || !r.waitAll() || !r.status(0))
        return false;
    *out = r.result(0);
    return true;
}

} // namespace

class TestScheduler : public QObject {
    Q_OBJECT

private slots:
    void batchedEqualsAlone_data();
    void batchedEqualsAlone();
    void sampledStreamsEqualAlone_data();
    void sampledStreamsEqualAlone();
    void prefixSharing();
    void recurrentSlotsContinue();
    void cancelAndBusy();
    void cancelByIdStopsAPromptChunk();
    void priorities_data();
    void priorities();
    void badRequests();
};

void TestScheduler::batchedEqualsAlone_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("parallel");
    QTest::addColumn<int>("kvPositions");   // 0: enough for all; small: preemption
    QTest::addColumn<bool>("q8");           // a Q8_0 KV cache (solo runs too)
    QTest::newRow("llama stories260K x4") << "models/stories260K.gguf" << 4 << 0 << false;
    QTest::newRow("llama stories260K preempting") << "models/stories260K.gguf" << 4 << 96 << false;
    QTest::newRow("qwen3 x4") << "models/synthetic-2026/qwen3-Q4_K_M.gguf" << 4 << 0 << false;
    QTest::newRow("qwen3 preempting") << "models/synthetic-2026/qwen3-Q4_K_M.gguf" << 4 << 96 << false;
    QTest::newRow("qwen3moe x4") << "models/synthetic-2026/qwen3moe-Q4_K_M.gguf" << 4 << 0 << false;
    QTest::newRow("gemma3 (sliding) x4") << "models/synthetic-2026/gemma3-Q4_K_M.gguf" << 4 << 0 << false;
    QTest::newRow("gpt-oss (sinks, MXFP4) x3") << "models/synthetic-2026/gpt-oss-MXFP4.gguf" << 3 << 0 << false;
    QTest::newRow("qwen35 (recurrent) x4") << "models/synthetic-2026/qwen35-Q4_K_M.gguf" << 4 << 0 << false;
    QTest::newRow("qwen35 (recurrent) preempting") << "models/synthetic-2026/qwen35-Q4_K_M.gguf" << 4 << 96 << false;
    QTest::newRow("qwen35moe (recurrent, shared expert) x3") << "models/synthetic-2026/qwen35moe-Q8_0.gguf" << 3 << 0 << false;
    QTest::newRow("qwen3 Q8_0 KV x4") << "models/synthetic-2026/qwen3-Q4_K_M.gguf" << 4 << 0 << true;
    QTest::newRow("qwen3 Q8_0 KV preempting") << "models/synthetic-2026/qwen3-Q4_K_M.gguf" << 4 << 96 << true;
    QTest::newRow("gemma3 (sliding) Q8_0 KV x4") << "models/synthetic-2026/gemma3-Q4_K_M.gguf" << 4 << 0 << true;
    QTest::newRow("gemma4 (per-layer inputs, shared KV) x4") << "models/synthetic-2026/gemma4-Q4_K_M.gguf" << 4 << 0 << false;
    QTest::newRow("gemma4 (per-layer inputs, shared KV) preempting")
        << "models/synthetic-2026/gemma4-Q4_K_M.gguf" << 4 << 96 << false;
    QTest::newRow("gemma4moe (dense MLP beside experts) x4") << "models/synthetic-2026/gemma4moe-Q4_K_M.gguf" << 4 << 0 << false;
    QTest::newRow("gemma4 Q8_0 KV x4") << "models/synthetic-2026/gemma4-Q4_K_M.gguf" << 4 << 0 << true;
}

void TestScheduler::batchedEqualsAlone()
{
    QFETCH(QString, model);
    QFETCH(int, parallel);
    QFETCH(int, kvPositions);
    QFETCH(bool, q8);
    const KvCacheType kv = q8 ? KvCacheType::KV_CACHE_Q8_0 : KvCacheType::KV_CACHE_F16;
    if (!sharedAvailable())
        QSKIP("../shared is absent: the scheduler is checked on its models");
    auto m = load(model);
    if (!m)
        QSKIP(qPrintable(model + " is absent or not loadable"));
    constexpr uint32_t kCtx = 96;
    constexpr int kMax = 16;
    // Plain greedy decoding alone is the reference: the engine is
    // batch-invariant (runtime/batch_invariance.h), so the same tokens come
    // alone with n-gram drafts, batched (prompt chunks beside generating
    // rows, preemption and recompute), and batched with drafts.
    std::vector<std::vector<Token>> prompts;
    std::vector<std::vector<Token>> solo;
    int32_t drafted = 0;
    const auto describe = [](const std::vector<Token> &v) {
        QString t;
        for (Token x : v)
            t += QString::number(x) + ' ';
        return t;
    };
    for (const char *p : kPrompts) {
        prompts.push_back(m->tokenize(p, true, false));
        solo.push_back(soloTokens(m, prompts.back(), kMax, kCtx, kv));
        QVERIFY2(!solo.back().empty(), "the solo run failed");
        const std::vector<Token> drafting =
            soloTokens(m, prompts.back(), kMax, kCtx, kv, SpeculativeMode::SPECULATIVE_NGRAM, &drafted);
        QVERIFY2(drafting == solo.back(), qPrintable(QStringLiteral("alone with drafts: %1, without: %2")
                                                         .arg(describe(drafting), describe(solo.back()))));
    }
    for (SpeculativeMode spec : {SpeculativeMode::SPECULATIVE_OFF, SpeculativeMode::SPECULATIVE_NGRAM}) {
        const bool drafts = spec == SpeculativeMode::SPECULATIVE_NGRAM;
        SchedulerOptions o;
        o.contextSize = kCtx;
        o.parallel = parallel;
        o.threads = 2;
        o.kvPositions = static_cast<uint32_t>(kvPositions);
        o.kvCacheType = kv;
        o.batchTokens = 64;
        o.prefillTokensWhileGenerating = 8;   // several steps per prompt while others generate
        auto s = Scheduler::create(m, o);
        QVERIFY2(s, s ? "" : s.status().message().c_str());
        bool ok = true;
        const auto out = batched(*s.value(), prompts, kMax, &ok, spec, &drafted);
        QVERIFY(ok);
        for (size_t i = 0; i < prompts.size(); ++i)
            QVERIFY2(out[i] == solo[i], qPrintable(QStringLiteral("prompt %1%2: alone %3, batched %4")
                                                       .arg(i)
                                                       .arg(drafts ? " (drafts)" : "")
                                                       .arg(describe(solo[i]), describe(out[i]))));
        // (Stats are a snapshot taken after each step: the last onDone comes
        // first, and a step's snapshot may show a preempted request waiting
        // with none running.)
        QTRY_VERIFY(s.value()->stats().running == 0 && s.value()->stats().waiting == 0);
        const SchedulerStats st = s.value()->stats();
        if (model.contains(QLatin1String("qwen35")))
            QVERIFY2(st.parked > 0, "finished recurrent sequences are kept for a continuation");
        else
            QCOMPARE(st.kvBlocksUsed, 0u);
        if (kvPositions != 0)
            QVERIFY2(st.preemptions > 0, "a cache of 96 positions for 4 sequences must preempt");
        qInfo("%s%s: %llu steps, %llu preemptions, %u blocks", qPrintable(model), drafts ? " (drafts)" : "",
              static_cast<unsigned long long>(st.steps), static_cast<unsigned long long>(st.preemptions),
              st.kvBlocksTotal);
    }
    qInfo("%d draft tokens verified", drafted);
    QVERIFY2(drafted > 0, "the n-gram drafter proposed nothing: the verification was not exercised");
}

// The streams of a step draw their tokens on the pool's threads
// (SchedulerImpl::drawTokens): each seeded stream still gives what it gives
// alone in a Session (same seed, same logits: the engine is batch-invariant),
// its logprobs too, with 4 at once and with a grammar's stream (drawn on the
// scheduler's thread) among them.
void TestScheduler::sampledStreamsEqualAlone_data()
{
    QTest::addColumn<float>("temperature");
    QTest::addColumn<int>("topK");
    QTest::addColumn<float>("topP");
    QTest::addColumn<float>("repeat");
    QTest::addColumn<int>("mirostat");
    QTest::addColumn<int>("logprobs");
    QTest::addColumn<bool>("grammar");
    QTest::newRow("temperature 0.8, top-k 40, top-p 0.95") << 0.8f << 40 << 0.95f << 1.0f << 0 << 0 << false;
    QTest::newRow("temperature 1.5, no top-k, repeat penalty") << 1.5f << 0 << 0.9f << 1.2f << 0 << 0 << false;
    QTest::newRow("mirostat 2") << 1.0f << 40 << 1.0f << 1.0f << 2 << 0 << false;
    QTest::newRow("greedy with logprobs") << 0.0f << 40 << 1.0f << 1.0f << 0 << 3 << false;
    QTest::newRow("sampled with logprobs") << 0.9f << 40 << 0.95f << 1.0f << 0 << 2 << false;
    QTest::newRow("one stream with a grammar") << 0.9f << 40 << 0.95f << 1.0f << 0 << 0 << true;
}

void TestScheduler::sampledStreamsEqualAlone()
{
    QFETCH(float, temperature);
    QFETCH(int, topK);
    QFETCH(float, topP);
    QFETCH(float, repeat);
    QFETCH(int, mirostat);
    QFETCH(int, logprobs);
    QFETCH(bool, grammar);
    if (!sharedAvailable())
        QSKIP("../shared is absent");
    auto m = load("models/stories260K.gguf");
    if (!m)
        QSKIP("stories260K.gguf is absent");
    constexpr uint32_t kCtx = 96;
    constexpr int kStreams = 4, kMax = 24;
    std::shared_ptr<const Grammar> g;
    if (grammar) {
        auto compiled = compileJsonSchemaGrammar(m, R"({"type": "object"})");
        QVERIFY2(compiled, compiled ? "" : compiled.status().message().c_str());
        g = compiled.value();
    }
    const auto params = [&](int i) {
        SamplingParams p;
        p.temperature = temperature;
        p.topK = topK;
        p.topP = topP;
        p.repeatPenalty = repeat;
        p.mirostat = mirostat;
        p.logprobs = logprobs;
        p.seed = 100 + static_cast<uint32_t>(i);
        if (i == 1)
            p.grammar = g;
        return p;
    };
    std::vector<std::vector<Token>> prompts;
    std::vector<GenerateResult> solo;
    for (int i = 0; i < kStreams; ++i) {
        prompts.push_back(m->tokenize(kPrompts[i], true, false));
        SessionOptions so;
        so.contextSize = kCtx;
        so.threads = 2;
        auto session = Session::create(m, so);
        QVERIFY(session);
        GenerateOptions go;
        go.maxTokens = kMax;
        go.overflow = ContextOverflow::CONTEXT_OVERFLOW_STOP;
        go.speculative.mode = SpeculativeMode::SPECULATIVE_OFF;
        GenerateResult r;
        QVERIFY(session.value()->generate(prompts.back(), params(i), go, {}, &r));
        QVERIFY(!r.tokens.empty());
        solo.push_back(r);
    }
    SchedulerOptions o;
    o.contextSize = kCtx;
    o.parallel = kStreams;
    o.threads = 2;
    auto s = Scheduler::create(m, o);
    QVERIFY2(s, s ? "" : s.status().message().c_str());
    Results results;
    for (int i = 0; i < kStreams; ++i) {
        Request r;
        r.prompt = prompts[static_cast<size_t>(i)];
        r.sampling = params(i);
        r.options.maxTokens = kMax;
        r.options.overflow = ContextOverflow::CONTEXT_OVERFLOW_STOP;
        r.options.speculative.mode = SpeculativeMode::SPECULATIVE_OFF;
        r.onDone = results.slot(static_cast<size_t>(i));
        QVERIFY(s.value()->submit(std::move(r)));
    }
    QVERIFY(results.waitAll());
    for (int i = 0; i < kStreams; ++i) {
        const GenerateResult &b = results.result(static_cast<size_t>(i)), &a = solo[static_cast<size_t>(i)];
        QVERIFY2(results.status(static_cast<size_t>(i)), results.status(static_cast<size_t>(i)).message().c_str());
        QVERIFY2(b.tokens == a.tokens, qPrintable(QStringLiteral("stream %1: batched tokens differ from alone").arg(i)));
        QCOMPARE(b.logprobs.size(), logprobs > 0 ? b.tokens.size() : size_t(0));
        QCOMPARE(b.logprobs.size(), a.logprobs.size());
        for (size_t t = 0; t < b.logprobs.size(); ++t) {
            QCOMPARE(b.logprobs[t].token, a.logprobs[t].token);
            QCOMPARE(b.logprobs[t].logprob, a.logprobs[t].logprob);
            QCOMPARE(b.logprobs[t].top.size(), a.logprobs[t].top.size());
        }
    }
}

// A recurrent model (qwen35) shares no prefix blocks; a finished request's
// slot keeps its state instead: the next message of the same conversation
// computes only what is new, the same prompt again (a regenerated reply)
// starts from the snapshot before its last token, an unrelated prompt from
// the start; each reply is what a fresh session gives.
void TestScheduler::recurrentSlotsContinue()
{
    if (!sharedAvailable())
        QSKIP("../shared is absent");
    auto m = load("models/synthetic-2026/qwen35-Q4_K_M.gguf");
    if (!m)
        QSKIP("qwen35-Q4_K_M.gguf is absent");
    SchedulerOptions o;
    o.contextSize = 256;
    o.parallel = 2;
    o.threads = 2;
    auto s = Scheduler::create(m, o);
    QVERIFY(s);
    const auto run = [&](const std::vector<Token> &prompt, GenerateResult *out) { return runOne(*s.value(), prompt, 6, out); };
    const std::vector<Token> first = m->tokenize(kPrompts[0], true, false);
    GenerateResult a, b, c, d;
    QVERIFY(run(first, &a));
    QCOMPARE(a.timings.reusedTokens, 0);
    QCOMPARE(a.tokens, soloTokens(m, first, 6, 256));

    // The conversation goes on: the prompt, the reply (all but its last
    // token were evaluated), and a new message.
    std::vector<Token> next = first;
    next.insert(next.end(), a.tokens.begin(), a.tokens.end());
    const std::vector<Token> more = m->tokenize(" and then", false, false);
    next.insert(next.end(), more.begin(), more.end());
    QVERIFY(run(next, &b));
    QCOMPARE(b.timings.reusedTokens, static_cast<int32_t>(first.size() + a.tokens.size() - 1));
    QCOMPARE(b.tokens, soloTokens(m, next, 6, 256));

    // The same prompt again: from the snapshot before its last token.
    QVERIFY(run(next, &c));
    QCOMPARE(c.timings.reusedTokens, static_cast<int32_t>(next.size() - 1));
    QCOMPARE(c.timings.promptTokens, 1);
    QCOMPARE(c.tokens, b.tokens);

    // Something else: computed from the start, same reply as alone.
    const std::vector<Token> other = m->tokenize(kPrompts[3], true, false);
    QVERIFY(run(other, &d));
    QCOMPARE(d.timings.reusedTokens, 0);
    QCOMPARE(d.tokens, soloTokens(m, other, 6, 256));
    QCOMPARE(s.value()->stats().reusedTokens, uint64_t(b.timings.reusedTokens + c.timings.reusedTokens));
}

void TestScheduler::prefixSharing()
{
    if (!sharedAvailable())
        QSKIP("../shared is absent");
    auto m = load("models/stories260K.gguf");
    if (!m)
        QSKIP("stories260K.gguf is absent");
    SchedulerOptions o;
    o.contextSize = 256;
    o.parallel = 2;
    o.threads = 2;
    auto s = Scheduler::create(m, o);
    QVERIFY(s);
    // A long shared "system prompt", then different questions.
    std::string system;
    for (int i = 0; i < 8; ++i)
        system += "Once upon a time there was a little girl who liked to play. ";
    const std::vector<Token> first = m->tokenize(system + "She saw a cat.", true, false);
    const std::vector<Token> second = m->tokenize(system + "He had a red ball.", true, false);
    size_t common = 0;
    while (common < first.size() && common < second.size() && first[common] == second[common])
        ++common;
    QVERIFY2(common >= 64, "the prompts share at least four blocks");

    GenerateResult r1, r2, r3;
    QVERIFY(runOne(*s.value(), first, 4, &r1));
    QCOMPARE(r1.timings.reusedTokens, 0);

    QVERIFY(runOne(*s.value(), second, 4, &r2));
    // Whole blocks of the common prefix come from the cache; the rest is computed.
    QCOMPARE(r2.timings.reusedTokens, static_cast<int32_t>(common / 16 * 16));
    QCOMPARE(r2.timings.promptTokens, static_cast<int32_t>(second.size() - common / 16 * 16));
    // And the reply is what a fresh session gives.
    QCOMPARE(r2.tokens, soloTokens(m, second, 4, 256));

    // The same prompt again: everything but the last (partial) block is reused.
    QVERIFY(runOne(*s.value(), second, 4, &r3));
    QCOMPARE(r3.timings.reusedTokens, static_cast<int32_t>((second.size() - 1) / 16 * 16));
    QCOMPARE(r3.tokens, r2.tokens);
    QTRY_COMPARE(s.value()->stats().kvBlocksUsed, 0u);
    QVERIFY(s.value()->stats().kvBlocksCached > 0);
}

void TestScheduler::cancelAndBusy()
{
    if (!sharedAvailable())
        QSKIP("../shared is absent");
    auto m = load("models/stories260K.gguf");
    if (!m)
        QSKIP("stories260K.gguf is absent");
    SchedulerOptions o;
    o.contextSize = 512;
    o.parallel = 2;
    o.threads = 2;
    o.maxQueued = 2;
    auto s = Scheduler::create(m, o);
    QVERIFY(s);
    Scheduler &sch = *s.value();
    const std::vector<Token> prompt = m->tokenize("Once upon a time", true, false);

    Results results;
    std::vector<RequestId> ids;
    auto token = std::make_shared<CancelToken>();
    std::mutex pieceMutex;
    std::condition_variable pieceCv;
    int pieces = 0;
    for (int i = 0; i < 4; ++i) {
        Request r;
        r.prompt = prompt;
        r.options.maxTokens = 100000;   // until the context is full, unless cancelled
        r.sampling.seed = 7;
        if (i == 1)
            r.options.cancel = token;
        if (i == 2)
            r.onText = [](std::string_view) { return false; };   // the callback stops it
        if (i == 0)
            r.onText = [&](std::string_view) {
                std::lock_guard<std::mutex> lock(pieceMutex);
                ++pieces;
                pieceCv.notify_all();
                return true;
            };
        r.onDone = results.slot(static_cast<size_t>(i));
        auto id = sch.submit(std::move(r));
        QVERIFY2(id, id ? "" : id.status().message().c_str());
        ids.push_back(id.value());
    }
    // Two running + two queued = the limit: the next one is refused as busy.
    Request extra;
    extra.prompt = prompt;
    auto refused = sch.submit(std::move(extra));
    if (refused) {
        // The queue may have moved on already (request 2 stops at its first piece).
        qInfo("the fifth request was accepted: the queue had drained");
        sch.cancel(refused.value());
    } else {
        QVERIFY2(refused.status().isBusy(), refused.status().message().c_str());
    }
    {
        std::unique_lock<std::mutex> lock(pieceMutex);
        QVERIFY(pieceCv.wait_for(lock, std::chrono::seconds(60), [&] { return pieces > 0; }));
    }
    sch.cancel(ids[0]);
    token->cancel();
    sch.cancel(ids[3]);
    sch.cancel(ids[3]);          // twice: ignored
    sch.cancel(987654321);       // unknown: ignored
    QVERIFY(results.waitAll());
    for (size_t i = 0; i < 4; ++i) {
        QVERIFY2(results.status(i), results.status(i).message().c_str());
        QCOMPARE(results.doneCount(i), 1);
        QCOMPARE(static_cast<int>(results.result(i).stopReason), static_cast<int>(StopReason::STOP_REASON_CANCELLED));
    }
    QTRY_COMPARE(sch.stats().kvBlocksUsed, 0u);
    QCOMPARE(sch.stats().running, 0);
}

// Scheduler::cancel(id) reaches a prompt chunk already in the forward pass
// (its check between layers), not only the next step: a request cancelled by
// id as it is admitted computes nothing of its first chunk.
void TestScheduler::cancelByIdStopsAPromptChunk()
{
    if (!sharedAvailable())
        QSKIP("../shared is absent");
    auto m = load("models/stories260K.gguf");
    if (!m)
        QSKIP("stories260K.gguf is absent");
    SchedulerOptions o;
    o.contextSize = 512;
    o.parallel = 1;
    o.batchTokens = 256;
    o.threads = 2;
    auto s = Scheduler::create(m, o);
    QVERIFY(s);
    Scheduler &sch = *s.value();
    std::vector<Token> longPrompt = m->tokenize("Once upon a time", true, false);
    const std::vector<Token> sentence = m->tokenize(" Tom and Lily went to the park to play with a big red ball.", false, false);
    while (longPrompt.size() < 300)
        longPrompt.insert(longPrompt.end(), sentence.begin(), sentence.end());

    Results results;
    Gate gate;
    // Request 0 holds the scheduler's thread at its one token until request 1
    // is queued with its id known.
    Request first;
    first.prompt = m->tokenize("Once upon a time", true, false);
    first.options.maxTokens = 1;
    first.onText = [&](std::string_view) {
        gate.hold();
        return true;
    };
    first.onDone = results.slot(0);
    QVERIFY(sch.submit(std::move(first)));
    QVERIFY(gate.waitHeld());
    std::atomic<RequestId> secondId{0};
    std::atomic<int> mostDone{-1};
    Request second;
    second.prompt = longPrompt;
    second.options.maxTokens = 8;
    second.onPromptProgress = [&](int32_t done, int32_t) {
        mostDone = std::max(mostDone.load(), done);
        if (done == 0)
            sch.cancel(secondId.load());   // as it is admitted, before its first chunk runs
    };
    second.onDone = results.slot(1);
    auto id = sch.submit(std::move(second));
    QVERIFY2(id, id ? "" : id.status().message().c_str());
    secondId = id.value();
    gate.open();
    QVERIFY(results.waitAll());
    QVERIFY2(results.status(1), results.status(1).message().c_str());
    QCOMPARE(static_cast<int>(results.result(1).stopReason), static_cast<int>(StopReason::STOP_REASON_CANCELLED));
    QCOMPARE(mostDone.load(), 0);   // no chunk of its prompt completed
    QCOMPARE(results.result(1).timings.promptTokens, 0);
    QVERIFY(results.result(1).tokens.empty());
    QTRY_COMPARE(sch.stats().kvBlocksUsed, 0u);
}

// One slot: request 0 runs until cancelled while three wait. Which waiting
// request runs next follows the priorities, not the order of submission.
void TestScheduler::priorities_data()
{
    QTest::addColumn<bool>("raise");           // setPriority(request 1, 30) while it waits
    QTest::addColumn<QList<int>>("expected");  // the order requests 1..3 finish in
    // 1 and 2 at the server's priority 0, then 3 at a chat's 20: 3 first.
    QTest::newRow("a chat ahead of queued API requests") << false << QList<int>{3, 1, 2};
    // 1 raised above the chat while it waits: 1 first.
    QTest::newRow("setPriority while waiting") << true << QList<int>{1, 3, 2};
}

void TestScheduler::priorities()
{
    QFETCH(bool, raise);
    QFETCH(QList<int>, expected);
    if (!sharedAvailable())
        QSKIP("../shared is absent");
    auto m = load("models/stories260K.gguf");
    if (!m)
        QSKIP("stories260K.gguf is absent");
    SchedulerOptions o;
    o.contextSize = 256;
    o.parallel = 1;
    o.threads = 2;
    auto s = Scheduler::create(m, o);
    QVERIFY(s);
    Scheduler &sch = *s.value();
    const std::vector<Token> prompt = m->tokenize("Once upon a time", true, false);

    Results results;
    std::mutex orderMutex;
    std::vector<int> order;
    Gate gate;
    std::vector<RequestId> ids;
    for (int i = 0; i < 4; ++i) {
        Request r;
        r.prompt = prompt;
        r.sampling.seed = 3;
        r.options.maxTokens = i == 0 ? 100000 : 4;   // 0 runs until cancelled
        r.priority = i == 3 ? 20 : 0;
        if (i == 0)   // holds the scheduler's thread at its first piece until the queue is set up
            r.onText = [&](std::string_view) {
                gate.hold();
                return true;
            };
        auto done = results.slot(static_cast<size_t>(i));
        r.onDone = [&, i, done](const GenerateResult &g, const Status &st) {
            {
                std::lock_guard<std::mutex> lock(orderMutex);
                order.push_back(i);
            }
            done(g, st);
        };
        if (i == 1)   // the others are queued behind request 0, which holds the one slot
            QVERIFY(gate.waitHeld());
        auto id = sch.submit(std::move(r));
        QVERIFY2(id, id ? "" : id.status().message().c_str());
        ids.push_back(id.value());
    }
    if (raise)
        sch.setPriority(ids[1], 30);
    sch.setPriority(987654321, 5);   // unknown: ignored
    sch.cancel(ids[0]);
    gate.open();
    QVERIFY(results.waitAll());
    for (size_t i = 0; i < 4; ++i)
        QVERIFY2(results.status(i), results.status(i).message().c_str());
    std::lock_guard<std::mutex> lock(orderMutex);
    QCOMPARE(order.size(), size_t(4));
    QCOMPARE(order[0], 0);
    QCOMPARE(QList<int>(order.begin() + 1, order.end()), expected);
}

void TestScheduler::badRequests()
{
    if (!sharedAvailable())
        QSKIP("../shared is absent");
    auto m = load("models/stories260K.gguf");
    if (!m)
        QSKIP("stories260K.gguf is absent");
    SchedulerOptions o;
    o.contextSize = 64;
    o.parallel = 1;
    o.threads = 1;
    auto s = Scheduler::create(m, o);
    QVERIFY(s);
    Request empty;
    auto e = s.value()->submit(std::move(empty));
    QVERIFY(!e);
    QVERIFY(e.status().message().find("empty") != std::string::npos);
    Request tooLong;
    tooLong.prompt.assign(65, 1);
    auto t = s.value()->submit(std::move(tooLong));
    QVERIFY(!t);
    QVERIFY(t.status().message().find("context size of 64") != std::string::npos);
    Request badToken;
    badToken.prompt = {1, static_cast<Token>(m->vocabSize())};
    auto b = s.value()->submit(std::move(badToken));
    QVERIFY(!b);
    QVERIFY(b.status().message().find("outside the vocabulary") != std::string::npos);
    Request badSampling;
    badSampling.prompt = {1, 2};
    badSampling.sampling.minP = 2.0f;
    QVERIFY(!s.value()->submit(std::move(badSampling)));

    SchedulerOptions bad = o;
    bad.parallel = 0;
    QVERIFY(!Scheduler::create(m, bad));
    bad = o;
    bad.parallel = 8;
    bad.batchTokens = 4;
    QVERIFY(!Scheduler::create(m, bad));
    bad = o;
    bad.kvPositions = 16;   // less than one context
    QVERIFY(!Scheduler::create(m, bad));
    bad = o;
    bad.kvCacheType = KvCacheType::KV_CACHE_Q8_0;   // a quantized V cache needs flash attention
    bad.flashAttention = false;
    auto noFa = Scheduler::create(m, bad);
    QVERIFY(!noFa);
    QVERIFY2(noFa.status().message().find("kvCacheType Q8_0 needs flashAttention") != std::string::npos,
             noFa.status().message().c_str());
    bad.flashAttention = true;   // stories260K's head size 8 is no multiple of 32
    auto head = Scheduler::create(m, bad);
    QVERIFY(!head);
    QVERIFY2(head.status().message().find("multiples of 32") != std::string::npos, head.status().message().c_str());
}

QTEST_MAIN(TestScheduler)
#include "tst_scheduler.moc"
