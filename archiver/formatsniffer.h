// Detects an archive's format from its content, never from its name.
#pragma once

#include <QString>

enum class ArchiveFormat {
    Unknown,
    Zip,
    Tar,           // plain, uncompressed tar
    TarGz, TarXz, TarZst, TarBz2,
    Gz, Xz, Zst, Bz2, // one compressed file (e.g. model.gguf.gz)
};

struct SniffResult {
    ArchiveFormat format = ArchiveFormat::Unknown;
    QString error;   // set when the file cannot be read
};

SniffResult sniffArchive(const QString &path);
QString formatName(ArchiveFormat format);   // "zip", "tar.gz", "gzip", ...
bool isTar(ArchiveFormat format);
bool isSingleCompressedFile(ArchiveFormat format);
// KCompressionDevice type name for the compressed formats ("application/gzip", ...); empty otherwise.
QString compressionMimeType(ArchiveFormat format);
