// Compressed models dropped on the real window: unpacked by burrow-archive
// into the models folder, then shown on the model card and loaded like any
// dropped .gguf; a hostile archive is refused with its reason and the loaded
// model stays. `burrow ARCHIVE` on the command line takes the same path
// (told by content, not name), then loads the model without asking.
#include "apptestsupport.h"
#include "storage/datafolder.h"
#include "archive/archiveservice.h"

#include <QDir>
#include <QDirIterator>
#include <QProcess>
#include <QStandardPaths>

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

QString compressTo(const QString &source, const QString &tool, const QString &out)
{
    QProcess p;
    p.setStandardInputFile(source);
    p.setStandardOutputFile(out);
    p.start(tool, {QStringLiteral("-c")});
    return p.waitForFinished(60000) && p.exitCode() == 0 ? out : QString();
}

// Every .gguf under `dir`.
QStringList modelsUnder(const QString &dir)
{
    QStringList found;
    QDirIterator it(dir, {QStringLiteral("*.gguf")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        found << it.next();
    return found;
}

} // namespace

class TestArchiveDrop : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        qputenv("BURROW_ARCHIVE_HELPER", BURROW_BINARY_DIR "/app/burrow-archive");
    }

    void droppedCompressedModelIsUnpackedAndLoaded()
    {
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        QTemporaryDir tmp;
        const QString archive = compressTo(sharedPath(QStringLiteral("models/stories260K.gguf")), QStringLiteral("zstd"),
                                           tmp.filePath(QStringLiteral("stories260K.gguf.zst")));
        QVERIFY(!archive.isEmpty());

        AppWindow app;
        QVERIFY(app.open());
        auto *archives = app.chat->archives();
        QVERIFY(archives);
        QCOMPARE(archives->store(), app.chat->store());   // exports see the app's conversations

        const QString overlay = dropFile(app.window, archive);
        QCOMPARE(overlay, QStringLiteral("Drop to open this model"));
        QSignalSpy finished(archives, &ArchiveService::finished);
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));

        // The unpacked file is in the models folder and comes up on the card.
        const QString unpacked = DataFolder::path() + QStringLiteral("/models/stories260K.gguf");
        QVERIFY(QFileInfo::exists(unpacked));
        QTRY_VERIFY_WITH_TIMEOUT(app.chat->models()->pendingCard().isValid(), 20000);
        QCOMPARE(QFileInfo(app.chat->models()->pendingCard().path).canonicalFilePath(), QFileInfo(unpacked).canonicalFilePath());
        app.chat->models()->loadPending();
        QTRY_VERIFY_WITH_TIMEOUT(app.chat->hasModel(), 30000);
    }

    // `burrow PATH`: how PATH is made, its name, and whether Burrow unpacks it
    // (else the file itself is loaded).
    void commandLineCompressedModel_data()
    {
        QTest::addColumn<QString>("kind");   // zstd | zip | plain
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("unpackedAs");   // in the models folder; empty: not unpacked
        QTest::newRow("gguf.zst") << "zstd" << "stories260K.gguf.zst" << "stories260K.gguf";
        QTest::newRow("zip") << "zip" << "model.zip" << "stories260K.gguf";
        QTest::newRow("zstd named .bin") << "zstd" << "download.bin" << "download.gguf";
        QTest::newRow("plain gguf named .zst") << "plain" << "stories260K.gguf.zst" << "";
    }
    void commandLineCompressedModel()
    {
        QFETCH(QString, kind);
        QFETCH(QString, name);
        QFETCH(QString, unpackedAs);
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        const QString model = sharedPath(QStringLiteral("models/stories260K.gguf"));
        QTemporaryDir tmp;
        const QString path = tmp.filePath(name);
        if (kind == QLatin1String("zstd")) {
            QVERIFY(!compressTo(model, QStringLiteral("zstd"), path).isEmpty());
        } else if (kind == QLatin1String("zip")) {
            QVERIFY(QDir(tmp.path()).mkdir(QStringLiteral("src")));
            QVERIFY(QFile::copy(model, tmp.filePath(QStringLiteral("src/stories260K.gguf"))));
            QProcess zip;
            zip.start(QStringLiteral(BURROW_BINARY_DIR "/app/burrow-archive"),
                      {QStringLiteral("create"), QStringLiteral("--format"), QStringLiteral("zip"), path,
                       tmp.filePath(QStringLiteral("src"))});
            QVERIFY(zip.waitForFinished(60000));
            QCOMPARE(zip.exitCode(), 0);
        } else {
            QVERIFY(QFile::copy(model, path));
        }

        // Its own data folder: the models folder starts empty.
        const QString data = tmp.filePath(QStringLiteral("data"));
        QProcess app;
        app.setProcessChannelMode(QProcess::MergedChannels);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_DATA_HOME"), data);
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), tmp.filePath(QStringLiteral("config")));
        app.setProcessEnvironment(env);
        app.start(QStringLiteral(BURROW_BINARY_DIR "/app/burrow"), {path});
        QVERIFY(app.waitForStarted(10000));
        QByteArray output;
        QTRY_VERIFY2_WITH_TIMEOUT((output += app.readAll()).contains("burrow.app: loaded"), output.constData(), 60000);
        app.terminate();
        QVERIFY(app.waitForFinished(10000));

        const QStringList inModels = modelsUnder(data);
        if (!unpackedAs.isEmpty()) {
            QVERIFY2(output.contains("burrow-archive"), output.constData());
            QCOMPARE(inModels.size(), 1);
            QVERIFY2(inModels.first().endsWith(QStringLiteral("/models/") + unpackedAs), qPrintable(inModels.first()));
            QCOMPARE(QFileInfo(inModels.first()).size(), QFileInfo(model).size());
            QVERIFY2(output.contains("loaded \"" + inModels.first().toUtf8() + '"'), output.constData());
        } else {
            QVERIFY2(!output.contains("burrow-archive"), output.constData());
            QVERIFY(inModels.isEmpty());
            QVERIFY2(output.contains("loaded \"" + QFileInfo(path).absoluteFilePath().toUtf8() + '"'), output.constData());
        }
        // Straight in: no model card waiting for a click.
        QVERIFY2(!output.contains("card"), output.constData());
    }

    void hostileArchiveIsRefusedInWords()
    {
        QTemporaryDir tmp;
        // A tar whose only entry climbs out of the destination.
        QByteArray header(512, '\0');
        header.replace(0, 12, "../evil.gguf");
        header.replace(100, 8, "0000644\0");
        header.replace(124, 12, "00000000000\0");
        header.replace(148, 8, "        ");
        header[156] = '0';
        header.replace(257, 8, QByteArray("ustar\0" "00", 8));
        unsigned sum = 0;
        for (char c : header)
            sum += static_cast<unsigned char>(c);
        header.replace(148, 8, QByteArray::number(sum, 8).rightJustified(6, '0') + '\0' + ' ');
        QFile tar(tmp.filePath(QStringLiteral("evil.tar")));
        QVERIFY(tar.open(QIODevice::WriteOnly));
        tar.write(header + QByteArray(1024, '\0'));
        tar.close();
        const QString archive = compressTo(tar.fileName(), QStringLiteral("gzip"), tmp.filePath(QStringLiteral("model.tar.gz")));
        QVERIFY(!archive.isEmpty());

        AppWindow app;
        QVERIFY(app.open());
        auto *archives = app.chat->archives();
        QSignalSpy finished(archives, &ArchiveService::finished);
        dropFile(app.window, archive);
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).toBool(), false);
        const QString message = finished.first().at(1).toString();
        QVERIFY2(message.contains(QStringLiteral("model.tar.gz was not unpacked")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("outside the destination")), qPrintable(message));
        auto *bar = app.find<QQuickItem>(QStringLiteral("archiveBar"));
        QVERIFY(bar);
        QTRY_VERIFY(bar->isVisible());
        QCOMPARE(bar->property("message").toString(), message);
        QVERIFY(!QFileInfo::exists(DataFolder::path() + QStringLiteral("/evil.gguf")));
    }
};

QTEST_MAIN(TestArchiveDrop)
#include "tst_archivedrop.moc"
