// One Burrow per user (issue #26, "Why" 3): the first launch takes the lock
// beside the database and listens; a second one (another process: the
// instance_client helper, as main.cpp does it) finds the lock taken, hands
// over its files (paths with spaces, newlines and non-ASCII letters
// included) or just asks to be raised, and exits 0; the first hears
// exactly what was handed over. The lock of a Burrow killed with SIGKILL is
// taken over by the next launch (and its socket file replaced). A stranger
// on the socket that sends an endless line or something else than the
// protocol is dropped without a word reaching the app.
#include <QLocalSocket>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "backend/singleinstance.h"

namespace {

struct Client {
    QProcess process;
    explicit Client(const QStringList &args)
    {
        process.setProgram(QStringLiteral(INSTANCE_CLIENT));
        process.setArguments(args);
        process.start();
    }
    // The first line it prints.
    QString role()
    {
        if (!process.canReadLine())
            QTest::qWaitFor([this] { return process.canReadLine(); }, 10000);
        return QString::fromUtf8(process.readLine()).trimmed();
    }
};

} // namespace

class TestSingleInstance : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString lockPath(const QString &name = QStringLiteral("burrow.db.lock")) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void aSecondLaunchHandsOverItsFiles_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::newRow("one model") << QStringList{QStringLiteral("/models/stories260K.gguf")};
        QTest::newRow("odd names") << QStringList{QStringLiteral("/m/a b.gguf"), QStringLiteral("/m/line\nbreak.gguf"),
                                                  QStringLiteral("/m/模型 ünï.gguf")};
        QTest::newRow("none: raise") << QStringList();
    }

    void aSecondLaunchHandsOverItsFiles()
    {
        QFETCH(QStringList, files);
        SingleInstance first(lockPath());
        QCOMPARE(first.start(), SingleInstance::Role::First);
        QSignalSpy received(&first, &SingleInstance::argumentsReceived);
        Client second(QStringList{lockPath()} + files);
        // The first answers from this event loop while the second waits.
        QTRY_VERIFY_WITH_TIMEOUT(second.process.state() == QProcess::NotRunning, 10000);
        QCOMPARE(second.role(), QStringLiteral("second"));
        QCOMPARE(second.process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(second.process.exitCode(), 0);
        QCOMPARE(received.count(), 1);
        QCOMPARE(received.at(0).at(0).toStringList(), files);
    }

    // The first is another process: this one is the second launch.
    void theFirstIsAnotherProcess()
    {
        Client first(QStringList{lockPath(QStringLiteral("other.lock"))});
        QCOMPARE(first.role(), QStringLiteral("first"));
        SingleInstance second(lockPath(QStringLiteral("other.lock")));
        QCOMPARE(second.start(), SingleInstance::Role::Second);
        QVERIFY2(second.handOver({QStringLiteral("/m/x.gguf")}), qPrintable(second.error()));
        QTRY_VERIFY(first.process.canReadLine());
        QCOMPARE(QString::fromUtf8(first.process.readLine()).trimmed(), QStringLiteral("received /m/x.gguf"));
        // It quits: the lock is free for the next launch.
        first.process.closeWriteChannel();
        QVERIFY(first.process.waitForFinished(10000));
        SingleInstance next(lockPath(QStringLiteral("other.lock")));
        QCOMPARE(next.start(), SingleInstance::Role::First);
    }

    // A Burrow killed with SIGKILL leaves its lock and socket file: the next
    // launch takes both over, and a later one reaches it.
    void aDeadFirstsLockIsTakenOver()
    {
        const QString lock = lockPath(QStringLiteral("dead.lock"));
        {
            Client dead(QStringList{lock});
            QCOMPARE(dead.role(), QStringLiteral("first"));
            dead.process.kill();
            QVERIFY(dead.process.waitForFinished(10000));
        }
        QVERIFY(QFileInfo::exists(lock));
        SingleInstance next(lock);
        QCOMPARE(next.start(), SingleInstance::Role::First);
        QSignalSpy received(&next, &SingleInstance::argumentsReceived);
        Client later(QStringList{lock, QStringLiteral("/m/y.gguf")});
        QTRY_VERIFY_WITH_TIMEOUT(later.process.state() == QProcess::NotRunning, 10000);
        QCOMPARE(later.role(), QStringLiteral("second"));
        QCOMPARE(later.process.exitCode(), 0);
        QCOMPARE(received.count(), 1);
    }

    // Not a Burrow launch: dropped, and nothing reaches the app.
    void strangersAreDropped_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("endless line") << QByteArray(SingleInstance::MaxLineBytes * 3, 'a');
        QTest::newRow("unknown word") << QByteArray("delete everything\nend\n");
        QTest::newRow("not a file URL") << QByteArray("open\thttp://example.com/x.gguf\nend\n");
        QByteArray many;
        for (int i = 0; i <= SingleInstance::MaxLines; ++i)
            many += "raise\n";
        QTest::newRow("too many lines") << many + "end\n";
    }

    void strangersAreDropped()
    {
        QFETCH(QByteArray, bytes);
        SingleInstance first(lockPath(QStringLiteral("stranger.lock")));
        QCOMPARE(first.start(), SingleInstance::Role::First);
        QSignalSpy received(&first, &SingleInstance::argumentsReceived);
        QLocalSocket socket;
        socket.connectToServer(first.serverName());
        QVERIFY(socket.waitForConnected(5000));
        socket.write(bytes);
        QTRY_COMPARE_WITH_TIMEOUT(socket.state(), QLocalSocket::UnconnectedState, 10000);
        QCOMPARE(received.count(), 0);
        QVERIFY(!socket.readAll().contains("ok"));
    }
};

QTEST_MAIN(TestSingleInstance)
#include "tst_singleinstance.moc"
