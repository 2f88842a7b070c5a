// Reasoning apart from the answer in Session::generate (issue #15): a
// scripted model (test::scriptedSpec: a fixed greedy reply) writes
// "<think>ab</think>cd"; with THINK_TAGS the answer "cd" goes to the text
// callback and GenerateResult::text, the reasoning "ab" to onReasoning and
// GenerateResult::reasoning, stop strings look at the answer only, the
// markers and the reasoning count as reasoning tokens, a prompt that opened
// the block starts the reply inside it, and onReasoning may stop the reply.
#include "burrow/engine.h"
#include "tiny_model.h"

#include <QTemporaryDir>
#include <QtTest>

#include <map>

using namespace burrow;

namespace {

constexpr Token kBos = 1, kEos = 2, kA = 5, kB = 6, kC = 7, kD = 8, kE = 9;
constexpr Token kThink = 16, kEndThink = 17;   // the user-defined tokens after the 16 of the tiny vocabulary

// The greedy reply: next[t] follows t.
const std::map<Token, Token> kNext = {{kE, kThink}, {kThink, kA}, {kA, kB}, {kB, kEndThink},
                                      {kEndThink, kC}, {kC, kD}, {kD, kEos}};

SamplingParams greedy()
{
    SamplingParams p;
    p.temperature = 0.0f;
    return p;
}

struct Reply {
    Status status;
    GenerateResult result;
    std::string streamed, streamedReasoning;
};

} // namespace

class TestGenerateReasoning : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<Model> m_model;
    std::unique_ptr<Session> m_session;

    Reply generate(const std::vector<Token> &prompt, GenerateOptions options, int stopReasoningAfter = -1)
    {
        Reply reply;
        int reasoningPieces = 0;
        options.onReasoning = [&](std::string_view piece) {
            reply.streamedReasoning += piece;
            return ++reasoningPieces != stopReasoningAfter;
        };
        reply.status = m_session->generate(
            prompt, greedy(), options,
            [&](std::string_view piece) {
                reply.streamed += piece;
                return true;
            },
            &reply.result);
        return reply;
    }

    static GenerateOptions thinkTags(bool startsInReasoning = false)
    {
        GenerateOptions o;
        o.reasoning.syntax = ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS;
        o.reasoning.startsInReasoning = startsInReasoning;
        return o;
    }

private slots:
    void initTestCase()
    {
        test::TinySpec base;
        base.userTokens = {"<think>", "</think>"};
        const test::TinySpec spec = test::scriptedSpec(kNext, base);
        const std::string path = m_dir.filePath(QStringLiteral("scripted.gguf")).toStdString();
        QVERIFY(test::writeTinyModel(spec, path));
        auto m = Model::load(path);
        QVERIFY2(m, m.message().c_str());
        m_model = m.value();
        QCOMPARE(m_model->tokenBytes(kThink), std::string("<think>"));
        auto s = Session::create(m_model, SessionOptions{64, 1});
        QVERIFY2(s, s.message().c_str());
        m_session = std::move(s).value();
    }

    // Without a reasoning syntax the whole reply is the answer.
    void noSyntaxIsAllAnswer()
    {
        const Reply r = generate({kBos, kE}, GenerateOptions{});
        QVERIFY2(r.status, r.status.message().c_str());
        QVERIFY(r.result.tokens == (std::vector<Token>{kThink, kA, kB, kEndThink, kC, kD}));
        QCOMPARE(r.result.text, std::string("<think>ab</think>cd"));
        QCOMPARE(r.streamed, r.result.text);
        QVERIFY(r.result.reasoning.empty() && r.streamedReasoning.empty());
        QCOMPARE(r.result.timings.reasoningTokens, 0);
        QVERIFY(r.result.stopReason == StopReason::STOP_REASON_END_OF_GENERATION);
    }

    void thinkTagsSplit()
    {
        const Reply r = generate({kBos, kE}, thinkTags());
        QVERIFY2(r.status, r.status.message().c_str());
        QCOMPARE(r.result.text, std::string("cd"));
        QCOMPARE(r.streamed, std::string("cd"));
        QCOMPARE(r.result.reasoning, std::string("ab"));
        QCOMPARE(r.streamedReasoning, std::string("ab"));
        QCOMPARE(r.result.timings.generatedTokens, 6);
        QCOMPARE(r.result.timings.reasoningTokens, 4);   // <think> a b </think>
        QVERIFY(r.result.timings.reasoningMs >= 0.0 && r.result.timings.reasoningMs <= r.result.timings.generateMs);
        QVERIFY(r.result.stopReason == StopReason::STOP_REASON_END_OF_GENERATION);
    }

    // Stop strings apply to the answer only: "b" is in the reasoning.
    void stopStringsOnTheAnswer_data()
    {
        QTest::addColumn<QString>("stop");
        QTest::addColumn<QString>("answer");
        QTest::addColumn<bool>("matched");
        QTest::newRow("in the reasoning only") << "b" << "cd" << false;
        QTest::newRow("a marker") << "</think>" << "cd" << false;
        QTest::newRow("in the answer") << "d" << "c" << true;
    }

    void stopStringsOnTheAnswer()
    {
        QFETCH(QString, stop);
        QFETCH(QString, answer);
        QFETCH(bool, matched);
        GenerateOptions o = thinkTags();
        o.stopStrings = {stop.toStdString()};
        const Reply r = generate({kBos, kE}, o);
        QVERIFY2(r.status, r.status.message().c_str());
        QCOMPARE(QString::fromStdString(r.result.text), answer);
        QCOMPARE(r.result.reasoning, std::string("ab"));
        QCOMPARE(r.result.stopReason == StopReason::STOP_REASON_STOP_STRING, matched);
    }

    // The prompt ends in "<think>": the reply starts inside the block.
    void startsInReasoning()
    {
        const Reply r = generate({kBos, kE, kThink}, thinkTags(true));
        QVERIFY2(r.status, r.status.message().c_str());
        QVERIFY(r.result.tokens == (std::vector<Token>{kA, kB, kEndThink, kC, kD}));
        QCOMPARE(r.result.reasoning, std::string("ab"));
        QCOMPARE(r.result.text, std::string("cd"));
        QCOMPARE(r.result.timings.reasoningTokens, 3);
    }

    // onReasoning returning false stops the reply (as the text callback does).
    void reasoningCallbackStops()
    {
        const Reply r = generate({kBos, kE}, thinkTags(), 1);
        QVERIFY2(r.status, r.status.message().c_str());
        QVERIFY(r.result.stopReason == StopReason::STOP_REASON_CANCELLED);
        QVERIFY(r.result.text.empty());
        QVERIFY(r.result.tokens.size() < 6);
    }

    // maxTokens counts reasoning tokens.
    void maxTokensCountsReasoning()
    {
        GenerateOptions o = thinkTags();
        o.maxTokens = 3;
        const Reply r = generate({kBos, kE}, o);
        QVERIFY2(r.status, r.status.message().c_str());
        QCOMPARE(r.result.tokens.size(), size_t(3));
        QVERIFY(r.result.text.empty());
        QCOMPARE(r.result.reasoning, std::string("ab"));   // unterminated reasoning stays reasoning
        QVERIFY(r.result.stopReason == StopReason::STOP_REASON_MAX_TOKENS);
    }
};

QTEST_MAIN(TestGenerateReasoning)
#include "tst_generate_reasoning.moc"
