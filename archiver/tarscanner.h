// A streaming reader of tar structure over a (decompressed) byte stream.
//
// Why not KTar for reading: KTar first decompresses the whole archive into a
// temporary file outside the destination (a decompression bomb fills the disk
// before any check can run) and reports device files as empty regular files.
// Decompression itself still goes through KArchive (KCompressionDevice).
//
// Cost: one sequential pass; memory O(1) besides long names.
#pragma once

#include <QIODevice>
#include <QString>
#include <functional>

struct TarEntry {
    QString name;          // as written in the archive (after GNU/pax long names)
    char typeflag = '0';
    qint64 size = 0;       // bytes of data that follow
    QString linkTarget;
    bool isDirectory() const { return typeflag == '5'; }
    bool isRegularFile() const { return typeflag == '0' || typeflag == '\0' || typeflag == '7'; }
};

class TarScanner {
public:
    explicit TarScanner(QIODevice *stream) : m_stream(stream) {}

    // Reads the next entry header. Returns false at the end of the archive
    // (error() empty) or on a corrupt/truncated archive (error() set).
    bool next(TarEntry *entry);
    // Reads up to maxLen bytes of the current entry's data; 0 at its end, -1 on error.
    qint64 readData(char *buffer, qint64 maxLen);
    // Skips the rest of the current entry's data.
    bool skipData();
    QString error() const { return m_error; }
    qint64 bytesConsumed() const { return m_consumed; }   // decompressed bytes read so far

private:
    bool readBlock(char *block);
    bool readExact(char *buffer, qint64 len);
    bool readLongData(qint64 size, QByteArray *out);
    bool skipPadding();
    QIODevice *m_stream;
    QString m_error;
    qint64 m_remaining = 0;   // data bytes left in the current entry
    qint64 m_padding = 0;     // padding after the current entry's data
    qint64 m_consumed = 0;
};

QString tarTypeDescription(char typeflag);
