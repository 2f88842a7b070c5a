// Speculative decoding with a draft model (issue 30): greedy output with a
// draft model is plain greedy output token for token, alone (a Session)
// and with 4 sequences batched through the scheduler, on the models of
// ../shared (the 512-token vocabulary they share): a target drafted by
// itself accepts every draft (the strongest check of the two caches'
// rollback: nothing may drift), a random-weight draft is mostly rejected
// (every rejection rolls the target's and the draft's caches back), and
// drafts come from and go to sliding-window and recurrent models. A draft
// whose vocabulary differs (phi3's) is refused with a message naming the
// difference, by checkDraftModel, by a request and by burrow-cli.
#include "burrow/engine.h"
#include "cli_process.h"
#include "test_support.h"

#include <QtTest>

#include <condition_variable>
#include <mutex>

using namespace burrow;
using burrow::test::sharedAvailable;
using burrow::test::sharedPath;

namespace {

constexpr uint32_t kCtx = 128;
constexpr int kMax = 24;

const char *const kPrompts[] = {
    "Once upon a time there was a little",
    "Tom and Lily went to the park. They saw a big",
    "One day, a girl named Sue found a shiny",
    "The cat sat on the mat. The cat sat on the",
};

SamplingParams greedy()
{
    SamplingParams p;
    p.temperature = 0.0f;
    return p;
}

std::shared_ptr<Model> load(const QString &relative)
{
    auto m = Model::load(sharedPath(relative).toStdString());
    if (!m)
        qWarning("%s", m.status().message().c_str());
    return m ? m.value() : nullptr;
}

GenerateOptions options(const QString &draft)
{
    GenerateOptions go;
    go.maxTokens = kMax;
    go.overflow = ContextOverflow::CONTEXT_OVERFLOW_STOP;
    if (draft.isEmpty()) {
        go.speculative.mode = SpeculativeMode::SPECULATIVE_OFF;
    } else {
        go.speculative.mode = SpeculativeMode::SPECULATIVE_DRAFT;
        go.speculative.draftModel = sharedPath(draft).toStdString();
    }
    return go;
}

QString describe(const std::vector<Token> &v)
{
    QString t;
    for (Token x : v)
        t += QString::number(x) + ' ';
    return t;
}

} // namespace

class TestDraftModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (!sharedAvailable())
            QSKIP("../shared is absent: draft models are checked on its models");
    }

    void greedyEqualsPlain_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("draft");
        QTest::addColumn<bool>("self");   // the draft is the target: every draft is accepted
        QTest::newRow("stories260K drafted by itself") << "models/stories260K.gguf" << "models/stories260K.gguf" << true;
        QTest::newRow("stories260K drafted by random llama") << "models/stories260K.gguf" << "models/synthetic/llama-f32.gguf" << false;
        QTest::newRow("stories260K drafted by qwen35 (recurrent)") << "models/stories260K.gguf" << "models/synthetic-2026/qwen35-f32.gguf" << false;
        QTest::newRow("stories260K drafted by gemma3 (sliding)") << "models/stories260K.gguf" << "models/synthetic-2026/gemma3-Q8_0.gguf" << false;
        QTest::newRow("qwen3 drafted by stories260K") << "models/synthetic-2026/qwen3-Q4_K_M.gguf" << "models/stories260K.gguf" << false;
        QTest::newRow("qwen35 (recurrent) drafted by itself") << "models/synthetic-2026/qwen35-Q4_K_M.gguf" << "models/synthetic-2026/qwen35-Q4_K_M.gguf" << true;
        QTest::newRow("gemma3 (sliding) drafted by itself") << "models/synthetic-2026/gemma3-Q4_K_M.gguf" << "models/synthetic-2026/gemma3-Q4_K_M.gguf" << true;
        QTest::newRow("llama Q4_K_M drafted by llama Q8_0") << "models/synthetic/llama-Q4_K_M.gguf" << "models/synthetic/llama-Q8_0.gguf" << false;
    }

    // Alone: a Session per run, plain and with the draft model.
    void greedyEqualsPlain()
    {
        QFETCH(QString, target);
        QFETCH(QString, draft);
        QFETCH(bool, self);
        BURROW_REQUIRE_SHARED(target);
        BURROW_REQUIRE_SHARED(draft);
        auto m = load(target);
        QVERIFY(m);
        SessionOptions so;
        so.contextSize = kCtx;
        so.threads = 2;
        auto session = Session::create(m, so);
        QVERIFY(session);
        int32_t drafted = 0, accepted = 0;
        for (const char *p : kPrompts) {
            const std::vector<Token> prompt = m->tokenize(p, true, false);
            GenerateResult plain, withDraft;
            session.value()->reset();
            QVERIFY(session.value()->generate(prompt, greedy(), options({}), {}, &plain));
            session.value()->reset();
            const Status s = session.value()->generate(prompt, greedy(), options(draft), {}, &withDraft);
            QVERIFY2(s, s.message().c_str());
            QVERIFY2(withDraft.tokens == plain.tokens,
                     qPrintable(QStringLiteral("%1: plain %2, drafted %3").arg(p, describe(plain.tokens), describe(withDraft.tokens))));
            QCOMPARE(plain.timings.draftedTokens, 0);
            drafted += withDraft.timings.draftedTokens;
            accepted += withDraft.timings.acceptedTokens;
        }
        qInfo("%d draft tokens, %d accepted", drafted, accepted);
        QVERIFY(drafted > 0);
        if (self)
            QCOMPARE(accepted, drafted);
    }

    void batchedEqualsPlain_data() { greedyEqualsPlain_data(); }

    // 4 sequences at once through the scheduler, each with the draft model,
    // against each alone without drafts.
    void batchedEqualsPlain()
    {
        QFETCH(QString, target);
        QFETCH(QString, draft);
        QFETCH(bool, self);
        BURROW_REQUIRE_SHARED(target);
        BURROW_REQUIRE_SHARED(draft);
        auto m = load(target);
        QVERIFY(m);
        std::vector<std::vector<Token>> prompts, solo;
        {
            SessionOptions so;
            so.contextSize = kCtx;
            so.threads = 2;
            auto session = Session::create(m, so);
            QVERIFY(session);
            for (const char *p : kPrompts) {
                prompts.push_back(m->tokenize(p, true, false));
                GenerateResult r;
                session.value()->reset();
                QVERIFY(session.value()->generate(prompts.back(), greedy(), options({}), {}, &r));
                solo.push_back(r.tokens);
            }
        }
        SchedulerOptions o;
        o.contextSize = kCtx;
        o.parallel = 4;
        o.threads = 2;
        o.batchTokens = 64;
        o.prefillTokensWhileGenerating = 8;   // prompts in several steps beside generating (and drafting) rows
        auto s = Scheduler::create(m, o);
        QVERIFY(s);
        std::mutex mutex;
        std::condition_variable cv;
        std::vector<GenerateResult> results(prompts.size());
        std::vector<Status> statuses(prompts.size());
        size_t done = 0;
        for (size_t i = 0; i < prompts.size(); ++i) {
            Request r;
            r.prompt = prompts[i];
            r.sampling = greedy();
            r.options = options(draft);
            r.onDone = [&, i](const GenerateResult &result, const Status &status) {
                std::lock_guard<std::mutex> lock(mutex);
                results[i] = result;
                statuses[i] = status;
                ++done;
                cv.notify_all();
            };
            auto id = s.value()->submit(std::move(r));
            QVERIFY2(id, id ? "" : id.status().message().c_str());
        }
        {
            std::unique_lock<std::mutex> lock(mutex);
            QVERIFY(cv.wait_for(lock, std::chrono::seconds(120), [&] { return done == prompts.size(); }));
        }
        int32_t drafted = 0, accepted = 0;
        for (size_t i = 0; i < prompts.size(); ++i) {
            QVERIFY2(statuses[i], statuses[i].message().c_str());
            QVERIFY2(results[i].tokens == solo[i], qPrintable(QStringLiteral("prompt %1: alone %2, batched %3")
                                                                  .arg(i)
                                                                  .arg(describe(solo[i]), describe(results[i].tokens))));
            drafted += results[i].timings.draftedTokens;
            accepted += results[i].timings.acceptedTokens;
        }
        qInfo("%d draft tokens, %d accepted", drafted, accepted);
        QVERIFY(drafted > 0);
        if (self)
            QCOMPARE(accepted, drafted);
    }

    // phi3's 32064-token vocabulary is not the 512-token one.
    void otherVocabularyIsRefused()
    {
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        BURROW_REQUIRE_SHARED(QStringLiteral("models/synthetic/phi3-Q4_K_M.gguf"));
        auto m = load(QStringLiteral("models/stories260K.gguf"));
        QVERIFY(m);
        const QString phi3 = QStringLiteral("models/synthetic/phi3-Q4_K_M.gguf");
        auto checked = checkDraftModel(*m, sharedPath(phi3).toStdString());
        QVERIFY(!checked);
        const QString message = QString::fromStdString(checked.status().message());
        QVERIFY2(message.contains(QStringLiteral("vocabulary differs")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("32064")), qPrintable(message));
        QVERIFY(checkDraftModel(*m, sharedPath(QStringLiteral("models/synthetic/llama-Q8_0.gguf")).toStdString()));

        // A request naming it fails with the same reason; no draft model at all too.
        auto s = Scheduler::create(m, SchedulerOptions{});
        QVERIFY(s);
        Request r;
        r.prompt = m->tokenize("Once upon a time", true, false);
        r.options = options(phi3);
        auto id = s.value()->submit(r);
        QVERIFY(!id);
        QVERIFY2(QString::fromStdString(id.status().message()).contains(QStringLiteral("vocabulary differs")),
                 id.status().message().c_str());
        r.options.speculative.draftModel.clear();
        id = s.value()->submit(r);
        QVERIFY(!id);
        QVERIFY2(QString::fromStdString(id.status().message()).contains(QStringLiteral("draft model")),
                 id.status().message().c_str());

        // burrow-cli run says so before generating (exit 1).
        const test::ProcessResult cli = test::runCli({QStringLiteral("run"), QStringLiteral("-m"), sharedPath(QStringLiteral("models/stories260K.gguf")),
                                                  QStringLiteral("-p"), QStringLiteral("Once upon a time"),
                                                  QStringLiteral("-n"), QStringLiteral("4"), QStringLiteral("--draft"),
                                                  sharedPath(phi3)});
        QCOMPARE(cli.exitCode, 1);
        QVERIFY2(QString::fromUtf8(cli.err).contains(QStringLiteral("vocabulary differs")), qPrintable(QString::fromUtf8(cli.err)));
    }

    // burrow-cli run --draft: the same text as --spec off, and the drafts counted.
    void cliRunWithDraft()
    {
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        const QString model = sharedPath(QStringLiteral("models/stories260K.gguf"));
        const QStringList common = {QStringLiteral("run"), QStringLiteral("-m"), model, QStringLiteral("-p"), QStringLiteral("Once upon a time"),
                                    QStringLiteral("-n"), QStringLiteral("32"), QStringLiteral("--temp"), QStringLiteral("0")};
        const test::ProcessResult plain = test::runCli(common + QStringList{QStringLiteral("--spec"), QStringLiteral("off")});
        const test::ProcessResult drafted = test::runCli(common + QStringList{QStringLiteral("--draft"), model});
        QCOMPARE(plain.exitCode, 0);
        QCOMPARE(drafted.exitCode, 0);
        QCOMPARE(drafted.out, plain.out);
        QVERIFY2(QString::fromUtf8(drafted.err).contains(QStringLiteral("draft model")), qPrintable(QString::fromUtf8(drafted.err)));
        const test::ProcessResult missing = test::runCli(common + QStringList{QStringLiteral("--spec"), QStringLiteral("draft")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(QString::fromUtf8(missing.err).contains(QStringLiteral("--draft MODEL")), qPrintable(QString::fromUtf8(missing.err)));
    }
};

QTEST_MAIN(TestDraftModel)
#include "tst_draft_model.moc"
