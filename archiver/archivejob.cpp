#include "archivejob.h"

#include "formatsniffer.h"
#include "jsonlines.h"
#include "tarscanner.h"

#include <KCompressionDevice>
#include <KTar>
#include <KZip>
#include <KZipFileEntry>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QScopeGuard>
#include <QTemporaryDir>

#include <atomic>
#include <memory>
#include <sys/stat.h>

namespace ArchiveJob {
namespace {

std::atomic<bool> g_cancel{false};
constexpr qint64 kChunk = 1 << 20;

// Failure carrying the user-facing reason.
struct Failure {
    QString message;
};

// Writes checked entries below a staging root, counting bytes and entries
// against the limits. Paths are built only from checked components.
class StagedWriter {
public:
    StagedWriter(const QString &root, const ExtractLimits &limits, qint64 compressedSize)
        : m_root(root), m_limits(limits), m_compressedSize(compressedSize) {}

    void countEntry(const QString &name)
    {
        if (++m_entries > m_limits.maxEntries)
            throw Failure{QStringLiteral("the archive has more than %1 entries").arg(m_limits.maxEntries)};
        if (const QString problem = entryNameProblem(name); !problem.isEmpty())
            throw Failure{problem};
    }

    void makeDirectory(const QString &name)
    {
        if (!QDir().mkpath(pathFor(name)))
            throw Failure{QStringLiteral("cannot create folder \"%1\"").arg(name)};
    }

    // Streams `read` (returns bytes, 0 at end, -1 on error) into the file `name`.
    // `entryCompressed` > 0 enables a per-entry ratio check (zip).
    template <typename ReadFn>
    void writeFile(const QString &name, ReadFn read, qint64 entryCompressed, qint64 totalKnown)
    {
        const QString path = pathFor(name);
        if (QFileInfo::exists(path))
            throw Failure{QStringLiteral("the archive holds \"%1\" twice").arg(name)};
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile out(path);
        if (!out.open(QIODevice::WriteOnly | QIODevice::NewOnly))
            throw Failure{QStringLiteral("cannot write \"%1\": %2").arg(name, out.errorString())};
        m_files.append(entryComponents(name).join(QLatin1Char('/')));
        QByteArray buffer(kChunk, Qt::Uninitialized);
        qint64 entryBytes = 0;
        for (;;) {
            if (g_cancel)
                throw Failure{QStringLiteral("cancelled")};
            const qint64 n = read(buffer.data(), kChunk);
            if (n < 0)
                throw Failure{QStringLiteral("the archive is corrupt or truncated (reading \"%1\")").arg(name)};
            if (n == 0)
                break;
            entryBytes += n;
            m_bytes += n;
            if (m_bytes > m_limits.maxBytes)
                throw Failure{QStringLiteral("the archive unpacks to more than %1 bytes, the limit").arg(m_limits.maxBytes)};
            if (entryCompressed > 0 && entryBytes > m_limits.ratioGraceBytes
                && double(entryBytes) / double(entryCompressed) > m_limits.maxRatio)
                throw Failure{QStringLiteral("\"%1\" expands more than %2 times: refused as a decompression bomb")
                                  .arg(name).arg(m_limits.maxRatio)};
            checkTotalRatio();
            if (out.write(buffer.constData(), n) != n)
                throw Failure{QStringLiteral("cannot write \"%1\": %2").arg(name, out.errorString())};
            JsonLines::progress(m_bytes, totalKnown, name);
        }
        if (!out.flush())
            throw Failure{QStringLiteral("cannot write \"%1\": %2").arg(name, out.errorString())};
    }

    void checkTotalRatio() const
    {
        if (m_compressedSize > 0 && m_bytes > m_limits.ratioGraceBytes
            && double(m_bytes) / double(m_compressedSize) > m_limits.maxRatio)
            throw Failure{QStringLiteral("the archive expands more than %1 times its size: refused as a decompression bomb")
                              .arg(m_limits.maxRatio)};
    }

