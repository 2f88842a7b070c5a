// Sampler stages on fixed logits, and the chain built from SamplingParams.
// Expected values are worked out here from the definitions (llama.cpp c392e50
// semantics), never taken from the code under test.
#include <QTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <numeric>
#include <random>
#include <vector>

#include "sampling/sampler.h"

using namespace burrow;
using namespace burrow::sampling;

// ---- allocation counter (not under sanitizers, which own operator new) ----
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define BURROW_COUNT_ALLOCATIONS 1
static std::atomic<bool> g_countAllocations{false};
static std::atomic<long> g_allocations{0};

void *operator new(std::size_t size)
{
    if (g_countAllocations.load(std::memory_order_relaxed))
        g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void *p = std::malloc(size ? size : 1))
        return p;
    throw std::bad_alloc();
}
void *operator new[](std::size_t size) { return ::operator new(size); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

// Candidates owned by the test, with a view for the stages.
struct Fixture {
    std::vector<Candidate> storage;
    CandidateArray view;

    explicit Fixture(const std::vector<float> &logits)
    {
        storage.reserve(logits.size());
        for (size_t i = 0; i < logits.size(); ++i)
            storage.push_back(Candidate{static_cast<Token>(i), logits[i], 0.0f});
        view = CandidateArray{storage.data(), storage.size(), -1, false};
    }

    std::vector<Token> ids() const
    {
        std::vector<Token> out;
        for (size_t i = 0; i < view.size; ++i)
            out.push_back(view.data[i].id);
        return out;
    }
    float logitOf(Token id) const
    {
        for (size_t i = 0; i < view.size; ++i)
            if (view.data[i].id == id)
                return view.data[i].logit;
        return std::numeric_limits<float>::quiet_NaN();
    }
};

std::vector<float> logsOf(const std::vector<double> &probs)
{
    std::vector<float> logits;
    for (double p : probs)
        logits.push_back(static_cast<float>(std::log(p)));
    return logits;
}

std::vector<float> randomLogits(size_t n, float sigma, uint32_t seed)
{
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal(0.0f, sigma);
    std::vector<float> logits(n);
    for (float &x : logits)
        x = normal(gen);
    return logits;
}

SamplingParams neutralParams()
{
    SamplingParams p;
    p.temperature = 1.0f;
    p.topK = 0;
    p.topP = 1.0f;
    p.minP = 0.0f;
    p.typicalP = 1.0f;
    p.repeatPenalty = 1.0f;
    p.seed = 1234;
    return p;
}

} // namespace

class TestSampling : public QObject {
    Q_OBJECT

private slots:
    void softmaxSortsAndNormalizes();

    void topK_data();
    void topK();

    void topP_data();
    void topP();
    void topPLargeUnsorted_data();
    void topPLargeUnsorted();

    void minP_data();
    void minP();
    void minPUnsortedKeepsOrder();

    void typical_data();
    void typical();

    void temperatureScales();
    void temperatureZeroKeepsFirstMax();

    void penaltiesFormula_data();
    void penaltiesFormula();
    void penaltiesWindowSlides();
    void penaltiesResetAndOff();
    void penaltiesSameInAnyOrder();

    void distMatchesStdDiscreteDistribution();
    void distSeededReproducible();
    void distFrequenciesFollowProbabilities();
    void distSingleCandidateDrawsNothing();

    void greedyPicksArgmax();
    void plainArgmaxWhen_data();
    void plainArgmaxWhen();
    void plainArgmaxEqualsStages_data();
    void plainArgmaxEqualsStages();

    void mirostatV2MuUpdates();
    void mirostatV2DrawnSurpriseDrivesMu();
    void mirostatV2SortedAndUnsortedAgree();
    void mirostatV1KeepsTopAndUpdatesMu();

    void chainOrder_data();
    void chainOrder();
    void chainTemperatureAfterTruncation();
    void chainGreedyRespectsPenalties();
    void chainGreedyWithTypicalCanSkipArgmax();
    void chainSeededReproducibleAndReset();
    void chainPenaltyLastNWholeContext();
    void chainNanLogitsNeverChosen();
    void chainDoesNotAllocatePerToken();

    void validation_data();
    void validation();
};

// ---- softmax ----------------------------------------------------------------

void TestSampling::softmaxSortsAndNormalizes()
{
    Fixture f(logsOf({1, 2, 3, 4}));   // p = k / 10
    softmax(f.view);
    QVERIFY(f.view.sorted);
    QCOMPARE(f.ids(), (std::vector<Token>{3, 2, 1, 0}));
    for (size_t i = 0; i < 4; ++i)
        QVERIFY(std::fabs(f.view.data[i].p - (4.0 - i) / 10.0) < 1e-6);
}

// ---- top-k ------------------------------------------------------------------

void TestSampling::topK_data()
{
    QTest::addColumn<int>("k");
    QTest::addColumn<std::vector<Token>>("expected");
    QTest::addColumn<bool>("sorted");
    // logits: 0.5, 3.0, -1.0, 2.0, 1.0
    QTest::newRow("k=2") << 2 << std::vector<Token>{1, 3} << true;
    QTest::newRow("k=1") << 1 << std::vector<Token>{1} << true;
    QTest::newRow("k=size") << 5 << std::vector<Token>{1, 3, 4, 0, 2} << true;
    QTest::newRow("k>size") << 99 << std::vector<Token>{1, 3, 4, 0, 2} << true;
    QTest::newRow("k=0 off") << 0 << std::vector<Token>{0, 1, 2, 3, 4} << false;
    QTest::newRow("k<0 off") << -5 << std::vector<Token>{0, 1, 2, 3, 4} << false;
}

void TestSampling::topK()
{
    QFETCH(int, k);
    QFETCH(std::vector<Token>, expected);
    QFETCH(bool, sorted);
    Fixture f({0.5f, 3.0f, -1.0f, 2.0f, 1.0f});
    TopK(k).apply(f.view);
    QCOMPARE(f.ids(), expected);
    QCOMPARE(f.view.sorted, sorted);
}

