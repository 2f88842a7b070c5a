#include "chatcontroller.h"

#include <limits>

#include <QClipboard>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLocale>
#include <QtConcurrent/QtConcurrentRun>

#include "backend/engineworker.h"
#include "common/logging.h"

namespace {

BackendFactory &factoryOverride()
{
    static BackendFactory factory;
    return factory;
}

BackendFactory currentFactory()
{
    const BackendFactory &f = factoryOverride();
    return f.create ? f : defaultBackendFactory();
}

struct Inspection {
    QString path;
    ModelCard card;
    QString error;
};

} // namespace

ChatController::ChatController(QObject *parent)
    : QObject(parent),
      m_messages(new MessageModel(this)),
      m_settings(new ChatSettings(this)),
      m_recent(new RecentModels(this)),
      m_store(new ConversationStore(this))
{
    qRegisterMetaType<GenerationOutcome>();
    qRegisterMetaType<PromptPlan>();
    qRegisterMetaType<ModelCard>();

    const BackendFactory factory = currentFactory();
    m_inspect = factory.inspect;
    m_worker = new EngineWorker(factory.create());
    m_worker->moveToThread(&m_thread);
    m_thread.setObjectName(QStringLiteral("burrow-engine"));
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);

    // Every connection is queued: the worker's signals arrive through this
    // thread's event loop, never as direct calls from the engine thread.
    connect(m_worker, &EngineWorker::loadProgress, this, [this](quint64 id, double p) {
        if (id != m_loadId)
            return;
        m_loadProgress = p;
        Q_EMIT loadProgressChanged();
    }, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::modelLoaded, this, &ChatController::onModelLoaded, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::loadFailed, this, &ChatController::onLoadFailed, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::promptPlanned, this, &ChatController::onPromptPlanned, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::promptProgress, this, &ChatController::onPromptProgress, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::textReady, this, &ChatController::onTextReady, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::generationFinished, this, &ChatController::onGenerationFinished,
            Qt::QueuedConnection);
    connect(m_messages, &MessageModel::countChanged, this, &ChatController::canRegenerateChanged);
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(FlushIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &ChatController::flushStreamedText);
    m_storeTimer.setInterval(StoreIntervalMs);
    connect(&m_storeTimer, &QTimer::timeout, this, &ChatController::saveStreamingReply);
    connect(m_settings, &ChatSettings::changed, this, &ChatController::saveSettings);
    connect(m_store, &ConversationStore::errorOccurred, this, &ChatController::setBanner);
    connect(m_store, &ConversationStore::conversationChanged, this, [this](qint64 id) {
        if (id == m_conversationId)
            Q_EMIT conversationChanged();
    });
    m_thread.start();
}

ChatController::~ChatController()
{
    // A reply still streaming keeps all its text so far; it stays Streaming in
    // the store and shows as interrupted at the next start.
    saveStreamingReply();
    // Shutting down is the one time this thread waits for the engine thread:
    // everything running is cancelled first, so it returns within a token.
    m_worker->cancelUpTo(std::numeric_limits<quint64>::max());
    m_thread.quit();
    m_thread.wait();
}

void ChatController::setBackendFactory(const BackendFactory &factory)
{
    factoryOverride() = factory;
}

void ChatController::resetBackendFactory()
{
    factoryOverride() = BackendFactory();
}

QString ChatController::loadingFileName() const
{
    return QFileInfo(m_loadingPath).fileName();
}

bool ChatController::canRegenerate() const
{
    if (!hasModel() || isGenerating() || isLoading() || m_messages->rowCount() == 0)
        return false;
    const auto &last = m_messages->messages().last();
    return last.author == MessageModel::Author::Assistant || last.author == MessageModel::Author::User;
}

void ChatController::setBanner(const QString &text)
{
    if (m_banner == text)
        return;
    m_banner = text;
    Q_EMIT bannerChanged();
}

void ChatController::dismissBanner()
{
    setBanner(QString());
}

QString ChatController::refusalFor(const QList<QUrl> &urls) const
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
    if (info.suffix().compare(QLatin1String("gguf"), Qt::CaseInsensitive) != 0)
        return tr("%1 is not a .gguf model file.").arg(info.fileName());
    return QString();
}

