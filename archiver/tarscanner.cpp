#include "tarscanner.h"

#include <QByteArray>
#include <algorithm>
#include <cstring>
#include <limits>

namespace {

constexpr qint64 kBlock = 512;
constexpr qint64 kMaxLongName = 64 * 1024;

bool parseOctal(const char *field, int len, qint64 *out)
{
    // GNU base-256 for large sizes: high bit of the first byte set.
    if (static_cast<unsigned char>(field[0]) & 0x80) {
        qint64 value = static_cast<unsigned char>(field[0]) & 0x7f;
        for (int i = 1; i < len; ++i) {
            if (value > (std::numeric_limits<qint64>::max() >> 8))
                return false;
            value = (value << 8) | static_cast<unsigned char>(field[i]);
        }
        *out = value;
        return true;
    }
    qint64 value = 0;
    int i = 0;
    while (i < len && (field[i] == ' ' || field[i] == '\0'))
        ++i;
    bool any = false;
    for (; i < len && field[i] >= '0' && field[i] <= '7'; ++i) {
        if (value > (std::numeric_limits<qint64>::max() >> 3))
            return false;
        value = value * 8 + (field[i] - '0');
        any = true;
    }
    for (; i < len; ++i) {
        if (field[i] != ' ' && field[i] != '\0')
            return false;
    }
    *out = any ? value : 0;
    return true;
}

QString fieldString(const char *field, int len)
{
    return QString::fromUtf8(field, static_cast<int>(strnlen(field, static_cast<size_t>(len))));
}

} // namespace

QString tarTypeDescription(char typeflag)
{
    switch (typeflag) {
    case '1': return QStringLiteral("a hard link");
    case '2': return QStringLiteral("a symbolic link");
    case '3': return QStringLiteral("a character device");
    case '4': return QStringLiteral("a block device");
    case '6': return QStringLiteral("a FIFO");
    default: return QStringLiteral("an entry of unsupported type '%1'").arg(QLatin1Char(typeflag));
    }
}

bool TarScanner::readExact(char *buffer, qint64 len)
{
    qint64 done = 0;
    while (done < len) {
        const qint64 n = m_stream->read(buffer + done, len - done);
        if (n <= 0)
            return false;
        done += n;
    }
    m_consumed += len;
    return true;
}

bool TarScanner::readBlock(char *block)
{
    return readExact(block, kBlock);
}

bool TarScanner::skipPadding()
{
    char pad[kBlock];
    if (m_padding > 0 && !readExact(pad, m_padding)) {
        m_error = QStringLiteral("the archive is truncated");
        return false;
    }
    m_padding = 0;
    return true;
}

bool TarScanner::readLongData(qint64 size, QByteArray *out)
{
    if (size < 0 || size > kMaxLongName) {
        m_error = QStringLiteral("the archive is corrupt (a long-name record of %1 bytes)").arg(size);
        return false;
    }
    out->resize(static_cast<int>(size));
    const qint64 padded = (size + kBlock - 1) / kBlock * kBlock;
    if (!readExact(out->data(), size) || !readExact(QByteArray(static_cast<int>(padded - size), '\0').data(), padded - size)) {
        m_error = QStringLiteral("the archive is truncated");
        return false;
    }
    return true;
}