// ---- top-p ------------------------------------------------------------------

void TestSampling::topP_data()
{
    QTest::addColumn<float>("p");
    QTest::addColumn<int>("minKeep");
    QTest::addColumn<std::vector<Token>>("expected");
    // probabilities 0.1, 0.4, 0.2, 0.3 (ids 0..3): sorted 1 (.4), 3 (.3), 2 (.2), 0 (.1)
    // cumulative: 0.4, 0.7, 0.9, 1.0
    QTest::newRow("p=0.35 keeps 1") << 0.35f << 0 << std::vector<Token>{1};
    QTest::newRow("p=0.5 keeps 2") << 0.5f << 0 << std::vector<Token>{1, 3};
    QTest::newRow("p=0.69 keeps 2") << 0.69f << 0 << std::vector<Token>{1, 3};
    QTest::newRow("p=0.71 keeps 3") << 0.71f << 0 << std::vector<Token>{1, 3, 2};
    QTest::newRow("p=0.95 keeps 4") << 0.95f << 0 << std::vector<Token>{1, 3, 2, 0};
    QTest::newRow("p=0 keeps the top") << 0.0f << 0 << std::vector<Token>{1};
    QTest::newRow("min_keep 3") << 0.1f << 3 << std::vector<Token>{1, 3, 2};
}

void TestSampling::topP()
{
    QFETCH(float, p);
    QFETCH(int, minKeep);
    QFETCH(std::vector<Token>, expected);
    Fixture f(logsOf({0.1, 0.4, 0.2, 0.3}));
    TopP(p, static_cast<size_t>(minKeep)).apply(f.view);
    QCOMPARE(f.ids(), expected);

    Fixture off(logsOf({0.1, 0.4, 0.2, 0.3}));
    TopP(1.0f, 0).apply(off.view);   // 1 = off: untouched, not even sorted
    QCOMPARE(off.ids(), (std::vector<Token>{0, 1, 2, 3}));
    QVERIFY(!off.view.sorted);
}

void TestSampling::topPLargeUnsorted_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<float>("sigma");
    QTest::addColumn<float>("p");
    QTest::newRow("peaked, nucleus in the head") << 5000 << 3.0f << 0.9f;
    QTest::newRow("flat, nucleus needs the tail") << 5000 << 0.1f << 0.9f;
    QTest::newRow("flat, p 0.999") << 3000 << 0.05f << 0.999f;
    QTest::newRow("small") << 50 << 1.0f << 0.5f;
}

void TestSampling::topPLargeUnsorted()
{
    QFETCH(int, n);
    QFETCH(float, sigma);
    QFETCH(float, p);
    const std::vector<float> logits = randomLogits(static_cast<size_t>(n), sigma, 77);

    // Worked out here: sort everything by logit, softmax in double, take the
    // shortest prefix with cumulative mass >= p.
    std::vector<Token> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](Token a, Token b) { return logits[a] > logits[b]; });
    double sum = 0;
    for (float l : logits)
        sum += std::exp(double(l) - logits[order[0]]);
    std::vector<Token> expected;
    double mass = 0;
    for (Token id : order) {
        expected.push_back(id);
        mass += std::exp(double(logits[id]) - logits[order[0]]) / sum;
        if (mass >= p)
            break;
    }

    Fixture f(logits);
    TopP(p, 0).apply(f.view);
    QCOMPARE(f.view.size, expected.size());
    QCOMPARE(f.ids(), expected);
    QVERIFY(f.view.sorted);
}

// ---- min-p ------------------------------------------------------------------

void TestSampling::minP_data()
{
    QTest::addColumn<float>("p");
    QTest::addColumn<int>("minKeep");
    QTest::addColumn<bool>("presorted");
    QTest::addColumn<std::vector<Token>>("expectedSorted");
    // probabilities 0.1, 0.4, 0.2, 0.3 (ids 0..3); threshold = p * 0.4
    QTest::newRow("0.3: >= 0.12") << 0.3f << 0 << true << std::vector<Token>{1, 3, 2};
    QTest::newRow("0.6: >= 0.24") << 0.6f << 0 << true << std::vector<Token>{1, 3};
    QTest::newRow("1.0: only the max") << 1.0f << 0 << true << std::vector<Token>{1};
    QTest::newRow("0.01: all") << 0.01f << 0 << true << std::vector<Token>{1, 3, 2, 0};
    QTest::newRow("min_keep 3 overrides") << 1.0f << 3 << true << std::vector<Token>{1, 3, 2};
    QTest::newRow("unsorted, min_keep falls back to sorted") << 1.0f << 3 << false << std::vector<Token>{1, 3, 2};
    QTest::newRow("unsorted 0.6") << 0.6f << 0 << false << std::vector<Token>{1, 3};
}

void TestSampling::minP()
{
    QFETCH(float, p);
    QFETCH(int, minKeep);
    QFETCH(bool, presorted);
    QFETCH(std::vector<Token>, expectedSorted);
    Fixture f(logsOf({0.1, 0.4, 0.2, 0.3}));
    if (presorted)
        sortDescending(f.view);
    MinP(p, static_cast<size_t>(minKeep)).apply(f.view);
    std::vector<Token> ids = f.ids();
    if (!f.view.sorted) {   // the unsorted path keeps input order; compare as a set
        std::vector<Token> want = expectedSorted;
        std::sort(ids.begin(), ids.end());
        std::sort(want.begin(), want.end());
        QCOMPARE(ids, want);
    } else {
        QCOMPARE(ids, expectedSorted);
    }
}

void TestSampling::minPUnsortedKeepsOrder()
{
    Fixture f(logsOf({0.3, 0.1, 0.4, 0.2}));
    MinP(0.6f, 0).apply(f.view);   // keeps p >= 0.24: ids 0 and 2, in input order
    QCOMPARE(f.ids(), (std::vector<Token>{0, 2}));
    QVERIFY(!f.view.sorted);
}

// ---- typical ----------------------------------------------------------------

