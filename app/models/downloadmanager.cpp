#include "downloadmanager.h"

#include <QDir>
#include <QFileInfo>
#include <cmath>

#include "accesstoken.h"
#include "hubclient.h"
#include "hubprotocol.h"
#include "backend/modelcard.h"
#include "storage/datafolder.h"

namespace {
constexpr qint64 SpeedWindowMs = 5000;
constexpr qint64 MinSpeedSpanMs = 500;
} // namespace

DownloadManager::DownloadManager(QObject *parent)
    : DownloadManager(DataFolder::path() + QStringLiteral("/models"), parent)
{
}

DownloadManager::DownloadManager(const QString &folder, QObject *parent)
    : QAbstractListModel(parent), m_folder(QDir::cleanPath(folder)), m_token(new AccessToken(this)),
      m_hub(new HubClient(m_token, this)), m_worker(new DownloadWorker(m_folder))
{
    init();
}

DownloadManager::~DownloadManager()
{
    // Every transfer stops where it is (its part and sidecar stay: the next
    // start lists it as paused).
    QMetaObject::invokeMethod(m_worker, &DownloadWorker::shutdown, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
    delete m_worker;
}

void DownloadManager::init()
{
    m_clock.start();
    m_thread.setObjectName(QStringLiteral("burrow-downloads"));
    m_worker->moveToThread(&m_thread);
    connect(m_worker, &DownloadWorker::restored, this, &DownloadManager::onRestored);
    connect(m_worker, &DownloadWorker::progress, this, &DownloadManager::onProgress);
    connect(m_worker, &DownloadWorker::phaseChanged, this, &DownloadManager::onPhase);
    connect(m_worker, &DownloadWorker::specChanged, this, &DownloadManager::onSpec);
    connect(m_worker, &DownloadWorker::failed, this, &DownloadManager::onFailed);
    connect(m_worker, &DownloadWorker::stopped, this, &DownloadManager::onStopped);
    connect(m_worker, &DownloadWorker::finished, this, &DownloadManager::onFinished);
    m_thread.start();
    QMetaObject::invokeMethod(m_worker, &DownloadWorker::scan, Qt::QueuedConnection);
}

void DownloadManager::setRetryDelay(int ms)
{
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, ms] { worker->setRetryDelay(ms); }, Qt::QueuedConnection);
}

int DownloadManager::activeCount() const
{
    int n = 0;
    for (const Row &row : m_rows)
        if (row.state == Starting || row.state == Checking || row.state == Downloading || row.state == Verifying)
            ++n;
    return n;
}

int DownloadManager::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QHash<int, QByteArray> DownloadManager::roleNames() const
{
    return {
        {IdRole, "downloadId"},
        {FileNameRole, "fileName"},
        {RepoRole, "repo"},
        {RepoPathRole, "repoPath"},
        {StateRole, "downloadState"},
        {ReceivedRole, "received"},
        {TotalRole, "total"},
        {ProgressRole, "progress"},
        {SizeTextRole, "sizeText"},
        {SpeedTextRole, "speedText"},
        {TimeLeftTextRole, "timeLeftText"},
        {MessageRole, "message"},
        {LocalPathRole, "localPath"},
        {CanResumeRole, "canResume"},
    };
}

QVariant DownloadManager::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() < 0 || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows.at(index.row());
    const qint64 total = row.spec.size;
    switch (role) {
    case Qt::DisplayRole:
    case FileNameRole: return row.spec.fileName;
    case IdRole: return row.id;
    case RepoRole: return row.spec.repo;
    case RepoPathRole: return row.spec.path;
    case StateRole: return int(row.state);
    case ReceivedRole: return double(row.received);
    case TotalRole: return double(total);
    case ProgressRole: return total > 0 ? qBound(0.0, double(row.received) / double(total), 1.0) : (total == 0 ? 1.0 : -1.0);
    case SizeTextRole:
        if (total >= 0)
            return tr("%1 of %2").arg(ModelCard::formatBytes(quint64(row.received)), ModelCard::formatBytes(quint64(total)));
        return ModelCard::formatBytes(quint64(row.received));
    case SpeedTextRole: return speedText(row);
    case TimeLeftTextRole: return timeLeftText(row);
    case MessageRole: return row.message;
    case LocalPathRole: return row.localPath;
    case CanResumeRole: return row.state == Paused || row.state == Failed;
    default: return {};
    }
}

DownloadManager::Row *DownloadManager::rowById(int id)
{
    for (Row &row : m_rows)
        if (row.id == id)
            return &row;
    return nullptr;
}

