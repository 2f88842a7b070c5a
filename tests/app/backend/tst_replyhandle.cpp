// One handle per reply (issue #26, "Why" 1): replies that stream at the same
// time each get their text taken on their own schedule. A backend whose
// replies stream from threads of their own (as the scheduler's do, all at
// once) feeds two and three replies; while all stream, every handle gets
// new text many times a second, never more often than its flush interval
// allows (the view repaints at most that often), with the backend's token
// count. With the old bridge (one pending slot for all replies) the first
// reply got nothing while a second streamed.
#include <QElapsedTimer>
#include <QPointer>
#include <QSignalSpy>
#include <QTest>

#include <atomic>
#include <mutex>
#include <thread>

#include "backend/enginebridge.h"
#include "backend/replyhandle.h"

namespace {

// Streams each reply from its own thread: a piece every `pieceMs`, `pieces`
// in all (the token count rises by two per piece: the engine's count, not
// the pieces'), until cancelled.
struct ThreadedControl {
    int pieceMs = 2;
    int pieces = 100000;
};

class ThreadedBackend final : public ChatBackend {
public:
    explicit ThreadedBackend(std::shared_ptr<ThreadedControl> control) : m_control(std::move(control)) {}
    ~ThreadedBackend() override
    {
        m_stopping = true;
        std::lock_guard<std::mutex> lock(m_mutex);
        for (std::thread &t : m_threads)
            t.join();
    }

    bool load(const QString &path, int, const LoadProgress &, QString *) override
    {
        m_card.path = path;
        m_card.name = QStringLiteral("threaded");
        return true;
    }
    bool hasModel() const override { return m_card.isValid(); }
    ModelCard loadedModel() const override { return m_card; }
    int contextSize() const override { return 4096; }

    void generate(const ChatRequest &request, ReplySinks sinks) override
    {
        PromptPlan plan;
        plan.promptTokens = 3;
        sinks.onPlan(plan);
        std::lock_guard<std::mutex> lock(m_mutex);
        m_threads.emplace_back([this, cancel = request.cancel, sinks = std::move(sinks), control = m_control] {
            GenerationOutcome outcome;
            outcome.stop = GenerationOutcome::Stop::MaxTokens;
            for (int i = 0; i < control->pieces; ++i) {
                if (cancel->isCancelled() || m_stopping) {
                    outcome.stop = GenerationOutcome::Stop::Cancelled;
                    break;
                }
                outcome.generatedTokens += 2;
                if (!sinks.onText(QStringLiteral("ab"), outcome.generatedTokens, false)) {
                    outcome.stop = GenerationOutcome::Stop::Cancelled;
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(control->pieceMs));
            }
            sinks.onDone(outcome);
        });
    }

private:
    std::shared_ptr<ThreadedControl> m_control;
    ModelCard m_card;
    std::mutex m_mutex;
    std::vector<std::thread> m_threads;
    std::atomic<bool> m_stopping{false};
};

// What one handle delivered.
struct Seen {
    QList<qint64> at;        // ms (the test's clock) of each textReady
    qsizetype chars = 0;
    int lastTokens = 0;
    bool finished = false;
    GenerationOutcome outcome;
};

void watch(ReplyHandle *handle, Seen *seen, const QElapsedTimer *clock)
{
    QObject::connect(handle, &ReplyHandle::textReady, handle,
                     [seen, clock](const QString &text, const QString &, int tokens, double) {
                         seen->at << clock->elapsed();
                         seen->chars += text.size();
                         seen->lastTokens = tokens;
                     });
    QObject::connect(handle, &ReplyHandle::finished, handle, [seen](const GenerationOutcome &outcome) {
        seen->finished = true;
        seen->outcome = outcome;
    });
}

int countIn(const QList<qint64> &at, qint64 from, qint64 to)
{
    int n = 0;
    for (qint64 t : at)
        n += t >= from && t < to ? 1 : 0;
    return n;
}

ChatRequest request()
{
    ChatRequest r;
    r.messages = {{"user", "Hi", {}, {}}};
    r.rows = {0};
    return r;
}

} // namespace

class TestReplyHandle : public QObject {
    Q_OBJECT

    std::shared_ptr<ThreadedControl> m_control;

private Q_SLOTS:
    void init()
    {
        m_control = std::make_shared<ThreadedControl>();
        auto control = m_control;
        EngineBridge::setBackendFactory({[control] { return std::unique_ptr<ChatBackend>(new ThreadedBackend(control)); },
                                         [](const QString &, QString *) { return ModelCard(); }});
    }
    void cleanup() { EngineBridge::resetBackendFactory(); }

