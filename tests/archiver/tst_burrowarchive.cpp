// burrow-archive, driven as the app drives it: round trips of every format,
// compressed models, and one hostile archive per safety rule. Each hostile
// archive must be refused with its reason, exit 1, leave the destination as it
// was and write nothing outside it.
#include "test_support.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct RunResult {
    int exitCode = -1;
    QJsonObject result;          // the last JSON line
    QList<QJsonObject> lines;    // every JSON line
};

RunResult runHelper(const QStringList &args)
{
    QProcess helper;
    helper.start(QStringLiteral(BURROW_ARCHIVER_BIN), args);
    RunResult r;
    if (!helper.waitForFinished(120000))
        return r;
    r.exitCode = helper.exitStatus() == QProcess::NormalExit ? helper.exitCode() : -2;
    for (const QByteArray &line : helper.readAllStandardOutput().split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonDocument doc = QJsonDocument::fromJson(line);
        if (doc.isObject())
            r.lines.append(doc.object());
    }
    if (!r.lines.isEmpty())
        r.result = r.lines.last();
    return r;
}

// ---- tar, written by hand -------------------------------------------------

QByteArray octal(qint64 value, int width)
{
    return QByteArray::number(value, 8).rightJustified(width - 1, '0') + '\0';
}

QByteArray tarHeader(const QByteArray &name, char type, qint64 size, const QByteArray &link = {},
                     int mode = 0644)
{
    QByteArray h(512, '\0');
    auto put = [&](int at, const QByteArray &v) { h.replace(at, v.size(), v); };
    put(0, name.left(100));
    put(100, octal(mode, 8));
    put(108, octal(0, 8));
    put(116, octal(0, 8));
    put(124, octal(size, 12));
    put(136, octal(1700000000, 12));
    put(148, QByteArray(8, ' '));
    h[156] = type;
    put(157, link.left(100));
    put(257, QByteArray("ustar\0" "00", 8));
    unsigned sum = 0;
    for (char c : h)
        sum += static_cast<unsigned char>(c);
    put(148, QByteArray::number(sum, 8).rightJustified(6, '0') + '\0' + ' ');
    return h;
}

QByteArray pad512(QByteArray data)
{
    if (data.size() % 512)
        data.append(QByteArray(512 - data.size() % 512, '\0'));
    return data;
}

struct TarItem {
    QByteArray name;
    char type = '0';
    QByteArray data;
    QByteArray link;
};

QByteArray makeTar(const QList<TarItem> &items)
{
    QByteArray tar;
    for (const TarItem &item : items) {
        tar += tarHeader(item.name, item.type, item.data.size(), item.link);
        tar += pad512(item.data);
    }
    tar += QByteArray(1024, '\0');
    return tar;
}

// A pax header record "<len> key=value\n".
QByteArray paxRecord(const QByteArray &key, const QByteArray &value)
{
    const QByteArray body = " " + key + "=" + value + "\n";
    int len = body.size() + 1;
    while (QByteArray::number(len).size() + body.size() != len)
        ++len;
    return QByteArray::number(len) + body;
}

// ---- zip (stored entries), written by hand -----------------------------------

