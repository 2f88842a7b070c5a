// A chat with a remote model (issue 33) through the export bundle's folder
// side: its provenance (the server's address and the model id) is written
// as model.remote and comes back as the same locator on import; a bundle
// whose remote part is not an http(s) server keeps only the model's name.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "archive/conversationbundle.h"
#include "backend/remoteendpoints.h"
#include "storage/conversationstore.h"

class TestConversationBundle : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void remoteProvenanceRoundTrip()
    {
        QTemporaryDir tmp;
        const QString locator =
            RemoteModelRef{RemoteEndpoints::normalized(QUrl(QStringLiteral("http://gpu-box:8000/v1"))),
                           QStringLiteral("Qwen/Qwen3-32B")}
                .locator();
        ConversationStore source;
        source.setDatabasePath(tmp.filePath(QStringLiteral("a.db")));
        QVERIFY(source.open());
        const qint64 id = source.createConversation(QStringLiteral("Far away"), locator, 0, {});
        QVERIFY(source.appendMessage(id, Chat::Role::User, QStringLiteral("Hello there")) > 0);
        const qint64 reply = source.beginReply(id, QStringLiteral("Qwen/Qwen3-32B"), {});
        QVERIFY(source.finishReply(reply, QStringLiteral("Hi."), Chat::State::Complete, 9, 2, 40.0));

        const QString out = tmp.filePath(QStringLiteral("bundle"));
        QVERIFY(QDir().mkpath(out));
        QString error;
        QVERIFY2(ConversationBundle::writeFolder(source, {}, out, &error), qPrintable(error));
        QFile json(out + QStringLiteral("/conversations.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(json.readAll()).object();
        json.close();
        const QJsonObject model =
            root.value(QLatin1String("conversations")).toArray().first().toObject().value(QLatin1String("model")).toObject();
        QCOMPARE(model.value(QLatin1String("file")).toString(), QStringLiteral("Qwen/Qwen3-32B"));
        QCOMPARE(model.value(QLatin1String("remote")).toObject().value(QLatin1String("endpoint")).toString(),
                 QStringLiteral("http://gpu-box:8000/v1"));
        QCOMPARE(model.value(QLatin1String("remote")).toObject().value(QLatin1String("model")).toString(),
                 QStringLiteral("Qwen/Qwen3-32B"));
        // The transcript names the model by its id, not the locator.
        QDir transcripts(out + QStringLiteral("/transcripts"));
        const QStringList files = transcripts.entryList(QDir::Files);
        QCOMPARE(files.size(), 1);
        QFile md(transcripts.filePath(files.first()));
        QVERIFY(md.open(QIODevice::ReadOnly));
        QVERIFY(md.readAll().contains("Model: Qwen/Qwen3-32B"));

        ConversationStore target;
        target.setDatabasePath(tmp.filePath(QStringLiteral("b.db")));
        QVERIFY(target.open());
        const ConversationBundle::ImportResult imported = ConversationBundle::importFolder(target, out);
        QVERIFY2(imported.ok, qPrintable(imported.error));
        QCOMPARE(imported.added, 1);
        QCOMPARE(target.conversations().first().modelPath, locator);
    }

    // A reply's tool calls (MCP tools: the call, the decision, the result)
    // go into the bundle as its "tools" and come back on import; entries
    // that are not objects are dropped, at most 64 are kept.
    void toolCallsRoundTrip()
    {
        QTemporaryDir tmp;
        ConversationStore source;
        source.setDatabasePath(tmp.filePath(QStringLiteral("a.db")));
        QVERIFY(source.open());
        const qint64 id = source.createConversation(QStringLiteral("Tools"), QStringLiteral("/m/calls.gguf"), 0, {});
        QVERIFY(source.appendMessage(id, Chat::Role::User, QStringLiteral("Say hi")) > 0);
        const qint64 reply = source.beginReply(id, QStringLiteral("calls.gguf"), {});
        QVERIFY(source.finishReply(reply, QString(), Chat::State::Complete, 9, 2, 40.0));
        const QJsonArray tools{QJsonObject{{QStringLiteral("id"), QStringLiteral("call_2_0")},
                                           {QStringLiteral("name"), QStringLiteral("echo")},
                                           {QStringLiteral("arguments"), QStringLiteral("{\"message\":\"hi\"}")},
                                           {QStringLiteral("decision"), QStringLiteral("always")},
                                           {QStringLiteral("state"), QStringLiteral("done")},
                                           {QStringLiteral("result"), QStringLiteral("Echo: hi")}}};
        QVERIFY(source.setTools(reply, tools));
        const qint64 next = source.beginReply(id, QStringLiteral("calls.gguf"), {});
        QVERIFY(source.finishReply(next, QStringLiteral("ok got it"), Chat::State::Complete, 9, 2, 40.0));

        const QString out = tmp.filePath(QStringLiteral("bundle"));
        QVERIFY(QDir().mkpath(out));
        QString error;
        QVERIFY2(ConversationBundle::writeFolder(source, {}, out, &error), qPrintable(error));
        QFile json(out + QStringLiteral("/conversations.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(json.readAll()).object();
        json.close();
        QJsonObject conversation = root.value(QLatin1String("conversations")).toArray().first().toObject();
        QJsonArray messages = conversation.value(QLatin1String("messages")).toArray();
        QCOMPARE(messages.at(1).toObject().value(QLatin1String("tools")).toArray(), tools);
        QVERIFY(!messages.at(2).toObject().contains(QLatin1String("tools")));
        QDir transcripts(out + QStringLiteral("/transcripts"));
        QFile md(transcripts.filePath(transcripts.entryList(QDir::Files).first()));
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QByteArray transcript = md.readAll();
        QVERIFY2(transcript.contains("**Tool call** `echo` `{\"message\":\"hi\"}` (done)\n\n> Echo: hi"), transcript.constData());

        ConversationStore target;
        target.setDatabasePath(tmp.filePath(QStringLiteral("b.db")));
        QVERIFY(target.open());
        const ConversationBundle::ImportResult imported = ConversationBundle::importFolder(target, out);
        QVERIFY2(imported.ok, qPrintable(imported.error));
        QCOMPARE(imported.added, 1);
        const QVector<MessageRecord> back = target.messages(target.conversations().first().id);
        QCOMPARE(back.size(), 3);
        QCOMPARE(back.at(1).tools, tools);
        QVERIFY(back.at(2).tools.isEmpty());

        // A hostile bundle: 70 entries and a few that are not objects.
        QJsonArray many;
        many.append(QStringLiteral("not a call"));
        many.append(42);
        for (int i = 0; i < 70; ++i)
            many.append(QJsonObject{{QStringLiteral("name"), QStringLiteral("t%1").arg(i)}});
        QJsonObject hostile = messages.at(1).toObject();
        hostile.insert(QStringLiteral("tools"), many);
        hostile.insert(QStringLiteral("content"), QStringLiteral("changed, so it is a new chat"));
        messages.replace(1, hostile);
        conversation.insert(QStringLiteral("messages"), messages);
        root.insert(QStringLiteral("conversations"), QJsonArray{conversation});
        QVERIFY(json.open(QIODevice::WriteOnly | QIODevice::Truncate));
        json.write(QJsonDocument(root).toJson());
        json.close();
        const ConversationBundle::ImportResult again = ConversationBundle::importFolder(target, out);
        QVERIFY2(again.ok, qPrintable(again.error));
        QCOMPARE(again.added, 1);
        qint64 newest = -1;
        for (const ConversationRecord &c : target.conversations())
            newest = qMax(newest, c.id);
        const QJsonArray kept = target.messages(newest).at(1).tools;
        QCOMPARE(kept.size(), 64);
        QCOMPARE(kept.first().toObject().value(QLatin1String("name")).toString(), QStringLiteral("t0"));
    }

    void hostileRemotePartKeepsOnlyTheName_data()
    {
        QTest::addColumn<QString>("endpoint");
        QTest::newRow("file") << "file:///etc/passwd";
        QTest::newRow("no host") << "http:///v1";
        QTest::newRow("javascript") << "javascript:alert(1)";
    }
    void hostileRemotePartKeepsOnlyTheName()
    {
        QFETCH(QString, endpoint);
        QTemporaryDir tmp;
        const QJsonObject conversation{
            {QStringLiteral("uid"), QStringLiteral("x")},
            {QStringLiteral("title"), QStringLiteral("t")},
            {QStringLiteral("model"),
             QJsonObject{{QStringLiteral("file"), QStringLiteral("m")},
                         {QStringLiteral("remote"), QJsonObject{{QStringLiteral("endpoint"), endpoint},
                                                                {QStringLiteral("model"), QStringLiteral("m")}}}}},
            {QStringLiteral("messages"),
             QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), QStringLiteral("hi")}}}}};
        const QJsonObject root{{QStringLiteral("format"), QString::fromLatin1(ConversationBundle::FormatName)},
                               {QStringLiteral("version"), ConversationBundle::FormatVersion},
                               {QStringLiteral("conversations"), QJsonArray{conversation}}};
        QFile json(tmp.filePath(QStringLiteral("conversations.json")));
        QVERIFY(json.open(QIODevice::WriteOnly));
        json.write(QJsonDocument(root).toJson());
        json.close();
        ConversationStore store;
        store.setDatabasePath(tmp.filePath(QStringLiteral("s.db")));
        QVERIFY(store.open());
        const ConversationBundle::ImportResult imported = ConversationBundle::importFolder(store, tmp.path());
        QVERIFY2(imported.ok, qPrintable(imported.error));
        const QString path = store.conversations().first().modelPath;
        QCOMPARE(path, QStringLiteral("m"));
        QVERIFY(!RemoteModelRef::isLocator(path));
    }
};

QTEST_MAIN(TestConversationBundle)
#include "tst_conversationbundle.moc"
