#include "recentmodels.h"

#include <QFileInfo>
#include <QSettings>

#include "backend/remoteendpoints.h"

namespace {
const QString settingsKey = QStringLiteral("recentModels");
}

RecentModels::RecentModels(QObject *parent) : QObject(parent)
{
    m_paths = QSettings().value(settingsKey).toStringList();
}

QStringList RecentModels::paths() const
{
    QStringList existing;
    for (const QString &path : m_paths) {
        if (QFileInfo::exists(path))
            existing.append(path);
    }
    return existing;
}

void RecentModels::add(const QString &path)
{
    if (RemoteModelRef::isLocator(path))
        return;   // a remote model is listed with its server in the library
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_paths.removeAll(absolute);
    m_paths.prepend(absolute);
    while (m_paths.size() > MaxEntries)
        m_paths.removeLast();
    QSettings().setValue(settingsKey, m_paths);
    Q_EMIT pathsChanged();
}

void RecentModels::clear()
{
    m_paths.clear();
    QSettings().remove(settingsKey);
    Q_EMIT pathsChanged();
}