void ChatController::openUrls(const QList<QUrl> &urls)
{
    const QString refusal = refusalFor(urls);
    if (!refusal.isEmpty()) {
        setBanner(refusal);
        return;
    }
    openFile(urls.first().toLocalFile(), true);
}

void ChatController::openFile(const QString &path, bool confirm)
{
    const QFileInfo info(path);
    if (!info.isFile()) {
        setBanner(tr("%1 does not exist.").arg(path));
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
        onInspected(ticket, result.path, result.card, result.error, confirm);
    });
    const ModelInspector inspect = m_inspect;
    const QString absolute = info.absoluteFilePath();
    watcher->setFuture(QtConcurrent::run([inspect, absolute] {
        Inspection result;
        result.path = absolute;
        result.card = inspect(absolute, &result.error);
        if (!result.card.isValid() && result.error.isEmpty())
            result.error = QCoreApplication::translate("ChatController", "the file could not be read");
        return result;
    }));
}

void ChatController::onInspected(quint64 ticket, const QString &path, const ModelCard &card, const QString &error,
                                 bool confirm)
{
    if (ticket != m_inspectTicket)
        return;
    m_inspecting = false;
    Q_EMIT inspectingChanged();
    if (!card.isValid()) {
        setBanner(tr("Burrow can't use %1: %2").arg(QFileInfo(path).fileName(), error));
        Q_EMIT loadFinished(false);
        return;
    }
    ModelCard chosen = card;
    chosen.contextSize = m_settings->contextSize();
    if (confirm || !chosen.fitsInMemory()) {
        m_pendingCard = chosen;
        Q_EMIT pendingCardChanged();
        return;
    }
    startLoad(chosen.path);
}

void ChatController::loadPending()
{
    if (!m_pendingCard.isValid())
        return;
    const QString path = m_pendingCard.path;
    m_pendingCard = ModelCard();
    Q_EMIT pendingCardChanged();
    startLoad(path);
}

void ChatController::dismissPending()
{
    if (!m_pendingCard.isValid())
        return;
    m_pendingCard = ModelCard();
    Q_EMIT pendingCardChanged();
}

void ChatController::startLoad(const QString &path)
{
    if (isGenerating())
        stop();   // the partial reply stays, marked stopped; the load queues behind it
    const quint64 id = ++m_nextId;
    const bool wasLoading = isLoading();
    if (wasLoading)
        m_worker->cancelUpTo(m_loadId);   // a newer choice replaces a load in progress
    m_loadId = id;
    m_loadingPath = path;
    m_loadProgress = 0;
    setBanner(QString());
    Q_EMIT loadingChanged();
    Q_EMIT loadProgressChanged();
    Q_EMIT canRegenerateChanged();
    const int contextSize = m_settings->contextSize();
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, id, path, contextSize] {
        worker->loadModel(id, path, contextSize);
    }, Qt::QueuedConnection);
}

void ChatController::onModelLoaded(quint64 id, const ModelCard &card)
{
    // Loads run in order on the engine thread, so the last one reported is
    // the model in use, even if a newer load is still pending.
    m_model = card;
    m_settings->setTrainedContext(card.trainedContext);   // the settings panel checks the context size against it
    // The settings panel says which format "Automatic" gives this model.
    m_settings->setAutomaticChatFormat(!card.chatFormat.isEmpty() ? card.chatFormat
                                       : card.hasChatTemplate     ? QStringLiteral("template")
                                                                  : QStringLiteral("plain"));
    m_contextSize = card.contextSize;
    m_contextUsed = 0;
    m_messages->setMemoryStart(-1);
    m_recent->add(card.path);
    updateMemoryLimit();
    if (persistent())
        m_store->setModel(m_conversationId, card.path, qint64(card.fileSize));   // this chat now uses it
    Q_EMIT modelChanged();
    updateModelMismatch();
    Q_EMIT statsChanged();
    if (id == m_loadId) {
        m_loadId = 0;
        m_loadingPath.clear();
        Q_EMIT loadingChanged();
        Q_EMIT canRegenerateChanged();
        Q_EMIT loadFinished(true);
    }
}

