#include "modellibrary.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QSet>
#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>

#include "burrow/library.h"
#include "storage/datafolder.h"

namespace {

const QString foldersKey = QStringLiteral("library/folders");

QString fromStd(const std::string &s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// Burrow's own models folder (DataFolder's models/: downloads and unpacked
// archives land there).
QString burrowModelsFolder()
{
    return DataFolder::path() + QStringLiteral("/models");
}

// What a scan gives the GUI thread.
struct ScanOutcome {
    QList<LibraryEntry> entries;
    QVariantList places;
    int skipped = 0;
    QStringList watch;   // folders to watch
};

LibraryEntry entryFor(const burrow::library::FoundModel &m)
{
    LibraryEntry e;
    e.path = fromStd(m.path);
    e.realPath = fromStd(m.realPath);
    e.name = fromStd(m.name);
    e.repository = fromStd(m.repository);
    e.modelName = fromStd(m.info.name);
    e.family = fromStd(m.info.architecture);
    e.sizeClass = fromStd(m.sizeClass);
    e.quantization = fromStd(m.info.fileType);
    e.source = QString::fromLatin1(burrow::library::sourceId(m.source));
    e.placePath = fromStd(m.placePath);
    e.fileSize = m.totalSize;
    e.contextLength = int(qMin<quint64>(m.info.contextLength, quint64(INT_MAX)));
    e.parts = int(m.partCount);
    e.modifiedMs = m.modifiedNs / 1000000;
    e.runnable = int(m.runnable);
    e.runnableDetail = fromStd(m.runnableDetail);
    e.card = ModelCard::fromInfo(m.info);
    e.card.path = e.path;
    return e;
}

// The folders whose changes may add or remove a model: each place, the
// folders from a place down to each model found (and to each file passed
// over), and an Ollama place's manifests tree (a pull adds a folder there).
QStringList foldersToWatch(const burrow::library::ScanResult &result)
{
    QStringList folders;
    QSet<QString> seen;
    const auto add = [&](const QString &folder) {
        if (folders.size() < ModelLibrary::MaxWatchedFolders && !seen.contains(folder)) {
            seen.insert(folder);
            folders.append(folder);
        }
    };
    const auto addChain = [&](const QString &place, const QString &file) {
        QString folder = QFileInfo(file).path();
        while (folder.startsWith(place) && folder.size() > place.size()) {
            add(folder);
            folder = QFileInfo(folder).path();
        }
    };
    for (const burrow::library::PlaceReport &p : result.places) {
        if (!p.exists)
            continue;
        const QString place = fromStd(p.place.path);
        add(place);
        if (p.place.layout == burrow::library::Layout::LAYOUT_OLLAMA) {
            add(place + QStringLiteral("/blobs"));
            add(place + QStringLiteral("/manifests"));
            QDirIterator it(place + QStringLiteral("/manifests"), QDir::Dirs | QDir::NoDotAndDotDot,
                            QDirIterator::Subdirectories);
            for (int n = 0; it.hasNext() && n < 200; ++n)
                add(it.next());
        }
    }
    for (const burrow::library::FoundModel &m : result.models)
        addChain(fromStd(m.placePath), fromStd(m.path));
    for (const burrow::library::Skipped &s : result.skipped)
        for (const burrow::library::PlaceReport &p : result.places)
            if (p.exists && s.path.starts_with(p.place.path + "/"))
                addChain(fromStd(p.place.path), fromStd(s.path));
    return folders;
}

ScanOutcome scanOn(const std::shared_ptr<burrow::library::Scanner> &scanner,
                   const std::vector<burrow::library::Place> &places)
{
    const burrow::library::ScanResult result = scanner->scan(places);
    ScanOutcome out;
    for (const burrow::library::FoundModel &m : result.models)
        out.entries.append(entryFor(m));
    for (const burrow::library::PlaceReport &p : result.places) {
        const bool user = p.place.source == burrow::library::Source::SOURCE_USER_FOLDER;
        if (!p.exists && !user)
            continue;
        const QString path = fromStd(p.place.path);
        const QString source = QString::fromLatin1(burrow::library::sourceId(p.place.source));
        out.places.append(QVariantMap{
            {QStringLiteral("sourceName"), LibraryModel::sourceName(source, path)},
            {QStringLiteral("path"), path},
            {QStringLiteral("count"), int(p.modelCount)},
            {QStringLiteral("exists"), p.exists},
            {QStringLiteral("userFolder"), user},
        });
    }
    out.skipped = int(result.skipped.size());
    out.watch = foldersToWatch(result);
    return out;
}

} // namespace

ModelLibrary::ModelLibrary(QObject *parent)
    : QObject(parent), m_all(new LibraryModel(this)), m_filter(new LibraryFilter(this)),
      m_scanner(std::make_shared<burrow::library::Scanner>())
{
    m_filter->setSourceModel(m_all);
    m_userFolders = QSettings().value(foldersKey).toStringList();
    QDir().mkpath(burrowModelsFolder());
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(DebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, &ModelLibrary::rescan);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, &m_debounce, qOverload<>(&QTimer::start));
    // The first scan once QML has set the properties.
    QTimer::singleShot(0, this, &ModelLibrary::rescan);
}

