// The default thread count (runtime/cpu_topology.h): physical cores of the
// affinity mask, SMT siblings counted once, capped by a cgroup CPU quota,
// with the fallbacks when the topology or the mask is unknown; and the
// cgroup v2 cpu.max parser.
#include "runtime/cpu_topology.h"
#include "runtime/thread_pool.h"

#include <QTest>

#include <thread>

using namespace burrow;
using runtime::LogicalCpu;

Q_DECLARE_METATYPE(std::vector<LogicalCpu>)

class TestCpuTopology : public QObject {
    Q_OBJECT

private slots:
    void coreCount_data()
    {
        QTest::addColumn<std::vector<LogicalCpu>>("cpus");
        QTest::addColumn<double>("quota");
        QTest::addColumn<int>("hw");
        QTest::addColumn<int>("expected");
        const std::vector<LogicalCpu> smt4 = {{0, 0, 0}, {1, 0, 1}, {2, 0, 0}, {3, 0, 1}};   // 2 cores x 2 threads
        QTest::newRow("two cores, one thread each") << std::vector<LogicalCpu>{{0, 0, 0}, {1, 0, 1}} << 0.0 << 2 << 2;
        QTest::newRow("SMT siblings count once") << smt4 << 0.0 << 4 << 2;
        QTest::newRow("two packages, same core ids") << std::vector<LogicalCpu>{{0, 0, 0}, {1, 1, 0}} << 0.0 << 2 << 2;
        QTest::newRow("affinity: one sibling of each core") << std::vector<LogicalCpu>{{0, 0, 0}, {1, 0, 1}} << 0.0 << 4 << 2;
        QTest::newRow("affinity: both siblings of one core") << std::vector<LogicalCpu>{{0, 0, 0}, {2, 0, 0}} << 0.0 << 4 << 1;
        QTest::newRow("quota 1.5 CPUs rounds up") << smt4 << 1.5 << 4 << 2;
        QTest::newRow("quota 0.5 CPUs") << smt4 << 0.5 << 4 << 1;
        QTest::newRow("quota above the cores") << smt4 << 8.0 << 4 << 2;
        QTest::newRow("no topology: the mask's CPUs") << std::vector<LogicalCpu>{{0, -1, -1}, {1, -1, -1}, {5, -1, -1}} << 0.0 << 8 << 3;
        QTest::newRow("no mask: hardware threads") << std::vector<LogicalCpu>{} << 0.0 << 6 << 6;
        QTest::newRow("nothing known") << std::vector<LogicalCpu>{} << 0.0 << 0 << 1;
    }
    void coreCount()
    {
        QFETCH(std::vector<LogicalCpu>, cpus);
        QFETCH(double, quota);
        QFETCH(int, hw);
        QFETCH(int, expected);
        QCOMPARE(runtime::physicalCoreCount(cpus, quota, static_cast<unsigned>(hw)), expected);
    }

    void cpuMax_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<double>("expected");
        QTest::newRow("no limit") << QStringLiteral("max 100000") << 0.0;
        QTest::newRow("two CPUs") << QStringLiteral("200000 100000") << 2.0;
        QTest::newRow("a CPU and a half") << QStringLiteral("150000 100000") << 1.5;
        QTest::newRow("empty") << QString() << 0.0;
        QTest::newRow("garbage") << QStringLiteral("12x 100000") << 0.0;
        QTest::newRow("zero period") << QStringLiteral("1000 0") << 0.0;
        QTest::newRow("negative") << QStringLiteral("-1 100000") << 0.0;
    }
    void cpuMax()
    {
        QFETCH(QString, line);
        QFETCH(double, expected);
        QCOMPARE(runtime::parseCpuMax(line.toStdString()), expected);
    }

    // On this machine: between 1 and the hardware threads, and what the pool uses by default.
    void thisMachine()
    {
        const int n = runtime::detectPhysicalCores();
        QVERIFY(n >= 1);
        const unsigned hw = std::thread::hardware_concurrency();
        if (hw > 0)
            QVERIFY(n <= static_cast<int>(hw));
        QCOMPARE(runtime::ThreadPool::defaultThreadCount(), n);
    }
};

QTEST_MAIN(TestCpuTopology)
#include "tst_cpu_topology.moc"
