// What generation gives a tool-call parser (issue 31), on a scripted model
// (test::scriptedSpec: a fixed greedy reply):
// - renderedControlTokens: a control token the reply writes is invisible
//   unless the request names it; then its text is in the answer, whole;
// - onToolCall: Gemma 4's tool-call markup goes to GenerateOptions::onToolCall
//   and GenerateResult::toolCallText, never to the answer;
// - logprobs: one entry per generated token, the greedy token first among
//   its alternatives, log-probabilities of a distribution.
#include "burrow/engine.h"
#include "tiny_model.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>

using namespace burrow;

namespace {

constexpr Token kBos = 1, kEos = 2, kA = 5, kB = 6, kC = 7, kE = 9;
// After the 16 tokens of the tiny vocabulary: two control tokens, then two user-defined ones.
constexpr Token kCallOpen = 16, kCallClose = 17, kGemmaOpen = 18, kGemmaClose = 19;

// e -> <tool_call> a b </tool_call> c </s>;  d -> <|tool_call> f <tool_call|> g </s>
const std::map<Token, Token> kNext = {{kE, kCallOpen}, {kCallOpen, kA},  {kA, kB},        {kB, kCallClose},
                                      {kCallClose, kC}, {kC, kEos},     {8, kGemmaOpen},  {kGemmaOpen, 10},
                                      {10, kGemmaClose}, {kGemmaClose, 11}, {11, kEos}};

} // namespace

class TestGenerateTools : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::shared_ptr<Model> m_model;
    std::unique_ptr<Session> m_session;

    GenerateResult generate(const std::vector<Token> &prompt, const GenerateOptions &options,
                            const SamplingParams &sampling = greedy())
    {
        GenerateResult r;
        const Status s = m_session->generate(prompt, sampling, options, {}, &r);
        if (!s)
            qWarning("%s", s.message().c_str());
        return r;
    }
    static SamplingParams greedy()
    {
        SamplingParams p;
        p.temperature = 0.0f;
        return p;
    }

private slots:
    void initTestCase()
    {
        test::TinySpec base;
        base.controlTokens = {"<tool_call>", "</tool_call>"};
        base.userTokens = {"<|tool_call>", "<tool_call|>"};
        const test::TinySpec spec = test::scriptedSpec(kNext, base);
        const std::string path = m_dir.filePath(QStringLiteral("scripted.gguf")).toStdString();
        QVERIFY(test::writeTinyModel(spec, path));
        auto m = Model::load(path);
        QVERIFY2(m, m.message().c_str());
        m_model = m.value();
        QCOMPARE(m_model->tokenBytes(kCallOpen), std::string());   // a control token: no text by default
        auto s = Session::create(m_model, SessionOptions{64, 1});
        QVERIFY2(s, s.message().c_str());
        m_session = std::move(s).value();
    }

    void controlTokensShownWhenNamed()
    {
        const GenerateResult hidden = generate({kBos, kE}, GenerateOptions{});
        QVERIFY(hidden.tokens == (std::vector<Token>{kCallOpen, kA, kB, kCallClose, kC}));
        QCOMPARE(hidden.text, std::string("abc"));
        GenerateOptions o;
        o.renderedControlTokens = {"<tool_call>", "</tool_call>", "<not a token>"};
        const GenerateResult shown = generate({kBos, kE}, o);
        QCOMPARE(shown.text, std::string("<tool_call>ab</tool_call>c"));
    }

    void gemmaToolCallsGoApart()
    {
        GenerateOptions o;
        o.reasoning.syntax = ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL;
        std::string streamed;
        o.onToolCall = [&](std::string_view piece) {
            streamed += piece;
            return true;
        };
        const GenerateResult r = generate({kBos, 8}, o);
        QCOMPARE(r.toolCallText, std::string("f"));
        QCOMPARE(streamed, std::string("f"));
        QCOMPARE(r.text, std::string("g"));
    }

    void logprobsPerToken_data()
    {
        QTest::addColumn<float>("temperature");
        QTest::newRow("greedy") << 0.0f;
        QTest::newRow("sampled") << 0.7f;
    }
    void logprobsPerToken()
    {
        QFETCH(float, temperature);
        SamplingParams p = greedy();
        p.temperature = temperature;
        p.seed = 5;
        p.logprobs = 3;
        const GenerateResult r = generate({kBos, kE}, GenerateOptions{}, p);
        QCOMPARE(r.logprobs.size(), r.tokens.size());
        for (size_t i = 0; i < r.tokens.size(); ++i) {
            const TokenLogprobs &e = r.logprobs[i];
            QCOMPARE(e.token, r.tokens[i]);
            QVERIFY(e.logprob <= 0.0f);
            QVERIFY(!e.top.empty() && e.top.size() <= 3);
            double mass = 0;
            for (size_t k = 0; k < e.top.size(); ++k) {
                mass += std::exp(double(e.top[k].logprob));
                if (k > 0)
                    QVERIFY(e.top[k - 1].logprob >= e.top[k].logprob);
            }
            QVERIFY(mass <= 1.0001);
            if (temperature == 0.0f) {
                // The final norm scales the one-hot embedding to sqrt(32): the
                // scripted token's logit is 8 sqrt(32) = 45.25, the others 0, so
                // log p = -log(1 + (V - 1) e^-45.25) ~ 0 and the runner-up's
                // log p ~ -45.25.
                QCOMPARE(e.top[0].token, e.token);
                QCOMPARE(e.top[0].logprob, e.logprob);
                QVERIFY(std::abs(e.logprob) < 1e-4f);
                QVERIFY2(std::abs(double(e.top[1].logprob) + 8.0 * std::sqrt(32.0)) < 0.05,
                         qPrintable(QString::number(e.top[1].logprob)));
            }
        }
        p.logprobs = 21;
        GenerateResult bad;
        QVERIFY(!m_session->generate({kBos, kE}, p, GenerateOptions{}, {}, &bad));
    }
};

QTEST_MAIN(TestGenerateTools)
#include "tst_generate_tools.moc"