ModelLibrary::~ModelLibrary() = default;   // a scan still running keeps its Scanner and ends unseen

void ModelLibrary::setRecentModels(RecentModels *recent)
{
    if (recent == m_recent)
        return;
    if (m_recent)
        disconnect(m_recent, nullptr, this, nullptr);
    m_recent = recent;
    if (m_recent) {
        connect(m_recent, &RecentModels::pathsChanged, this, [this] { m_all->setRecentPaths(m_recent->paths()); });
        m_all->setRecentPaths(m_recent->paths());
    } else {
        m_all->setRecentPaths({});
    }
    Q_EMIT recentModelsChanged();
}

void ModelLibrary::setContextSize(int size)
{
    if (size == m_contextSize)
        return;
    m_contextSize = size;
    m_all->setMemoryContext(m_contextSize, m_kvCacheType);
    Q_EMIT memoryContextChanged();
}

void ModelLibrary::setKvCacheType(const QString &type)
{
    if (type == m_kvCacheType)
        return;
    m_kvCacheType = type;
    m_all->setMemoryContext(m_contextSize, m_kvCacheType);
    Q_EMIT memoryContextChanged();
}

QStringList ModelLibrary::watchedFolders() const
{
    return m_watcher.directories();
}

std::vector<burrow::library::Place> ModelLibrary::placesToScan() const
{
    std::vector<burrow::library::Place> places =
        burrow::library::defaultPlaces(burrow::library::Environment::fromProcess());
    for (burrow::library::Place &p : places)
        if (p.source == burrow::library::Source::SOURCE_BURROW)
            p.path = burrowModelsFolder().toStdString();
    for (const QString &folder : m_userFolders)
        places.push_back(burrow::library::userPlace(folder.toStdString()));
    return places;
}

void ModelLibrary::setServers(RemoteServers *servers)
{
    if (m_servers == servers)
        return;
    if (m_servers)
        disconnect(m_servers, nullptr, this, nullptr);
    m_servers = servers;
    // The servers' models change the rows as a scan does (a chat's remote
    // model may be found, Conversation::refreshOtherModel).
    const auto update = [this] {
        showEntries();
        Q_EMIT scanned();
    };
    if (m_servers)
        connect(m_servers, &RemoteServers::modelsChanged, this, update);
    update();
    Q_EMIT serversChanged();
}

void ModelLibrary::showEntries()
{
    QList<LibraryEntry> entries = m_scannedEntries;
    if (m_servers)
        entries += m_servers->libraryEntries();
    m_all->setEntries(entries);
}

void ModelLibrary::rescan()
{
    if (m_scanning) {
        m_rescanWanted = true;   // after the one running (a folder may have changed since it looked)
        return;
    }
    startScan();
}

void ModelLibrary::startScan()
{
    m_scanning = true;
    m_rescanWanted = false;
    Q_EMIT scanningChanged();
    auto *watcher = new QFutureWatcher<ScanOutcome>(this);
    connect(watcher, &QFutureWatcher<ScanOutcome>::finished, this, [this, watcher] {
        const ScanOutcome out = watcher->result();
        watcher->deleteLater();
        m_scannedEntries = out.entries;
        showEntries();
        m_places = out.places;
        m_skipped = out.skipped;
        watch(out.watch);
        m_scanning = false;
        Q_EMIT scanned();
        if (m_rescanWanted)
            startScan();
        else
            Q_EMIT scanningChanged();
    });
    watcher->setFuture(QtConcurrent::run(scanOn, m_scanner, placesToScan()));
}

void ModelLibrary::watch(const QStringList &folders)
{
    const QStringList now = m_watcher.directories();
    const QSet<QString> wanted(folders.begin(), folders.end());
    QStringList gone;
    for (const QString &f : now)
        if (!wanted.contains(f))
            gone.append(f);
    if (!gone.isEmpty())
        m_watcher.removePaths(gone);
    const QSet<QString> have(now.begin(), now.end());
    QStringList added;
    for (const QString &f : folders)
        if (!have.contains(f))
            added.append(f);
    if (!added.isEmpty())
        m_watcher.addPaths(added);
}

bool ModelLibrary::addFolder(const QUrl &folder)
{
    const QString local = folder.isLocalFile() ? folder.toLocalFile() : folder.toString();
    const QFileInfo info(local);
    if (local.isEmpty() || !info.isDir())
        return false;
    const QString path = info.absoluteFilePath();
    if (m_userFolders.contains(path))
        return false;
    m_userFolders.append(path);
    QSettings().setValue(foldersKey, m_userFolders);
    Q_EMIT userFoldersChanged();
    rescan();
    return true;
}

void ModelLibrary::removeFolder(const QString &path)
{
    if (!m_userFolders.removeOne(path))
        return;
    QSettings().setValue(foldersKey, m_userFolders);
    Q_EMIT userFoldersChanged();
    rescan();
}
