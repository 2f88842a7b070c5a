// Helpers shared by the engine tests: where ../shared is, and skipping when
// it is absent (a user's fresh clone has no fixtures).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

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

// ../shared/README.md's measure of closeness: the RMS of a - ref over the
// standard deviation of ref (same sizes).
inline double nrmse(const std::vector<float> &a, const std::vector<float> &ref)
{
    double mean = 0;
    for (float v : ref)
        mean += v;
    mean /= double(ref.size());
    double var = 0, err = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        var += (ref[i] - mean) * (ref[i] - mean);
        err += double(a[i] - ref[i]) * double(a[i] - ref[i]);
    }
    return std::sqrt(err / var);
}

inline size_t argmax(const std::vector<float> &v)
{
    return size_t(std::max_element(v.begin(), v.end()) - v.begin());
}

} // namespace burrow::test

// Skips the current test (or data row) when ../shared or the file is absent.
#define BURROW_REQUIRE_SHARED(relative)                                                          \
    do {                                                                                         \
        if (!QFileInfo::exists(::burrow::test::sharedPath(relative)))                            \
            QSKIP(qPrintable(QStringLiteral("fixture ../shared/%1 is absent; skipping").arg(relative))); \
    } while (0)
