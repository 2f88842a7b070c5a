// burrow-archive's output: one JSON object per line on stdout.
//   {"event":"progress","bytes":N,"total":M,"entry":"name"}   (total 0 when unknown)
//   {"event":"entry","name":"a/b","type":"file|dir","size":N} (list)
//   {"ok":true|false,"message":"...", ...}                     (last line)
#pragma once

#include <QJsonObject>
#include <QString>

namespace JsonLines {
void writeLine(const QJsonObject &object);
void progress(qint64 bytes, qint64 total, const QString &entry);
// Prints the result line; returns the process exit code (0 ok, 1 not ok).
int result(bool ok, const QString &message, const QJsonObject &extra = {});
}
