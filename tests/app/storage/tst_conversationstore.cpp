// ConversationStore: conversations, messages, search, settings round trip,
// migration from older schemas, damaged files, and a SIGKILL mid-reply.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "storage/conversationstore.h"
#include "storage/storefailure.h"

#include <unistd.h>
#include "chat/replydetails.h"

namespace {

// A raw connection to look at the file behind the store's back.
class RawDb {
public:
    explicit RawDb(const QString &path)
        : m_name(QStringLiteral("raw-") + QString::number(++s_count))
    {
        QSqlDatabase d = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        d.setDatabaseName(path);
        m_ok = d.open();
    }
    ~RawDb()
    {
        {
            QSqlDatabase d = QSqlDatabase::database(m_name, false);
            d.close();
        }
        QSqlDatabase::removeDatabase(m_name);
    }
    bool ok() const { return m_ok; }
    bool exec(const QString &sql)
    {
        QSqlQuery q(QSqlDatabase::database(m_name, false));
        if (!q.exec(sql)) {
            qWarning() << sql << q.lastError().text();
            return false;
        }
        return true;
    }
    QVariant value(const QString &sql)
    {
        QSqlQuery q(QSqlDatabase::database(m_name, false));
        if (!q.exec(sql) || !q.next())
            return QVariant();
        return q.value(0);
    }

private:
    static inline int s_count = 0;
    QString m_name;
    bool m_ok = false;
};

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

QString partialReply(int n)  // the same text as store_writer.cpp writes
{
    QString text;
    for (int i = 0; i < n; ++i)
        text += QStringLiteral("token%1 ").arg(i);
    return text;
}

// The schema as older Burrow versions wrote it, written here by hand (not by
// the store's own migration code) so the migration is checked against them.
const QStringList SchemaV1 = {
    QStringLiteral("CREATE TABLE conversations (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '',"
                   " created INTEGER NOT NULL, updated INTEGER NOT NULL, model_path TEXT NOT NULL DEFAULT '')"),
    QStringLiteral("CREATE TABLE messages (id INTEGER PRIMARY KEY, conversation_id INTEGER NOT NULL"
                   " REFERENCES conversations(id) ON DELETE CASCADE, role TEXT NOT NULL,"
                   " content TEXT NOT NULL DEFAULT '', created INTEGER NOT NULL)"),
    QStringLiteral("CREATE INDEX messages_by_conversation ON messages(conversation_id, id)"),
    QStringLiteral("INSERT INTO conversations VALUES (1, 'Old pancakes', 1000, 5000, '/m/old.gguf')"),
    QStringLiteral("INSERT INTO conversations VALUES (2, 'Old weather', 2000, 9000, '')"),
    QStringLiteral("INSERT INTO messages VALUES (1, 1, 'user', 'How do I make pancakes?', 1000)"),
    QStringLiteral("INSERT INTO messages VALUES (2, 1, 'assistant', 'Mix flour, eggs and milk.', 1100)"),
    QStringLiteral("INSERT INTO messages VALUES (3, 2, 'user', 'Will it rain tomorrow?', 2000)"),
    QStringLiteral("PRAGMA user_version = 1"),
};

const QStringList SchemaV2 = {
    QStringLiteral("CREATE TABLE conversations (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '',"
                   " created INTEGER NOT NULL, updated INTEGER NOT NULL, model_path TEXT NOT NULL DEFAULT '',"
                   " model_size INTEGER NOT NULL DEFAULT 0, settings TEXT NOT NULL DEFAULT '{}', deleted_at INTEGER)"),
    QStringLiteral("CREATE TABLE messages (id INTEGER PRIMARY KEY, conversation_id INTEGER NOT NULL"
                   " REFERENCES conversations(id) ON DELETE CASCADE, role TEXT NOT NULL,"
                   " content TEXT NOT NULL DEFAULT '', created INTEGER NOT NULL,"
                   " parent_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,"
                   " state TEXT NOT NULL DEFAULT 'complete', updated INTEGER NOT NULL DEFAULT 0,"
                   " model TEXT NOT NULL DEFAULT '', settings TEXT NOT NULL DEFAULT '{}', prompt_tokens INTEGER,"
                   " generated_tokens INTEGER, tokens_per_second REAL, error TEXT NOT NULL DEFAULT '')"),
    QStringLiteral("CREATE INDEX messages_by_conversation ON messages(conversation_id, id)"),
    QStringLiteral("CREATE INDEX conversations_by_updated ON conversations(deleted_at, updated)"),
    QStringLiteral("CREATE INDEX messages_streaming ON messages(state) WHERE state = 'streaming'"),
    QStringLiteral("INSERT INTO conversations VALUES (1, 'Old pancakes', 1000, 5000, '/m/old.gguf', 77,"
                   " '{\"temperature\":0.3}', NULL)"),
    QStringLiteral("INSERT INTO conversations VALUES (2, 'Old weather', 2000, 9000, '', 0, '{}', NULL)"),
    QStringLiteral("INSERT INTO messages VALUES (1, 1, 'user', 'How do I make pancakes?', 1000, NULL, 'complete',"
                   " 1000, '', '{}', NULL, NULL, NULL, '')"),
    QStringLiteral("INSERT INTO messages VALUES (2, 1, 'assistant', 'Mix flour, eggs and milk.', 1100, 1,"
                   " 'streaming', 1200, 'old.gguf', '{\"temperature\":0.3}', 12, 6, 30.5, '')"),
    QStringLiteral("INSERT INTO messages VALUES (3, 2, 'user', 'Will it rain tomorrow?', 2000, NULL, 'complete',"
                   " 2000, '', '{}', NULL, NULL, NULL, '')"),
    QStringLiteral("PRAGMA user_version = 2"),
};

} // namespace

class TestConversationStore : public QObject {
    Q_OBJECT

private:
    QTemporaryDir *m_dir = nullptr;
    QString dbPath() const { return m_dir->filePath(QStringLiteral("burrow.db")); }
    qint64 m_now = 0;

    void openStore(ConversationStore &store)
    {
        store.setDatabasePath(dbPath());
        store.setClock([this] { return QDateTime::fromMSecsSinceEpoch(m_now, Qt::UTC); });
        QVERIFY2(store.open(), qPrintable(store.problem()));
    }

    // The name of this thread's store connection (one store open).
    static QString storeConnectionName()
    {
        for (const QString &name : QSqlDatabase::connectionNames())
            if (name.startsWith(QLatin1String("burrow-store-")))
                return name;
        return QString();
    }

