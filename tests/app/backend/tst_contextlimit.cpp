// The context a chat gets (app/backend/contextlimit.h): decided in one
// place, with one answer for every case, 0 (Automatic) included. The four
// places that used to clamp disagreed for 0 (the engine: the trained length;
// the backend: 1; the card: the trained length; the settings: refused).
#include <QTest>

#include "backend/contextlimit.h"

class TestContextLimit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void decide_data()
    {
        QTest::addColumn<int>("requested");
        QTest::addColumn<int>("trained");
        QTest::addColumn<int>("fitting");
        QTest::addColumn<int>("expected");
        //                                          requested trained fitting  expected
        QTest::newRow("automatic, nothing known") << 0 << 0 << 0 << ContextLimit::AutomaticCeiling;
        QTest::newRow("automatic, trained for less") << 0 << 2048 << 0 << 2048;
        QTest::newRow("automatic, trained for more") << 0 << 131072 << 0 << 4096;
        QTest::newRow("automatic, memory for less") << 0 << 131072 << 3000 << 3000;
        QTest::newRow("automatic, memory for less than trained") << 0 << 2048 << 1500 << 1500;
        QTest::newRow("automatic, trained below memory") << 0 << 1024 << 1500 << 1024;
        QTest::newRow("automatic, almost no memory") << 0 << 2048 << 10 << ContextLimit::Minimum;
        QTest::newRow("automatic, a tiny model") << 0 << 32 << 10 << 32;
        QTest::newRow("size within the model") << 1000 << 2048 << 500 << 1000;
        QTest::newRow("size beyond the model") << 8192 << 2048 << 0 << 2048;
        QTest::newRow("size, trained unknown") << 8192 << 0 << 0 << 8192;
        QTest::newRow("size beyond memory: kept") << 8192 << 32768 << 3000 << 8192;
        QTest::newRow("negative reads as automatic") << -5 << 2048 << 0 << 2048;
    }

    void decide()
    {
        QFETCH(int, requested);
        QFETCH(int, trained);
        QFETCH(int, fitting);
        QFETCH(int, expected);
        QCOMPARE(ContextLimit::decide(requested, trained, fitting), expected);
    }
};

QTEST_GUILESS_MAIN(TestContextLimit)
#include "tst_contextlimit.moc"
