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
