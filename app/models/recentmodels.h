// RecentModels: the model files opened last, newest first, kept in QSettings
// ("recentModels"). Files that no longer exist are left out of `paths`.
#pragma once

#include <QObject>
#include <QStringList>
#include <QtQml/qqmlregistration.h>

class RecentModels : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("RecentModels belong to a ChatController")
    Q_PROPERTY(QStringList paths READ paths NOTIFY pathsChanged)

public:
    static constexpr int MaxEntries = 8;

    explicit RecentModels(QObject *parent = nullptr);

    QStringList paths() const;
    // Moves `path` to the front (adds it when new) and saves the list.
    void add(const QString &path);
    Q_INVOKABLE void clear();

Q_SIGNALS:
    void pathsChanged();

private:
    QStringList m_paths;
};