DownloadManager::Row *DownloadManager::rowByRun(int runId)
{
    for (Row &row : m_rows)
        if (row.runId == runId)
            return &row;
    return nullptr;
}

int DownloadManager::rowOf(int id) const
{
    for (qsizetype i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == id)
            return int(i);
    return -1;
}

void DownloadManager::changed(int row)
{
    if (row < 0)
        return;
    const QModelIndex i = index(row);
    Q_EMIT dataChanged(i, i);
    const int active = activeCount();
    if (active != m_lastActive) {
        m_lastActive = active;
        Q_EMIT activeCountChanged();
    }
}

QString DownloadManager::download(const QString &repo, const QString &revision, const QString &path, double size,
                                  const QString &checksum)
{
    const QString rev = revision.isEmpty() ? QStringLiteral("main") : revision;
    if (!HubProtocol::isValidRepoId(repo) || !HubProtocol::isValidRevision(rev) || !HubProtocol::isValidRepoPath(path))
        return tr("This is no file of a repository on the hub.");
    const QString fileName = HubProtocol::localFileName(path);
    if (fileName.isEmpty())
        return tr("%1 cannot be saved under its name: Burrow downloads .gguf files with plain names only.")
            .arg(path.section(u'/', -1).left(200));
    int part = 0, parts = 0;
    if (HubProtocol::splitPart(fileName, &part, &parts, nullptr) && parts > 1)
        return tr("%1 is one part of a split model; Burrow opens single-file models only.").arg(fileName);
    for (const Row &row : std::as_const(m_rows))
        if (row.spec.fileName == fileName && row.state != Finished)
            return tr("%1 is already in the list of downloads.").arg(fileName);
    const QString target = QDir(m_folder).filePath(fileName);
    if (QFileInfo::exists(target))
        return tr("%1 is already in the models folder (%2).").arg(fileName, QDir::toNativeSeparators(m_folder));

    Row row;
    row.id = m_nextId++;
    row.spec.repo = repo;
    row.spec.revision = rev;
    row.spec.path = path;
    row.spec.fileName = fileName;
    row.spec.size = std::isfinite(size) && size >= 0 && size <= double(1LL << 50) ? qint64(size) : -1;
    const QString sum = checksum.toLower();
    row.spec.checksum = HubProtocol::isHex(sum, 64) || HubProtocol::isHex(sum, 40) ? sum : QString();
    beginInsertRows(QModelIndex(), int(m_rows.size()), int(m_rows.size()));
    m_rows.append(row);
    endInsertRows();
    Q_EMIT countChanged();
    startRow(row.id);
    return QString();
}

void DownloadManager::startRow(int id)
{
    Row *row = rowById(id);
    if (!row)
        return;
    row->state = Starting;
    row->message.clear();
    row->samples.clear();
    row->runId = m_nextRunId++;
    changed(rowOf(id));
    const int runId = row->runId;
    m_token->fetch(this, [this, runId](const QString &token) {
        Row *row = rowByRun(runId);
        if (!row || row->state != Starting)
            return;
        QMetaObject::invokeMethod(
            m_worker,
            [worker = m_worker, runId, spec = row->spec, token, endpoint = HubProtocol::endpoint()] {
                worker->start(runId, spec, token, endpoint);
            },
            Qt::QueuedConnection);
    });
}

void DownloadManager::pause(int id)
{
    Row *row = rowById(id);
    if (!row || row->state == Paused || row->state == Failed || row->state == Finished)
        return;
    row->state = Paused;
    row->samples.clear();
    const int runId = row->runId;
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, runId] { worker->stop(runId); }, Qt::QueuedConnection);
    changed(rowOf(id));
}

void DownloadManager::resume(int id)
{
    Row *row = rowById(id);
    if (!row || (row->state != Paused && row->state != Failed))
        return;
    startRow(id);
}

void DownloadManager::cancel(int id)
{
    const int i = rowOf(id);
    if (i < 0 || m_rows[i].state == Finished)
        return;
    const int runId = m_rows[i].runId;
    const QString fileName = m_rows[i].spec.fileName;
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, runId, fileName] { worker->cancel(runId, fileName); },
                              Qt::QueuedConnection);
    beginRemoveRows(QModelIndex(), i, i);
    m_rows.removeAt(i);
    endRemoveRows();
    Q_EMIT countChanged();
    changed(-1);
    const int active = activeCount();
    if (active != m_lastActive) {
        m_lastActive = active;
        Q_EMIT activeCountChanged();
    }
}

