#include "jsonlines.h"

#include <QDateTime>
#include <QJsonDocument>

#include <cstdio>

namespace JsonLines {

void writeLine(const QJsonObject &object)
{
    const QByteArray line = QJsonDocument(object).toJson(QJsonDocument::Compact);
    std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

void progress(qint64 bytes, qint64 total, const QString &entry)
{
    // At most ~10 progress lines a second: the app only needs a smooth bar.
    static qint64 lastMs = 0;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (bytes != total && now - lastMs < 100)
        return;
    lastMs = now;
    writeLine({{QStringLiteral("event"), QStringLiteral("progress")},
          {QStringLiteral("bytes"), bytes},
          {QStringLiteral("total"), total},
          {QStringLiteral("entry"), entry}});
}

int result(bool ok, const QString &message, const QJsonObject &extra)
{
    QJsonObject line = extra;
    line.insert(QStringLiteral("ok"), ok);
    line.insert(QStringLiteral("message"), message);
    writeLine(line);
    return ok ? 0 : 1;
}

} // namespace JsonLines