    // Two and three replies at once: for a second while all stream, each
    // handle delivers text at its own pace (the flush interval is 33 ms:
    // about 30 takes a second; at least 15 are asked for, a loaded machine
    // may be slower), each take has grown text and the engine's count.
    void concurrentRepliesEachFlush_data()
    {
        QTest::addColumn<int>("replies");
        QTest::newRow("two") << 2;
        QTest::newRow("three") << 3;
    }

    void concurrentRepliesEachFlush()
    {
        QFETCH(int, replies);
        EngineBridge bridge;
        QCOMPARE(bridge.flushIntervalMs(), 33);
        QSignalSpy loaded(&bridge, &EngineBridge::modelLoaded);
        bridge.load(QStringLiteral("/threaded.gguf"), 0);
        QTRY_COMPARE(loaded.count(), 1);

        QElapsedTimer clock;
        clock.start();
        std::vector<Seen> seen(static_cast<size_t>(replies));
        std::vector<QPointer<ReplyHandle>> handles;
        for (int i = 0; i < replies; ++i) {
            ReplyHandle *h = bridge.generate(request());
            watch(h, &seen[size_t(i)], &clock);
            handles.emplace_back(h);
            // Each starts while the ones before it stream (as a user sends
            // in chat B while chat A writes).
            QTRY_VERIFY(!seen[size_t(i)].at.isEmpty());
            QTest::qWait(200);
        }
        const qint64 from = clock.elapsed();
        QTest::qWait(1000);
        const qint64 to = clock.elapsed();
        for (int i = 0; i < replies; ++i) {
            const Seen &s = seen[size_t(i)];
            const int takes = countIn(s.at, from, to);
            QVERIFY2(takes >= 15, qPrintable(QStringLiteral("reply %1: %2 takes in %3 ms while %4 replies streamed")
                                                .arg(i).arg(takes).arg(to - from).arg(replies)));
            // Never more often than the interval allows (+2 for the edges).
            QVERIFY2(takes <= int((to - from) / bridge.flushIntervalMs()) + 2, qPrintable(QString::number(takes)));
            QVERIFY(!s.finished);
            // The engine's count (two a piece), not the pieces.
            QCOMPARE(s.lastTokens, int(s.chars));
        }
        for (const auto &h : handles)
            h->cancel();
        for (int i = 0; i < replies; ++i)
            QTRY_VERIFY(seen[size_t(i)].finished);
        for (const Seen &s : seen)
            QCOMPARE(int(s.outcome.stop), int(GenerationOutcome::Stop::Cancelled));
        // Each handle deletes itself after its finished().
        for (const auto &h : handles)
            QTRY_VERIFY(h.isNull());
    }

    // A reply faster than the view: takes come at most once per interval
    // and nothing is lost; the last take comes before finished().
    void fastReplyIsCoalescedAndComplete()
    {
        m_control->pieceMs = 0;
        m_control->pieces = 20000;
        EngineBridge bridge;
        bridge.setFlushIntervalMs(50);
        QSignalSpy loaded(&bridge, &EngineBridge::modelLoaded);
        bridge.load(QStringLiteral("/threaded.gguf"), 0);
        QTRY_COMPARE(loaded.count(), 1);
        QElapsedTimer clock;
        clock.start();
        Seen seen;
        bool textAfterFinish = false;
        ReplyHandle *h = bridge.generate(request());
        watch(h, &seen, &clock);
        connect(h, &ReplyHandle::textReady, this, [&] { textAfterFinish = textAfterFinish || seen.finished; });
        QTRY_VERIFY_WITH_TIMEOUT(seen.finished, 60000);
        QCOMPARE(int(seen.outcome.stop), int(GenerationOutcome::Stop::MaxTokens));
        QCOMPARE(seen.chars, qsizetype(2 * 20000));
        QCOMPARE(seen.lastTokens, 40000);
        QVERIFY(!textAfterFinish);
        for (qsizetype i = 1; i + 1 < seen.at.size(); ++i)   // (the last take comes with the end)
            QVERIFY2(seen.at[i] - seen.at[i - 1] >= 45, qPrintable(QString::number(seen.at[i] - seen.at[i - 1])));
    }
};

QTEST_MAIN(TestReplyHandle)
#include "tst_replyhandle.moc"