void DownloadManager::dismiss(int id)
{
    const int i = rowOf(id);
    if (i < 0 || !(m_rows[i].state == Finished || (m_rows[i].state == Failed && !m_rows[i].partKept)))
        return;
    beginRemoveRows(QModelIndex(), i, i);
    m_rows.removeAt(i);
    endRemoveRows();
    Q_EMIT countChanged();
}

void DownloadManager::onRestored(const DownloadSpec &spec, qint64 partSize)
{
    for (const Row &row : std::as_const(m_rows))
        if (row.spec.fileName == spec.fileName)
            return;
    Row row;
    row.id = m_nextId++;
    row.runId = m_nextRunId++;
    row.spec = spec;
    row.state = Paused;
    row.received = partSize;
    row.partKept = true;
    beginInsertRows(QModelIndex(), int(m_rows.size()), int(m_rows.size()));
    m_rows.append(row);
    endInsertRows();
    Q_EMIT countChanged();
}

void DownloadManager::onProgress(int runId, qint64 received, qint64 total)
{
    Row *row = rowByRun(runId);
    if (!row)
        return;
    if (received < row->received)
        row->samples.clear();   // started again from zero
    row->received = received;
    if (total >= 0)
        row->spec.size = total;
    if (row->state == Downloading) {
        const qint64 now = m_clock.elapsed();
        row->samples.append({now, received});
        while (row->samples.size() > 2 && now - row->samples.first().first > SpeedWindowMs)
            row->samples.removeFirst();
    }
    changed(rowOf(row->id));
}

void DownloadManager::onPhase(int runId, int phase)
{
    Row *row = rowByRun(runId);
    if (!row || !(row->state == Starting || row->state == Checking || row->state == Downloading || row->state == Verifying))
        return;
    switch (phase) {
    case DownloadWorker::Checking: row->state = Checking; break;
    case DownloadWorker::Downloading:
        if (row->state != Downloading)
            row->samples.clear();
        row->state = Downloading;
        break;
    case DownloadWorker::Verifying: row->state = Verifying; break;
    default: break;
    }
    changed(rowOf(row->id));
}

void DownloadManager::onSpec(int runId, const DownloadSpec &spec)
{
    if (Row *row = rowByRun(runId)) {
        row->spec = spec;
        changed(rowOf(row->id));
    }
}

void DownloadManager::onFailed(int runId, const QString &message, bool partKept)
{
    Row *row = rowByRun(runId);
    if (!row)
        return;
    row->state = Failed;
    row->message = message;
    row->partKept = partKept;
    if (!partKept)
        row->received = 0;
    row->samples.clear();
    const int id = row->id;
    changed(rowOf(id));
    Q_EMIT downloadFailed(id, message);
}

void DownloadManager::onStopped(int runId, qint64 received)
{
    Row *row = rowByRun(runId);
    if (!row)
        return;
    row->state = Paused;
    row->received = received;
    row->partKept = true;
    changed(rowOf(row->id));
}

void DownloadManager::onFinished(int runId, const QString &path)
{
    Row *row = rowByRun(runId);
    if (!row)
        return;
    row->state = Finished;
    row->localPath = path;
    row->received = row->spec.size >= 0 ? row->spec.size : row->received;
    row->message.clear();
    row->samples.clear();
    const int id = row->id;
    changed(rowOf(id));
    Q_EMIT downloadFinished(id, path);
}

double DownloadManager::speed(const Row &row) const
{
    if (row.state != Downloading || row.samples.size() < 2)
        return 0;
    const auto &first = row.samples.first();
    const auto &last = row.samples.last();
    const qint64 span = last.first - first.first;
    if (span < MinSpeedSpanMs)
        return 0;
    return double(last.second - first.second) * 1000.0 / double(span);
}

QString DownloadManager::speedText(const Row &row) const
{
    const double bytesPerSecond = speed(row);
    if (bytesPerSecond <= 0)
        return QString();
    return tr("%1/s").arg(ModelCard::formatBytes(quint64(bytesPerSecond)));
}

QString DownloadManager::timeLeftText(const Row &row) const
{
    const double bytesPerSecond = speed(row);
    if (bytesPerSecond <= 0 || row.spec.size < 0)
        return QString();
    const double seconds = double(qMax<qint64>(0, row.spec.size - row.received)) / bytesPerSecond;
    if (seconds < 60)
        return tr("less than a minute left");
    if (seconds < 3600)
        return tr("about %n minute(s) left", nullptr, int(std::ceil(seconds / 60)));
    const qint64 minutes = qint64(std::ceil(seconds / 60));
    return tr("about %1 h %2 min left").arg(minutes / 60).arg(minutes % 60);
}