    // store_writer DB open [FSIZE]: its "READY ..." and "PROBLEM ..." lines.
    QStringList openInHelper(const QStringList &extra)
    {
        QProcess helper;
        helper.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        helper.start(QStringLiteral(STORE_WRITER), QStringList{dbPath(), QStringLiteral("open")} + extra);
        if (!helper.waitForFinished(30000) || helper.exitCode() != 0)
            return {};
        return QString::fromUtf8(helper.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

    // Runs store_writer until it has streamed a few updates, then SIGKILLs
    // it: the database is left with its WAL (and -shm) as a crash leaves it.
    bool killWriterMidReply()
    {
        QProcess writer;
        writer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        writer.start(QStringLiteral(STORE_WRITER), {dbPath()});
        if (!writer.waitForStarted())
            return false;
        int acknowledged = 0;
        while (acknowledged < 3) {
            if (!writer.canReadLine() && !writer.waitForReadyRead(30000))
                return false;
            while (writer.canReadLine()) {
                const QList<QByteArray> words = writer.readLine().trimmed().split(' ');
                if (words.value(0) == "UPDATED")
                    acknowledged = words.value(1).toInt();
            }
        }
        writer.kill();
        return writer.waitForFinished(30000) && QFileInfo::exists(dbPath() + QStringLiteral("-wal"));
    }

private slots:
    void init()
    {
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
        m_now = QDateTime(QDate(2026, 3, 1), QTime(12, 0), Qt::UTC).toMSecsSinceEpoch();
    }
    void cleanup()
    {
        delete m_dir;
        m_dir = nullptr;
    }

    // $XDG_DATA_HOME/Burrow/burrow.db (0.1 used .../Burrow/Burrow/: the
    // organisation and the application name both).
    void defaultLocationIsTheDataFolder()
    {
        QCOMPARE(ConversationStore::defaultDatabasePath(),
                 QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
                     + QStringLiteral("/Burrow/burrow.db"));
    }

    void freshDatabaseSettings()
    {
        {
            ConversationStore store;
            openStore(store);
            QVERIFY(store.problem().isEmpty());
            QCOMPARE(store.backupPath(), QString());  // nothing to back up on a new file
            QVERIFY(store.createConversation(QStringLiteral("x")) > 0);
            RawDb raw(dbPath());
            QCOMPARE(raw.value(QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
            QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), ConversationStore::SchemaVersion);
        }
        QVERIFY(!QFileInfo::exists(dbPath() + QStringLiteral(".bak-v0")));
    }

    void createListAndOrder()
    {
        ConversationStore store;
        openStore(store);
        QSignalSpy added(&store, &ConversationStore::conversationAdded);
        const qint64 a = store.createConversation(QStringLiteral("First"), QStringLiteral("/m/a.gguf"), 10);
        m_now += 1000;
        const qint64 b = store.createConversation(QStringLiteral("  Second  "));
        m_now += 1000;
        const qint64 c = store.createConversation();
        QCOMPARE(added.count(), 3);
        QCOMPARE(added.at(0).at(0).toLongLong(), a);

        auto ids = [&] {
            QList<qint64> out;
            for (const ConversationRecord &r : store.conversations())
                out << r.id;
            return out;
        };
        QCOMPARE(ids(), (QList<qint64>{c, b, a}));
        const ConversationRecord rb = store.conversation(b);
        QCOMPARE(rb.title, QStringLiteral("Second"));  // trimmed
        QCOMPARE(rb.created, QDateTime::fromMSecsSinceEpoch(m_now - 1000, Qt::UTC));
        QCOMPARE(store.conversation(a).modelPath, QStringLiteral("/m/a.gguf"));
        QCOMPARE(store.conversation(a).modelSize, qint64(10));

        // A new message moves a conversation to the top.
        m_now += 1000;
        store.appendMessage(a, Chat::Role::User, QStringLiteral("hello"));
        QCOMPARE(ids(), (QList<qint64>{a, c, b}));
        QCOMPARE(store.conversation(a).updated, QDateTime::fromMSecsSinceEpoch(m_now, Qt::UTC));
        QCOMPARE(store.conversationMap(a).value(QStringLiteral("title")).toString(), QStringLiteral("First"));
    }

    void titleFromFirstUserMessage_data()
    {
        QTest::addColumn<QString>("content");
        QTest::addColumn<QString>("title");
        QTest::newRow("plain") << QStringLiteral("How do I bake bread?") << QStringLiteral("How do I bake bread?");
        QTest::newRow("first line") << QStringLiteral("\n\n  Translate this:  \nBonjour") << QStringLiteral("Translate this:");
        QTest::newRow("spaces collapsed") << QStringLiteral("a \t b") << QStringLiteral("a b");
        QTest::newRow("long") << QString(100, QLatin1Char('x')) << QString(59, QLatin1Char('x')) + QChar(0x2026);
        QTest::newRow("cjk") << QStringLiteral("你好，世界") << QStringLiteral("你好，世界");
        QTest::newRow("surrogate at the cut") << QString(58, QLatin1Char('y')) + QStringLiteral("😀😀😀")
                                              << QString(58, QLatin1Char('y')) + QChar(0x2026);
    }
    void titleFromFirstUserMessage()
    {
        QFETCH(QString, content);
        QFETCH(QString, title);
        ConversationStore store;
        openStore(store);
        const qint64 id = store.createConversation();
        store.appendMessage(id, Chat::Role::System, QStringLiteral("You are terse."));
        QCOMPARE(store.conversation(id).title, QString());  // a system prompt is no title
        store.appendMessage(id, Chat::Role::User, content);
        QCOMPARE(store.conversation(id).title, title);
        store.appendMessage(id, Chat::Role::User, QStringLiteral("a later message"));
        QCOMPARE(store.conversation(id).title, title);  // only the first one names it
        // A title the user chose is never replaced.
        const qint64 named = store.createConversation(QStringLiteral("Mine"));
        store.appendMessage(named, Chat::Role::User, content);
        QCOMPARE(store.conversation(named).title, QStringLiteral("Mine"));
    }

    void rename()
    {
        ConversationStore store;
        openStore(store);
        const qint64 id = store.createConversation(QStringLiteral("Before"));
        QSignalSpy changed(&store, &ConversationStore::conversationChanged);
        QVERIFY(store.rename(id, QStringLiteral("After")));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(store.conversation(id).title, QStringLiteral("After"));
        QCOMPARE(store.search(QStringLiteral("after")).size(), 1);  // the search index follows
        QCOMPARE(store.search(QStringLiteral("before")).size(), 0);

        QSignalSpy errors(&store, &ConversationStore::errorOccurred);
        QVERIFY(!store.rename(id + 100, QStringLiteral("Nobody")));
        QCOMPARE(errors.count(), 1);
    }

    void setModel()
    {
        ConversationStore store;
        openStore(store);
        const qint64 id = store.createConversation();
        QVERIFY(store.setModel(id, QStringLiteral("/models/qwen.gguf"), 123456789012LL));
        QCOMPARE(store.conversation(id).modelPath, QStringLiteral("/models/qwen.gguf"));
        QCOMPARE(store.conversation(id).modelSize, 123456789012LL);
    }

    void deleteUndoAndPurge()
    {
        ConversationStore store;
        openStore(store);
        const qint64 keep = store.createConversation(QStringLiteral("Keep me"));
        const qint64 gone = store.createConversation(QStringLiteral("Delete me"));
        store.appendMessage(gone, Chat::Role::User, QStringLiteral("zebra crossing"));
        QSignalSpy removed(&store, &ConversationStore::conversationRemoved);
        QSignalSpy restored(&store, &ConversationStore::conversationRestored);

        QVERIFY(store.remove(gone));
        QCOMPARE(removed.count(), 1);
        QCOMPARE(store.conversations().size(), 1);
        QCOMPARE(store.conversations().first().id, keep);
        QCOMPARE(store.deletedConversations().size(), 1);
        QVERIFY(store.search(QStringLiteral("zebra")).isEmpty());
        QVERIFY(!store.remove(gone));  // already deleted

        QVERIFY(store.undoRemove(gone));
        QCOMPARE(restored.count(), 1);
        QCOMPARE(store.conversations().size(), 2);
        QCOMPARE(store.messages(gone).size(), 1);  // messages came back with it
        QCOMPARE(store.search(QStringLiteral("zebra")).size(), 1);
        QVERIFY(!store.purge(gone));  // only deleted conversations can be purged

        QVERIFY(store.remove(gone));
        QVERIFY(store.purge(gone));
        QCOMPARE(store.conversation(gone).id, qint64(-1));
        QVERIFY(store.messages(gone).isEmpty());
        RawDb raw(dbPath());
        QCOMPARE(raw.value(QStringLiteral("SELECT count(*) FROM messages")).toInt(), 0);  // cascade
        QVERIFY(!store.undoRemove(gone));
    }

    void oldTrashIsPurgedOnOpen()
    {
        qint64 old = -1, recent = -1;
        {
            ConversationStore store;
            openStore(store);
            old = store.createConversation(QStringLiteral("old"));
            store.remove(old);
            m_now += 29LL * 24 * 3600 * 1000;
            recent = store.createConversation(QStringLiteral("recent"));
            store.remove(recent);
            m_now += 2LL * 24 * 3600 * 1000;  // old: 31 days in the trash, recent: 2
        }
        ConversationStore store;
        openStore(store);
        QCOMPARE(store.deletedConversations().size(), 1);
        QCOMPARE(store.deletedConversations().first().id, recent);
        QCOMPARE(store.purgeDeleted(), 1);
        QVERIFY(store.deletedConversations().isEmpty());
    }

    void messagesAndReplies()
    {
        ConversationStore store;
        openStore(store);
        const qint64 id = store.createConversation();
        QSignalSpy added(&store, &ConversationStore::messageAdded);
        QSignalSpy changed(&store, &ConversationStore::messageChanged);
        const qint64 user = store.appendMessage(id, Chat::Role::User, QStringLiteral("Tell me a joke"));
        QVERIFY(user > 0);
        const QJsonObject used{{QStringLiteral("temperature"), 0.7}, {QStringLiteral("seed"), 42}};
        m_now += 500;
        const qint64 reply = store.beginReply(id, QStringLiteral("tiny.gguf"), used, user);
        QVERIFY(reply > user);
        QCOMPARE(added.count(), 2);
        MessageRecord m = store.message(reply);
        QCOMPARE(m.state, Chat::State::Streaming);
        QCOMPARE(m.role, Chat::Role::Assistant);
        QCOMPARE(m.parentId, user);
        QCOMPARE(m.content, QString());

        QVERIFY(store.updateReply(reply, QStringLiteral("Why did")));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(store.message(reply).content, QStringLiteral("Why did"));
        m_now += 1500;
        QVERIFY(store.finishReply(reply, QStringLiteral("Why did the chicken…"), Chat::State::Complete, 12, 34,
                                  56.5));
        m = store.message(reply);
        QCOMPARE(m.state, Chat::State::Complete);
        QCOMPARE(m.content, QStringLiteral("Why did the chicken…"));
        QCOMPARE(m.promptTokens, 12);
        QCOMPARE(m.generatedTokens, 34);
        QCOMPARE(m.tokensPerSecond, 56.5);
        QCOMPARE(m.model, QStringLiteral("tiny.gguf"));
        QCOMPARE(m.settings, used);
        QCOMPARE(m.created, QDateTime::fromMSecsSinceEpoch(m_now - 1500, Qt::UTC));
        QCOMPARE(m.updated, QDateTime::fromMSecsSinceEpoch(m_now, Qt::UTC));
        QCOMPARE(store.conversation(id).updated, QDateTime::fromMSecsSinceEpoch(m_now, Qt::UTC));

        // A finished reply no longer takes streaming updates.
        QVERIFY(!store.updateReply(reply, QStringLiteral("late")));
        QCOMPARE(store.message(reply).content, QStringLiteral("Why did the chicken…"));

        // Stopped and failed replies keep their state, unknown stats stay unknown.
        const qint64 stopped = store.beginReply(id, QStringLiteral("tiny.gguf"), used);
        QVERIFY(store.finishReply(stopped, QStringLiteral("Half"), Chat::State::Stopped));
        QCOMPARE(store.message(stopped).state, Chat::State::Stopped);
        QCOMPARE(store.message(stopped).promptTokens, -1);
        QCOMPARE(store.message(stopped).tokensPerSecond, -1.0);
        const qint64 failed = store.beginReply(id, QStringLiteral("tiny.gguf"), used);
        QVERIFY(store.finishReply(failed, QString(), Chat::State::Failed, -1, -1, -1,
                                  QStringLiteral("out of memory")));
        QCOMPARE(store.message(failed).error, QStringLiteral("out of memory"));
        QVERIFY(!store.finishReply(failed, QString(), Chat::State::Streaming));  // not a final state

        const QVector<MessageRecord> all = store.messages(id);
        QCOMPARE(all.size(), 4);
        QCOMPARE(all.at(0).id, user);
        QCOMPARE(all.at(0).state, Chat::State::Complete);
        QCOMPARE(store.messageList(id).size(), 4);
        QCOMPARE(store.messageList(id).at(1).toMap().value(QStringLiteral("stateName")).toString(),
                 QStringLiteral("complete"));

        // A role the store does not write (another program's row) reads as a user message.
        {
            RawDb raw(dbPath());
            QVERIFY(raw.ok());
            QVERIFY(raw.exec(QStringLiteral("UPDATE messages SET role = 'robot' WHERE id = %1").arg(user)));
        }
        QCOMPARE(store.message(user).role, Chat::Role::User);
        QCOMPARE(store.message(user).content, QStringLiteral("Tell me a joke"));
        QVERIFY(store.appendMessage(id + 999, Chat::Role::User, QStringLiteral("x")) < 0);  // no conversation
    }

    void editAndRemoveMessages()
    {
        ConversationStore store;
        openStore(store);
        const qint64 id = store.createConversation();
        const qint64 other = store.createConversation();
        const qint64 q1 = store.appendMessage(id, Chat::Role::User, QStringLiteral("first"));
        const qint64 a1 = store.appendMessage(id, Chat::Role::Assistant, QStringLiteral("one"));
        const qint64 elsewhere = store.appendMessage(other, Chat::Role::User, QStringLiteral("other chat"));
        const qint64 q2 = store.appendMessage(id, Chat::Role::User, QStringLiteral("second"));
        const qint64 a2 = store.beginReply(id, QStringLiteral("m"), {});
        store.finishReply(a2, QStringLiteral("two"), Chat::State::Complete);

        QVERIFY(store.editMessage(q2, QStringLiteral("second, edited")));
        QCOMPARE(store.message(q2).content, QStringLiteral("second, edited"));
        QCOMPARE(store.search(QStringLiteral("edited")).size(), 1);

        QSignalSpy removed(&store, &ConversationStore::messagesRemoved);
        QCOMPARE(store.removeMessagesFrom(id, a2), 1);  // regenerate: drop the last reply
        QCOMPARE(store.removeMessagesFrom(id, a1), 2);  // edit the first question: drop what followed
        QCOMPARE(removed.count(), 2);
        QCOMPARE(store.messages(id).size(), 1);
        QCOMPARE(store.messages(id).first().id, q1);
        QCOMPARE(store.messages(other).size(), 1);  // other chats untouched
        QCOMPARE(store.message(elsewhere).content, QStringLiteral("other chat"));
        QVERIFY(store.search(QStringLiteral("edited")).isEmpty());  // gone from the index too

        QCOMPARE(store.removeMessagesFrom(id, elsewhere), -1);  // not this chat's message
        const qint64 streaming = store.beginReply(id, QStringLiteral("m"), {});
        QVERIFY(!store.editMessage(streaming, QStringLiteral("x")));  // a streaming reply is written by the engine
    }

    void replyDetails()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        ConversationStore store;
        openStore(store);
        const qint64 id = store.createConversation();
        const qint64 user = store.appendMessage(id, Chat::Role::User, QStringLiteral("hi"));
        QCOMPARE(ReplyDetails::describe(store.message(user)), QString());  // only replies have details
        const QJsonObject used{{QStringLiteral("temperature"), 0.7}, {QStringLiteral("topK"), 40},
                               {QStringLiteral("randomSeed"), false}, {QStringLiteral("seed"), 42}};
        const qint64 reply = store.beginReply(id, QStringLiteral("tiny.gguf"), used);
        store.finishReply(reply, QStringLiteral("hello"), Chat::State::Stopped, 12, 1, 56.5);
        const QString details = ReplyDetails::describe(store.message(reply));
        for (const QString &part : {QStringLiteral("Model: tiny.gguf"), QStringLiteral("prompt: 12 tokens"),
                                    QStringLiteral("reply: 1 tokens"), QStringLiteral("56.5 tokens/s"),
                                    QStringLiteral("Stopped"), QStringLiteral("temperature 0.7"),
                                    QStringLiteral("top-k 40"), QStringLiteral("seed 42")})
            QVERIFY2(details.contains(part), qPrintable(part + QStringLiteral(" in: ") + details));
        QVERIFY(!details.contains(QStringLiteral("random seed")));
    }

    void settingsRoundTrip()
    {
        const QJsonObject settings{
            {QStringLiteral("temperature"), 0.1},
            {QStringLiteral("topP"), 0.9},
            {QStringLiteral("topK"), 40},
            {QStringLiteral("seed"), 4294967294.0},
            {QStringLiteral("randomSeed"), false},
            {QStringLiteral("systemPrompt"), QStringLiteral("Réponds en français. \"Quotes\" and\nnewlines 🙂")},
            {QStringLiteral("list"), QJsonArray{1, 2, 3}},
        };
        qint64 id = -1;
        {
            ConversationStore store;
            openStore(store);
            id = store.createConversation(QStringLiteral("s"), QString(), 0, settings);
            QCOMPARE(store.settings(id), settings);
            QJsonObject changed = settings;
            changed[QStringLiteral("temperature")] = 1.3;
            QVERIFY(store.setSettings(id, changed));
        }
        ConversationStore store;
        openStore(store);
        QJsonObject expected = settings;
        expected[QStringLiteral("temperature")] = 1.3;
        QCOMPARE(store.settings(id), expected);
        QCOMPARE(store.conversationMap(id).value(QStringLiteral("settings")).toMap().value(QStringLiteral("topK")).toInt(),
                 40);
    }

    void everythingSurvivesReopen()
    {
        qint64 id = -1;
        {
            ConversationStore store;
            openStore(store);
            id = store.createConversation(QStringLiteral("Persistent"), QStringLiteral("/m/x.gguf"), 5);
            store.appendMessage(id, Chat::Role::User, QStringLiteral("one"));
            const qint64 r = store.beginReply(id, QStringLiteral("x.gguf"), {});
            store.finishReply(r, QStringLiteral("two"), Chat::State::Complete, 1, 2, 3);
        }
        ConversationStore store;
        openStore(store);
        QCOMPARE(store.interruptedOnOpen(), 0);
        QCOMPARE(store.conversations().size(), 1);
        QCOMPARE(store.conversation(id).title, QStringLiteral("Persistent"));
        const QVector<MessageRecord> all = store.messages(id);
        QCOMPARE(all.size(), 2);
        QCOMPARE(all.at(1).content, QStringLiteral("two"));
        QCOMPARE(all.at(1).state, Chat::State::Complete);
    }

    void streamingBecomesInterruptedOnOpen()
    {
        qint64 reply = -1;
        {
            ConversationStore store;
            openStore(store);
            const qint64 id = store.createConversation();
            store.appendMessage(id, Chat::Role::User, QStringLiteral("q"));
            reply = store.beginReply(id, QStringLiteral("x.gguf"), {});
            store.updateReply(reply, QStringLiteral("partial"));
        }  // closed without finishing
        ConversationStore store;
        openStore(store);
        QCOMPARE(store.interruptedOnOpen(), 1);
        QCOMPARE(store.message(reply).state, Chat::State::Interrupted);
        QCOMPARE(store.message(reply).content, QStringLiteral("partial"));
    }

    void search_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QStringList>("titles");  // expected hits, newest first
        QTest::addColumn<QString>("snippetHtmlContains");

        QTest::newRow("title word") << QStringLiteral("pancake") << QStringList{QStringLiteral("Pancake recipes")}
                                    << QStringLiteral("<b>Pancake</b>");
        QTest::newRow("message text") << QStringLiteral("umbrella") << QStringList{QStringLiteral("Weather")}
                                      << QStringLiteral("<b>umbrella</b>");
        QTest::newRow("case-insensitive") << QStringLiteral("UMBRELLA") << QStringList{QStringLiteral("Weather")}
                                          << QStringLiteral("<b>umbrella</b>");
        QTest::newRow("in several") << QStringLiteral("flour")
                                    << QStringList{QStringLiteral("Bread"), QStringLiteral("Pancake recipes")}
                                    << QStringLiteral("<b>flour</b>");
        QTest::newRow("all words in one message") << QStringLiteral("flour rye") << QStringList{QStringLiteral("Bread")}
                                                  << QStringLiteral("<b>rye</b>");
        QTest::newRow("substring") << QStringLiteral("brell") << QStringList{QStringLiteral("Weather")}
                                   << QStringLiteral("um<b>brell</b>a");
        QTest::newRow("short word (LIKE path)") << QStringLiteral("ry") << QStringList{QStringLiteral("Bread")}
                                                << QStringLiteral("<b>ry</b>e");
        QTest::newRow("chinese 2 chars") << QStringLiteral("天气") << QStringList{QStringLiteral("中文")}
                                         << QStringLiteral("<b>天气</b>");
        QTest::newRow("chinese 3 chars") << QStringLiteral("天气很") << QStringList{QStringLiteral("中文")}
                                         << QStringLiteral("<b>天气很</b>");
        QTest::newRow("html is escaped") << QStringLiteral("<tag>") << QStringList{QStringLiteral("Markup")}
                                         << QStringLiteral("<b>&lt;tag&gt;</b>");
        QTest::newRow("quotes") << QStringLiteral("\"quoted\"") << QStringList{QStringLiteral("Markup")}
                                << QStringLiteral("<b>&quot;quoted&quot;</b>");
        QTest::newRow("percent is literal") << QStringLiteral("5%") << QStringList{QStringLiteral("Markup")}
                                            << QStringLiteral("<b>5%</b>");
        QTest::newRow("deleted excluded") << QStringLiteral("secret") << QStringList{} << QString();
        QTest::newRow("nothing") << QStringLiteral("xylophone") << QStringList{} << QString();
        QTest::newRow("empty query") << QStringLiteral("   ") << QStringList{} << QString();
    }
    void search()
    {
        QFETCH(QString, query);
        QFETCH(QStringList, titles);
        QFETCH(QString, snippetHtmlContains);

        ConversationStore store;
        openStore(store);
        auto chat = [&](const QString &title, const QStringList &texts) {
            m_now += 1000;
            const qint64 id = store.createConversation(title);
            for (const QString &t : texts)
                store.appendMessage(id, Chat::Role::User, t);
            return id;
        };
        chat(QStringLiteral("Pancake recipes"), {QStringLiteral("How much flour for pancakes?")});
        chat(QStringLiteral("Weather"), {QStringLiteral("Do I need an umbrella today?"), QStringLiteral("It may rain.")});
        chat(QStringLiteral("中文"), {QStringLiteral("今天天气很好。")});
        chat(QStringLiteral("Markup"), {QStringLiteral("Escape <tag> and \"quoted\" text, 5% off")});
        const qint64 secret = chat(QStringLiteral("Hidden"), {QStringLiteral("a secret plan")});
        store.remove(secret);
        const qint64 bread = chat(QStringLiteral("Bread"), {QStringLiteral("Rye bread needs rye flour.")});
        const qint64 reply = store.beginReply(bread, QStringLiteral("m"), {});
        store.updateReply(reply, QStringLiteral("Streaming text counts too"));

        const QVector<SearchHit> hits = store.search(query);
        QStringList got;
        for (const SearchHit &h : hits)
            got << h.title;
        QCOMPARE(got, titles);
        if (!hits.isEmpty()) {
            QVERIFY2(hits.first().snippetHtml.contains(snippetHtmlContains, Qt::CaseInsensitive),
                     qPrintable(hits.first().snippetHtml));
            QVERIFY(!hits.first().snippet.contains(QChar(0x02)));
            QCOMPARE(store.searchList(query).size(), hits.size());
        }
    }