void ChatController::onLoadFailed(quint64 id, const QString &path, const QString &reason)
{
    if (id != m_loadId)
        return;
    m_loadId = 0;
    m_loadingPath.clear();
    const QString name = QFileInfo(path).fileName();
    setBanner(hasModel() ? tr("Burrow can't use %1: %2 %3 stays loaded.").arg(name, reason, m_model.name)
                         : tr("Burrow can't use %1: %2").arg(name, reason));
    Q_EMIT loadingChanged();
    Q_EMIT canRegenerateChanged();
    Q_EMIT loadFinished(false);
}

bool ChatController::send(const QString &text)
{
    if (isGenerating() && persistent() && m_replyConversation != m_conversationId) {
        setBanner(tr("Another chat is still writing its reply. Wait for it, or stop it, then send."));
        return false;
    }
    if (text.trimmed().isEmpty() || !hasModel() || isGenerating() || isLoading())
        return false;
    MessageModel::Message message;
    message.author = MessageModel::Author::User;
    message.text = text;
    if (persistent()) {
        // Stored before the reply starts: what the user typed is never lost.
        message.id = m_store->appendMessage(m_conversationId, QStringLiteral("user"), text);
        if (message.id < 0)
            return false;   // the banner says why; the composer keeps the text
    }
    m_messages->append(message);
    startReply();
    return true;
}

void ChatController::startReply()
{
    GenerationRequest request;
    request.id = ++m_nextId;
    request.systemPrompt = m_settings->systemPrompt();
    request.settings = m_settings->values();
    const auto &rows = m_messages->messages();
    for (int row = 0; row < rows.size(); ++row) {
        const MessageModel::Message &m = rows.at(row);
        if (m.text.isEmpty() || m.state == MessageModel::State::Failed)
            continue;
        ChatTurn turn;
        turn.author = m.author == MessageModel::Author::User ? ChatTurn::Author::User
                    : m.author == MessageModel::Author::Assistant ? ChatTurn::Author::Assistant
                                                                  : ChatTurn::Author::System;
        turn.text = m.text;
        turn.row = row;
        request.turns.append(turn);
    }
    MessageModel::Message reply;
    reply.author = MessageModel::Author::Assistant;
    reply.state = MessageModel::State::Streaming;
    m_replyText.clear();
    m_replyStored.clear();
    m_replyConversation = m_conversationId;
    m_replyMessageId = -1;
    if (persistent()) {
        const ConversationRecord record = m_store->conversation(m_conversationId);
        if (hasModel() && record.modelPath != m_model.path)
            m_store->setModel(m_conversationId, m_model.path, qint64(m_model.fileSize));
        reply.id = m_replyMessageId = m_store->beginReply(m_conversationId, QFileInfo(m_model.path).fileName(),
                                                          m_settings->toJson());
        m_storeTimer.start();
        updateModelMismatch();
    }
    const int row = m_messages->append(reply);

    m_planTokens = 0;
    m_streamBuffer.clear();
    m_streamPieces = 0;
    m_promptProgress = -1;
    m_tokensPerSecond = 0;
    setGenerating(request.id, row);
    Q_EMIT statsChanged();
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, request] { worker->generate(request); },
                              Qt::QueuedConnection);
}

void ChatController::setGenerating(quint64 requestId, int row)
{
    const bool was = isGenerating();
    m_activeRequest = requestId;
    m_streamRow = row;
    if (was != isGenerating()) {
        Q_EMIT generatingChanged();
        Q_EMIT canRegenerateChanged();
    }
}

void ChatController::stop()
{
    if (isGenerating())
        m_worker->cancelUpTo(m_activeRequest);
}

bool ChatController::regenerate()
{
    if (!canRegenerate())
        return false;
    const int last = m_messages->rowCount() - 1;
    if (m_messages->message(last).author == MessageModel::Author::Assistant) {
        if (persistent() && storedId(last) > 0)
            m_store->removeMessagesFrom(m_conversationId, storedId(last));
        m_messages->removeFrom(last);
    }
    if (m_messages->rowCount() == 0)
        return false;
    startReply();
    return true;
}

bool ChatController::editDiscardsReplies(int row) const
{
    const auto &rows = m_messages->messages();
    for (int i = row + 1; i < rows.size(); ++i) {
        if (rows.at(i).author == MessageModel::Author::Assistant && !rows.at(i).text.isEmpty())
            return true;
    }
    return false;
}