void TestSampling::typical_data()
{
    QTest::addColumn<std::vector<double>>("probs");
    QTest::addColumn<float>("p");
    QTest::newRow("0.6/0.3/0.1 p=0.2") << std::vector<double>{0.6, 0.3, 0.1} << 0.2f;
    QTest::newRow("0.6/0.3/0.1 p=0.5") << std::vector<double>{0.6, 0.3, 0.1} << 0.5f;
    QTest::newRow("0.6/0.3/0.1 p=0.95") << std::vector<double>{0.6, 0.3, 0.1} << 0.95f;
    QTest::newRow("five p=0.4") << std::vector<double>{0.05, 0.5, 0.15, 0.2, 0.1} << 0.4f;
    QTest::newRow("five p=0.7") << std::vector<double>{0.05, 0.5, 0.15, 0.2, 0.1} << 0.7f;
    QTest::newRow("p=0 keeps one") << std::vector<double>{0.05, 0.5, 0.15, 0.2, 0.1} << 0.0f;
}

void TestSampling::typical()
{
    QFETCH(std::vector<double>, probs);
    QFETCH(float, p);

    // Worked out in double: entropy H = -sum p ln p; order by |-ln p - H|;
    // keep the shortest prefix whose mass exceeds p (at least one token).
    double entropy = 0;
    for (double q : probs)
        entropy -= q * std::log(q);
    std::vector<Token> order(probs.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](Token a, Token b) {
        return std::fabs(-std::log(probs[a]) - entropy) < std::fabs(-std::log(probs[b]) - entropy);
    });
    std::vector<Token> expected;
    double mass = 0;
    for (Token id : order) {
        expected.push_back(id);
        mass += probs[static_cast<size_t>(id)];
        if (mass > p)
            break;
    }

    Fixture f(logsOf(probs));
    TypicalP(p, 0, static_cast<uint32_t>(probs.size())).apply(f.view);
    QCOMPARE(f.ids(), expected);
    QVERIFY(!f.view.sorted);
}

// ---- temperature ------------------------------------------------------------

void TestSampling::temperatureScales()
{
    Fixture f({1.0f, -2.0f, 0.5f});
    Temperature(0.5f).apply(f.view);
    QCOMPARE(f.view.data[0].logit, 2.0f);
    QCOMPARE(f.view.data[1].logit, -4.0f);
    QCOMPARE(f.view.data[2].logit, 1.0f);
}

void TestSampling::temperatureZeroKeepsFirstMax()
{
    const float inf = std::numeric_limits<float>::infinity();
    Fixture f({1.0f, 3.0f, 3.0f, -1.0f});
    Temperature(0.0f).apply(f.view);
    QCOMPARE(f.view.data[0].logit, -inf);
    QCOMPARE(f.view.data[1].logit, 3.0f);   // the first of the tied maxima stays
    QCOMPARE(f.view.data[2].logit, -inf);
    QCOMPARE(f.view.data[3].logit, -inf);

    Fixture g({1.0f, 3.0f, -1.0f});
    Temperature(-1.0f).apply(g.view);       // negative = same as 0
    QCOMPARE(g.view.data[1].logit, 3.0f);
    QCOMPARE(g.view.data[0].logit, -inf);
}

// ---- penalties --------------------------------------------------------------

void TestSampling::penaltiesFormula_data()
{
    QTest::addColumn<float>("repeat");
    QTest::addColumn<float>("freq");
    QTest::addColumn<float>("presence");
    QTest::newRow("repeat only") << 2.0f << 0.0f << 0.0f;
    QTest::newRow("frequency only") << 1.0f << 0.5f << 0.0f;
    QTest::newRow("presence only") << 1.0f << 0.0f << 0.25f;
    QTest::newRow("all three") << 1.3f << 0.5f << 0.25f;
    QTest::newRow("repeat < 1 boosts") << 0.5f << 0.0f << 0.0f;
}

void TestSampling::penaltiesFormula()
{
    QFETCH(float, repeat);
    QFETCH(float, freq);
    QFETCH(float, presence);
    const std::vector<float> logits = {2.0f, -1.0f, 0.5f, 3.0f, 0.0f};
    Penalties stage(5, 64, repeat, freq, presence);
    for (Token t : {0, 0, 1, 4, 0})
        stage.accept(t);   // counts: 0 -> 3, 1 -> 1, 4 -> 1
    QCOMPARE(stage.count(0), 3);
    QCOMPARE(stage.count(1), 1);
    QCOMPARE(stage.count(2), 0);

    Fixture f(logits);
    stage.apply(f.view);
    // positive logits are divided, logits <= 0 multiplied, then count*freq + presence subtracted
    auto expect = [&](float logit, int count) {
        if (count == 0)
            return logit;
        const float scaled = logit <= 0 ? logit * repeat : logit / repeat;
        return scaled - (static_cast<float>(count) * freq + presence);
    };
    QCOMPARE(f.logitOf(0), expect(2.0f, 3));
    QCOMPARE(f.logitOf(1), expect(-1.0f, 1));
    QCOMPARE(f.logitOf(2), 0.5f);
    QCOMPARE(f.logitOf(3), 3.0f);
    QCOMPARE(f.logitOf(4), expect(0.0f, 1));
}

void TestSampling::penaltiesWindowSlides()
{
    Penalties stage(10, 3, 2.0f, 0.0f, 0.0f);
    for (Token t : {1, 2, 3})
        stage.accept(t);
    QCOMPARE(stage.windowSize(), size_t(3));
    stage.accept(4);   // 1 leaves the window
    QCOMPARE(stage.count(1), 0);
    QCOMPARE(stage.count(4), 1);
    stage.accept(2);   // 2 leaves, 2 comes back: still 1
    QCOMPARE(stage.count(2), 1);
    QCOMPARE(stage.count(3), 1);
    stage.accept(3);   // window 3, 4, 2 -> 4, 2, 3
    QCOMPARE(stage.count(4), 1);
    QCOMPARE(stage.count(3), 1);
    stage.accept(3);   // window 4, 2, 3 -> 2, 3, 3
    QCOMPARE(stage.count(4), 0);
    QCOMPARE(stage.count(3), 2);
    QCOMPARE(stage.windowSize(), size_t(3));

    Fixture f({1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f});
    stage.apply(f.view);
    QCOMPARE(f.logitOf(1), 1.0f);
    QCOMPARE(f.logitOf(2), 0.5f);
    QCOMPARE(f.logitOf(3), 0.5f);   // repeat does not compound with the count
    QCOMPARE(f.logitOf(4), 1.0f);

    stage.accept(-1);   // invalid ids are ignored
    stage.accept(10);
    QCOMPARE(stage.count(3), 2);
    QCOMPARE(stage.windowSize(), size_t(3));
}

