// Speculative decoding keeps the target's distribution when sampling
// (issue 30): on stories260K at temperature 1 (the whole chain: top-k,
// top-p, min-p, a repetition penalty), replies sampled with n-gram drafts
// (seeds 1..N) and without (seeds N+1..2N) are compared token position by
// position with a chi-squared test of homogeneity (p = 0.001, fixed seeds:
// the verdict is repeatable); drafts must have been both accepted and
// rejected. The first token (sampled before any draft) is also checked
// against the exact softmax of the logits. And with the same seed a reply
// with drafts is the reply without, token for token (each position's
// logits are bit-identical and the chain draws the same random numbers).
//
// With a draft model, a sampled request's drafts are drawn from the draft's
// own distribution q (not one-hot) and kept with probability min(1, p/q),
// else replaced by a draw from max(0, p - q): the same chi-squared test
// against plain sampling, with stories260K drafted by itself (q close to p:
// mostly accepted) and by a random-weight model (q far from p: mostly
// rejected, the residual draw does the work).
#include "burrow/engine.h"
#include "test_support.h"

#include <QtTest>

#include <cmath>
#include <map>

using namespace burrow;

namespace {

constexpr int kRuns = 300;
constexpr int kTokens = 8;
const char *const kPrompt = "Once upon a time, there was a little girl named Lily. She loved to play outside. "
                            "Once upon a time, there was a little girl named Lily. She";

// The chi-squared value whose upper tail is 0.001 (Wilson-Hilferty).
double chiSquaredCritical(int df)
{
    const double z = 3.0902;   // the standard normal's 0.999 quantile
    const double a = 2.0 / (9.0 * df);
    return df * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

// Two histograms over the same tokens: chi-squared of homogeneity, tokens
// with fewer than 10 observations in both together pooled into one bin.
// Returns false (with the statistic) when it exceeds the 0.001 critical value.
bool homogeneous(const std::map<Token, int> &a, const std::map<Token, int> &b, double *stat, int *df)
{
    std::map<Token, std::pair<int, int>> joint;
    for (const auto &[t, n] : a)
        joint[t].first += n;
    for (const auto &[t, n] : b)
        joint[t].second += n;
    std::vector<std::pair<int, int>> bins;
    std::pair<int, int> rare{0, 0};
    for (const auto &[t, n] : joint) {
        if (n.first + n.second < 10) {
            rare.first += n.first;
            rare.second += n.second;
        } else {
            bins.push_back(n);
        }
    }
    if (rare.first + rare.second > 0)
        bins.push_back(rare);
    double na = 0, nb = 0;
    for (const auto &bn : bins) {
        na += bn.first;
        nb += bn.second;
    }
    *stat = 0;
    for (const auto &bn : bins) {
        const double total = bn.first + bn.second;
        const double ea = total * na / (na + nb), eb = total * nb / (na + nb);
        *stat += (bn.first - ea) * (bn.first - ea) / ea + (bn.second - eb) * (bn.second - eb) / eb;
    }
    *df = static_cast<int>(bins.size()) - 1;
    return *df < 1 || *stat <= chiSquaredCritical(*df);
}

SamplingParams chain(uint32_t seed)
{
    SamplingParams p;
    p.temperature = 1.0f;
    p.topK = 100;
    p.topP = 0.98f;
    p.minP = 0.01f;
    p.repeatPenalty = 1.05f;
    p.seed = seed;
    return p;
}

} // namespace

class TestSpeculativeSampling : public QObject {
    Q_OBJECT

    std::shared_ptr<Model> m_model;
    std::unique_ptr<Session> m_session;

    GenerateResult generate(uint32_t seed, SpeculativeMode mode, const QString &draft = {})
    {
        GenerateOptions go;
        go.maxTokens = kTokens;
        go.speculative.mode = mode;
        if (!draft.isEmpty())
            go.speculative.draftModel = test::sharedPath(draft).toStdString();
        GenerateResult r;
        m_session->reset();
        const Status s = m_session->generate(m_model->tokenize(kPrompt, true, false), chain(seed), go, {}, &r);
        if (!s)
            qWarning("%s", s.message().c_str());
        return r;
    }

private slots:
    void initTestCase()
    {
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        auto m = Model::load(test::sharedPath(QStringLiteral("models/stories260K.gguf")).toStdString());
        QVERIFY(m);
        m_model = m.value();
        SessionOptions so;
        so.contextSize = 256;
        so.threads = 1;   // a 260K-parameter model: threads would only wait for each other
        auto s = Session::create(m_model, so);
        QVERIFY(s);
        m_session = std::move(s.value());
    }

    void sameSeedSameReply()
    {
        for (uint32_t seed = 1; seed <= 20; ++seed) {
            const GenerateResult plain = generate(seed, SpeculativeMode::SPECULATIVE_OFF);
            const GenerateResult drafted = generate(seed, SpeculativeMode::SPECULATIVE_NGRAM);
            QCOMPARE(drafted.tokens, plain.tokens);
        }
    }

    void draftModelDistributionIsTheTargets_data()
    {
        QTest::addColumn<QString>("draft");
        QTest::newRow("drafted by itself") << QStringLiteral("models/stories260K.gguf");
        QTest::newRow("drafted by a random model") << QStringLiteral("models/synthetic/llama-f32.gguf");
    }