bool ChatController::editAndResend(int row, const QString &text)
{
    if (row < 0 || row >= m_messages->rowCount() || text.trimmed().isEmpty() || !hasModel() || isGenerating()
        || isLoading())
        return false;
    if (m_messages->message(row).author != MessageModel::Author::User)
        return false;
    if (persistent()) {
        if (storedId(row + 1) > 0)
            m_store->removeMessagesFrom(m_conversationId, storedId(row + 1));
        if (storedId(row) > 0)
            m_store->editMessage(storedId(row), text);
    }
    m_messages->removeFrom(row + 1);
    m_messages->setText(row, text);
    startReply();
    return true;
}

void ChatController::clearConversation()
{
    if (isGenerating() && (!persistent() || m_replyConversation == m_conversationId)) {
        m_worker->cancelUpTo(m_activeRequest);
        m_storeTimer.stop();
        m_replyMessageId = -1;
        setGenerating(0, -1);   // its late signals are ignored
        m_streamBuffer.clear();
    }
    if (persistent() && m_messages->rowCount() > 0 && storedId(0) > 0)
        m_store->removeMessagesFrom(m_conversationId, storedId(0));
    m_messages->clear();
    m_contextUsed = 0;
    m_lastReplyStats.clear();
    Q_EMIT statsChanged();
}

void ChatController::copyToClipboard(const QString &text) const
{
    if (QClipboard *clipboard = QGuiApplication::clipboard())
        clipboard->setText(text);
}

void ChatController::onPromptPlanned(quint64 id, const PromptPlan &plan)
{
    if (id != m_activeRequest)
        return;
    qCDebug(lcApp) << "prompt" << plan.promptTokens << "tokens, template" << plan.usesTemplate << "first row"
                   << plan.firstRow << "context" << plan.contextSize;
    m_messages->setMemoryStart(plan.firstRow);
    m_planTokens = plan.promptTokens;
    m_contextSize = plan.contextSize;
    m_contextUsed = plan.promptTokens;
    Q_EMIT statsChanged();
}

void ChatController::onPromptProgress(quint64 id, int done, int total)
{
    if (id != m_activeRequest)
        return;
    m_promptProgress = total > 0 && done < total ? double(done) / total : -1;
    Q_EMIT statsChanged();
}

