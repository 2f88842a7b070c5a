// ArchiveService: conversation bundles through the real burrow-archive,
// compressed model import, and the errors a user can meet (missing or crashing
// helper, invalid bundles, cancel).
#include "archive/archiveservice.h"
#include "archive/conversationbundle.h"
#include "storage/conversationstore.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kHelper = QStringLiteral(BURROW_BINARY_DIR "/app/burrow-archive");

struct Outcome {
    bool ok = false;
    QString message;
};

Outcome waitForFinished(ArchiveService &service, QSignalSpy &spy)
{
    if (spy.isEmpty() && !spy.wait(60000))
        return {false, QStringLiteral("(timed out)")};
    const QList<QVariant> args = spy.takeFirst();
    return {args.at(0).toBool(), args.at(1).toString()};
}

QByteArray sha256(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(&f);
    return h.result();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// A zip of `folder` made by the real helper (for hand-made bundles).
bool zipFolder(const QString &folder, const QString &out)
{
    QProcess p;
    p.start(kHelper, {QStringLiteral("create"), QStringLiteral("--format"), QStringLiteral("zip"), out, folder});
    return p.waitForFinished(60000) && p.exitCode() == 0;
}

QString script(const QTemporaryDir &dir, const QString &name, const QByteArray &body)
{
    const QString path = dir.filePath(name);
    writeFile(path, "#!/bin/sh\n" + body + "\n");
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

} // namespace

class TestArchiveService : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kHelper).isExecutable(), "burrow-archive was not built");
    }

    void exportImportRoundTrip()
    {
        QTemporaryDir tmp;
        ConversationStore source;
        source.setDatabasePath(tmp.filePath(QStringLiteral("a.db")));
        QVERIFY(source.open());
        const QJsonObject settings{{QStringLiteral("temperature"), 0.2}, {QStringLiteral("systemPrompt"), QStringLiteral("Be brief.")}};
        const qint64 first = source.createConversation(QString(), QStringLiteral("/models/tiny.gguf"), 1185376, settings);
        QVERIFY(source.appendMessage(first, Chat::Role::User, QStringLiteral("讲个故事 please")) > 0);
        const qint64 reply = source.beginReply(first, QStringLiteral("tiny.gguf"), settings);
        QVERIFY(source.finishReply(reply, QStringLiteral("Once upon a time 🐇 …"), Chat::State::Stopped, 12, 34, 56.5));
        const qint64 second = source.createConversation(QStringLiteral("Code"), QString(), 0, {});
        QVERIFY(source.appendMessage(second, Chat::Role::User, QStringLiteral("```\nint x;\n```")) > 0);

        ArchiveService service;
        service.setHelperPath(kHelper);
        service.setStore(&source);
        QSignalSpy done(&service, &ArchiveService::finished);
        const QString bundle = tmp.filePath(QStringLiteral("chats.zip"));
        QVERIFY(service.exportConversations({}, bundle));
        const Outcome exported = waitForFinished(service, done);
        QVERIFY2(exported.ok, qPrintable(exported.message));
        QVERIFY(QFileInfo(bundle).size() > 0);
        QVERIFY(!service.isBusy());

        // The bundle holds conversations.json and one transcript per conversation.
        QProcess list;
        list.start(kHelper, {QStringLiteral("list"), bundle});
        QVERIFY(list.waitForFinished(30000));
        const QByteArray listing = list.readAllStandardOutput();
        QVERIFY(listing.contains("conversations.json"));
        QCOMPARE(listing.count("\"name\":\"transcripts/"), 2);   // one Markdown transcript per conversation
        QCOMPARE(listing.count(".md\""), 2);

        ConversationStore target;
        target.setDatabasePath(tmp.filePath(QStringLiteral("b.db")));
        QVERIFY(target.open());
        service.setStore(&target);
        QVERIFY(service.importConversations(bundle));
        const Outcome imported = waitForFinished(service, done);
        QVERIFY2(imported.ok, qPrintable(imported.message));
        QVERIFY2(imported.message.contains(QStringLiteral("2")), qPrintable(imported.message));

        const QVector<ConversationRecord> before = source.conversations();
        const QVector<ConversationRecord> after = target.conversations();
        QCOMPARE(after.size(), before.size());
        for (const ConversationRecord &original : before) {
            const QVector<MessageRecord> want = source.messages(original.id);
            bool found = false;
            for (const ConversationRecord &copy : after) {
                const QVector<MessageRecord> got = target.messages(copy.id);
                if (ConversationBundle::fingerprint(got) != ConversationBundle::fingerprint(want))
                    continue;
                found = true;
                QCOMPARE(copy.title, original.title);
                QCOMPARE(copy.settings, original.settings);
                QCOMPARE(QFileInfo(copy.modelPath).fileName(), QFileInfo(original.modelPath).fileName());
                QCOMPARE(copy.modelSize, original.modelSize);
                QCOMPARE(got.size(), want.size());
                for (int i = 0; i < got.size(); ++i) {
                    QCOMPARE(got[i].role, want[i].role);
                    QCOMPARE(got[i].content, want[i].content);
                    QCOMPARE(got[i].state, want[i].state);
                    QCOMPARE(got[i].generatedTokens, want[i].generatedTokens);
                    QCOMPARE(got[i].tokensPerSecond, want[i].tokensPerSecond);
                }
            }
            QVERIFY2(found, qPrintable(original.title));
        }

        // The same bundle again adds nothing.
        QVERIFY(service.importConversations(bundle));
        const Outcome again = waitForFinished(service, done);
        QVERIFY2(again.ok, qPrintable(again.message));
        QCOMPARE(target.conversations().size(), before.size());
        QVERIFY2(again.message.contains(QStringLiteral("skipped")), qPrintable(again.message));
    }

    void invalidBundles_data()
    {
        QTest::addColumn<QByteArray>("json");   // empty: no conversations.json at all
        QTest::addColumn<QString>("expected");
        QTest::newRow("no conversations.json") << QByteArray() << "not a Burrow export";
        QTest::newRow("not JSON") << QByteArray("{\"format\": ") << "not valid JSON";
        QTest::newRow("other format") << QByteArray("{\"format\":\"chatgpt\",\"version\":1,\"conversations\":[]}") << "not a Burrow conversation export";
        QTest::newRow("newer version") << QByteArray("{\"format\":\"burrow-conversations\",\"version\":99,\"conversations\":[]}") << "newer Burrow";
        QTest::newRow("bad role") << QByteArray("{\"format\":\"burrow-conversations\",\"version\":1,\"conversations\":"
                                                "[{\"title\":\"x\",\"messages\":[{\"role\":\"hacker\",\"content\":\"hi\"}]}]}") << "unknown role";
        QTest::newRow("content not text") << QByteArray("{\"format\":\"burrow-conversations\",\"version\":1,\"conversations\":"
                                                        "[{\"title\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":5}]}]}") << "not text";
    }
    void invalidBundles()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        const QString folder = tmp.filePath(QStringLiteral("bundle"));
        QDir().mkpath(folder);
        QVERIFY(writeFile(folder + (json.isEmpty() ? QStringLiteral("/readme.txt") : QStringLiteral("/conversations.json")),
                          json.isEmpty() ? QByteArray("hello") : json));
        const QString zip = tmp.filePath(QStringLiteral("bundle.zip"));
        QVERIFY(zipFolder(folder, zip));

        ConversationStore store;
        store.setDatabasePath(tmp.filePath(QStringLiteral("s.db")));
        QVERIFY(store.open());
        ArchiveService service;
        service.setHelperPath(kHelper);
        service.setStore(&store);
        QSignalSpy done(&service, &ArchiveService::finished);
        QVERIFY(service.importConversations(zip));
        const Outcome outcome = waitForFinished(service, done);
        QVERIFY(!outcome.ok);
        QVERIFY2(outcome.message.contains(expected), qPrintable(outcome.message));
        QCOMPARE(store.conversations().size(), 0);
    }

    void hostileArchiveIsReportedInWords()
    {
        QTemporaryDir tmp;
        const QString notZip = tmp.filePath(QStringLiteral("chats.zip"));
        QVERIFY(writeFile(notZip, "this is not a zip file at all"));
        ConversationStore store;
        store.setDatabasePath(tmp.filePath(QStringLiteral("s.db")));
        QVERIFY(store.open());
        ArchiveService service;
        service.setHelperPath(kHelper);
        service.setStore(&store);
        QSignalSpy done(&service, &ArchiveService::finished);
        QVERIFY(service.importConversations(notZip));
        const Outcome outcome = waitForFinished(service, done);
        QVERIFY(!outcome.ok);
        QVERIFY2(outcome.message.contains(QStringLiteral("chats.zip was not imported")), qPrintable(outcome.message));
        QVERIFY2(outcome.message.contains(QStringLiteral("not an archive")), qPrintable(outcome.message));
    }

    void missingHelper()
    {
        QTemporaryDir tmp;
        ArchiveService service;
        service.setHelperPath(tmp.filePath(QStringLiteral("no-such-helper")));
        QSignalSpy done(&service, &ArchiveService::finished);
        const QString archive = tmp.filePath(QStringLiteral("m.gguf.gz"));
        QVERIFY(writeFile(archive, "x"));
        service.setModelsFolder(tmp.filePath(QStringLiteral("models")));
        QVERIFY(!service.importModel(archive));
        const Outcome outcome = waitForFinished(service, done);
        QVERIFY(!outcome.ok);
        QVERIFY2(outcome.message.contains(QStringLiteral("is missing")), qPrintable(outcome.message));
        QVERIFY(!service.isBusy());
    }

    void crashingHelper()
    {
        QTemporaryDir tmp;
        ArchiveService service;
        service.setHelperPath(script(tmp, QStringLiteral("crash.sh"), "kill -SEGV $$"));
        service.setModelsFolder(tmp.filePath(QStringLiteral("models")));
        QSignalSpy done(&service, &ArchiveService::finished);
        const QString archive = tmp.filePath(QStringLiteral("m.gguf.gz"));
        QVERIFY(writeFile(archive, "x"));
        QVERIFY(service.importModel(archive));
        const Outcome outcome = waitForFinished(service, done);
        QVERIFY(!outcome.ok);
        QVERIFY2(outcome.message.contains(QStringLiteral("stopped unexpectedly")), qPrintable(outcome.message));
        // Nothing left in the models folder.
        QCOMPARE(QDir(tmp.filePath(QStringLiteral("models"))).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).size(), 0);
    }

    void cancelStopsTheJob()
    {
        QTemporaryDir tmp;
        ArchiveService service;
        service.setHelperPath(script(tmp, QStringLiteral("slow.sh"), "trap 'exit 1' TERM\nsleep 30 &\nwait"));
        service.setModelsFolder(tmp.filePath(QStringLiteral("models")));
        QSignalSpy done(&service, &ArchiveService::finished);
        const QString archive = tmp.filePath(QStringLiteral("m.tar.zst"));
        QVERIFY(writeFile(archive, "x"));
        QVERIFY(service.importModel(archive));
        QVERIFY(service.isBusy());
        QTest::qWait(200);
        service.cancel();
        const Outcome outcome = waitForFinished(service, done);
        QVERIFY(!outcome.ok);
        QVERIFY2(outcome.message.startsWith(QStringLiteral("Cancelled")), qPrintable(outcome.message));
        QCOMPARE(QDir(tmp.filePath(QStringLiteral("models"))).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).size(), 0);
    }

    void compressedModel_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("suffix");
        QTest::newRow("zstd") << "zstd" << ".gguf.zst";
        QTest::newRow("gzip") << "gzip" << ".gguf.gz";
        QTest::newRow("xz") << "xz" << ".gguf.xz";
    }
    void compressedModel()
    {
        QFETCH(QString, tool);
        QFETCH(QString, suffix);
        const QString model = QStringLiteral(BURROW_SHARED_DIR "/models/stories260K.gguf");
        if (!QFileInfo::exists(model))
            QSKIP("fixture ../shared/models/stories260K.gguf is absent; skipping");
        QTemporaryDir tmp;
        const QString archive = tmp.filePath(QStringLiteral("stories260K") + suffix);
        QProcess compress;
        compress.setStandardInputFile(model);
        compress.setStandardOutputFile(archive);
        compress.start(tool, {QStringLiteral("-c")});
        QVERIFY(compress.waitForFinished(60000));
        QCOMPARE(compress.exitCode(), 0);

        ArchiveService service;
        service.setHelperPath(kHelper);
        service.setModelsFolder(tmp.filePath(QStringLiteral("models")));
        QSignalSpy done(&service, &ArchiveService::finished);
        QSignalSpy ready(&service, &ArchiveService::modelReady);
        QVERIFY(ArchiveService::isArchiveName(archive));
        QVERIFY(service.importModel(archive));
        const Outcome outcome = waitForFinished(service, done);
        QVERIFY2(outcome.ok, qPrintable(outcome.message));
        QCOMPARE(ready.size(), 1);
        const QString path = ready.first().first().toString();
        QCOMPARE(QFileInfo(path).fileName(), QStringLiteral("stories260K.gguf"));
        QCOMPARE(sha256(path), sha256(model));
        QCOMPARE(QDir(tmp.filePath(QStringLiteral("models"))).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList{QStringLiteral("stories260K.gguf")});

        // Unpacking it again reuses the file that is there.
        QVERIFY(service.importModel(archive));
        const Outcome again = waitForFinished(service, done);
        QVERIFY2(again.ok, qPrintable(again.message));
        QCOMPARE(ready.size(), 2);
        QCOMPARE(ready.last().first().toString(), path);
    }

    void archiveNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("archive");
        QTest::newRow("gguf") << "model.gguf" << false;
        QTest::newRow("zip") << "Model.ZIP" << true;
        QTest::newRow("gguf.zst") << "m.gguf.zst" << true;
        QTest::newRow("tar.xz") << "m.tar.xz" << true;
        QTest::newRow("txt") << "notes.txt" << false;
    }
    void archiveNames()
    {
        QFETCH(QString, name);
        QFETCH(bool, archive);
        QCOMPARE(ArchiveService::isArchiveName(name), archive);
    }

    // Drops and `burrow PATH` tell a compressed model by its first bytes.
    void archiveFiles_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");   // null: the file does not exist
        QTest::addColumn<bool>("archive");
        QTest::newRow("zip named .txt") << "notes.txt" << QByteArray("PK\x03\x04\x14\x00", 6) << true;
        QTest::newRow("empty zip") << "e.zip" << QByteArray("PK\x05\x06\x00\x00", 6) << true;
        QTest::newRow("gzip without suffix") << "model" << QByteArray("\x1f\x8b\x08\x00", 4) << true;
        QTest::newRow("xz") << "m.bin" << QByteArray("\xfd" "7zXZ\x00\x00", 8) << true;
        QTest::newRow("zstd") << "m.dat" << QByteArray("\x28\xb5\x2f\xfd\x00", 5) << true;
        QTest::newRow("gguf named .zip") << "model.zip" << QByteArray("GGUF\x03\x00\x00\x00", 8) << false;
        QTest::newRow("empty file named .tar.gz") << "m.tar.gz" << QByteArray("") << false;
        QTest::newRow("text named .gguf.xz") << "m.gguf.xz" << QByteArray("hello") << false;
        QTest::newRow("missing .zip: by name") << "gone.zip" << QByteArray() << true;
        QTest::newRow("missing .gguf: by name") << "gone.gguf" << QByteArray() << false;
    }
    void archiveFiles()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QFETCH(bool, archive);
        QTemporaryDir tmp;
        const QString path = tmp.filePath(name);
        if (!content.isNull())
            QVERIFY(writeFile(path, content));
        QCOMPARE(ArchiveService::isArchiveFile(path), archive);
    }
};

QTEST_MAIN(TestArchiveService)
#include "tst_archiveservice.moc"
