// What an archive entry may be. Every rule here is enforced before anything
// is written, and the writer only ever builds paths from checked components.
#pragma once

#include <QString>
#include <QStringList>

struct ExtractLimits {
    qint64 maxBytes = qint64(64) << 30;   // total uncompressed bytes (64 GiB)
    qint64 maxEntries = 10000;            // files + directories
    double maxRatio = 200.0;              // uncompressed : compressed, beyond which it is a bomb
    qint64 ratioGraceBytes = qint64(1) << 20; // ratios are only judged past 1 MiB of output
};

// Checks one entry name as written in the archive ("dir/file.txt").
// Returns an empty string when it is acceptable, else the reason it is refused.
// Refused: empty names, absolute paths, drive letters ("C:"), backslashes,
// NUL or control characters, ".." components, names or components too long.
QString entryNameProblem(const QString &name);

// Splits an accepted name into its components, dropping "." and empty ones.
QStringList entryComponents(const QString &name);
