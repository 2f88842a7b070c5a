// burrow-cli bench-ports, run as a process: on an x86 CPU with AVX2 it
// prints the clocks and one row per recipe the CPU can run (the AVX-512 rows
// only with AVX-512 VNNI: no illegal instruction elsewhere), each with a
// positive, finite cost; bad arguments exit 2 with a message. Timings are
// not judged here (docs/benchmarks.md holds them).
#include "cli_process.h"

#include "quant/cpu_features.h"

#include <QRegularExpression>
#include <QTest>

#include <cmath>

using namespace burrow::test;

class TestBenchPortsTool : public QObject {
    Q_OBJECT

private slots:
    void printsEveryRecipeItCanRun()
    {
#if !defined(__x86_64__)
        QSKIP("bench-ports times x86 instructions; this build is not x86-64");
#else
        const auto &cpu = burrow::quant::cpuFeatures();
        if (!cpu.avx2 || !cpu.fma)
            QSKIP("this CPU has no AVX2 + FMA: bench-ports has nothing to time");
        const ProcessResult r = runCli({QStringLiteral("bench-ports"), QStringLiteral("--iterations"), QStringLiteral("1000")});
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral("^clock \\(GHz\\): scalar [0-9.]+, beside 256-bit work [0-9.]+"))),
                 qPrintable(out));
        const bool avx512 = cpu.avx512f && cpu.avx512bw && cpu.avx512vl && cpu.avx512vnni;
        QCOMPARE(out.contains(QStringLiteral("beside 512-bit work")), avx512);
        const QStringList always = {QStringLiteral("Q8_0 AVX2, Burrow's tile"), QStringLiteral("Q8_0 AVX2, the reference")};
        const QStringList wide = {QStringLiteral("Q8_0 AVX-512, Burrow's tile"), QStringLiteral("Q8_0 AVX-512, one integer a block"),
                                  QStringLiteral("Q8_0 AVX-512 VL + VNNI, the reference"), QStringLiteral("Q8_0 AVX-512, ik_llama.cpp")};
        int rows = 0;
        for (const QString &line : out.split(QLatin1Char('\n'))) {
            const QStringList cols = line.split(QRegularExpression(QStringLiteral("\\s{2,}")), Qt::SkipEmptyParts);
            if (cols.size() != 3 || !line.startsWith(QLatin1Char('Q')))
                continue;
            bool okNs = false, okCycles = false;
            const double ns = cols[1].toDouble(&okNs), cycles = cols[2].toDouble(&okCycles);
            QVERIFY2(okNs && okCycles && std::isfinite(ns) && ns > 0.0 && cycles > 0.0, qPrintable(line));
            ++rows;
        }
        for (const QString &name : always)
            QVERIFY2(out.contains(name), qPrintable(name));
        for (const QString &name : wide)
            QCOMPARE(out.contains(name), avx512);
        QCOMPARE(rows, int(always.size() + (avx512 ? wide.size() : 0)));
#endif
    }

    void refusesBadArguments_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown option") << QStringList{"--fast"};
        QTest::newRow("iterations missing") << QStringList{"--iterations"};
        QTest::newRow("iterations not a number") << QStringList{"--iterations", "many"};
        QTest::newRow("iterations too few") << QStringList{"--iterations", "10"};
    }

    void refusesBadArguments()
    {
        QFETCH(QStringList, args);
        const ProcessResult r = runCli(QStringList{QStringLiteral("bench-ports")} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("bench-ports: bad argument"), r.err.constData());
    }

    void helpExitsZero()
    {
        const ProcessResult r = runCli({QStringLiteral("bench-ports"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith("usage: burrow-cli bench-ports"));
    }
};

QTEST_MAIN(TestBenchPortsTool)
#include "tst_bench_ports_tool.moc"
