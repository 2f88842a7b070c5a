#include "modelloader.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "archive/archiveservice.h"
#include "backend/enginebridge.h"
#include "backend/remoteendpoints.h"
#include "recentmodels.h"
#include "settings/chatsettings.h"

namespace {
struct Inspection {
    QString path;
    ModelCard card;
    QString error;
};
} // namespace

ModelLoader::ModelLoader(EngineBridge *bridge, ChatSettings *settings, ArchiveService *archives, QObject *parent)
    : QObject(parent), m_bridge(bridge), m_settings(settings), m_archives(archives), m_recent(new RecentModels(this))
{
    connect(m_bridge, &EngineBridge::loadProgress, this, [this](quint64 id, double p) {
        if (id != m_loadId)
            return;
        m_loadProgress = p;
        Q_EMIT loadProgressChanged();
    });
    connect(m_bridge, &EngineBridge::modelLoaded, this, &ModelLoader::onLoaded);
    // The context that fits in memory depends on the chat's KV cache type.
    if (m_settings)
        connect(m_settings, &ChatSettings::changed, this, [this] {
            if (m_model.isValid() && m_settings->kvCacheType() != m_limitKvType)
                updateMemoryLimit();
        });
    connect(m_bridge, &EngineBridge::loadFailed, this, &ModelLoader::onLoadFailed);
    if (m_archives) {
        connect(m_archives, &ArchiveService::modelReady, this,
                [this](const QString &path) { openFile(path, m_unpackedConfirm); });
    }
}

QString ModelLoader::loadingFileName() const
{
    return RemoteModelRef::displayName(m_loadingPath);
}

QString ModelLoader::refusalFor(const QList<QUrl> &urls) const
{
    if (urls.isEmpty())
        return tr("Only model files can be dropped here.");
    if (urls.size() > 1)
        return tr("Drop one model file at a time.");
    const QUrl &url = urls.first();
    if (!url.isLocalFile())
        return tr("Only files on this computer can be opened.");
    const QFileInfo info(url.toLocalFile());
    if (info.isDir())
        return tr("%1 is a folder; drop a .gguf model file.").arg(info.fileName());
    if (ArchiveService::isArchiveFile(info.filePath()))
        return QString();   // a compressed model: unpacked first
    if (info.suffix().compare(QLatin1String("gguf"), Qt::CaseInsensitive) != 0)
        return tr("%1 is not a .gguf model file.").arg(info.fileName());
    return QString();
}

void ModelLoader::openUrls(const QList<QUrl> &urls)
{
    const QString refusal = refusalFor(urls);
    if (!refusal.isEmpty()) {
        Q_EMIT problem(refusal);
        return;
    }
    const QString path = urls.first().toLocalFile();
    if (m_archives && ArchiveService::isArchiveFile(path)) {
        m_unpackedConfirm = true;
        m_archives->importModel(path);
        return;
    }
    openFile(path, true);
}

void ModelLoader::openPath(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (m_archives && QFileInfo(absolute).isFile() && ArchiveService::isArchiveFile(absolute)) {
        m_unpackedConfirm = false;
        m_archives->importModel(absolute);
        return;
    }
    openFile(absolute, false);
}

void ModelLoader::openFile(const QString &path, bool confirm)
{
    if (RemoteModelRef::isLocator(path)) {
        // A model on a server the user added: no file to read, no card to confirm.
        QString error = tr("this build cannot reach servers");
        const ModelInspector &inspect = m_bridge->inspector();
        if (!inspect || !inspect(path, &error).isValid()) {
            Q_EMIT problem(tr("Burrow can't use %1: %2").arg(RemoteModelRef::displayName(path), error));
            Q_EMIT loadFinished(false);
            return;
        }
        startLoad(path);
        return;
    }
    const QFileInfo info(path);
    if (!info.isFile()) {
        Q_EMIT problem(tr("%1 does not exist.").arg(path));
        return;
    }
    const quint64 ticket = ++m_inspectTicket;
    m_inspecting = true;
    Q_EMIT inspectingChanged();
    // The header is read on a pool thread: a slow disk never freezes the window.
    auto *watcher = new QFutureWatcher<Inspection>(this);
    connect(watcher, &QFutureWatcher<Inspection>::finished, this, [this, watcher, ticket, confirm] {
        const Inspection result = watcher->result();
        watcher->deleteLater();
        inspected(ticket, result.path, result.card, result.error, confirm);
    });
    const ModelInspector inspect = m_bridge->inspector();
    const QString absolute = info.absoluteFilePath();
    watcher->setFuture(QtConcurrent::run([inspect, absolute] {
        Inspection result;
        result.path = absolute;
        result.card = inspect(absolute, &result.error);
        if (!result.card.isValid() && result.error.isEmpty())
            result.error = QCoreApplication::translate("ModelLoader", "the file could not be read");
        return result;
    }));
}

