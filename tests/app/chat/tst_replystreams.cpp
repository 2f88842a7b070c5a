// The replies and the chats they belong to, over a real database file
// (issue #26), with a fake backend whose timing the test holds:
//   - deleting a chat whose reply streams stops the reply first: its text so
//     far is stored as stopped before the chat goes, and nothing written
//     after (it used to go on generating and writing into a deleted chat);
//   - a restart opens the chat shown last, not the one updated last;
//   - a chat opened again shows the context its last reply left, not 0;
//   - a reply that ends because the context is full says so on the message
//     and in the store, also after a restart;
//   - a reply's details name the context it got (the model's 256 here), not
//     the setting's "Automatic" nor the old default 4,096;
//   - an imported chat (its model recorded by file name and size) is the
//     loaded model's when that has the same name and size, finds it among
//     the recent models when another is loaded, and offers no load of a
//     file that is not on this computer.
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include "backend/enginebridge.h"
#include "chat/chatcontroller.h"
#include "chat/conversation.h"
#include "chat/messagemodel.h"
#include "chat/replystream.h"
#include "fakebackend.h"
#include "storage/conversationstore.h"

namespace {

struct AbortOnExit {
    std::shared_ptr<FakeControl> control;
    ~AbortOnExit() { control->abort = true; }
};

} // namespace

class TestReplyStreams : public QObject {
    Q_OBJECT

    std::shared_ptr<FakeControl> m_control;
    QTemporaryDir m_dir;
    int m_dbs = 0;

    // A model file of 10 bytes (the fake card's size).
    QString file(const QString &name)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.exists() && f.open(QIODevice::WriteOnly))
            f.write("GGUFGGUFGG");
        return path;
    }

    QString newDatabase() { return m_dir.filePath(QStringLiteral("burrow%1.db").arg(++m_dbs)); }

    bool load(ChatController &chat, const QString &name)
    {
        QSignalSpy finished(&chat, &ChatController::loadFinished);
        chat.models()->openFile(file(name), false);
        return finished.wait(10000) && finished.first().first().toBool();
    }

    // Sends and lets every piece through; waits for the end.
    bool sendAll(ChatController &chat, const QString &text)
    {
        QSignalSpy finished(&chat, &ChatController::replyFinished);
        if (!chat.send(text))
            return false;
        m_control->release(int(m_control->pieces.size()));
        return finished.wait(10000);
    }

    // The stored reply `messageId` as another reader of the file sees it.
    static QPair<QString, QString> storedReply(const QString &db, qint64 messageId)
    {
        QPair<QString, QString> out;
        {
            QSqlDatabase reader = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("reader"));
            reader.setDatabaseName(db);
            reader.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
            if (reader.open()) {
                QSqlQuery q(reader);
                q.prepare(QStringLiteral("SELECT content, state FROM messages WHERE id = ?"));
                q.addBindValue(messageId);
                if (q.exec() && q.next())
                    out = {q.value(0).toString(), q.value(1).toString()};
            }
        }
        QSqlDatabase::removeDatabase(QStringLiteral("reader"));
        return out;
    }

