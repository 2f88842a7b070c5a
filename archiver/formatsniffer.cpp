#include "formatsniffer.h"

#include <KCompressionDevice>
#include <QFile>

namespace {

enum class Compression { None, Gz, Xz, Zst, Bz2 };

Compression compressionOf(const QByteArray &head)
{
    auto startsWith = [&](const char *magic, int n) { return head.size() >= n && head.left(n) == QByteArray(magic, n); };
    if (startsWith("\x1f\x8b", 2))
        return Compression::Gz;
    if (startsWith("\xfd" "7zXZ\x00", 6))
        return Compression::Xz;
    if (startsWith("\x28\xb5\x2f\xfd", 4))
        return Compression::Zst;
    if (startsWith("BZh", 3))
        return Compression::Bz2;
    return Compression::None;
}

// A tar header block: "ustar" magic at 257, or a valid header checksum.
bool looksLikeTar(const QByteArray &block)
{
    if (block.size() < 512)
        return false;
    if (block.mid(257, 5) == "ustar")
        return true;
    // Old v7 tar: checksum over the header with the checksum field as spaces.
    unsigned sum = 0;
    for (int i = 0; i < 512; ++i)
        sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(block[i]);
    bool ok = false;
    const unsigned stored = block.mid(148, 8).trimmed().replace('\0', "").toUInt(&ok, 8);
    return ok && stored == sum && block[0] != '\0';
}

QString compressionMimeTypeFor(Compression c)
{
    switch (c) {
    case Compression::Gz: return QStringLiteral("application/gzip");
    case Compression::Xz: return QStringLiteral("application/x-xz");
    case Compression::Zst: return QStringLiteral("application/zstd");
    case Compression::Bz2: return QStringLiteral("application/x-bzip");
    case Compression::None: break;
    }
    return {};
}

} // namespace

SniffResult sniffArchive(const QString &path)
{
    SniffResult result;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        result.error = file.errorString();
        return result;
    }
    const QByteArray head = file.read(512);
    file.close();
    if (head.startsWith(QByteArray("PK\x03\x04", 4)) || head.startsWith(QByteArray("PK\x05\x06", 4))) {
        result.format = ArchiveFormat::Zip;
        return result;
    }
    const Compression c = compressionOf(head);
    if (c == Compression::None) {
        result.format = looksLikeTar(head) ? ArchiveFormat::Tar : ArchiveFormat::Unknown;
        return result;
    }
    // Peek at the first decompressed block to tell tar.X from a single file.
    KCompressionDevice device(path, KCompressionDevice::compressionTypeForMimeType(compressionMimeTypeFor(c)));
    QByteArray block;
    if (device.open(QIODevice::ReadOnly)) {
        block = device.read(512);
        device.close();
    }
    const bool tar = looksLikeTar(block);
    switch (c) {
    case Compression::Gz: result.format = tar ? ArchiveFormat::TarGz : ArchiveFormat::Gz; break;
    case Compression::Xz: result.format = tar ? ArchiveFormat::TarXz : ArchiveFormat::Xz; break;
    case Compression::Zst: result.format = tar ? ArchiveFormat::TarZst : ArchiveFormat::Zst; break;
    case Compression::Bz2: result.format = tar ? ArchiveFormat::TarBz2 : ArchiveFormat::Bz2; break;
    case Compression::None: break;
    }
    return result;
}

QString formatName(ArchiveFormat format)
{
    switch (format) {
    case ArchiveFormat::Zip: return QStringLiteral("zip");
    case ArchiveFormat::Tar: return QStringLiteral("tar");
    case ArchiveFormat::TarGz: return QStringLiteral("tar.gz");
    case ArchiveFormat::TarXz: return QStringLiteral("tar.xz");
    case ArchiveFormat::TarZst: return QStringLiteral("tar.zst");
    case ArchiveFormat::TarBz2: return QStringLiteral("tar.bz2");
    case ArchiveFormat::Gz: return QStringLiteral("gzip");
    case ArchiveFormat::Xz: return QStringLiteral("xz");
    case ArchiveFormat::Zst: return QStringLiteral("zstd");
    case ArchiveFormat::Bz2: return QStringLiteral("bzip2");
    case ArchiveFormat::Unknown: break;
    }
    return QStringLiteral("unknown");
}

bool isTar(ArchiveFormat f)
{
    return f == ArchiveFormat::Tar || f == ArchiveFormat::TarGz || f == ArchiveFormat::TarXz
        || f == ArchiveFormat::TarZst || f == ArchiveFormat::TarBz2;
}

bool isSingleCompressedFile(ArchiveFormat f)
{
    return f == ArchiveFormat::Gz || f == ArchiveFormat::Xz || f == ArchiveFormat::Zst || f == ArchiveFormat::Bz2;
}

QString compressionMimeType(ArchiveFormat f)
{
    switch (f) {
    case ArchiveFormat::TarGz: case ArchiveFormat::Gz: return compressionMimeTypeFor(Compression::Gz);
    case ArchiveFormat::TarXz: case ArchiveFormat::Xz: return compressionMimeTypeFor(Compression::Xz);
    case ArchiveFormat::TarZst: case ArchiveFormat::Zst: return compressionMimeTypeFor(Compression::Zst);
    case ArchiveFormat::TarBz2: case ArchiveFormat::Bz2: return compressionMimeTypeFor(Compression::Bz2);
    default: return {};
    }
}