void TestSampling::penaltiesResetAndOff()
{
    Penalties stage(4, 8, 2.0f, 1.0f, 1.0f);
    stage.accept(1);
    stage.accept(1);
    stage.reset();
    QCOMPARE(stage.count(1), 0);
    QCOMPARE(stage.windowSize(), size_t(0));
    Fixture f({1.0f, 1.0f, 1.0f, 1.0f});
    stage.apply(f.view);
    QCOMPARE(f.logitOf(1), 1.0f);

    Penalties off(4, 0, 2.0f, 1.0f, 1.0f);   // last_n = 0: disabled
    off.accept(1);
    QCOMPARE(off.count(1), 0);
    Fixture g({1.0f, 1.0f, 1.0f, 1.0f});
    off.apply(g.view);
    QCOMPARE(g.logitOf(1), 1.0f);
}

void TestSampling::penaltiesSameInAnyOrder()
{
    // The id-ordered fast path and the general path give every token the same logit.
    const uint32_t vocab = 1000;
    const std::vector<float> logits = randomLogits(vocab, 2.0f, 3);
    Penalties stage(vocab, 200, 1.3f, 0.2f, 0.1f);
    std::mt19937 gen(4);
    std::uniform_int_distribution<int> pick(0, 60);   // many repeats
    for (int i = 0; i < 500; ++i)
        stage.accept(pick(gen));

    Fixture inOrder(logits);
    stage.apply(inOrder.view);
    Fixture shuffled(logits);
    std::shuffle(shuffled.storage.begin(), shuffled.storage.end(), gen);
    stage.apply(shuffled.view);
    for (Token t = 0; t < static_cast<Token>(vocab); ++t) {
        const int n = stage.count(t);
        float want = logits[static_cast<size_t>(t)];
        if (n > 0) {
            want = want <= 0 ? want * 1.3f : want / 1.3f;
            want -= static_cast<float>(n) * 0.2f + 0.1f;
        }
        QCOMPARE(inOrder.storage[static_cast<size_t>(t)].logit, want);
        QCOMPARE(shuffled.logitOf(t), want);
    }
    // Applied twice, a token is penalized twice (no stale state between calls).
    stage.apply(inOrder.view);
    const Token seen = 5;
    QVERIFY(stage.count(seen) > 0);
    Fixture once(logits);
    stage.apply(once.view);
    stage.apply(once.view);
    QCOMPARE(once.logitOf(seen), inOrder.logitOf(seen));
}

// ---- dist -------------------------------------------------------------------

void TestSampling::distMatchesStdDiscreteDistribution()
{
#ifndef __GLIBCXX__
    QSKIP("the draw is specified as libstdc++'s std::discrete_distribution");
#else
    // Dist draws what llama.cpp draws: std::discrete_distribution<int> over the
    // sorted softmax probabilities, with std::mt19937 seeded by the seed.
    const std::vector<double> probs = {0.05, 0.5, 0.15, 0.2, 0.1};
    const uint32_t seed = 42;
    Dist dist(seed, 5);

    Fixture reference(logsOf(probs));
    softmax(reference.view);
    std::vector<float> sortedP;
    for (size_t i = 0; i < reference.view.size; ++i)
        sortedP.push_back(reference.view.data[i].p);
    std::mt19937 rng(seed);
    std::discrete_distribution<int> ref(sortedP.begin(), sortedP.end());

    for (int draw = 0; draw < 2000; ++draw) {
        Fixture f(logsOf(probs));
        dist.apply(f.view);
        const int want = ref(rng);
        QCOMPARE(f.view.selected, static_cast<int64_t>(want));
        QCOMPARE(f.view.selectedToken(), reference.view.data[want].id);
    }
#endif
}

void TestSampling::distSeededReproducible()
{
    const std::vector<float> logits = {0.1f, 0.2f, 0.3f, 0.0f, -0.5f, 0.25f};
    auto run = [&](Dist &dist) {
        std::vector<Token> out;
        for (int i = 0; i < 64; ++i) {
            Fixture f(logits);
            dist.apply(f.view);
            out.push_back(f.view.selectedToken());
        }
        return out;
    };
    Dist a(7, 6), b(7, 6), c(8, 6);
    const std::vector<Token> first = run(a);
    QCOMPARE(run(b), first);
    QVERIFY(run(c) != first);
    a.reset();                    // reseeding replays the sequence
    QCOMPARE(run(a), first);
    QCOMPARE(a.seedUsed(), 7u);

    Dist random1(kRandomSeed, 6);
    Dist random2(kRandomSeed, 6);
    QVERIFY(random1.seedUsed() != kRandomSeed || random2.seedUsed() != kRandomSeed);
}

void TestSampling::distFrequenciesFollowProbabilities()
{
    const std::vector<double> probs = {0.1, 0.4, 0.2, 0.3};
    Dist dist(2024, 4);
    std::vector<int> hits(4, 0);
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        Fixture f(logsOf(probs));
        dist.apply(f.view);
        ++hits[static_cast<size_t>(f.view.selectedToken())];
    }
    // Fixed seed, so this is deterministic; 0.02 is > 4 standard deviations.
    for (size_t i = 0; i < probs.size(); ++i)
        QVERIFY2(std::fabs(hits[i] / double(n) - probs[i]) < 0.02,
                 qPrintable(QStringLiteral("token %1: %2 vs %3").arg(i).arg(hits[i] / double(n)).arg(probs[i])));
}