void ChatController::onTextReady(quint64 id, const QString &text, int pieces, double elapsedMs)
{
    if (id != m_activeRequest)
        return;
    m_streamBuffer += text;
    m_replyText += text;
    m_streamPieces = pieces;
    m_tokensPerSecond = pieces > 1 && elapsedMs > 0 ? (pieces - 1) * 1000.0 / elapsedMs : 0;
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void ChatController::flushStreamedText()
{
    m_flushTimer.stop();
    if (m_streamRow < 0) {
        m_streamBuffer.clear();   // its chat is not shown; m_replyText has it
        return;
    }
    if (m_streamBuffer.isEmpty())
        return;
    m_messages->appendText(m_streamRow, m_streamBuffer);
    m_streamBuffer.clear();
    m_promptProgress = -1;
    m_contextUsed = m_planTokens + m_streamPieces;
    Q_EMIT statsChanged();
}

void ChatController::onGenerationFinished(quint64 id, const GenerationOutcome &outcome)
{
    if (id != m_activeRequest)
        return;
    flushStreamedText();
    const int row = m_streamRow;
    switch (outcome.stop) {
    case GenerationOutcome::Stop::Cancelled:
        m_messages->setState(row, MessageModel::State::Stopped);
        break;
    case GenerationOutcome::Stop::Error:
        m_messages->setState(row, MessageModel::State::Failed, outcome.error);
        break;
    default:
        m_messages->setState(row, MessageModel::State::Complete);
        break;
    }
    m_messages->setStats(row, outcome.generatedTokens, outcome.tokensPerSecond());
    m_storeTimer.stop();
    if (m_replyMessageId > 0) {
        const int state = outcome.stop == GenerationOutcome::Stop::Cancelled ? ConversationStore::Stopped
                        : outcome.stop == GenerationOutcome::Stop::Error   ? ConversationStore::Error
                                                                           : ConversationStore::Complete;
        const int promptTokens = m_planTokens > 0 ? m_planTokens : outcome.promptTokens + outcome.reusedTokens;
        m_store->finishReply(m_replyMessageId, m_replyText, state, promptTokens, outcome.generatedTokens,
                             outcome.generatedTokens > 0 ? outcome.tokensPerSecond() : -1, outcome.error);
        m_replyStored = m_replyText;
        m_replyMessageId = -1;
    }
    m_promptProgress = -1;
    if (outcome.generatedTokens > 0) {
        m_tokensPerSecond = outcome.tokensPerSecond();
        m_lastReplyStats = tr("%n tokens at %1 tokens/s", nullptr, outcome.generatedTokens)
                               .arg(QLocale().toString(m_tokensPerSecond, 'f', 1));
        if (outcome.reusedTokens > 0 || outcome.promptTokens > 0)
            m_lastReplyStats += QLatin1String(" · ")
                + tr("prompt: %1 new, %2 reused").arg(outcome.promptTokens).arg(outcome.reusedTokens);
    }
    if (outcome.contextSize > 0) {
        m_contextUsed = outcome.contextUsed;
        m_contextSize = outcome.contextSize;
    }
    setGenerating(0, -1);
    Q_EMIT statsChanged();
    qCDebug(lcApp) << "reply finished" << int(outcome.stop) << outcome.generatedTokens << "tokens";
    Q_EMIT replyFinished(row);
}

// ---- persistence -------------------------------------------------------

void ChatController::setDefaults(ChatSettings *defaults)
{
    if (m_defaults == defaults)
        return;
    m_defaults = defaults;
    m_applyingSettings = true;
    m_settings->setDefaults(defaults);
    m_applyingSettings = false;
    Q_EMIT defaultsChanged();
}

QString ChatController::conversationTitle() const
{
    return persistent() ? m_store->conversation(m_conversationId).title : QString();
}

QString ChatController::conversationModelName() const
{
    return QFileInfo(m_conversationModelMismatch).fileName();
}

qint64 ChatController::storedId(int row) const
{
    return row >= 0 && row < m_messages->rowCount() ? m_messages->message(row).id : -1;
}

bool ChatController::startPersistence(const QString &databasePath)
{
    if (!databasePath.isEmpty())
        m_store->setDatabasePath(databasePath);
    if (!m_store->isReady() && !m_store->open()) {
        if (!m_store->problem().isEmpty())
            setBanner(m_store->problem());
        return false;
    }
    if (!m_store->problem().isEmpty())
        setBanner(m_store->problem());   // a damaged database was moved aside
    const QVector<ConversationRecord> list = m_store->conversations();
    if (!list.isEmpty() && openConversation(double(list.first().id)))
        return true;
    return newConversation() > 0;
}

bool ChatController::openConversation(double idValue)
{
    if (!m_store->isReady())
        return false;
    const qint64 id = qint64(idValue);
    if (id <= 0)
        return newConversation() > 0;
    const ConversationRecord record = m_store->conversation(id);
    if (record.id <= 0 || record.deletedAt.isValid())
        return false;
    m_flushTimer.stop();
    m_streamBuffer.clear();   // m_replyText holds the whole streaming reply
    QList<MessageModel::Message> rows;
    int streamRow = -1;
    const QVector<MessageRecord> stored = m_store->messages(id);
    for (const MessageRecord &r : stored) {
        MessageModel::Message m;
        m.id = r.id;
        m.author = r.role == QLatin1String("assistant") ? MessageModel::Author::Assistant
                 : r.role == QLatin1String("system")    ? MessageModel::Author::System
                                                        : MessageModel::Author::User;
        m.text = r.content;
        m.created = r.created.toLocalTime();
        m.error = r.error;
        m.tokens = qMax(0, r.generatedTokens);
        m.tokensPerSecond = qMax(0.0, r.tokensPerSecond);
        switch (r.state) {
        case ConversationStore::Streaming: m.state = MessageModel::State::Streaming; break;
        case ConversationStore::Interrupted: m.state = MessageModel::State::Interrupted; break;
        case ConversationStore::Stopped: m.state = MessageModel::State::Stopped; break;
        case ConversationStore::Error: m.state = MessageModel::State::Failed; break;
        default: m.state = MessageModel::State::Complete; break;
        }
        if (isGenerating() && r.id == m_replyMessageId) {
            m.text = m_replyText;   // newer than the last streaming write
            m.state = MessageModel::State::Streaming;
            streamRow = int(rows.size());
        }
        rows.append(m);
    }
    m_conversationId = id;
    m_messages->setMessages(rows);
    if (isGenerating())
        m_streamRow = streamRow;   // -1: the reply belongs to another chat
    applyConversationSettings(record.settings);
    m_contextUsed = 0;
    m_lastReplyStats.clear();
    Q_EMIT statsChanged();
    updateModelMismatch();
    Q_EMIT conversationChanged();
    Q_EMIT canRegenerateChanged();
    return true;
}

double ChatController::newConversation()
{
    if (!m_store->isReady())
        return -1;
    const QJsonObject defaults = m_defaults ? m_defaults->toJson() : ChatSettings().toJson();
    const bool shownIsBusy = isGenerating() && m_replyConversation == m_conversationId;
    if (persistent() && m_messages->rowCount() == 0 && !shownIsBusy
        && !m_store->conversation(m_conversationId).deletedAt.isValid()) {
        // The shown chat is still empty: it becomes the new one.
        applyConversationSettings(defaults);
        m_store->setSettings(m_conversationId, defaults);
        Q_EMIT conversationChanged();
        return double(m_conversationId);
    }
    const qint64 id = m_store->createConversation(QString(), m_model.path, qint64(m_model.fileSize), defaults);
    if (id <= 0 || !openConversation(double(id)))
        return -1;
    return double(id);
}

void ChatController::applyConversationSettings(const QJsonObject &json)
{
    m_applyingSettings = true;
    if (m_defaults)
        m_settings->setDefaults(m_defaults);
    if (json.isEmpty() && m_defaults)
        m_settings->copyFrom(m_defaults);
    else
        m_settings->fromJson(json);
    m_applyingSettings = false;
}

void ChatController::saveSettings()
{
    if (!m_applyingSettings && persistent())
        m_store->setSettings(m_conversationId, m_settings->toJson());
}

void ChatController::saveStreamingReply()
{
    if (m_replyMessageId <= 0 || m_replyText == m_replyStored)
        return;
    if (m_store->updateReply(m_replyMessageId, m_replyText))
        m_replyStored = m_replyText;
}

void ChatController::updateModelMismatch()
{
    QString mismatch;
    if (persistent()) {
        const ConversationRecord record = m_store->conversation(m_conversationId);
        if (!record.modelPath.isEmpty() && record.modelPath != m_model.path && record.modelPath != m_loadingPath
            && m_messages->rowCount() > 0)
            mismatch = record.modelPath;
    }
    if (mismatch == m_conversationModelMismatch)
        return;
    m_conversationModelMismatch = mismatch;
    Q_EMIT conversationModelChanged();
}

void ChatController::loadConversationModel()
{
    const QString path = m_conversationModelMismatch;
    if (path.isEmpty())
        return;
    m_conversationModelMismatch.clear();
    Q_EMIT conversationModelChanged();
    openFile(path, false);
}

void ChatController::continueWithLoadedModel()
{
    if (m_conversationModelMismatch.isEmpty())
        return;
    m_conversationModelMismatch.clear();
    Q_EMIT conversationModelChanged();
}

QString ChatController::replyDetails(double messageId) const
{
    return messageId > 0 && m_store->isReady() ? m_store->replyDetails(qint64(messageId)) : QString();
}

void ChatController::updateMemoryLimit()
{
    // The largest context whose memory estimate fits in what was free when
    // the card was made (0: unknown). About 20 estimates.
    int limit = 0;
    if (m_model.availableMemory > 0 && m_model.fitsAt(ChatSettings::MinContextSize)) {
        int lo = ChatSettings::MinContextSize, hi = ChatSettings::MaxContextSize;
        while (lo < hi) {
            const int mid = lo + (hi - lo + 1) / 2;
            if (m_model.fitsAt(mid))
                lo = mid;
            else
                hi = mid - 1;
        }
        limit = lo;
    }
    m_settings->setMemoryContextLimit(limit);
}