bool TarScanner::next(TarEntry *entry)
{
    if (!skipData())
        return false;
    QString longName, longLink, paxPath, paxLink;
    char block[kBlock];
    for (;;) {
        if (!readBlock(block)) {
            // EOF without the two zero blocks: accept only at a block boundary
            // after at least one entry (many tools omit the end marker).
            if (m_stream->atEnd() && m_consumed > 0 && m_consumed % kBlock == 0)
                return false;
            m_error = m_consumed == 0 ? QStringLiteral("the archive is empty or truncated")
                                      : QStringLiteral("the archive is truncated");
            return false;
        }
        bool allZero = true;
        for (qint64 i = 0; i < kBlock && allZero; ++i)
            allZero = block[i] == '\0';
        if (allZero)
            return false; // end of archive

        // Header checksum: sum of all bytes with the checksum field as spaces.
        qint64 stored = 0;
        if (!parseOctal(block + 148, 8, &stored)) {
            m_error = QStringLiteral("the archive is corrupt (bad header checksum field)");
            return false;
        }
        qint64 sum = 0;
        for (qint64 i = 0; i < kBlock; ++i)
            sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(block[i]);
        if (sum != stored) {
            m_error = QStringLiteral("the archive is corrupt (header checksum mismatch at byte %1)").arg(m_consumed - kBlock);
            return false;
        }
        qint64 size = 0;
        if (!parseOctal(block + 124, 12, &size) || size < 0) {
            m_error = QStringLiteral("the archive is corrupt (bad size field)");
            return false;
        }
        const char typeflag = block[156];
        if (typeflag == 'L' || typeflag == 'K') {
            QByteArray data;
            if (!readLongData(size, &data))
                return false;
            (typeflag == 'L' ? longName : longLink) = QString::fromUtf8(data.constData(), static_cast<int>(strnlen(data.constData(), static_cast<size_t>(data.size()))));
            continue;
        }
        if (typeflag == 'x' || typeflag == 'g') {
            QByteArray data;
            if (!readLongData(size, &data))
                return false;
            if (typeflag == 'x') {
                // Records: "<len> key=value\n".
                int pos = 0;
                while (pos < data.size()) {
                    const int space = data.indexOf(' ', pos);
                    if (space < 0)
                        break;
                    bool ok = false;
                    const int len = data.mid(pos, space - pos).toInt(&ok);
                    if (!ok || len <= 0 || pos + len > data.size())
                        break;
                    const QByteArray record = data.mid(space + 1, pos + len - space - 2);
                    const int eq = record.indexOf('=');
                    if (eq > 0) {
                        const QByteArray key = record.left(eq);
                        const QString value = QString::fromUtf8(record.mid(eq + 1));
                        if (key == "path")
                            paxPath = value;
                        else if (key == "linkpath")
                            paxLink = value;
                        else if (key == "size") {
                            bool sizeOk = false;
                            const qint64 paxSize = record.mid(eq + 1).toLongLong(&sizeOk);
                            if (!sizeOk || paxSize < 0) {
                                m_error = QStringLiteral("the archive is corrupt (bad pax size)");
                                return false;
                            }
                        }
                    }
                    pos += len;
                }
            }
            continue;
        }

        QString name = fieldString(block, 100);
        const QString prefix = fieldString(block + 345, 155);
        if (block[257] == 'u' && std::memcmp(block + 257, "ustar", 5) == 0 && !prefix.isEmpty())
            name = prefix + QLatin1Char('/') + name;
        if (!longName.isEmpty())
            name = longName;
        if (!paxPath.isEmpty())
            name = paxPath;
        entry->name = name;
        entry->typeflag = typeflag;
        entry->linkTarget = !paxLink.isEmpty() ? paxLink : !longLink.isEmpty() ? longLink : fieldString(block + 157, 100);
        // Directories and links carry no data, whatever the size field says.
        const bool hasData = entry->isRegularFile();
        entry->size = hasData ? size : 0;
        m_remaining = entry->size;
        m_padding = hasData ? (kBlock - size % kBlock) % kBlock : 0;
        if (!hasData && size > 0 && typeflag != '5') {
            // Skip whatever data a non-file claims to have.
            m_remaining = size;
            m_padding = (kBlock - size % kBlock) % kBlock;
            entry->size = 0;
        }
        return true;
    }
}

qint64 TarScanner::readData(char *buffer, qint64 maxLen)
{
    if (m_remaining == 0) {
        return skipPadding() ? 0 : -1;
    }
    const qint64 want = std::min(maxLen, m_remaining);
    const qint64 n = m_stream->read(buffer, want);
    if (n <= 0) {
        m_error = QStringLiteral("the archive is truncated");
        return -1;
    }
    m_remaining -= n;
    m_consumed += n;
    return n;
}

bool TarScanner::skipData()
{
    char buffer[64 * 1024];
    while (m_remaining > 0) {
        if (readData(buffer, sizeof buffer) < 0)
            return false;
    }
    return skipPadding();
}
