#include "systemmemory.h"

#include <QFile>

namespace SystemMemory {

quint64 availableBytes()
{
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    if (!meminfo.open(QIODevice::ReadOnly | QIODevice::Text))
        return 0;
    // Line format: "MemAvailable:   12345678 kB". /proc files report a size
    // of 0 (QFile::atEnd() is true at once): read until readLine() is empty.
    for (;;) {
        const QByteArray line = meminfo.readLine();
        if (line.isEmpty())
            break;
        if (!line.startsWith("MemAvailable:"))
            continue;
        const QList<QByteArray> parts = line.simplified().split(' ');
        if (parts.size() < 2)
            return 0;
        bool ok = false;
        const quint64 kib = parts.at(1).toULongLong(&ok);
        return ok ? kib * 1024 : 0;
    }
    return 0;
}

} // namespace SystemMemory
