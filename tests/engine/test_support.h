// Helpers shared by the engine tests: where ../shared is, and skipping when
// it is absent (a user's fresh clone has no fixtures).
#pragma once

#include <QDir>
#include <QFileInfo>
#include <QString>
#include <QTest>

namespace burrow::test {

// Absolute path of `relative` inside ../shared (may not exist).
inline QString sharedPath(const QString &relative)
{
    return QDir(QStringLiteral(BURROW_SHARED_DIR)).filePath(relative);
}

inline bool sharedAvailable()
{
    return QFileInfo(QStringLiteral(BURROW_SHARED_DIR) + QStringLiteral("/README.md")).exists();
}

} // namespace burrow::test

// Skips the current test (or data row) when ../shared or the file is absent.
#define BURROW_REQUIRE_SHARED(relative)                                                          \
    do {                                                                                         \
        if (!QFileInfo::exists(::burrow::test::sharedPath(relative)))                            \
            QSKIP(qPrintable(QStringLiteral("fixture ../shared/%1 is absent; skipping").arg(relative))); \
    } while (0)
