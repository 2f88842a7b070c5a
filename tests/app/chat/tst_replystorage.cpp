// A reply the conversation database refuses (issue 27, item 7): with the
// disk full it used to stream on and look finished, and was gone after a
// restart; the banner said "Could not store the message", wrongly about the
// user's message. Now the reply stops and says so on itself, and the banner
// names what was saved (the user's message, the reply's first part) and what
// was not. The full disk is SQLite's own SQLITE_FULL: the store's connection
// is capped at its current size (PRAGMA max_page_count), so every write that
// needs a new page fails exactly as on a full disk (real window, fake engine).
#include <QSqlDatabase>
#include <QSqlQuery>

#include "apptestsupport.h"
#include "fakebackend.h"
#include "storage/storefailure.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

// The store's own connection (this thread's; one store is open).
QSqlDatabase storeConnection()
{
    for (const QString &name : QSqlDatabase::connectionNames())
        if (name.startsWith(QLatin1String("burrow-store-")))
            return QSqlDatabase::database(name, false);
    return {};
}

// From now on the database cannot grow: SQLITE_FULL, "database or disk is full".
bool fillTheDisk()
{
    QSqlDatabase db = storeConnection();
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("PRAGMA page_count")) || !q.next())
        return false;
    const qint64 pages = q.value(0).toLongLong();
    return q.exec(QStringLiteral("PRAGMA max_page_count = %1").arg(pages));
}

} // namespace

class TestReplyStorage : public QObject {
    Q_OBJECT

    std::shared_ptr<FakeControl> m_control;
    QTemporaryDir m_dir;

    QString file(const QString &name)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.exists() && f.open(QIODevice::WriteOnly))
            f.write("GGUF");
        return path;
    }

private Q_SLOTS:
    void init()
    {
        m_control = std::make_shared<FakeControl>();
        // Pieces large enough that storing each needs new pages.
        m_control->pieces = {QString(64 * 1024, QLatin1Char('a')), QString(64 * 1024, QLatin1Char('b')),
                             QString(64 * 1024, QLatin1Char('c'))};
        EngineBridge::setBackendFactory(fakeFactory(m_control));
    }
    void cleanup()
    {
        m_control->abort = true;
        EngineBridge::resetBackendFactory();
    }

    void replyThatCannotBeStoredStops()
    {
        AppWindow app;
        QVERIFY(app.open());
        ChatController *chat = app.chat;
        ConversationStore *store = chat->store();
        QVERIFY(store->isReady());
        QSignalSpy loaded(chat, &ChatController::loadFinished);
        chat->models()->openFile(file(QStringLiteral("good.gguf")), false);
        QVERIFY(!loaded.isEmpty() || loaded.wait(30000));
        const qint64 id = qint64(chat->conversationId());

        QSignalSpy finished(chat, &ChatController::replyFinished);
        QVERIFY(chat->send(QStringLiteral("Tell me a long story")));
        m_control->release(1);
        // The first piece is stored (at least once a second while it streams).
        QTRY_COMPARE_WITH_TIMEOUT(store->messages(id).at(1).content.size(), 64 * 1024, 5000);

        QVERIFY(fillTheDisk());
        m_control->release(1);
        // The next save fails: the reply stops (the engine is asked to; the
        // fake one sees it at its next piece).
        QTRY_VERIFY_WITH_TIMEOUT(store->lastFailure() == StoreFailure::DiskFull, 5000);
        m_control->release(1);
        QVERIFY(!finished.isEmpty() || finished.wait(10000));

        // On the message: failed, with the reason.
        const int row = chat->messages()->rowCount() - 1;
        const auto reply = chat->messages()->message(row);
        QCOMPARE(reply.state, Chat::State::Failed);
        QVERIFY2(reply.error.contains(QStringLiteral("could not be saved")), qPrintable(reply.error));
        QVERIFY2(reply.error.contains(QStringLiteral("the disk is full")), qPrintable(reply.error));
        // The banner names what was saved and what was not.
        const QString banner = chat->banner();
        QVERIFY2(banner.contains(QStringLiteral("your message and the reply's earlier part were saved")), qPrintable(banner));
        QVERIFY2(banner.contains(QStringLiteral("disk is full")), qPrintable(banner));
        QVERIFY2(!banner.contains(QStringLiteral("Could not store the message")), qPrintable(banner));
        // What the store keeps: the user's message and the first part.
        const QVector<MessageRecord> rows = store->messages(id);
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows.at(0).content, QStringLiteral("Tell me a long story"));
        QCOMPARE(rows.at(1).content, QString(64 * 1024, QLatin1Char('a')));
    }

    // The user's own message refused: not sent, and the banner says that one.
    void messageThatCannotBeStoredIsNotSent()
    {
        AppWindow app;
        QVERIFY(app.open());
        ChatController *chat = app.chat;
        QSignalSpy loaded(chat, &ChatController::loadFinished);
        chat->models()->openFile(file(QStringLiteral("good.gguf")), false);
        QVERIFY(!loaded.isEmpty() || loaded.wait(30000));
        QVERIFY(fillTheDisk());
        QVERIFY(!chat->send(QString(256 * 1024, QLatin1Char('q'))));
        QVERIFY(!chat->isGenerating());
        QCOMPARE(m_control->generateCalls.load(), 0);
        QVERIFY2(chat->banner().contains(QStringLiteral("Your message could not be saved, so it was not sent")),
                 qPrintable(chat->banner()));
        QVERIFY2(chat->banner().contains(QStringLiteral("the disk is full")), qPrintable(chat->banner()));
    }
};

QTEST_MAIN(TestReplyStorage)
#include "tst_replystorage.moc"