quint32 crc32(const QByteArray &data)
{
    quint32 crc = 0xffffffffu;
    for (char ch : data) {
        crc ^= static_cast<unsigned char>(ch);
        for (int k = 0; k < 8; ++k)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void le16(QByteArray &b, quint16 v) { b.append(char(v & 0xff)).append(char(v >> 8)); }
void le32(QByteArray &b, quint32 v) { le16(b, quint16(v & 0xffff)); le16(b, quint16(v >> 16)); }

struct ZipItem {
    QByteArray name;
    QByteArray data;
    quint32 unixMode = 0100644;   // S_IFREG | 0644
};

QByteArray makeZip(const QList<ZipItem> &items)
{
    QByteArray out, central;
    for (const ZipItem &item : items) {
        const quint32 offset = quint32(out.size());
        const quint32 crc = crc32(item.data);
        le32(out, 0x04034b50); le16(out, 10); le16(out, 0); le16(out, 0); le16(out, 0); le16(out, 0x21);
        le32(out, crc); le32(out, quint32(item.data.size())); le32(out, quint32(item.data.size()));
        le16(out, quint16(item.name.size())); le16(out, 0);
        out += item.name + item.data;
        le32(central, 0x02014b50); le16(central, 0x031e); le16(central, 10); le16(central, 0); le16(central, 0);
        le16(central, 0); le16(central, 0x21); le32(central, crc); le32(central, quint32(item.data.size()));
        le32(central, quint32(item.data.size())); le16(central, quint16(item.name.size())); le16(central, 0);
        le16(central, 0); le16(central, 0); le16(central, 0); le32(central, item.unixMode << 16); le32(central, offset);
        central += item.name;
    }
    const quint32 centralOffset = quint32(out.size());
    out += central;
    le32(out, 0x06054b50); le16(out, 0); le16(out, 0); le16(out, quint16(items.size())); le16(out, quint16(items.size()));
    le32(out, quint32(central.size())); le32(out, centralOffset); le16(out, 0);
    return out;
}

QByteArray compress(const QByteArray &data, const QString &tool)
{
    QProcess p;
    p.start(tool, {QStringLiteral("-c")});
    p.waitForStarted();
    p.write(data);
    p.closeWriteChannel();
    p.waitForFinished(120000);
    return p.readAllStandardOutput();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QStringList tree(const QString &dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext())
        out.append(QDir(dir).relativeFilePath(it.next()));
    out.sort();
    return out;
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

} // namespace

class TestBurrowArchive : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(QStringLiteral(BURROW_ARCHIVER_BIN)).isExecutable(), "burrow-archive was not built");
        for (const char *tool : {"gzip", "xz", "zstd"})
            QVERIFY2(!QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty(),
                     qPrintable(QStringLiteral("%1 is needed to build test archives (scripts/packages.txt)").arg(QLatin1String(tool))));
    }

    void roundTrip_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("zip") << "zip";
        QTest::newRow("tar.gz") << "tar.gz";
        QTest::newRow("tar.xz") << "tar.xz";
        QTest::newRow("tar.zst") << "tar.zst";
    }
    void roundTrip()
    {
        QFETCH(QString, format);
        QTemporaryDir tmp;
        const QString src = tmp.filePath(QStringLiteral("src"));
        QDir().mkpath(src + QStringLiteral("/notes/深い"));
        QVERIFY(writeFile(src + QStringLiteral("/conversations.json"), "{\"version\": 1}"));
        QVERIFY(writeFile(src + QStringLiteral("/notes/深い/chat 1.md"), QByteArray("# Hello\n\n") + QByteArray(200000, 'x')));
        const QString archive = tmp.filePath(QStringLiteral("bundle.") + format);
        RunResult created = runHelper({QStringLiteral("create"), QStringLiteral("--format"), format, archive, src});
        QCOMPARE(created.exitCode, 0);
        QCOMPARE(created.result.value(QStringLiteral("ok")).toBool(), true);
        QVERIFY(!QFile::exists(archive + QStringLiteral(".part")));

        // The format is detected from content: rename it to something misleading.
        const QString disguised = tmp.filePath(QStringLiteral("bundle.bin"));
        QVERIFY(QFile::rename(archive, disguised));
        RunResult listed = runHelper({QStringLiteral("list"), disguised});
        QCOMPARE(listed.exitCode, 0);
        QCOMPARE(listed.result.value(QStringLiteral("format")).toString(), format);

        const QString dest = tmp.filePath(QStringLiteral("dest"));
        RunResult extracted = runHelper({QStringLiteral("extract"), disguised, dest});
        QCOMPARE(extracted.exitCode, 0);
        QCOMPARE(tree(dest), tree(src));
        QCOMPARE(sha256(dest + QStringLiteral("/notes/深い/chat 1.md")), sha256(src + QStringLiteral("/notes/深い/chat 1.md")));
        QCOMPARE(sha256(dest + QStringLiteral("/conversations.json")), sha256(src + QStringLiteral("/conversations.json")));
    }

    void compressedModel_data()
    {
        QTest::addColumn<QString>("kind");
        for (const char *k : {"gguf.gz", "gguf.xz", "gguf.zst", "zip", "tar.gz", "tar.xz", "tar.zst"})
            QTest::newRow(k) << QString::fromLatin1(k);
    }
    void compressedModel()
    {
        QFETCH(QString, kind);
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        const QString model = burrow::test::sharedPath(QStringLiteral("models/stories260K.gguf"));
        QTemporaryDir tmp;
        QFile in(model);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        QString archive;
        if (kind.startsWith(QLatin1String("gguf."))) {
            const QString tool = kind.endsWith(QLatin1String("gz")) ? QStringLiteral("gzip")
                               : kind.endsWith(QLatin1String("xz")) ? QStringLiteral("xz") : QStringLiteral("zstd");
            archive = tmp.filePath(QStringLiteral("stories260K.") + kind);
            QVERIFY(writeFile(archive, compress(bytes, tool)));
        } else {
            const QString src = tmp.filePath(QStringLiteral("src"));
            QDir().mkpath(src);
            QVERIFY(QFile::copy(model, src + QStringLiteral("/stories260K.gguf")));
            archive = tmp.filePath(QStringLiteral("model.") + kind);
            QCOMPARE(runHelper({QStringLiteral("create"), QStringLiteral("--format"), kind, archive, src}).exitCode, 0);
        }
        const QString dest = tmp.filePath(QStringLiteral("models"));
        RunResult r = runHelper({QStringLiteral("extract"), archive, dest});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(sha256(dest + QStringLiteral("/stories260K.gguf")), sha256(model));
        bool sawProgress = false;
        for (const QJsonObject &line : r.lines)
            sawProgress |= line.value(QStringLiteral("event")).toString() == QLatin1String("progress");
        QVERIFY(sawProgress);
    }

    void hostile_data()
    {
        QTest::addColumn<QByteArray>("archive");
        QTest::addColumn<QStringList>("extraArgs");
        QTest::addColumn<QString>("expected");   // substring of the refusal message

        const QByteArray hello = "hello";
        QTest::newRow("tar dot-dot") << makeTar({{"../evil.txt", '0', hello, {}}}) << QStringList() << "outside the destination";
        QTest::newRow("tar nested dot-dot") << makeTar({{"a/../../evil.txt", '0', hello, {}}}) << QStringList() << "outside the destination";
        QTest::newRow("tar absolute") << makeTar({{"/tmp/evil.txt", '0', hello, {}}}) << QStringList() << "absolute path";
        QTest::newRow("tar drive letter") << makeTar({{"C:/evil.txt", '0', hello, {}}}) << QStringList() << "drive letter";
        QTest::newRow("tar backslash") << makeTar({{"..\\evil.txt", '0', hello, {}}}) << QStringList() << "backslash";
        QTest::newRow("tar symlink") << makeTar({{"link", '2', {}, "/etc/passwd"}}) << QStringList() << "symbolic link";
        QTest::newRow("tar hard link") << makeTar({{"a.txt", '0', hello, {}}, {"link", '1', {}, "a.txt"}}) << QStringList() << "hard link";
        QTest::newRow("tar char device") << makeTar({{"null", '3', {}, {}}}) << QStringList() << "character device";
        QTest::newRow("tar block device") << makeTar({{"sda", '4', {}, {}}}) << QStringList() << "block device";
        QTest::newRow("tar fifo") << makeTar({{"pipe", '6', {}, {}}}) << QStringList() << "FIFO";
        QTest::newRow("tar gnu long name") << makeTar({{"././@LongLink", 'L', QByteArray("../") + QByteArray(120, 'a') + '\0', {}},
                                                     {"short", '0', hello, {}}}) << QStringList() << "outside the destination";
        QTest::newRow("tar pax path") << makeTar({{"pax", 'x', paxRecord("path", "../pax-evil.txt"), {}},
                                                {"innocent.txt", '0', hello, {}}}) << QStringList() << "outside the destination";
        QList<TarItem> many;
        for (int i = 0; i < 12; ++i)
            many.append({"f" + QByteArray::number(i), '0', hello, {}});
        QTest::newRow("tar too many entries") << makeTar(many) << QStringList{"--max-entries", "10"} << "more than 10 entries";
        QTest::newRow("tar too many bytes") << makeTar({{"big", '0', QByteArray(5000, 'b'), {}}}) << QStringList{"--max-bytes", "4096"} << "more than 4096 bytes";
        QTest::newRow("tar.gz bomb") << compress(makeTar({{"zeros", '0', QByteArray(64 << 20, '\0'), {}}}), QStringLiteral("gzip"))
                                     << QStringList() << "decompression bomb";
        QTest::newRow("gz bomb") << compress(QByteArray(64 << 20, '\0'), QStringLiteral("gzip")) << QStringList() << "decompression bomb";
        QTest::newRow("zstd bomb") << compress(QByteArray(64 << 20, '\0'), QStringLiteral("zstd")) << QStringList() << "decompression bomb";
        QByteArray truncated = compress(makeTar({{"data", '0', QByteArray(300000, 'd'), {}}}), QStringLiteral("xz"));
        truncated.chop(truncated.size() / 2);
        QTest::newRow("truncated tar.xz") << truncated << QStringList() << "truncated";
        QByteArray badSum = makeTar({{"a.txt", '0', hello, {}}});
        badSum[10] = 'X';
        QTest::newRow("corrupt tar checksum") << badSum << QStringList() << "checksum";
        QTest::newRow("zip dot-dot") << makeZip({{"../evil.txt", hello}}) << QStringList() << "outside the destination";
        QTest::newRow("zip absolute") << makeZip({{"/tmp/evil.txt", hello}}) << QStringList() << "absolute path";
        QTest::newRow("zip symlink") << makeZip({{"link", "/etc/passwd", 0120777}}) << QStringList() << "symbolic link";
        QTest::newRow("zip device") << makeZip({{"dev", {}, 0020644}}) << QStringList() << "device";
        QByteArray corruptZip = makeZip({{"a.txt", QByteArray(1000, 'a')}});
        corruptZip.truncate(60);
        QTest::newRow("truncated zip") << corruptZip << QStringList() << "zip";
        QTest::newRow("not an archive") << QByteArray("just some text, not an archive\n") << QStringList() << "not an archive";
        QTest::newRow("empty file") << QByteArray() << QStringList() << "not an archive";
    }
    void hostile()
    {
        QFETCH(QByteArray, archive);
        QFETCH(QStringList, extraArgs);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        const QString archivePath = tmp.filePath(QStringLiteral("upload.bin"));
        QVERIFY(writeFile(archivePath, archive));
        const QString dest = tmp.filePath(QStringLiteral("jail/dest"));
        QDir().mkpath(dest);
        QVERIFY(writeFile(dest + QStringLiteral("/existing.txt"), "keep me"));
        const QStringList before = tree(tmp.path());

        RunResult r = runHelper(QStringList{QStringLiteral("extract"), archivePath, dest} + extraArgs);
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.result.value(QStringLiteral("ok")).toBool(true), false);
        const QString message = r.result.value(QStringLiteral("message")).toString();
        QVERIFY2(message.contains(expected, Qt::CaseInsensitive), qPrintable(message));
        // Nothing half-written, nothing outside, nothing touched.
        QCOMPARE(tree(tmp.path()), before);
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/evil.txt")) || QFileInfo(QStringLiteral("/tmp/evil.txt")).lastModified().secsTo(QDateTime::currentDateTime()) > 60);
    }

    void refusesToOverwrite()
    {
        QTemporaryDir tmp;
        const QString archive = tmp.filePath(QStringLiteral("a.tar"));
        QVERIFY(writeFile(archive, makeTar({{"new.txt", '0', "new", {}}, {"existing.txt", '0', "replacement", {}}})));
        const QString dest = tmp.filePath(QStringLiteral("dest"));
        QDir().mkpath(dest);
        QVERIFY(writeFile(dest + QStringLiteral("/existing.txt"), "keep me"));
        RunResult r = runHelper({QStringLiteral("extract"), archive, dest});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.result.value(QStringLiteral("message")).toString().contains(QStringLiteral("already exists")));
        QCOMPARE(tree(dest), QStringList{QStringLiteral("existing.txt")});
        QFile f(dest + QStringLiteral("/existing.txt"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("keep me"));
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("no command") << QStringList() << 2;
        QTest::newRow("unknown command") << QStringList{"explode"} << 2;
        QTest::newRow("bad limit") << QStringList{"extract", "a", "b", "--max-bytes", "-5"} << 2;
        QTest::newRow("unknown format") << QStringList{"create", "--format", "rar", "out.rar", "."} << 1;
        QTest::newRow("missing archive") << QStringList{"extract", "/nonexistent/archive.zip", "/tmp"} << 1;
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        RunResult r = runHelper(args);
        QCOMPARE(r.exitCode, exitCode);
        QCOMPARE(r.result.value(QStringLiteral("ok")).toBool(true), false);
        QVERIFY(!r.result.value(QStringLiteral("message")).toString().isEmpty());
    }
};

QTEST_MAIN(TestBurrowArchive)
#include "tst_burrowarchive.moc"