    void searchFindsStreamingAndPointsAtMessage()
    {
        ConversationStore store;
        openStore(store);
        const qint64 id = store.createConversation(QStringLiteral("t"));
        const qint64 reply = store.beginReply(id, QStringLiteral("m"), {});
        store.updateReply(reply, QStringLiteral("the quick brown fox"));
        const QVector<SearchHit> hits = store.search(QStringLiteral("brown"));
        QCOMPARE(hits.size(), 1);
        QCOMPARE(hits.first().conversationId, id);
        QCOMPARE(hits.first().messageId, reply);
        QCOMPARE(hits.first().snippet, QStringLiteral("the quick brown fox"));
    }

    void migration_data()
    {
        QTest::addColumn<int>("version");
        QTest::addColumn<QStringList>("schema");
        QTest::newRow("v1") << 1 << SchemaV1;
        QTest::newRow("v2") << 2 << SchemaV2;
    }
    void migration()
    {
        QFETCH(int, version);
        QFETCH(QStringList, schema);
        {
            RawDb raw(dbPath());
            QVERIFY(raw.ok());
            for (const QString &sql : schema)
                QVERIFY(raw.exec(sql));
        }
        ConversationStore store;
        openStore(store);
        QVERIFY(store.problem().isEmpty());
        const QString backup = dbPath() + QStringLiteral(".bak-v") + QString::number(version);
        QCOMPARE(store.backupPath(), backup);
        {
            RawDb raw(backup);
            QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), version);
            QCOMPARE(raw.value(QStringLiteral("SELECT count(*) FROM messages")).toInt(), 3);
            QCOMPARE(raw.value(QStringLiteral("SELECT title FROM conversations WHERE id = 1")).toString(),
                     QStringLiteral("Old pancakes"));
        }
        {
            RawDb raw(dbPath());
            QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), ConversationStore::SchemaVersion);
        }

        // Everything is there, in the new shape.
        const QVector<ConversationRecord> list = store.conversations();
        QCOMPARE(list.size(), 2);
        QCOMPARE(list.at(0).title, QStringLiteral("Old weather"));  // updated 9000 > 5000
        QCOMPARE(list.at(1).modelPath, QStringLiteral("/m/old.gguf"));
        QCOMPARE(list.at(1).updated, QDateTime::fromMSecsSinceEpoch(5000, Qt::UTC));
        const QVector<MessageRecord> msgs = store.messages(1);
        QCOMPARE(msgs.size(), 2);
        QCOMPARE(msgs.at(0).content, QStringLiteral("How do I make pancakes?"));
        QCOMPARE(msgs.at(1).role, Chat::Role::Assistant);
        if (version == 1) {
            QCOMPARE(msgs.at(1).state, Chat::State::Complete);
            QCOMPARE(msgs.at(1).updated, QDateTime::fromMSecsSinceEpoch(1100, Qt::UTC));
            QCOMPARE(msgs.at(1).parentId, qint64(-1));
            QCOMPARE(msgs.at(1).promptTokens, -1);
        } else {
            QCOMPARE(msgs.at(1).state, Chat::State::Interrupted);  // was streaming
            QCOMPARE(msgs.at(1).parentId, qint64(1));
            QCOMPARE(msgs.at(1).tokensPerSecond, 30.5);
            QCOMPARE(store.settings(1).value(QStringLiteral("temperature")).toDouble(), 0.3);
            QCOMPARE(store.conversation(1).modelSize, qint64(77));
        }
        // Old text is searchable, new writes work.
        QCOMPARE(store.search(QStringLiteral("rain")).size(), 1);
        QCOMPARE(store.search(QStringLiteral("pancakes")).size(), 1);
        QVERIFY(store.appendMessage(1, Chat::Role::User, QStringLiteral("thanks")) > 0);
        QVERIFY(store.remove(2));

        // A second start does not migrate (or back up) again.
        store.close();
        QVERIFY(QFile::remove(backup));
        ConversationStore again;
        openStore(again);
        QCOMPARE(again.backupPath(), QString());
        QVERIFY(!QFileInfo::exists(backup));
        QCOMPARE(again.messages(1).size(), 3);
    }

    void newerSchemaIsLeftAlone()
    {
        {
            RawDb raw(dbPath());
            QVERIFY(raw.exec(QStringLiteral("CREATE TABLE conversations (id INTEGER PRIMARY KEY, future TEXT)")));
            QVERIFY(raw.exec(QStringLiteral("PRAGMA user_version = 99")));
        }
        const QByteArray before = readAll(dbPath());
        ConversationStore store;
        store.setDatabasePath(dbPath());
        QVERIFY(!store.open());
        QVERIFY(!store.isReady());
        QVERIFY2(store.problem().contains(QStringLiteral("newer")), qPrintable(store.problem()));
        QCOMPARE(store.movedAsidePath(), QString());
        QCOMPARE(readAll(dbPath()), before);
        QVERIFY(store.createConversation() < 0);
    }

    void damagedFileIsMovedAside_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("random bytes") << QStringLiteral("random");
        QTest::newRow("text file") << QStringLiteral("text");
        QTest::newRow("truncated") << QStringLiteral("truncated");
        QTest::newRow("overwritten pages") << QStringLiteral("overwritten");
        QTest::newRow("another app's database") << QStringLiteral("foreign");
    }
    void damagedFileIsMovedAside()
    {
        QFETCH(QString, kind);
        if (kind == QLatin1String("random")) {
            QRandomGenerator rng(1234);
            QByteArray bytes(64 * 1024, Qt::Uninitialized);
            for (char &c : bytes)
                c = char(rng.bounded(256));
            QVERIFY(writeAll(dbPath(), bytes));
        } else if (kind == QLatin1String("text")) {
            QVERIFY(writeAll(dbPath(), "These are my notes, not a database.\n"));
        } else if (kind == QLatin1String("foreign")) {
            RawDb raw(dbPath());
            QVERIFY(raw.exec(QStringLiteral("CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)")));
        } else {
            {
                ConversationStore store;
                openStore(store);
                for (int c = 0; c < 20; ++c) {
                    const qint64 id = store.createConversation(QStringLiteral("chat %1").arg(c));
                    for (int i = 0; i < 20; ++i)
                        store.appendMessage(id, Chat::Role::User,
                                            QStringLiteral("message %1 %2 ").arg(c).arg(i).repeated(40));
                }
            }  // closing the last connection checkpoints the WAL into the file
            QVERIFY(!QFileInfo::exists(dbPath() + QStringLiteral("-wal")));
            QByteArray bytes = readAll(dbPath());
            QVERIFY(bytes.size() > 100 * 1024);
            if (kind == QLatin1String("truncated")) {
                bytes.truncate(bytes.size() / 2);
            } else {
                for (qsizetype i = 8192; i < bytes.size() - 8192; i += 4096 * 5)
                    for (int j = 0; j < 512; ++j)
                        bytes[i + j] = char(0xA5 ^ j);
            }
            QVERIFY(writeAll(dbPath(), bytes));
        }
        const QByteArray damaged = readAll(dbPath());

        ConversationStore store;
        QSignalSpy problem(&store, &ConversationStore::problemChanged);
        openStore(store);  // a new, empty database is started
        QVERIFY(store.isReady());
        QVERIFY(problem.count() >= 1);
        QVERIFY2(!store.problem().isEmpty(), "the user must be told");
        const QString aside = store.movedAsidePath();
        QVERIFY2(aside.startsWith(dbPath() + QStringLiteral(".corrupt-")), qPrintable(aside));
        QVERIFY(store.problem().contains(QFileInfo(aside).fileName()));
        QCOMPARE(readAll(aside), damaged);  // kept byte for byte
        QVERIFY(store.conversations().isEmpty());
        QVERIFY(store.createConversation(QStringLiteral("fresh")) > 0);

        // The next start is not silent about the kept file (issue 27, item
        // 6: an empty history with no notice), and keeps mentioning it while it is there.
        store.close();
        ConversationStore again;
        openStore(again);
        QVERIFY2(again.problem().contains(QFileInfo(aside).fileName()), qPrintable(again.problem()));
        QVERIFY2(again.problem().contains(QStringLiteral("from before")), qPrintable(again.problem()));
        QCOMPARE(again.movedAsidePath(), QString());
        QCOMPARE(again.conversations().size(), 1);
        QCOMPARE(readAll(aside), damaged);
        // Once the user moves it away, the start is clean.
        QVERIFY(QFile::rename(aside, m_dir->filePath(QStringLiteral("elsewhere"))));
        again.close();
        ConversationStore clean;
        openStore(clean);
        QVERIFY2(clean.problem().isEmpty(), qPrintable(clean.problem()));
    }

    void unusableFolderIsReported()
    {
        // The database path is a folder: nothing can be opened, and the user is told.
        QVERIFY(QDir().mkpath(dbPath()));
        ConversationStore store;
        store.setDatabasePath(dbPath());
        QSignalSpy problem(&store, &ConversationStore::problemChanged);
        QVERIFY(!store.open());
        QVERIFY(!store.isReady());
        QVERIFY(problem.count() >= 1);
        QVERIFY2(store.problem().contains(QStringLiteral("could not be opened")), qPrintable(store.problem()));
        QVERIFY(QFileInfo(dbPath()).isDir());  // left alone
    }


    // ---- issue 27, item 6: only damage counts as damage --------------------

    // A database another program holds (an exclusive lock: nobody may even
    // read) was taken for damaged, renamed, and an empty one started. Now
    // it is left alone with its own message, and is all there next time.
    void lockedDatabaseIsLeftAlone()
    {
        {
            ConversationStore store;
            openStore(store);
            const qint64 id = store.createConversation(QStringLiteral("kept"));
            QVERIFY(store.appendMessage(id, Chat::Role::User, QStringLiteral("hello")) > 0);
        }
        {
            RawDb holder(dbPath());
            QVERIFY(holder.ok());
            QVERIFY(holder.exec(QStringLiteral("PRAGMA locking_mode=EXCLUSIVE")));
            QVERIFY(holder.exec(QStringLiteral("BEGIN EXCLUSIVE")));
            ConversationStore store;
            store.setDatabasePath(dbPath());
            store.setBusyTimeoutMs(100);
            QSignalSpy problem(&store, &ConversationStore::problemChanged);
            QVERIFY(!store.open());
            QVERIFY(!store.isReady());
            QCOMPARE(store.lastFailure(), StoreFailure::Locked);
            QVERIFY2(store.problem().contains(QStringLiteral("another program")), qPrintable(store.problem()));
            QVERIFY2(store.problem().contains(QStringLiteral("left it alone")), qPrintable(store.problem()));
            QCOMPARE(store.movedAsidePath(), QString());
            QVERIFY(QDir(m_dir->path()).entryList({QStringLiteral("*.corrupt-*")}).isEmpty());
            QVERIFY(store.createConversation() < 0);
            QVERIFY(holder.exec(QStringLiteral("COMMIT")));
        }
        ConversationStore again;
        openStore(again);
        QVERIFY2(again.problem().isEmpty(), qPrintable(again.problem()));
        QCOMPARE(again.conversations().size(), 1);
        QCOMPARE(again.conversations().first().title, QStringLiteral("kept"));
    }

    // A read-only folder: the conversations are shown read-only, nothing is
    // moved or advised away (before, a healthy file got "move it away
    // yourself"). A separate process opens it, as a user without write
    // permission (root drops to nobody there, so permissions count).
    void readOnlyFolderIsOpenedReadOnly()
    {
        {
            ConversationStore store;
            openStore(store);
            store.createConversation(QStringLiteral("one"));
            store.createConversation(QStringLiteral("two"));
        }
        const QByteArray before = readAll(dbPath());
        const bool root = geteuid() == 0;
        // Root's helper runs as nobody: it may read (0755 / 0644) but not write.
        QVERIFY(QFile::setPermissions(m_dir->path(), root ? QFileDevice::Permissions(0x7755) : QFileDevice::Permissions(0x5555)));
        QVERIFY(QFile::setPermissions(dbPath(), root ? QFileDevice::Permissions(0x6644) : QFileDevice::Permissions(0x4444)));
        const QStringList opened = openInHelper({});
        QFile::setPermissions(m_dir->path(), QFileDevice::Permissions(0x7700));
        QFile::setPermissions(dbPath(), QFileDevice::Permissions(0x6600));
        QVERIFY2(opened.size() == 2, qPrintable(opened.join('|')));
        QCOMPARE(opened.at(0), QStringLiteral("READY 1 1 2 %1").arg(int(StoreFailure::None)));
        QVERIFY2(opened.at(1).contains(QStringLiteral("cannot write")), qPrintable(opened.at(1)));
        QVERIFY2(!opened.at(1).contains(QStringLiteral("move the file away")), qPrintable(opened.at(1)));
        QCOMPARE(readAll(dbPath()), before);
        QVERIFY(QDir(m_dir->path()).entryList({QStringLiteral("*.corrupt-*")}).isEmpty());
    }

    // The disk full at start (a database left with its WAL by a crash needs
    // to write to be read): it was renamed and an empty one started. Now it
    // is left as it is, whatever SQLite makes of the refused writes.
    void fullDiskAtStartIsNotDamage()
    {
        QVERIFY(killWriterMidReply());   // leaves burrow.db and its -wal
        QVERIFY(QFile::remove(dbPath() + QStringLiteral("-shm")));   // so opening must create it
        const QByteArray db = readAll(dbPath()), wal = readAll(dbPath() + QStringLiteral("-wal"));
        const QStringList opened = openInHelper({QStringLiteral("1")});   // files may not grow past 1 byte
        QVERIFY2(opened.size() == 2, qPrintable(opened.join('|')));
        QVERIFY2(!opened.at(1).mid(8).isEmpty(), "the user must be told");
        QVERIFY2(!opened.at(1).contains(QStringLiteral(".corrupt-")), qPrintable(opened.at(1)));
        QVERIFY(QDir(m_dir->path()).entryList({QStringLiteral("*.corrupt-*")}).isEmpty());
        QCOMPARE(readAll(dbPath()), db);
        QCOMPARE(readAll(dbPath() + QStringLiteral("-wal")), wal);
        // With room again, everything is there.
        ConversationStore store;
        openStore(store);
        QVERIFY2(store.problem().isEmpty(), qPrintable(store.problem()));
        QCOMPARE(store.interruptedOnOpen(), 1);
        QCOMPARE(store.conversations().size(), 1);
    }

    // Item 7, the store's side: a write the disk refuses fails with a typed
    // reason, and the words name what was saved and what was not.
    void fullDiskWhileWriting()
    {
        ConversationStore store;
        openStore(store);
        const qint64 id = store.createConversation(QStringLiteral("chat"));
        QVERIFY(store.appendMessage(id, Chat::Role::User, QStringLiteral("question")) > 0);
        const qint64 reply = store.beginReply(id, QStringLiteral("m.gguf"), QJsonObject());
        QVERIFY(reply > 0);
        QVERIFY(store.updateReply(reply, QStringLiteral("the first part")));
        {
            QSqlQuery q(QSqlDatabase::database(storeConnectionName(), false));
            QVERIFY(q.exec(QStringLiteral("PRAGMA page_count")) && q.next());
            QVERIFY(q.exec(QStringLiteral("PRAGMA max_page_count = %1").arg(q.value(0).toLongLong())));
        }
        QSignalSpy errors(&store, &ConversationStore::errorOccurred);
        QVERIFY(!store.updateReply(reply, QString(200 * 1024, QLatin1Char('x'))));
        QCOMPARE(store.lastFailure(), StoreFailure::DiskFull);
        QCOMPARE(errors.size(), 1);
        QString message = errors.takeFirst().at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("your message and the reply's earlier part were saved")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("the disk is full")), qPrintable(message));
        QVERIFY(store.appendMessage(id, Chat::Role::User, QString(200 * 1024, QLatin1Char('y'))) < 0);
        message = errors.takeFirst().at(0).toString();
        QVERIFY2(message.startsWith(QStringLiteral("Your message could not be saved, so it was not sent")), qPrintable(message));
        QCOMPARE(store.messages(id).at(1).content, QStringLiteral("the first part"));
    }

    void inMemoryStore()
    {
        ConversationStore store;
        store.setDatabasePath(QStringLiteral(":memory:"));
        QVERIFY(store.open());
        const qint64 id = store.createConversation(QStringLiteral("temp"));
        store.appendMessage(id, Chat::Role::User, QStringLiteral("hello there"));
        QCOMPARE(store.search(QStringLiteral("hello")).size(), 1);
    }

    void killedMidReplyKeepsEverything()
    {
#ifndef Q_OS_UNIX
        QSKIP("SIGKILL is a Unix thing");
#endif
        QProcess writer;
        writer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        writer.start(QStringLiteral(STORE_WRITER), {dbPath()});
        QVERIFY2(writer.waitForStarted(), qPrintable(writer.errorString()));
        qint64 conversationId = -1, replyId = -1;
        int acknowledged = 0;
        QByteArray pending;
        while (acknowledged < 5) {
            if (!writer.canReadLine())
                QVERIFY2(writer.waitForReadyRead(30000), "the writer stopped talking");
            while (writer.canReadLine()) {
                const QList<QByteArray> words = writer.readLine().trimmed().split(' ');
                if (words.value(0) == "READY") {
                    conversationId = words.value(1).toLongLong();
                    replyId = words.value(2).toLongLong();
                } else if (words.value(0) == "UPDATED") {
                    acknowledged = words.value(1).toInt();
                }
            }
        }
        writer.kill();  // SIGKILL: no destructors, no close, no checkpoint
        QVERIFY(writer.waitForFinished(30000));
        QCOMPARE(writer.exitStatus(), QProcess::CrashExit);
        QVERIFY(QFileInfo::exists(dbPath() + QStringLiteral("-wal")));  // it really died with the WAL open

        ConversationStore store;
        openStore(store);
        QVERIFY(store.problem().isEmpty());
        QCOMPARE(store.interruptedOnOpen(), 1);
        const ConversationRecord c = store.conversation(conversationId);
        QCOMPARE(c.title, QStringLiteral("question 0"));
        QCOMPARE(c.modelPath, QStringLiteral("/models/tiny.gguf"));
        QCOMPARE(c.settings.value(QStringLiteral("seed")).toInt(), 7);
        const QVector<MessageRecord> all = store.messages(conversationId);
        QCOMPARE(all.size(), 8);
        for (int turn = 0; turn < 3; ++turn) {
            QCOMPARE(all.at(2 * turn).content, QStringLiteral("question %1").arg(turn));
            QCOMPARE(all.at(2 * turn + 1).content, QStringLiteral("answer %1").arg(turn));
            QCOMPARE(all.at(2 * turn + 1).state, Chat::State::Complete);
            QCOMPARE(all.at(2 * turn + 1).generatedTokens, 5);
        }
        QCOMPARE(all.at(6).content, QStringLiteral("the last question"));
        const MessageRecord partial = all.at(7);
        QCOMPARE(partial.id, replyId);
        QCOMPARE(partial.state, Chat::State::Interrupted);
        QCOMPARE(partial.model, QStringLiteral("tiny.gguf"));
        // At least what the writer had acknowledged, and exactly one of its updates.
        const int words = int(partial.content.count(QLatin1Char(' ')));
        QVERIFY2(words >= acknowledged, qPrintable(partial.content));
        QCOMPARE(partial.content, partialReply(words));
    }
};

QTEST_MAIN(TestConversationStore)
#include "tst_conversationstore.moc"