void ModelLoader::inspected(quint64 ticket, const QString &path, const ModelCard &card, const QString &error,
                            bool confirm)
{
    if (ticket != m_inspectTicket)
        return;
    m_inspecting = false;
    Q_EMIT inspectingChanged();
    if (!card.isValid()) {
        Q_EMIT problem(tr("Burrow can't use %1: %2").arg(QFileInfo(path).fileName(), error));
        Q_EMIT loadFinished(false);
        return;
    }
    const int context = m_settings ? m_settings->contextSize() : 0;
    if (confirm || !card.fitsAt(context, m_settings ? m_settings->kvCacheType() : QStringLiteral("f16"))) {
        m_pendingCard = card;
        Q_EMIT pendingCardChanged();
        return;
    }
    startLoad(card.path);
}

void ModelLoader::loadPending()
{
    if (!m_pendingCard.isValid())
        return;
    const QString path = m_pendingCard.path;
    m_pendingCard = ModelCard();
    Q_EMIT pendingCardChanged();
    startLoad(path);
}

void ModelLoader::dismissPending()
{
    if (!m_pendingCard.isValid())
        return;
    m_pendingCard = ModelCard();
    Q_EMIT pendingCardChanged();
}

void ModelLoader::startLoad(const QString &path)
{
    Q_EMIT loadStarting();   // the partial reply stays, marked stopped; the load queues behind it
    if (isLoading())
        m_bridge->cancel(m_loadId);   // a newer choice replaces a load in progress
    m_loadingPath = path;
    m_loadProgress = 0;
    m_loadId = m_bridge->load(path, m_settings ? m_settings->contextSize() : 0);
    Q_EMIT loadingChanged();
    Q_EMIT loadProgressChanged();
}

void ModelLoader::onLoaded(quint64 id, const ModelCard &card)
{
    // Loads run in order on the engine thread, so the last one reported is
    // the model in use, even if a newer load is still pending.
    m_model = card;
    if (m_settings)
        m_settings->setTrainedContext(card.trainedContext);   // the panel checks the context size against it
    m_recent->add(card.path);
    updateMemoryLimit();
    Q_EMIT modelChanged();
    if (id == m_loadId) {
        m_loadId = 0;
        m_loadingPath.clear();
        Q_EMIT loadingChanged();
        Q_EMIT loadFinished(true);
    }
}

void ModelLoader::onLoadFailed(quint64 id, const QString &path, const QString &reason)
{
    if (id != m_loadId)
        return;
    m_loadId = 0;
    m_loadingPath.clear();
    const QString name = RemoteModelRef::displayName(path);
    Q_EMIT loadingChanged();
    Q_EMIT problem(hasModel() ? tr("Burrow can't use %1: %2 %3 stays loaded.").arg(name, reason, m_model.name)
                              : tr("Burrow can't use %1: %2").arg(name, reason));
    Q_EMIT loadFinished(false);
}

void ModelLoader::updateMemoryLimit()
{
    if (!m_settings)
        return;
    // The largest context whose memory estimate fits in what was free when
    // the card was made (0: unknown, or not even the smallest fits).
    const QString kvType = m_settings->kvCacheType();
    m_limitKvType = kvType;
    const int limit = m_model.fitsAt(ChatSettings::MinContextSize, kvType) ? m_model.largestFittingContext(kvType) : 0;
    m_settings->setMemoryContextLimit(limit);
}
