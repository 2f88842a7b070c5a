// The n-gram drafter (speculative/ngram_drafter.h): what follows the latest
// earlier occurrence of the longest matching tail (4 down to 2 tokens), cut
// at maxTokens and at the history's end; nothing without a match. The
// draft length's control (speculative/draft_control.h): grows on full
// acceptance up to the maximum, accepted + 1 on a partial one, backs off
// after two misses and tries one token again later.
#include "speculative/draft_control.h"
#include "speculative/ngram_drafter.h"

#include <QtTest>

using namespace burrow;

Q_DECLARE_METATYPE(std::vector<Token>)

class TestNgramDrafter : public QObject {
    Q_OBJECT

private slots:
    void drafts_data()
    {
        QTest::addColumn<std::vector<Token>>("history");
        QTest::addColumn<int>("maxTokens");
        QTest::addColumn<std::vector<Token>>("draft");
        QTest::newRow("copy after a 3-token match") << std::vector<Token>{1, 2, 3, 4, 5, 6, 9, 1, 2, 3} << 3
                                                    << std::vector<Token>{4, 5, 6};
        QTest::newRow("cut at maxTokens") << std::vector<Token>{1, 2, 3, 4, 5, 6, 9, 1, 2, 3} << 2
                                          << std::vector<Token>{4, 5};
        QTest::newRow("cut at the history's end") << std::vector<Token>{7, 8, 5, 7, 8} << 8
                                                  << std::vector<Token>{5, 7, 8};
        QTest::newRow("the latest occurrence wins") << std::vector<Token>{1, 2, 10, 1, 2, 20, 1, 2} << 1
                                                    << std::vector<Token>{20};
        QTest::newRow("the longest tail wins") << std::vector<Token>{9, 2, 3, 30, 1, 2, 3, 40, 2, 3, 7, 1, 2, 3} << 1
                                               << std::vector<Token>{40};
        QTest::newRow("a repeated token (overlapping)") << std::vector<Token>{5, 5, 5, 5} << 4
                                                        << std::vector<Token>{5};
        QTest::newRow("one token does not match") << std::vector<Token>{1, 2, 3, 4, 1} << 4 << std::vector<Token>{};
        QTest::newRow("no match") << std::vector<Token>{1, 2, 3, 4, 5, 6} << 4 << std::vector<Token>{};
        QTest::newRow("too short") << std::vector<Token>{1, 1} << 4 << std::vector<Token>{};
        QTest::newRow("nothing wanted") << std::vector<Token>{1, 2, 3, 1, 2} << 0 << std::vector<Token>{};
    }

    void drafts()
    {
        QFETCH(std::vector<Token>, history);
        QFETCH(int, maxTokens);
        QFETCH(std::vector<Token>, draft);
        std::vector<Token> out(16, -1);
        const int n = speculative::draftNgram(history.data(), history.size(), maxTokens, out.data());
        out.resize(size_t(std::max(n, 0)));
        QCOMPARE(out, draft);
    }

    void lengthAdapts()
    {
        speculative::DraftControl c(8);
        QCOMPARE(c.allowance(), 4);
        c.record(4, 4);
        QCOMPARE(c.allowance(), 8);
        c.record(8, 8);
        QCOMPARE(c.allowance(), 8);   // at most the maximum
        c.record(8, 2);
        QCOMPARE(c.allowance(), 3);   // accepted + 1
        c.record(3, 0);
        QCOMPARE(c.allowance(), 1);   // one miss: one token
        c.record(1, 0);               // two: back off 8 steps
        for (int i = 0; i < 8; ++i)
            QCOMPARE(c.allowance(), 0);
        QCOMPARE(c.allowance(), 1);
        c.record(1, 0);               // still nothing: 16 steps
        for (int i = 0; i < 16; ++i)
            QCOMPARE(c.allowance(), 0);
        QCOMPARE(c.allowance(), 1);
        c.record(1, 1);               // accepted: grows again, back-off reset
        QCOMPARE(c.allowance(), 2);
        // Several tokens all wrong before any was right: back off at once.
        speculative::DraftControl cold(8);
        QCOMPARE(cold.allowance(), 4);
        QVERIFY(!cold.waiting());
        cold.record(4, 0);
        QVERIFY(cold.waiting());
        for (int i = 0; i < 8; ++i)
            QCOMPARE(cold.allowance(), 0);
        QVERIFY(!cold.waiting());
        QCOMPARE(cold.allowance(), 1);
        speculative::DraftControl off(0);
        QCOMPARE(off.allowance(), 0);
        QVERIFY(off.waiting());
    }

    // onStreak: the last verification accepted every draft (the scheduler's
    // condition for drafting beside other generating sequences).
    void streak()
    {
        speculative::DraftControl c(8);
        QVERIFY(!c.onStreak());   // nothing verified yet
        c.record(4, 4);
        QVERIFY(c.onStreak());
        c.record(0, 0);           // no draft: no verification, unchanged
        QVERIFY(c.onStreak());
        c.record(8, 7);
        QVERIFY(!c.onStreak());
        c.record(3, 3);
        QVERIFY(c.onStreak());
        c.record(1, 0);
        QVERIFY(!c.onStreak());
    }
};

QTEST_MAIN(TestNgramDrafter)
#include "tst_ngram_drafter.moc"