void TestSampling::distSingleCandidateDrawsNothing()
{
    // One candidate: selected without touching the generator (as
    // std::discrete_distribution does), so the next draws are unchanged.
    Dist a(99, 4), b(99, 4);
    Fixture one({5.0f});
    a.apply(one.view);
    QCOMPARE(one.view.selected, int64_t(0));
    for (int i = 0; i < 16; ++i) {
        Fixture fa({0.0f, 0.1f, 0.2f, 0.3f}), fb({0.0f, 0.1f, 0.2f, 0.3f});
        a.apply(fa.view);
        b.apply(fb.view);
        QCOMPARE(fa.view.selectedToken(), fb.view.selectedToken());
    }
}

// ---- greedy -----------------------------------------------------------------

void TestSampling::greedyPicksArgmax()
{
    Fixture f({0.5f, 2.0f, 7.0f, 7.0f, -3.0f});
    Greedy().apply(f.view);
    QCOMPARE(f.view.selectedToken(), Token(2));   // first of the tied maxima
}

// A greedy chain takes the one-pass argmax (Chain::plainArgmax) only when no
// stage could move a logit or drop the argmax and nothing is recorded.
void TestSampling::plainArgmaxWhen_data()
{
    QTest::addColumn<float>("temperature");
    QTest::addColumn<float>("repeat");
    QTest::addColumn<float>("frequency");
    QTest::addColumn<float>("presence");
    QTest::addColumn<int>("lastN");
    QTest::addColumn<float>("typical");
    QTest::addColumn<int>("mirostat");
    QTest::addColumn<int>("logprobs");
    QTest::addColumn<bool>("record");
    QTest::addColumn<bool>("plain");
    QTest::newRow("greedy, defaults") << 0.0f << 1.0f << 0.0f << 0.0f << 64 << 1.0f << 0 << 0 << false << true;
    QTest::newRow("temperature < 0") << -1.0f << 1.0f << 0.0f << 0.0f << 64 << 1.0f << 0 << 0 << false << true;
    QTest::newRow("repeat penalty") << 0.0f << 1.1f << 0.0f << 0.0f << 64 << 1.0f << 0 << 0 << false << false;
    QTest::newRow("repeat penalty, window 0") << 0.0f << 1.1f << 0.0f << 0.0f << 0 << 1.0f << 0 << 0 << false << true;
    QTest::newRow("frequency penalty") << 0.0f << 1.0f << 0.2f << 0.0f << 64 << 1.0f << 0 << 0 << false << false;
    QTest::newRow("presence penalty") << 0.0f << 1.0f << 0.0f << -0.3f << -1 << 1.0f << 0 << 0 << false << false;
    QTest::newRow("typical") << 0.0f << 1.0f << 0.0f << 0.0f << 64 << 0.5f << 0 << 0 << false << false;
    QTest::newRow("logprobs") << 0.0f << 1.0f << 0.0f << 0.0f << 64 << 1.0f << 0 << 3 << false << false;
    QTest::newRow("chosen logprob recorded") << 0.0f << 1.0f << 0.0f << 0.0f << 64 << 1.0f << 0 << 0 << true << false;
    QTest::newRow("sampled") << 0.8f << 1.0f << 0.0f << 0.0f << 64 << 1.0f << 0 << 0 << false << false;
    QTest::newRow("mirostat 2 at temperature 0") << 0.0f << 1.0f << 0.0f << 0.0f << 64 << 1.0f << 2 << 0 << false << false;
}

void TestSampling::plainArgmaxWhen()
{
    QFETCH(float, temperature);
    QFETCH(float, repeat);
    QFETCH(float, frequency);
    QFETCH(float, presence);
    QFETCH(int, lastN);
    QFETCH(float, typical);
    QFETCH(int, mirostat);
    QFETCH(int, logprobs);
    QFETCH(bool, record);
    QFETCH(bool, plain);
    SamplingParams p;
    p.temperature = temperature;
    p.repeatPenalty = repeat;
    p.frequencyPenalty = frequency;
    p.presencePenalty = presence;
    p.penaltyLastN = lastN;
    p.typicalP = typical;
    p.mirostat = mirostat;
    p.logprobs = logprobs;
    p.recordLogprobs = record;
    auto chain = Chain::create(p, 8, 64);
    QVERIFY(chain.isOk());
    QCOMPARE((*chain)->plainArgmax(), plain);
}

// The one-pass argmax picks what the stages pick (a greedy chain that
// records the chosen logprob runs them): the first of tied maxima, NaN
// never, -infinity only when nothing else is left; candidates() then holds
// the chosen token.
void TestSampling::plainArgmaxEqualsStages_data()
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    QTest::addColumn<std::vector<float>>("logits");
    QTest::addColumn<int>("expected");
    QTest::newRow("one maximum") << std::vector<float>{0.5f, 2.0f, 7.5f, 7.0f, -3.0f} << 2;
    QTest::newRow("tie: the first") << std::vector<float>{0.5f, 7.0f, 2.0f, 7.0f} << 1;
    QTest::newRow("maximum first") << std::vector<float>{9.0f, 2.0f, 7.0f} << 0;
    QTest::newRow("maximum last") << std::vector<float>{1.0f, 2.0f, 3.0f} << 2;
    QTest::newRow("NaN first") << std::vector<float>{nan, -5.0f, -4.0f, -6.0f} << 2;
    QTest::newRow("NaN among") << std::vector<float>{1.0f, nan, 0.5f, nan} << 0;
    QTest::newRow("all NaN: token 0") << std::vector<float>{nan, nan, nan} << 0;
    QTest::newRow("-inf and NaN: token 0") << std::vector<float>{-inf, nan, -inf} << 0;
    QTest::newRow("+inf wins") << std::vector<float>{1.0f, inf, 3.0f, inf} << 1;
    QTest::newRow("one token") << std::vector<float>{-2.0f} << 0;
    std::vector<float> tail(35, 1.0f);   // 16-lane passes, then a tail of 3
    tail[33] = 4.0f;
    tail[20] = 3.0f;
    QTest::newRow("maximum in the tail") << tail << 33;
    std::vector<float> lanes(40, -1.0f);   // tied in a lane (21) and in the tail (37): the first
    lanes[21] = 2.5f;
    lanes[37] = 2.5f;
    lanes[5] = 2.0f;
    QTest::newRow("tie across passes: the first") << lanes << 21;
    std::vector<float> wide(32000);
    for (size_t i = 0; i < wide.size(); ++i)
        wide[i] = static_cast<float>((i * 7919) % 10007) * 0.001f;   // 10.006 first at id 1040 (7919 i = 10006 mod 10007)
    QTest::newRow("32000 tokens") << wide << 1040;
}

