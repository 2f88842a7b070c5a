// PreparePool alone: tasks run off the caller's thread in order, the queue
// is bounded, a task whose token was cancelled before it started never
// runs, and stop() cancels the running ones and returns as soon as they
// notice (a template render checks its token every few thousand steps), so
// a server stops within a second whatever is rendering.
#include "server/prepare_pool.h"

#include <QElapsedTimer>
#include <QTest>

#include <atomic>
#include <thread>

using namespace burrow;
using namespace burrow::server;

class TestPreparePool : public QObject {
    Q_OBJECT

private slots:
    void runsTasksOffTheCallersThread()
    {
        PreparePool pool(2, 8);
        std::atomic<int> ran{0};
        std::atomic<bool> otherThread{true};
        const auto caller = std::this_thread::get_id();
        for (int i = 0; i < 6; ++i)
            QVERIFY(pool.submit(std::make_shared<CancelToken>(), [&] {
                otherThread = otherThread && std::this_thread::get_id() != caller;
                ++ran;
            }));
        QTRY_COMPARE(ran.load(), 6);
        QVERIFY(otherThread);
    }

    void theQueueIsBounded()
    {
        PreparePool pool(1, 2);
        std::atomic<bool> release{false};
        auto blocker = std::make_shared<CancelToken>();
        QVERIFY(pool.submit(blocker, [&] {
            while (!release && !blocker->isCancelled())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }));
        QTRY_COMPARE(pool.queued(), size_t(0));   // the worker holds it
        QVERIFY(pool.submit(std::make_shared<CancelToken>(), [] {}));
        QVERIFY(pool.submit(std::make_shared<CancelToken>(), [] {}));
        QVERIFY(!pool.submit(std::make_shared<CancelToken>(), [] {}));   // full
        release = true;
        QTRY_COMPARE(pool.queued(), size_t(0));
    }

    void aCancelledTaskDoesNotRun()
    {
        PreparePool pool(1, 8);
        std::atomic<bool> release{false};
        QVERIFY(pool.submit(std::make_shared<CancelToken>(), [&] {
            while (!release)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }));
        auto token = std::make_shared<CancelToken>();
        std::atomic<bool> ran{false};
        QVERIFY(pool.submit(token, [&] { ran = true; }));
        token->cancel();   // the client left while it waited
        std::atomic<bool> after{false};
        QVERIFY(pool.submit(std::make_shared<CancelToken>(), [&] { after = true; }));
        release = true;
        QTRY_VERIFY(after.load());
        QVERIFY(!ran);
    }

    // A task that would run "forever" unless cancelled: stop() cancels it
    // and returns once it notices; the tasks still waiting never run.
    void stopCancelsWhatRuns()
    {
        auto pool = std::make_unique<PreparePool>(2, 8);
        std::atomic<int> started{0}, noticed{0}, ranQueued{0};
        for (int i = 0; i < 2; ++i) {
            auto token = std::make_shared<CancelToken>();
            QVERIFY(pool->submit(token, [token, &started, &noticed] {
                ++started;
                while (!token->isCancelled())
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                ++noticed;
            }));
        }
        QVERIFY(pool->submit(std::make_shared<CancelToken>(), [&] { ++ranQueued; }));
        QTRY_COMPARE(started.load(), 2);
        QElapsedTimer timer;
        timer.start();
        pool.reset();
        QCOMPARE(noticed.load(), 2);
        QCOMPARE(ranQueued.load(), 0);
        qInfo("stopped in %lld ms", static_cast<long long>(timer.elapsed()));
        PreparePool stopped(1, 1);
        stopped.stop();
        QVERIFY(!stopped.submit(std::make_shared<CancelToken>(), [] {}));
    }
};

QTEST_MAIN(TestPreparePool)
#include "tst_prepare_pool.moc"
