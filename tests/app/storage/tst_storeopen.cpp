// The conversation database's open path under damaged and locked files
// (issue 27, item 4: fuzzing where the bytes come in). The fuzz tree has no
// Qt, so this is a Qt Test over generated inputs instead of a libFuzzer
// target: a real database is damaged in many seeded ways (bit flips,
// truncation, zeroed and garbage pages, a mangled header, a garbage WAL,
// garbage appended) and opened; locked copies are opened too. Whatever the
// bytes: no crash; the store either opens or says why; a file it sets aside
// is kept byte for byte; a file it does not set aside is left exactly as it
// was; and only a damaged file is ever set aside (a locked one never).
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include "storage/conversationstore.h"
#include "storage/storefailure.h"

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

// `healthy` damaged the way `kind` says, with `rng` choosing where.
QByteArray damage(const QByteArray &healthy, int kind, QRandomGenerator &rng)
{
    QByteArray b = healthy;
    const int size = int(b.size());
    switch (kind) {
    case 0:   // a few bits flipped anywhere
        for (int n = 1 + int(rng.bounded(16)); n > 0; --n)
            b[int(rng.bounded(size))] ^= char(1 << rng.bounded(8));
        break;
    case 1:   // cut short
        b.truncate(int(rng.bounded(size)));
        break;
    case 2: {   // a page of zeros
        const int page = int(rng.bounded(qMax(1, size / 4096))) * 4096;
        for (int i = page; i < qMin(size, page + 4096); ++i)
            b[i] = 0;
        break;
    }
    case 3:   // the header mangled
        for (int n = 1 + int(rng.bounded(8)); n > 0; --n)
            b[int(rng.bounded(qMin(size, 100)))] = char(rng.bounded(256));
        break;
    case 4: {   // a page of garbage
        const int page = int(rng.bounded(qMax(1, size / 4096))) * 4096;
        for (int i = page; i < qMin(size, page + 4096); ++i)
            b[i] = char(rng.bounded(256));
        break;
    }
    default:   // garbage appended
        for (int n = int(rng.bounded(8192)); n > 0; --n)
            b.append(char(rng.bounded(256)));
        break;
    }
    return b;
}

} // namespace

class TestStoreOpen : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QByteArray m_healthy;

    QString dbPath() const { return m_dir.filePath(QStringLiteral("burrow.db")); }

    void clearFolder()
    {
        const QStringList files = QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden);
        for (const QString &f : files)
            QFile::remove(m_dir.filePath(f));
    }

    // Opens the store on whatever is at dbPath() and checks the contract.
    void openAndCheck(const QByteArray &bytes, bool locked)
    {
        ConversationStore store;
        store.setDatabasePath(dbPath());
        store.setBusyTimeoutMs(50);
        const bool ok = store.open();
        QCOMPARE(ok, store.isReady());
        QVERIFY2(ok || !store.problem().isEmpty(), "a store that does not open must say why");
        const QString aside = store.movedAsidePath();
        if (locked)
            QVERIFY2(aside.isEmpty(), "a locked database is never set aside");
        if (!aside.isEmpty()) {
            QCOMPARE(readAll(aside), bytes);   // kept byte for byte
            QVERIFY(store.problem().contains(QFileInfo(aside).fileName()));
        } else if (!ok || store.isReadOnly()) {
            QCOMPARE(readAll(dbPath()), bytes);   // left exactly as it was
        }
        if (ok && !store.isReadOnly()) {
            // Usable: it takes a conversation and gives it back.
            const qint64 id = store.createConversation(QStringLiteral("after"));
            QVERIFY2(id > 0, qPrintable(store.problem()));
            QVERIFY(store.conversation(id).title == QStringLiteral("after"));
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        {
            ConversationStore store;
            store.setDatabasePath(dbPath());
            QVERIFY(store.open());
            for (int c = 0; c < 12; ++c) {
                const qint64 id = store.createConversation(QStringLiteral("chat %1").arg(c));
                for (int i = 0; i < 12; ++i)
                    store.appendMessage(id, Chat::Role::User, QStringLiteral("message %1 %2 ").arg(c).arg(i).repeated(30));
            }
        }   // the last connection checkpoints: the file alone holds it all
        m_healthy = readAll(dbPath());
        QVERIFY(m_healthy.size() > 64 * 1024);
    }

    void damaged_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<quint32>("seed");
        QTest::addColumn<bool>("garbageWal");
        const char *kinds[] = {"bits", "truncated", "zero page", "header", "garbage page", "appended"};
        for (int kind = 0; kind < 6; ++kind)
            for (quint32 seed = 1; seed <= 8; ++seed)
                QTest::addRow("%s %u%s", kinds[kind], seed, seed % 4 == 0 ? " + garbage WAL" : "")
                    << kind << seed << (seed % 4 == 0);
    }
    void damaged()
    {
        QFETCH(int, kind);
        QFETCH(quint32, seed);
        QFETCH(bool, garbageWal);
        clearFolder();
        QRandomGenerator rng(seed * 7919u + quint32(kind));
        const QByteArray bytes = damage(m_healthy, kind, rng);
        QVERIFY(writeAll(dbPath(), bytes));
        if (garbageWal) {
            QByteArray wal(8192, Qt::Uninitialized);
            for (char &c : wal)
                c = char(rng.bounded(256));
            QVERIFY(writeAll(dbPath() + QStringLiteral("-wal"), wal));
        }
        openAndCheck(bytes, false);
    }

    // A healthy, a damaged and an empty file, each locked by another
    // connection: never set aside, the lock named, all there afterwards.
    void locked_data()
    {
        QTest::addColumn<int>("variant");
        QTest::newRow("healthy") << 0;
        QTest::newRow("header mangled") << 1;
        QTest::newRow("empty") << 2;
    }
    void locked()
    {
        QFETCH(int, variant);
        clearFolder();
        QRandomGenerator rng(27);
        const QByteArray bytes = variant == 0 ? m_healthy : variant == 1 ? damage(m_healthy, 3, rng) : QByteArray();
        QVERIFY(writeAll(dbPath(), bytes));
        const QString holder = QStringLiteral("holder");
        {
            QSqlDatabase d = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), holder);
            d.setDatabaseName(dbPath());
            QVERIFY(d.open());
            QSqlQuery q(d);
            QVERIFY(q.exec(QStringLiteral("PRAGMA locking_mode=EXCLUSIVE")));
            // The lock is taken by the first access; a damaged file may fail it (then nothing holds it).
            const bool held = q.exec(QStringLiteral("BEGIN EXCLUSIVE"));
            const QByteArray before = readAll(dbPath());
            ConversationStore store;
            store.setDatabasePath(dbPath());
            store.setBusyTimeoutMs(50);
            const bool ok = store.open();
            if (held && variant == 0) {
                QVERIFY(!ok);
                QCOMPARE(store.lastFailure(), StoreFailure::Locked);
                QVERIFY2(store.problem().contains(QStringLiteral("another program")), qPrintable(store.problem()));
            }
            if (held) {
                QCOMPARE(store.movedAsidePath(), QString());
                QCOMPARE(readAll(dbPath()), before);
            }
            store.close();
            q.exec(QStringLiteral("ROLLBACK"));
            d.close();
        }
        QSqlDatabase::removeDatabase(holder);
        if (variant == 0) {
            ConversationStore store;
            store.setDatabasePath(dbPath());
            QVERIFY2(store.open(), qPrintable(store.problem()));
            QCOMPARE(store.conversations().size(), 12);
        }
    }
};

QTEST_MAIN(TestStoreOpen)
#include "tst_storeopen.moc"