void TestSampling::plainArgmaxEqualsStages()
{
    QFETCH(std::vector<float>, logits);
    QFETCH(int, expected);
    SamplingParams p;
    p.temperature = 0.0f;
    const uint32_t n = static_cast<uint32_t>(logits.size());
    auto plain = Chain::create(p, n, 64);
    p.recordLogprobs = true;   // the same greedy chain through load() and the stages
    auto staged = Chain::create(p, n, 64);
    QVERIFY(plain.isOk() && staged.isOk());
    QVERIFY((*plain)->plainArgmax());
    QVERIFY(!(*staged)->plainArgmax());
    const Token viaStages = (*staged)->sample(logits.data());
    const Token viaArgmax = (*plain)->sample(logits.data());
    QCOMPARE(viaStages, Token(expected));
    QCOMPARE(viaArgmax, Token(expected));
    QCOMPARE((*plain)->candidates().selectedToken(), Token(expected));
    QCOMPARE((*plain)->candidates().size, size_t(1));
}

// ---- mirostat ---------------------------------------------------------------

void TestSampling::mirostatV2MuUpdates()
{
    // tau 0.5 -> mu starts at 1.0. Probabilities 0.5/0.25/0.125/0.125 have
    // surprises 1, 2, 3, 3 bits: only the first is <= mu, so it is drawn with
    // p = 1 (surprise 0) and mu -= eta * (0 - tau) each step.
    const std::vector<float> logits = logsOf({0.125, 0.5, 0.25, 0.125});
    MirostatV2 stage(5, 0.5f, 0.1f, 4);
    QCOMPARE(stage.mu(), 1.0f);
    float mu = 1.0f;
    for (int step = 0; step < 3; ++step) {
        Fixture f(logits);
        stage.apply(f.view);
        QCOMPARE(f.view.size, size_t(1));
        QCOMPARE(f.view.selectedToken(), Token(1));
        mu = mu - 0.1f * (0.0f - 0.5f);
        QVERIFY(std::fabs(stage.mu() - mu) < 1e-6f);
    }
    // mu is now 1.15 < 2: still one token. reset() restores 2*tau.
    stage.reset();
    QCOMPARE(stage.mu(), 1.0f);
}

void TestSampling::mirostatV2DrawnSurpriseDrivesMu()
{
    // tau 5 -> mu 10: nothing is truncated (all surprises <= 3 bits); the drawn
    // token's surprise moves mu by -eta * (surprise - tau).
    const std::vector<double> probs = {0.5, 0.25, 0.125, 0.125};
    MirostatV2 stage(11, 5.0f, 0.1f, 4);
    float mu = 10.0f;
    for (int step = 0; step < 20; ++step) {
        Fixture f(logsOf(probs));
        stage.apply(f.view);
        QCOMPARE(f.view.size, size_t(4));
        const double p = probs[static_cast<size_t>(f.view.selectedToken())];
        mu = mu - 0.1f * (static_cast<float>(-std::log2(p)) - 5.0f);
        QVERIFY2(std::fabs(stage.mu() - mu) < 1e-4f, qPrintable(QString::number(stage.mu())));
    }
}

void TestSampling::mirostatV2SortedAndUnsortedAgree()
{
    // Sorted input takes the prefix path, unsorted input the filter path;
    // both must keep the same tokens, draw the same one and move mu alike.
    const std::vector<float> logits = randomLogits(3000, 2.5f, 21);
    MirostatV2 sortedStage(17, 3.0f, 0.2f, 3000), unsortedStage(17, 3.0f, 0.2f, 3000);
    for (int step = 0; step < 30; ++step) {
        Fixture a(logits), b(logits);
        sortDescending(a.view);
        sortedStage.apply(a.view);
        unsortedStage.apply(b.view);
        QCOMPARE(b.view.size, a.view.size);
        QCOMPARE(b.ids(), a.ids());
        QCOMPARE(b.view.selectedToken(), a.view.selectedToken());
        QCOMPARE(unsortedStage.mu(), sortedStage.mu());
        QVERIFY(a.view.size < 3000);   // tau 3 bits truncates
    }
}

void TestSampling::mirostatV1KeepsTopAndUpdatesMu()
{
    // Zipf-like probabilities p_i ~ 1/(i+1): the estimated exponent s is 1,
    // which makes epsilon 0 and k = 0^(1) / 0 -> NaN -> one token kept.
    // Use p_i ~ 1/(i+1)^2 instead: s = 2, eps = 1, k = (2^mu / (1 - 1/n))^(1/2).
    const uint32_t n = 8;
    std::vector<double> probs;
    double z = 0;
    for (uint32_t i = 0; i < n; ++i)
        z += 1.0 / ((i + 1.0) * (i + 1.0));
    for (uint32_t i = 0; i < n; ++i)
        probs.push_back(1.0 / ((i + 1.0) * (i + 1.0)) / z);
    const float tau = 1.0f, eta = 0.1f;
    Mirostat stage(3, tau, eta, n);
    Fixture f(logsOf(probs));
    stage.apply(f.view);
    // mu = 2: k = sqrt(4 / (1 - 1/8)) = 2.138 -> top 2 tokens.
    QCOMPARE(f.view.size, size_t(2));
    QVERIFY(f.view.selectedToken() == 0 || f.view.selectedToken() == 1);
    const double p0 = probs[0] / (probs[0] + probs[1]);
    const double drawn = f.view.selectedToken() == 0 ? p0 : 1 - p0;
    const float expectedMu = 2.0f - eta * (static_cast<float>(-std::log2(drawn)) - tau);
    QVERIFY(std::fabs(stage.mu() - expectedMu) < 1e-4f);
}

