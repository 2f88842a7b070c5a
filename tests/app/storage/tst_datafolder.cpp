// The data folder is $XDG_DATA_HOME/Burrow; what Burrow 0.1 kept in
// .../Burrow/Burrow moves there once: copied, checked, and only then
// removed, so no database is ever lost — also not when a file of the same
// name is already in the new place, or when moving fails half way.
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTest>

#include <unistd.h>

#include "storage/conversationstore.h"
#include "storage/datafolder.h"

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TestDataFolder : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Never the user's own data folder: the test removes what it finds there.
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init()
    {
        QDir(DataFolder::path()).removeRecursively();
    }

    void folderIsBurrowUnderTheDataHome()
    {
        QCOMPARE(DataFolder::path(),
                 QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/Burrow"));
        QCOMPARE(DataFolder::oldPath(), DataFolder::path() + QStringLiteral("/Burrow"));
        QCOMPARE(ConversationStore::defaultDatabasePath(), DataFolder::path() + QStringLiteral("/burrow.db"));
    }

    void nothingToMove()
    {
        QCOMPARE(DataFolder::moveOldData(), QString());
        QVERIFY(!QFileInfo::exists(DataFolder::oldPath()));
    }

    // A real 0.1 database (with chats) and a model move; the conversations
    // open from the new place, and the old folder is gone.
    void movesEverythingOnce()
    {
        const QString oldDb = DataFolder::oldPath() + QStringLiteral("/burrow.db");
        QVERIFY(QDir().mkpath(DataFolder::oldPath()));
        qint64 id = -1;
        {
            ConversationStore store;
            store.setDatabasePath(oldDb);
            QVERIFY(store.open());
            id = store.createConversation(QStringLiteral("kept"));
            QVERIFY(store.appendMessage(id, Chat::Role::User, QStringLiteral("from 0.1")) > 0);
        }
        const QByteArray dbBytes = readAll(oldDb);
        QVERIFY(!dbBytes.isEmpty());
        QVERIFY(writeAll(DataFolder::oldPath() + QStringLiteral("/burrow.db.bak-v2"), "backup"));
        QVERIFY(writeAll(DataFolder::oldPath() + QStringLiteral("/models/tiny.gguf"), "GGUF model bytes"));

        QCOMPARE(DataFolder::moveOldData(), QString());
        QCOMPARE(readAll(ConversationStore::defaultDatabasePath()), dbBytes);
        QCOMPARE(readAll(DataFolder::path() + QStringLiteral("/burrow.db.bak-v2")), QByteArray("backup"));
        QCOMPARE(readAll(DataFolder::path() + QStringLiteral("/models/tiny.gguf")), QByteArray("GGUF model bytes"));
        QVERIFY(!QFileInfo::exists(DataFolder::oldPath()));

        ConversationStore store;
        QVERIFY(store.open());   // the default path: the new folder
        QCOMPARE(store.conversation(id).title, QStringLiteral("kept"));
        QCOMPARE(store.messages(id).value(0).content, QStringLiteral("from 0.1"));
        store.close();

        // Once: a second run has nothing to do and changes nothing.
        QCOMPARE(DataFolder::moveOldData(), QString());
        QCOMPARE(readAll(ConversationStore::defaultDatabasePath()), dbBytes);
    }

    // A database already in the new place is never overwritten, and the old
    // one stays where it was (the user is told).
    void neverOverwritesAndNeverLoses()
    {
        QVERIFY(writeAll(DataFolder::oldPath() + QStringLiteral("/burrow.db"), "old database"));
        QVERIFY(writeAll(DataFolder::oldPath() + QStringLiteral("/models/a.gguf"), "model a"));
        QVERIFY(writeAll(DataFolder::path() + QStringLiteral("/burrow.db"), "new database"));
        const QString said = DataFolder::moveOldData();
        QVERIFY2(said.contains(QStringLiteral("burrow.db")), qPrintable(said));
        QCOMPARE(readAll(DataFolder::path() + QStringLiteral("/burrow.db")), QByteArray("new database"));
        QCOMPARE(readAll(DataFolder::oldPath() + QStringLiteral("/burrow.db")), QByteArray("old database"));
        QCOMPARE(readAll(DataFolder::path() + QStringLiteral("/models/a.gguf")), QByteArray("model a"));
        QVERIFY(!QFileInfo::exists(DataFolder::oldPath() + QStringLiteral("/models/a.gguf")));
    }

    // A copy that cannot be made (the new folder is read-only) removes
    // nothing: the old files all stay.
    void aFailedCopyRemovesNothing()
    {
        if (::geteuid() == 0)
            QSKIP("as root a read-only folder can still be written");
        QVERIFY(writeAll(DataFolder::oldPath() + QStringLiteral("/burrow.db"), "old database"));
        QFile::setPermissions(DataFolder::path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        const QString said = DataFolder::moveOldData();
        QFile::setPermissions(DataFolder::path(),
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QVERIFY(!said.isEmpty());
        QCOMPARE(readAll(DataFolder::oldPath() + QStringLiteral("/burrow.db")), QByteArray("old database"));
    }
};

QTEST_GUILESS_MAIN(TestDataFolder)
#include "tst_datafolder.moc"
