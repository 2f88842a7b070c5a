// ModelLibrary: the models already on this computer (burrow/library.h) for
// the library screen. Scans run on a pool thread (the engine's Scanner,
// which reads only the headers of new or changed files); the result becomes
// the rows of `allModels`, searched and sorted by `models`. The folders the
// models were found in are watched: a change rescans after a short quiet
// spell. Folders the user adds are kept in the settings ("library/folders").
// Burrow's own models folder (the data folder's models/, where downloads and
// unpacked archives land) is one of the places, and is created so it can be
// watched.
#pragma once

#include <QFileSystemWatcher>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>
#include <QUrl>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

#include <memory>

#include "libraryfilter.h"
#include "librarymodel.h"
#include "recentmodels.h"
#include "remoteservers.h"

namespace burrow::library { class Scanner; struct Place; }

class ModelLibrary : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(LibraryModel *allModels READ allModels CONSTANT)
    Q_PROPERTY(LibraryFilter *models READ models CONSTANT)
    Q_PROPERTY(bool scanning READ isScanning NOTIFY scanningChanged)
    Q_PROPERTY(QStringList userFolders READ userFolders NOTIFY userFoldersChanged)
    // The places looked in that exist, and the user's folders:
    // [{sourceName, path, count, exists, userFolder}]
    Q_PROPERTY(QVariantList places READ places NOTIFY scanned)
    // Files and folders the last scan passed over (not GGUF, broken, unreadable).
    Q_PROPERTY(int skippedCount READ skippedCount NOTIFY scanned)
    // Recently opened models come first (RecentModels of the model loader).
    Q_PROPERTY(RecentModels *recentModels READ recentModels WRITE setRecentModels NOTIFY recentModelsChanged)
    // What "fits in memory" is estimated for (the shown chat's settings).
    Q_PROPERTY(int contextSize READ contextSize WRITE setContextSize NOTIFY memoryContextChanged)
    Q_PROPERTY(QString kvCacheType READ kvCacheType WRITE setKvCacheType NOTIFY memoryContextChanged)
    // The models of the servers the user added (Settings → Servers), shown
    // after the local files, marked remote.
    Q_PROPERTY(RemoteServers *servers READ servers WRITE setServers NOTIFY serversChanged)

public:
    static constexpr int DebounceMs = 500;   // quiet time after a folder changes before the rescan
    static constexpr int MaxWatchedFolders = 1000;

    explicit ModelLibrary(QObject *parent = nullptr);
    ~ModelLibrary() override;

    LibraryModel *allModels() const { return m_all; }
    LibraryFilter *models() const { return m_filter; }
    bool isScanning() const { return m_scanning; }
    QStringList userFolders() const { return m_userFolders; }
    QVariantList places() const { return m_places; }
    int skippedCount() const { return m_skipped; }
    RecentModels *recentModels() const { return m_recent; }
    void setRecentModels(RecentModels *recent);
    int contextSize() const { return m_contextSize; }
    void setContextSize(int size);
    QString kvCacheType() const { return m_kvCacheType; }
    void setKvCacheType(const QString &type);
    RemoteServers *servers() const { return m_servers; }
    void setServers(RemoteServers *servers);
    // The folders watched now (tests).
    QStringList watchedFolders() const;

    // Looks again (at once if no scan runs, else right after it).
    Q_INVOKABLE void rescan();
    // Adds a folder (a local URL or path) to look in; false when it is not a
    // folder or is there already.
    Q_INVOKABLE bool addFolder(const QUrl &folder);
    Q_INVOKABLE void removeFolder(const QString &path);

Q_SIGNALS:
    void scanningChanged();
    void scanned();
    void userFoldersChanged();
    void recentModelsChanged();
    void memoryContextChanged();
    void serversChanged();

private:
    std::vector<burrow::library::Place> placesToScan() const;
    void startScan();
    void watch(const QStringList &folders);
    // The rows: the last scan's, then the servers' models.
    void showEntries();

    LibraryModel *m_all;
    LibraryFilter *m_filter;
    std::shared_ptr<burrow::library::Scanner> m_scanner;
    QFileSystemWatcher m_watcher;
    QTimer m_debounce;
    bool m_scanning = false;
    bool m_rescanWanted = false;
    QStringList m_userFolders;
    QVariantList m_places;
    int m_skipped = 0;
    QPointer<RecentModels> m_recent;
    int m_contextSize = 4096;
    QString m_kvCacheType = QStringLiteral("f16");
    QList<LibraryEntry> m_scannedEntries;
    QPointer<RemoteServers> m_servers;
};