    void draftModelDistributionIsTheTargets()
    {
        QFETCH(QString, draft);
        BURROW_REQUIRE_SHARED(draft);
        std::vector<std::map<Token, int>> withDrafts(kTokens), without(kTokens);
        int drafted = 0, accepted = 0;
        for (int i = 0; i < kRuns; ++i) {
            const GenerateResult a = generate(static_cast<uint32_t>(1 + i), SpeculativeMode::SPECULATIVE_DRAFT, draft);
            const GenerateResult b = generate(static_cast<uint32_t>(1 + kRuns + i), SpeculativeMode::SPECULATIVE_OFF);
            QVERIFY(!a.tokens.empty());
            drafted += a.timings.draftedTokens;
            accepted += a.timings.acceptedTokens;
            for (size_t j = 0; j < a.tokens.size() && j < size_t(kTokens); ++j)
                ++withDrafts[j][a.tokens[j]];
            for (size_t j = 0; j < b.tokens.size() && j < size_t(kTokens); ++j)
                ++without[j][b.tokens[j]];
        }
        qInfo("%d draft tokens, %d accepted", drafted, accepted);
        QVERIFY2(accepted > 0 && accepted < drafted, "drafts were both accepted and rejected");
        for (int j = 0; j < kTokens; ++j) {
            double stat = 0;
            int df = 0;
            const bool ok = homogeneous(withDrafts[size_t(j)], without[size_t(j)], &stat, &df);
            qInfo("token %d: chi-squared %.2f with %d degrees of freedom (critical %.2f)", j, stat, df,
                  df > 0 ? chiSquaredCritical(df) : 0.0);
            QVERIFY2(ok, qPrintable(QStringLiteral("token %1: chi-squared %2, %3 degrees of freedom").arg(j).arg(stat).arg(df)));
        }
        // A seed still gives one reply (not the one without drafts: other draws).
        QCOMPARE(generate(7, SpeculativeMode::SPECULATIVE_DRAFT, draft).tokens,
                 generate(7, SpeculativeMode::SPECULATIVE_DRAFT, draft).tokens);
    }

    void distributionIsTheTargets()
    {
        std::vector<std::map<Token, int>> withDrafts(kTokens), without(kTokens);
        int drafted = 0, accepted = 0;
        for (int i = 0; i < kRuns; ++i) {
            const GenerateResult a = generate(static_cast<uint32_t>(1 + i), SpeculativeMode::SPECULATIVE_NGRAM);
            const GenerateResult b = generate(static_cast<uint32_t>(1 + kRuns + i), SpeculativeMode::SPECULATIVE_OFF);
            drafted += a.timings.draftedTokens;
            accepted += a.timings.acceptedTokens;
            for (size_t j = 0; j < a.tokens.size() && j < size_t(kTokens); ++j)
                ++withDrafts[j][a.tokens[j]];
            for (size_t j = 0; j < b.tokens.size() && j < size_t(kTokens); ++j)
                ++without[j][b.tokens[j]];
        }
        qInfo("%d draft tokens, %d accepted", drafted, accepted);
        QVERIFY2(accepted > 0 && accepted < drafted, "drafts were both accepted and rejected");
        for (int j = 0; j < kTokens; ++j) {
            double stat = 0;
            int df = 0;
            const bool ok = homogeneous(withDrafts[size_t(j)], without[size_t(j)], &stat, &df);
            qInfo("token %d: chi-squared %.2f with %d degrees of freedom (critical %.2f)", j, stat, df,
                  df > 0 ? chiSquaredCritical(df) : 0.0);
            QVERIFY2(ok, qPrintable(QStringLiteral("token %1: chi-squared %2, %3 degrees of freedom").arg(j).arg(stat).arg(df)));
        }
    }

    // The first token against the exact distribution of the chain at
    // temperature 1 without truncation (softmax of the logits), drafts on.
    void firstTokenFollowsTheSoftmax()
    {
        std::vector<float> logits;
        QVERIFY(m_session->evaluate(m_model->tokenize(kPrompt, true, false), &logits));
        double mx = -INFINITY;
        for (float v : logits)
            mx = std::max(mx, double(v));
        std::vector<double> p(logits.size());
        double sum = 0;
        for (size_t i = 0; i < logits.size(); ++i)
            sum += p[i] = std::exp(double(logits[i]) - mx);
        std::map<Token, int> seen;
        GenerateOptions go;
        go.maxTokens = 2;
        go.speculative.mode = SpeculativeMode::SPECULATIVE_NGRAM;
        for (int i = 0; i < kRuns; ++i) {
            SamplingParams s;
            s.temperature = 1.0f;
            s.topK = 0;
            s.topP = 1.0f;
            s.minP = 0.0f;
            s.seed = static_cast<uint32_t>(5000 + i);
            GenerateResult r;
            m_session->reset();
            QVERIFY(m_session->generate(m_model->tokenize(kPrompt, true, false), s, go, {}, &r));
            QVERIFY(!r.tokens.empty());
            ++seen[r.tokens[0]];
        }
        // Bins: tokens with an expected count of 5 or more, the rest pooled.
        double stat = 0, restObserved = 0, restExpected = 0;
        int bins = 0;
        for (size_t t = 0; t < p.size(); ++t) {
            const double expected = kRuns * p[t] / sum;
            const double observed = seen.count(Token(t)) ? seen[Token(t)] : 0;
            if (expected >= 5) {
                stat += (observed - expected) * (observed - expected) / expected;
                ++bins;
            } else {
                restObserved += observed;
                restExpected += expected;
            }
        }
        if (restExpected > 0) {
            stat += (restObserved - restExpected) * (restObserved - restExpected) / restExpected;
            ++bins;
        }
        const int df = bins - 1;
        qInfo("first token: chi-squared %.2f with %d degrees of freedom (critical %.2f)", stat, df,
              df > 0 ? chiSquaredCritical(df) : 0.0);
        QVERIFY(df >= 1);
        QVERIFY2(stat <= chiSquaredCritical(df), qPrintable(QString::number(stat)));
    }
};

QTEST_MAIN(TestSpeculativeSampling)
#include "tst_speculative_sampling.moc"