// ---- chain ------------------------------------------------------------------

void TestSampling::chainOrder_data()
{
    QTest::addColumn<float>("temperature");
    QTest::addColumn<float>("typicalP");
    QTest::addColumn<int>("mirostat");
    QTest::addColumn<QString>("names");
    QTest::newRow("defaults") << 0.8f << 1.0f << 0
                              << QStringLiteral("penalties top-k typical top-p min-p temp dist");
    QTest::newRow("greedy") << 0.0f << 1.0f << 0 << QStringLiteral("penalties greedy");
    QTest::newRow("greedy + typical") << 0.0f << 0.5f << 0 << QStringLiteral("penalties top-k typical greedy");
    QTest::newRow("mirostat 2") << 0.8f << 1.0f << 2 << QStringLiteral("temp mirostat-v2");
    QTest::newRow("mirostat 1") << 0.8f << 1.0f << 1 << QStringLiteral("temp mirostat");
}

void TestSampling::chainOrder()
{
    QFETCH(float, temperature);
    QFETCH(float, typicalP);
    QFETCH(int, mirostat);
    QFETCH(QString, names);
    SamplingParams params;
    params.temperature = temperature;
    params.typicalP = typicalP;
    params.mirostat = mirostat;
    params.seed = 1;
    auto chain = Chain::create(params, 16, 64);
    QVERIFY2(chain.isOk(), chain.message().c_str());
    QCOMPARE(QString::fromStdString((*chain)->stageNames()), names);
}

void TestSampling::chainTemperatureAfterTruncation()
{
    // top-p 0.5 over 0.4/0.3/0.2/0.1 keeps two tokens when it sees the raw
    // distribution. Temperature 0.1 would sharpen the top token to p > 0.9
    // and leave one, so two survivors prove temperature runs after top-p.
    SamplingParams params = neutralParams();
    params.topP = 0.5f;
    params.temperature = 0.1f;
    auto chain = Chain::create(params, 4, 64);
    QVERIFY(chain.isOk());
    const std::vector<float> logits = logsOf({0.4, 0.3, 0.2, 0.1});
    (*chain)->sample(logits.data());
    QCOMPARE((*chain)->candidates().size, size_t(2));

    // min-p then temperature: min-p 0.6 keeps p >= 0.24 of the raw distribution.
    params.topP = 1.0f;
    params.minP = 0.6f;
    params.temperature = 5.0f;   // would flatten everything above the threshold first
    auto chain2 = Chain::create(params, 4, 64);
    (*chain2)->sample(logits.data());
    QCOMPARE((*chain2)->candidates().size, size_t(2));

    // top-k before top-p: with k = 3 the renormalized mass of {0.4, 0.3} is
    // 0.7/0.9 = 0.78 >= 0.75, so top-p 0.75 keeps 2 (it would keep 3 of the full set).
    params.minP = 0.0f;
    params.temperature = 1.0f;
    params.topK = 3;
    params.topP = 0.75f;
    auto chain3 = Chain::create(params, 4, 64);
    (*chain3)->sample(logits.data());
    QCOMPARE((*chain3)->candidates().size, size_t(2));
}

void TestSampling::chainGreedyRespectsPenalties()
{
    SamplingParams params = neutralParams();
    params.temperature = 0.0f;
    params.topK = 40;
    params.topP = 0.95f;
    params.minP = 0.05f;
    params.repeatPenalty = 2.0f;
    auto chain = Chain::create(params, 4, 64);
    QVERIFY(chain.isOk());
    const std::vector<float> logits = {1.0f, 3.0f, 2.0f, 0.0f};
    QCOMPARE((*chain)->sample(logits.data()), Token(1));
    (*chain)->accept(1);   // 3.0 / 2 = 1.5 < 2.0
    QCOMPARE((*chain)->sample(logits.data()), Token(2));
    (*chain)->accept(2);   // now 1.5 vs 1.0 vs 1.0
    QCOMPARE((*chain)->sample(logits.data()), Token(1));
    (*chain)->reset();
    QCOMPARE((*chain)->sample(logits.data()), Token(1));
    QCOMPARE((*chain)->seedUsed(), 0u);
}

void TestSampling::chainGreedyWithTypicalCanSkipArgmax()
{
    // The reference applies typical before "temperature 0 = argmax": for
    // 0.6/0.3/0.1, typical 0.2 keeps only the 0.3 token (closest to the entropy).
    SamplingParams params = neutralParams();
    params.temperature = 0.0f;
    params.typicalP = 0.2f;
    auto chain = Chain::create(params, 3, 64);
    QVERIFY(chain.isOk());
    const std::vector<float> logits = logsOf({0.6, 0.3, 0.1});
    QCOMPARE((*chain)->sample(logits.data()), Token(1));
}

void TestSampling::chainSeededReproducibleAndReset()
{
    SamplingParams params;   // defaults: temp 0.8, top-k 40, top-p 0.95, min-p 0.05
    params.seed = 314159;
    params.repeatPenalty = 1.1f;
    const uint32_t vocab = 300;
    std::mt19937 gen(5);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    std::vector<std::vector<float>> rows(50, std::vector<float>(vocab));
    for (auto &row : rows)
        for (float &x : row)
            x = normal(gen);

    auto run = [&](Chain &chain) {
        std::vector<Token> out;
        for (const auto &row : rows) {
            const Token t = chain.sample(row.data());
            chain.accept(t);
            out.push_back(t);
        }
        return out;
    };
    auto a = Chain::create(params, vocab, 512);
    auto b = Chain::create(params, vocab, 512);
    QVERIFY(a.isOk() && b.isOk());
    const std::vector<Token> first = run(**a);
    QCOMPARE(run(**b), first);
    (*a)->reset();
    QCOMPARE(run(**a), first);
    QCOMPARE((*a)->seedUsed(), 314159u);
    // Not all the same token: sampling really draws.
    QVERIFY(std::count(first.begin(), first.end(), first[0]) < static_cast<long>(first.size()));

    params.seed = 271828;
    auto c = Chain::create(params, vocab, 512);
    QVERIFY(run(**c) != first);
}