private Q_SLOTS:
    void init()
    {
        m_control = std::make_shared<FakeControl>();
        EngineBridge::setBackendFactory(fakeFactory(m_control));
    }

    void cleanup()
    {
        m_control->abort = true;
        EngineBridge::resetBackendFactory();
    }

    void deletingAStreamingChatStopsItsReplyFirst()
    {
        const QString db = newDatabase();
        ChatController chat;
        AbortOnExit guard{m_control};
        QVERIFY(chat.startPersistence(db));
        QVERIFY(load(chat, QStringLiteral("good.gguf")));
        QVERIFY(chat.send(QStringLiteral("Tell me")));
        const qint64 id = qint64(chat.conversationId());
        m_control->release(2);
        QTRY_COMPARE(chat.messages()->message(1).text, QStringLiteral("Once upon"));
        const qint64 replyId = chat.messages()->message(1).id;
        QVERIFY(replyId > 0);
        QSignalSpy finished(&chat, &ChatController::replyFinished);
        // The sidebar's Delete.
        QVERIFY(chat.store()->remove(id));
        // Stopped before the chat went: at once, with its text so far.
        QCOMPARE(finished.count(), 1);
        QVERIFY(!chat.isGenerating());
        QVERIFY(chat.generatingIds().isEmpty());
        QCOMPARE(storedReply(db, replyId), qMakePair(QStringLiteral("Once upon"), QStringLiteral("stopped")));
        // What the engine still computes goes nowhere.
        m_control->release(3);
        QTest::qWait(300);
        QCOMPARE(storedReply(db, replyId), qMakePair(QStringLiteral("Once upon"), QStringLiteral("stopped")));
        QTRY_COMPARE(m_control->generateCalls.load(), 1);
        // Undo brings the chat back with its stopped reply.
        QVERIFY(chat.store()->undoRemove(id));
        QVERIFY(chat.openConversation(double(id)));
        QCOMPARE(chat.messages()->message(1).state, Chat::State::Stopped);
        QCOMPARE(chat.messages()->message(1).text, QStringLiteral("Once upon"));
        // And the engine is free for the next reply.
        QVERIFY(sendAll(chat, QStringLiteral("Again")));
        QCOMPARE(chat.messages()->message(3).state, Chat::State::Complete);
    }

    void restartOpensTheChatShownLast()
    {
        const QString db = newDatabase();
        qint64 shown = -1;
        {
            ChatController chat;
            QVERIFY(chat.startPersistence(db));
            QVERIFY(load(chat, QStringLiteral("good.gguf")));
            QVERIFY(sendAll(chat, QStringLiteral("first chat")));
            shown = qint64(chat.conversationId());
            QVERIFY(chat.newConversation() > 0);
            QVERIFY(sendAll(chat, QStringLiteral("second chat")));   // updated last
            QVERIFY(chat.openConversation(double(shown)));          // shown last
        }
        ChatController again;
        QVERIFY(again.startPersistence(db));
        QCOMPARE(qint64(again.conversationId()), shown);
        QCOMPARE(again.messages()->message(0).text, QStringLiteral("first chat"));
    }

    // The fake's prompt is 4 tokens a message; its reply 5 tokens.
    void aChatOpenedAgainShowsItsContext()
    {
        const QString db = newDatabase();
        ChatController chat;
        QVERIFY(chat.startPersistence(db));
        QVERIFY(load(chat, QStringLiteral("good.gguf")));
        QVERIFY(sendAll(chat, QStringLiteral("Tell me")));
        const qint64 first = qint64(chat.conversationId());
        QCOMPARE(chat.reply()->contextUsed(), 4 + 5);
        QVERIFY(chat.newConversation() > 0);
        QCOMPARE(chat.reply()->contextUsed(), 0);
        QVERIFY(chat.openConversation(double(first)));
        QCOMPARE(chat.reply()->contextUsed(), 4 + 5);
    }

    void aFullContextIsMarked()
    {
        const QString db = newDatabase();
        m_control->endWith = GenerationOutcome::Stop::ContextFull;
        qint64 replyId = -1;
        {
            ChatController chat;
            QVERIFY(chat.startPersistence(db));
            QVERIFY(load(chat, QStringLiteral("good.gguf")));
            QVERIFY(sendAll(chat, QStringLiteral("Tell me")));
            const MessageModel::Message reply = chat.messages()->message(1);
            QCOMPARE(reply.state, Chat::State::Complete);
            QVERIFY(reply.contextFull);
            const QModelIndex row = chat.messages()->index(1);
            QCOMPARE(chat.messages()->data(row, MessageModel::ContextFullRole).toBool(), true);
            QCOMPARE(chat.messages()->data(chat.messages()->index(0), MessageModel::ContextFullRole).toBool(), false);
            replyId = reply.id;
            QVERIFY(chat.store()->message(replyId).contextFull);
        }
        ChatController again;
        QVERIFY(again.startPersistence(db));
        QVERIFY(again.messages()->message(1).contextFull);
        // A reply that ends by itself is not marked.
        m_control->endWith = GenerationOutcome::Stop::EndOfText;
        QVERIFY(load(again, QStringLiteral("good.gguf")));
        QVERIFY(sendAll(again, QStringLiteral("More")));
        QVERIFY(!again.messages()->message(3).contextFull);
        QVERIFY(!again.store()->message(again.messages()->message(3).id).contextFull);
    }

    // The fake model is trained for 256 positions: a fresh chat (Automatic)
    // gets 256, shows no error, and its reply's details say 256.
    void aFreshChatGetsTheModelsContext()
    {
        const QString db = newDatabase();
        ChatController chat;
        QVERIFY(chat.startPersistence(db));
        QVERIFY(load(chat, QStringLiteral("good.gguf")));
        QCOMPARE(chat.settings()->contextSize(), 0);   // Automatic
        QVERIFY(chat.settings()->isValid());
        QCOMPARE(chat.settings()->error(QStringLiteral("contextSize")), QString());
        QCOMPARE(chat.contextSize(), 256);
        QVERIFY(sendAll(chat, QStringLiteral("Tell me")));
        const MessageRecord reply = chat.store()->message(chat.messages()->message(1).id);
        QCOMPARE(reply.settings.value(QStringLiteral("contextSize")).toInt(), 256);
        QVERIFY2(chat.replyDetails(double(reply.id)).contains(QLatin1String("256")),
                 qPrintable(chat.replyDetails(double(reply.id))));
        // The request asked for Automatic; the backend decided 256.
        QCOMPARE(m_control->requests.last().settings.contextSize, 0);
    }

    void anImportedChatFindsItsModel()
    {
        const QString db = newDatabase();
        ChatController chat;
        QVERIFY(chat.startPersistence(db));
        ConversationStore *store = chat.store();
        // As an import writes it: the file name and size of the model, not a path.
        const qint64 imported = store->createConversation(QStringLiteral("imported"), QStringLiteral("good-import.gguf"), 10);
        store->appendMessage(imported, Chat::Role::User, QStringLiteral("hello"));
        const qint64 missing = store->createConversation(QStringLiteral("missing"), QStringLiteral("good-elsewhere.gguf"), 10);
        store->appendMessage(missing, Chat::Role::User, QStringLiteral("hello"));
        QVERIFY(chat.newConversation() > 0);   // the loads below are this chat's

        // The loaded model is the same file (name and size): no offer.
        QVERIFY(load(chat, QStringLiteral("good-import.gguf")));
        QVERIFY(chat.openConversation(double(imported)));
        QCOMPARE(chat.conversation()->otherModelPath(), QString());

        // Another model loaded (in another chat: a load is the shown chat's
        // model from then on): the chat's is found (a recent model) and loads.
        QVERIFY(chat.newConversation() > 0);
        QVERIFY(load(chat, QStringLiteral("good-other.gguf")));
        QVERIFY(chat.openConversation(double(imported)));
        QVERIFY(chat.conversation()->otherModelFound());
        QCOMPARE(chat.conversation()->otherModelPath(), file(QStringLiteral("good-import.gguf")));
        QSignalSpy finished(&chat, &ChatController::loadFinished);
        chat.loadConversationModel();
        QVERIFY(finished.wait(10000));
        QVERIFY(finished.first().first().toBool());
        QCOMPARE(chat.models()->model().path, file(QStringLiteral("good-import.gguf")));
        QCOMPARE(chat.banner(), QString());

        // Not on this computer: named, not offered for loading.
        QVERIFY(chat.openConversation(double(missing)));
        QVERIFY(!chat.conversation()->otherModelFound());
        QCOMPARE(chat.conversation()->otherModelName(), QStringLiteral("good-elsewhere.gguf"));
        const int loads = m_control->loads;
        chat.loadConversationModel();
        QTest::qWait(100);
        QCOMPARE(m_control->loads.load(), loads);
        QCOMPARE(chat.banner(), QString());
    }
};

QTEST_MAIN(TestReplyStreams)
#include "tst_replystreams.moc"