    qint64 bytes() const { return m_bytes; }
    const QStringList &files() const { return m_files; }

private:
    QString pathFor(const QString &name) const
    {
        return m_root + QLatin1Char('/') + entryComponents(name).join(QLatin1Char('/'));
    }
    QString m_root;
    ExtractLimits m_limits;
    qint64 m_compressedSize;
    qint64 m_entries = 0;
    qint64 m_bytes = 0;
    QStringList m_files;
};

bool modeIsSpecial(mode_t mode)
{
    const mode_t type = mode & S_IFMT;
    return type != 0 && type != S_IFREG && type != S_IFDIR;
}

// Walks a KArchive directory tree in order, with full names.
template <typename Fn>
void walk(const KArchiveDirectory *dir, const QString &prefix, Fn fn)
{
    const QStringList names = dir->entries();
    for (const QString &leaf : names) {
        const KArchiveEntry *entry = dir->entry(leaf);
        const QString name = prefix.isEmpty() ? leaf : prefix + QLatin1Char('/') + leaf;
        fn(name, entry);
        if (entry->isDirectory())
            walk(static_cast<const KArchiveDirectory *>(entry), name, fn);
    }
}

void extractZip(const QString &archive, StagedWriter &writer, qint64 archiveSize)
{
    KZip zip(archive);
    if (!zip.open(QIODevice::ReadOnly))
        throw Failure{QStringLiteral("not a readable zip archive (corrupt or truncated): %1").arg(zip.errorString())};
    // First pass: every rule on every entry, before anything is written.
    qint64 declared = 0;
    walk(zip.directory(), QString(), [&](const QString &name, const KArchiveEntry *entry) {
        if (!entry->symLinkTarget().isEmpty() || (entry->permissions() & S_IFMT) == S_IFLNK)
            throw Failure{QStringLiteral("entry \"%1\" is a symbolic link; links are not extracted").arg(name)};
        if (modeIsSpecial(entry->permissions()))
            throw Failure{QStringLiteral("entry \"%1\" is a device or special file").arg(name)};
        if (const QString problem = entryNameProblem(name); !problem.isEmpty())
            throw Failure{problem};
        if (entry->isFile()) {
            const auto *file = static_cast<const KZipFileEntry *>(entry);
            const QString raw = file->path();
            if (const QString problem = entryNameProblem(raw); !problem.isEmpty())
                throw Failure{problem};
            declared += file->size();
        }
    });
    (void)archiveSize;
    // Second pass: write.
    walk(zip.directory(), QString(), [&](const QString &name, const KArchiveEntry *entry) {
        writer.countEntry(name);
        if (entry->isDirectory()) {
            writer.makeDirectory(name);
            return;
        }
        const auto *file = static_cast<const KZipFileEntry *>(entry);
        std::unique_ptr<QIODevice> device(file->createDevice());
        if (!device || !device->isOpen())
            throw Failure{QStringLiteral("cannot read \"%1\" from the archive (unsupported compression or corrupt)").arg(name)};
        qint64 left = file->size();
        writer.writeFile(name, [&](char *buf, qint64 max) -> qint64 {
            if (left <= 0)
                return 0;
            const qint64 n = device->read(buf, std::min(max, left));
            if (n <= 0)
                return -1;
            left -= n;
            return n;
        }, std::max<qint64>(file->compressedSize(), 1), declared);
    });
}

std::unique_ptr<QIODevice> openStream(const QString &archive, ArchiveFormat format)
{
    std::unique_ptr<QIODevice> device;
    if (format == ArchiveFormat::Tar)
        device = std::make_unique<QFile>(archive);
    else
        device = std::make_unique<KCompressionDevice>(
            archive, KCompressionDevice::compressionTypeForMimeType(compressionMimeType(format)));
    if (!device->open(QIODevice::ReadOnly))
        throw Failure{QStringLiteral("cannot open the archive: %1").arg(device->errorString())};
    return device;
}

void extractTar(const QString &archive, ArchiveFormat format, StagedWriter &writer)
{
    std::unique_ptr<QIODevice> stream = openStream(archive, format);
    TarScanner scanner(stream.get());
    TarEntry entry;
    while (scanner.next(&entry)) {
        if (g_cancel)
            throw Failure{QStringLiteral("cancelled")};
        if (!entry.isDirectory() && !entry.isRegularFile())
            throw Failure{QStringLiteral("entry \"%1\" is %2; only files and folders are extracted")
                              .arg(entry.name, tarTypeDescription(entry.typeflag))};
        writer.countEntry(entry.name);
        if (entry.isDirectory()) {
            writer.makeDirectory(entry.name);
            continue;
        }
        writer.writeFile(entry.name, [&](char *buf, qint64 max) { return scanner.readData(buf, max); }, 0, 0);
        writer.checkTotalRatio();
    }
    if (!scanner.error().isEmpty())
        throw Failure{scanner.error()};
}

void extractSingle(const QString &archive, ArchiveFormat format, StagedWriter &writer)
{
    QString name = QFileInfo(archive).fileName();
    for (const char *suffix : {".gz", ".xz", ".zst", ".zstd", ".bz2"}) {
        if (name.endsWith(QLatin1String(suffix), Qt::CaseInsensitive)) {
            name.chop(static_cast<int>(qstrlen(suffix)));
            break;
        }
    }
    if (name.isEmpty() || name == QFileInfo(archive).fileName())
        name += QStringLiteral(".unpacked");
    std::unique_ptr<QIODevice> stream = openStream(archive, format);
    writer.countEntry(name);
    writer.writeFile(name, [&](char *buf, qint64 max) -> qint64 {
        const qint64 n = stream->read(buf, max);
        if (n < 0)
            return -1;
        if (n == 0 && !stream->atEnd())
            return -1;
        return n;
    }, 0, 0);
}

} // namespace

void requestCancel()
{
    g_cancel = true;
}

int extract(const QString &archive, const QString &destDir, const ExtractLimits &limits)
{
    const QFileInfo archiveInfo(archive);
    if (!archiveInfo.isFile())
        return JsonLines::result(false, QStringLiteral("%1: no such file").arg(archive));
    const SniffResult sniff = sniffArchive(archive);
    if (!sniff.error.isEmpty())
        return JsonLines::result(false, QStringLiteral("cannot read %1: %2").arg(archive, sniff.error));
    if (sniff.format == ArchiveFormat::Unknown)
        return JsonLines::result(false, QStringLiteral("%1 is not an archive Burrow can read (zip, tar, tar.gz, tar.xz, tar.zst, .gz, .xz, .zst)")
                                            .arg(archiveInfo.fileName()));
    if (!QDir().mkpath(destDir))
        return JsonLines::result(false, QStringLiteral("cannot create the destination folder %1").arg(destDir));
    const QString dest = QDir(destDir).canonicalPath();

    QTemporaryDir staging(dest + QStringLiteral("/.burrow-extract-XXXXXX"));
    if (!staging.isValid())
        return JsonLines::result(false, QStringLiteral("cannot write into %1: %2").arg(dest, staging.errorString()));
    StagedWriter writer(staging.path(), limits, archiveInfo.size());
    try {
        if (sniff.format == ArchiveFormat::Zip)
            extractZip(archive, writer, archiveInfo.size());
        else if (isTar(sniff.format))
            extractTar(archive, sniff.format, writer);
        else
            extractSingle(archive, sniff.format, writer);

        // Move the top-level entries into place; refuse to overwrite.
        const QDir stagingDir(staging.path());
        const QStringList top = stagingDir.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
        for (const QString &name : top) {
            if (QFileInfo::exists(dest + QLatin1Char('/') + name))
                throw Failure{QStringLiteral("\"%1\" already exists in %2; nothing was extracted").arg(name, dest)};
        }
        QStringList moved;
        for (const QString &name : top) {
            if (!QDir().rename(stagingDir.filePath(name), dest + QLatin1Char('/') + name)) {
                for (const QString &done : moved)   // undo: leave dest as it was
                    QDir().rename(dest + QLatin1Char('/') + done, stagingDir.filePath(done));
                throw Failure{QStringLiteral("cannot move \"%1\" into %2").arg(name, dest)};
            }
            moved.append(name);
        }
    } catch (const Failure &failure) {
        return JsonLines::result(false, failure.message, {{QStringLiteral("format"), formatName(sniff.format)}});
    }
    QJsonArray files;
    for (const QString &file : writer.files())
        files.append(file);
    return JsonLines::result(true, QStringLiteral("extracted %1 file(s), %2 bytes").arg(writer.files().size()).arg(writer.bytes()),
                             {{QStringLiteral("format"), formatName(sniff.format)},
                              {QStringLiteral("files"), files},
                              {QStringLiteral("bytes"), writer.bytes()}});
}

int list(const QString &archive)
{
    const SniffResult sniff = sniffArchive(archive);
    if (!sniff.error.isEmpty())
        return JsonLines::result(false, QStringLiteral("cannot read %1: %2").arg(archive, sniff.error));
    if (sniff.format == ArchiveFormat::Unknown)
        return JsonLines::result(false, QStringLiteral("%1 is not an archive Burrow can read").arg(QFileInfo(archive).fileName()));
    auto emitEntry = [](const QString &name, const QString &type, qint64 size) {
        JsonLines::writeLine({{QStringLiteral("event"), QStringLiteral("entry")},
                         {QStringLiteral("name"), name},
                         {QStringLiteral("type"), type},
                         {QStringLiteral("size"), size}});
    };
    int count = 0;
    try {
        if (sniff.format == ArchiveFormat::Zip) {
            KZip zip(archive);
            if (!zip.open(QIODevice::ReadOnly))
                throw Failure{QStringLiteral("not a readable zip archive (corrupt or truncated)")};
            walk(zip.directory(), QString(), [&](const QString &name, const KArchiveEntry *entry) {
                const QString type = !entry->symLinkTarget().isEmpty() ? QStringLiteral("symlink")
                                   : entry->isDirectory()               ? QStringLiteral("dir")
                                                                        : QStringLiteral("file");
                emitEntry(name, type, entry->isFile() ? static_cast<const KArchiveFile *>(entry)->size() : 0);
                ++count;
            });
        } else if (isTar(sniff.format)) {
            std::unique_ptr<QIODevice> stream = openStream(archive, sniff.format);
            TarScanner scanner(stream.get());
            TarEntry entry;
            while (scanner.next(&entry)) {
                const QString type = entry.isDirectory() ? QStringLiteral("dir")
                                   : entry.isRegularFile() ? QStringLiteral("file")
                                   : entry.typeflag == '2' ? QStringLiteral("symlink")
                                   : entry.typeflag == '1' ? QStringLiteral("hardlink")
                                                           : QStringLiteral("special");
                emitEntry(entry.name, type, entry.size);
                ++count;
            }
            if (!scanner.error().isEmpty())
                throw Failure{scanner.error()};
        } else {
            QString name = QFileInfo(archive).completeBaseName();
            emitEntry(name, QStringLiteral("file"), -1);
            ++count;
        }
    } catch (const Failure &failure) {
        return JsonLines::result(false, failure.message, {{QStringLiteral("format"), formatName(sniff.format)}});
    }
    return JsonLines::result(true, QStringLiteral("%1 entries").arg(count),
                             {{QStringLiteral("format"), formatName(sniff.format)}, {QStringLiteral("entries"), count}});
}

int create(const QString &format, const QString &out, const QString &srcDir)
{
    const QFileInfo src(srcDir);
    if (!src.isDir())
        return JsonLines::result(false, QStringLiteral("%1 is not a folder").arg(srcDir));
    std::unique_ptr<KArchive> archive;
    const QString part = out + QStringLiteral(".part");
    QFile::remove(part);
    if (format == QLatin1String("zip"))
        archive = std::make_unique<KZip>(part);
    else if (format == QLatin1String("tar.gz"))
        archive = std::make_unique<KTar>(part, QStringLiteral("application/x-gzip"));
    else if (format == QLatin1String("tar.xz"))
        archive = std::make_unique<KTar>(part, QStringLiteral("application/x-xz"));
    else if (format == QLatin1String("tar.zst"))
        archive = std::make_unique<KTar>(part, QStringLiteral("application/zstd"));
    else
        return JsonLines::result(false, QStringLiteral("unknown format \"%1\" (zip, tar.gz, tar.xz, tar.zst)").arg(format));

    auto cleanup = qScopeGuard([&] { QFile::remove(part); });
    if (!archive->open(QIODevice::WriteOnly))
        return JsonLines::result(false, QStringLiteral("cannot write %1: %2").arg(out, archive->errorString()));

    // Regular files and folders only, in a stable order.
    const QDir root(src.absoluteFilePath());
    QStringList files;
    QDirIterator it(root.path(), QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        if (it.fileInfo().isSymLink())
            continue;
        files.append(root.relativeFilePath(it.filePath()));
    }
    files.sort();
    qint64 total = 0;
    for (const QString &rel : files)
        total += QFileInfo(root.filePath(rel)).isFile() ? QFileInfo(root.filePath(rel)).size() : 0;
    qint64 done = 0;
    for (const QString &rel : files) {
        if (g_cancel)
            return JsonLines::result(false, QStringLiteral("cancelled"));
        const QFileInfo info(root.filePath(rel));
        const bool ok = info.isDir() ? archive->writeDir(rel) : archive->addLocalFile(info.filePath(), rel);
        if (!ok)
            return JsonLines::result(false, QStringLiteral("cannot add %1: %2").arg(rel, archive->errorString()));
        if (info.isFile())
            done += info.size();
        JsonLines::progress(done, total, rel);
    }
    if (!archive->close())
        return JsonLines::result(false, QStringLiteral("cannot finish %1: %2").arg(out, archive->errorString()));
    QFile::remove(out);
    if (!QFile::rename(part, out))
        return JsonLines::result(false, QStringLiteral("cannot move the archive to %1").arg(out));
    cleanup.dismiss();
    return JsonLines::result(true, QStringLiteral("wrote %1 (%2 entries)").arg(out).arg(files.size()),
                             {{QStringLiteral("entries"), static_cast<qint64>(files.size())}});
}

} // namespace ArchiveJob