void TestSampling::chainPenaltyLastNWholeContext()
{
    SamplingParams params = neutralParams();
    params.temperature = 0.0f;
    params.repeatPenalty = 4.0f;
    params.penaltyLastN = -1;   // = context size (3 here)
    auto chain = Chain::create(params, 4, 3);
    QVERIFY(chain.isOk());
    const std::vector<float> logits = {4.0f, 3.0f, 2.0f, 1.5f};
    for (Token t : {0, 1, 2})
        (*chain)->accept(t);   // all three penalized: 1.0, 0.75, 0.5 vs 1.5
    QCOMPARE((*chain)->sample(logits.data()), Token(3));
    (*chain)->accept(3);   // 0 leaves the 3-token window: 4.0 wins again
    QCOMPARE((*chain)->sample(logits.data()), Token(0));
}

void TestSampling::chainNanLogitsNeverChosen()
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> logits = {nan, 1.0f, nan, 0.5f};
    for (float temperature : {0.0f, 0.8f}) {
        SamplingParams params;
        params.temperature = temperature;
        params.seed = 3;
        auto chain = Chain::create(params, 4, 16);
        QVERIFY(chain.isOk());
        for (int i = 0; i < 20; ++i) {
            const Token t = (*chain)->sample(logits.data());
            QVERIFY(t == 1 || t == 3);
        }
    }
}

void TestSampling::chainDoesNotAllocatePerToken()
{
#ifndef BURROW_COUNT_ALLOCATIONS
    QSKIP("allocation counting is off under sanitizers");
#else
    const uint32_t vocab = 2000;
    std::vector<float> logits(vocab);
    std::mt19937 gen(1);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    for (float &x : logits)
        x = normal(gen);

    struct Case { float temp; int topK; float topP; float minP; float typical; int mirostat; };
    const Case cases[] = {
        {0.8f, 40, 0.95f, 0.05f, 1.0f, 0},   // defaults
        {0.8f, 0, 0.9f, 0.0f, 0.8f, 0},      // typical + top-p over the whole vocabulary
        {0.7f, 0, 1.0f, 0.1f, 1.0f, 0},      // min-p on unsorted candidates
        {0.0f, 0, 1.0f, 0.0f, 0.9f, 0},      // greedy with typical
        {0.8f, 40, 0.95f, 0.05f, 1.0f, 2},   // mirostat 2
        {0.8f, 40, 0.95f, 0.05f, 1.0f, 1},   // mirostat 1
    };
    for (const Case &c : cases) {
        SamplingParams params;
        params.temperature = c.temp;
        params.topK = c.topK;
        params.topP = c.topP;
        params.minP = c.minP;
        params.typicalP = c.typical;
        params.mirostat = c.mirostat;
        params.repeatPenalty = 1.1f;
        params.seed = 9;
        auto chain = Chain::create(params, vocab, 256);
        QVERIFY(chain.isOk());
        Chain &ch = **chain;
        ch.accept(ch.sample(logits.data()));   // warm-up outside the count
        g_allocations = 0;
        g_countAllocations = true;
        for (int i = 0; i < 20; ++i)
            ch.accept(ch.sample(logits.data()));
        g_countAllocations = false;
        QCOMPARE(g_allocations.load(), 0L);
    }
#endif
}

// ---- validation -------------------------------------------------------------

void TestSampling::validation_data()
{
    QTest::addColumn<int>("field");
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("top_p < 0") << 0 << -0.1f << QStringLiteral("top_p");
    QTest::newRow("min_p > 1") << 1 << 1.5f << QStringLiteral("min_p");
    QTest::newRow("typical < 0") << 2 << -1.0f << QStringLiteral("typical_p");
    QTest::newRow("repeat 0") << 3 << 0.0f << QStringLiteral("repeat_penalty");
    QTest::newRow("temperature NaN") << 4 << std::numeric_limits<float>::quiet_NaN() << QStringLiteral("temperature");
    QTest::newRow("mirostat 3") << 5 << 3.0f << QStringLiteral("mirostat");
    QTest::newRow("last_n -2") << 6 << -2.0f << QStringLiteral("penalty_last_n");
    QTest::newRow("tau < 0") << 7 << -1.0f << QStringLiteral("mirostat_tau");
    QTest::newRow("frequency inf") << 8 << std::numeric_limits<float>::infinity() << QStringLiteral("frequency_penalty");
}

void TestSampling::validation()
{
    QFETCH(int, field);
    QFETCH(float, value);
    QFETCH(QString, mentions);
    SamplingParams params;
    switch (field) {
    case 0: params.topP = value; break;
    case 1: params.minP = value; break;
    case 2: params.typicalP = value; break;
    case 3: params.repeatPenalty = value; break;
    case 4: params.temperature = value; break;
    case 5: params.mirostat = static_cast<int32_t>(value); break;
    case 6: params.penaltyLastN = static_cast<int32_t>(value); break;
    case 7: params.mirostatTau = value; break;
    case 8: params.frequencyPenalty = value; break;
    }
    const Status status = validateSamplingParams(params);
    QVERIFY(!status.isOk());
    QVERIFY2(QString::fromStdString(status.message()).contains(mentions), status.message().c_str());
    auto chain = Chain::create(params, 8, 8);
    QVERIFY(!chain.isOk());

    QVERIFY(validateSamplingParams(SamplingParams{}).isOk());
    QVERIFY(!Chain::create(SamplingParams{}, 0, 8).isOk());
}

QTEST_MAIN(TestSampling)
#include "tst_sampling.moc"
