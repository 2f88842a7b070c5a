#include "chatcontroller.h"

#include <QClipboard>
#include <QFileInfo>
#include <QGuiApplication>

#include "archive/archiveservice.h"
#include "backend/enginebridge.h"
#include "common/renderpacing.h"
#include "conversation.h"
#include "messagemodel.h"
#include "models/modelloader.h"
#include "replydetails.h"
#include "replystream.h"
#include "settings/chatsettings.h"
#include "storage/conversationstore.h"
#include "storage/datafolder.h"
#include "toolrunner.h"

#include <QJsonDocument>

ChatController::ChatController(QObject *parent)
    : QObject(parent),
      m_store(new ConversationStore(this)),
      m_bridge(new EngineBridge(this)),
      m_replies(new ReplyStreams(m_bridge, m_store, this)),
      m_conversation(new Conversation(m_store, m_replies, this)),
      m_archives(new ArchiveService(this)),
      m_models(new ModelLoader(m_bridge, m_conversation->settings(), m_archives, this)),
      m_server(new LocalServer(m_bridge, this)),
      m_tools(new ToolServers(this)),
      m_toolRunner(new ToolRunner(m_conversation, m_store, m_tools, this))
{
    m_archives->setStore(m_store);
    m_conversation->setModelFinder([this](const QString &name, qint64 size) { return findModel(name, size); });
    connect(m_store, &ConversationStore::errorOccurred, this, &ChatController::setBanner);

    connect(m_models, &ModelLoader::problem, this, &ChatController::setBanner);
    connect(m_models, &ModelLoader::loadStarting, this, [this] {
        setBanner(QString());
        m_replies->stopAll();   // the replies stop first; their text stays, marked stopped
    });
    connect(m_models, &ModelLoader::loadingChanged, this, [this] {
        updateLoadedModel(false);
        Q_EMIT canSendChanged();
        Q_EMIT canRegenerateChanged();
    });
    connect(m_models, &ModelLoader::modelChanged, this, [this] {
        reply()->clearStats();
        m_conversation->messages()->setMemoryStart(-1);
        updateLoadedModel(true);   // the shown chat now uses it
        Q_EMIT canSendChanged();
        Q_EMIT canRegenerateChanged();
        Q_EMIT contextChanged();
    });
    connect(m_models, &ModelLoader::loadFinished, this, &ChatController::loadFinished);

    connect(m_replies, &ReplyStreams::writingChanged, this, [this] {
        RenderPacing::setCursorSteady(m_replies->anyActive());
        Q_EMIT canSendChanged();
        Q_EMIT canRegenerateChanged();
        Q_EMIT generatingChanged();
    });
    connect(m_replies, &ReplyStreams::finished, this, [this](qint64 conversationId, int row) {
        if (conversationId == m_conversation->id() && row >= 0)
            m_toolRunner->replyEnded(row);   // its tool calls, if any, wait on their cards
        Q_EMIT replyFinished(row);
    });
    // Every call of the newest reply settled: the turn goes on with their results.
    connect(m_toolRunner, &ToolRunner::settled, this, [this] {
        if (hasModel() && !isGenerating() && !m_models->isLoading())
            startReply();
    });
    connect(m_conversation, &Conversation::opened, this, [this] {
        m_replies->setShown(m_conversation->id());
        reply()->restoreStats(m_conversation->storedContextUsed());   // (none while its reply runs)
        Q_EMIT replyChanged();
        Q_EMIT canSendChanged();
    });

    connect(m_conversation->messages(), &MessageModel::countChanged, this, &ChatController::canRegenerateChanged);
    connect(m_conversation->settings(), &ChatSettings::changed, this, &ChatController::contextChanged);
    connect(m_bridge, &EngineBridge::contextSizeChanged, this, &ChatController::contextChanged);
}

ChatController::~ChatController()
{
    // The bridge cancels what runs and waits for the engine thread; the
    // reply stream keeps the text it has (the store shows it as interrupted
    // at the next start).
    delete m_models;
    delete m_replies;
    delete m_bridge;
}

MessageModel *ChatController::messages() const { return m_conversation->messages(); }
ChatSettings *ChatController::settings() const { return m_conversation->settings(); }
bool ChatController::hasModel() const { return m_models->hasModel(); }
void ChatController::setViewFlushInterval(int ms)
{
    m_bridge->setFlushIntervalMs(ms);
}

int ChatController::viewFlushInterval() const
{
    return m_bridge->flushIntervalMs();
}

ReplyStream *ChatController::reply() const
{
    return m_replies->forChat(m_conversation->id());
}

QVariantList ChatController::generatingIds() const
{
    QVariantList ids;
    for (qint64 id : m_replies->writing())
        ids.append(double(id));
    return ids;
}

bool ChatController::isGenerating() const
{
    const ReplyStream *shown = m_replies->find(m_conversation->id());
    return shown && shown->isActive();
}
double ChatController::conversationId() const { return m_conversation->idValue(); }

int ChatController::chatContext() const
{
    return m_models->hasModel() ? m_models->model().contextFor(settings()->contextSize(), settings()->kvCacheType()) : 0;
}

int ChatController::contextSize() const
{
    // The chat's own context, within the one the engine holds now.
    const int engine = m_bridge->contextSize();
    return engine > 0 ? qMin(engine, chatContext()) : 0;
}

int ChatController::contextWanted() const
{
    if (!m_models->hasModel() || m_bridge->contextSize() <= 0)
        return 0;
    // The engine makes its context again only for a larger size (a smaller
    // one is served within the context in use).
    const int wanted = chatContext();
    return wanted > m_bridge->contextSize() ? wanted : 0;
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

bool ChatController::canSend() const
{
    return hasModel() && !isGenerating() && !m_models->isLoading();
}

bool ChatController::canRegenerate() const
{
    if (!canSend() || messages()->rowCount() == 0)
        return false;
    const Chat::Role last = messages()->message(messages()->rowCount() - 1).author;
    return last == Chat::Role::Assistant || last == Chat::Role::User;
}

void ChatController::updateLoadedModel(bool adopt)
{
    const ModelCard card = m_models->model();
    m_conversation->setLoadedModel(card.path, qint64(card.fileSize), m_models->loadingPath(), adopt);
}

void ChatController::setLibrary(ModelLibrary *library)
{
    if (m_library == library)
        return;
    if (m_library)
        disconnect(m_library, nullptr, this, nullptr);
    m_library = library;
    if (m_library) {
        // A scan may find the model of the chat shown.
        connect(m_library, &ModelLibrary::scanned, m_conversation, &Conversation::refreshOtherModel);
    }
    Q_EMIT libraryChanged();
}

QString ChatController::findModel(const QString &fileName, qint64 size) const
{
    const auto matches = [&](const QString &path, qint64 bytes) {
        return QFileInfo(path).fileName() == fileName && (size <= 0 || bytes == size);
    };
    for (const QString &path : m_models->recentModels()->paths()) {
        const QFileInfo file(path);
        if (file.isFile() && matches(path, file.size()))
            return path;
    }
    if (m_library) {
        for (const LibraryEntry &entry : m_library->allModels()->entries())
            if (entry.parts == 1 && matches(entry.path, qint64(entry.fileSize)) && QFileInfo(entry.path).isFile())
                return entry.path;
    }
    return QString();
}

void ChatController::setDefaults(ChatSettings *defaults)
{
    if (m_defaults == defaults)
        return;
    m_defaults = defaults;
    settings()->setDefaults(defaults);
    Q_EMIT defaultsChanged();
}

// ---- sending -----------------------------------------------------------

bool ChatController::send(const QString &text)
{
    if (text.trimmed().isEmpty() || !canSend())
        return false;
    if (m_conversation->appendUser(text) < 0)
        return false;   // the banner says why; the composer keeps the text
    startReply();
    return true;
}

void ChatController::startReply()
{
    const ModelCard model = m_models->model();
    m_conversation->setLoadedModel(model.path, qint64(model.fileSize), QString(), true);
    ChatRequest request = m_conversation->request();
    request.priority = ReplyPriority::ShownChat;   // sent from the chat shown
    // The tools of Settings → Tools, when the chat has them on (none until a server is added).
    if (request.settings.tools && m_tools->toolCount() > 0)
        request.toolsJson = QJsonDocument(m_tools->toolsJson()).toJson(QJsonDocument::Compact).toStdString();
    // The reply's details name the context it got, not "Automatic".
    QJsonObject used = settings()->toJson();
    used.insert(QStringLiteral("contextSize"), chatContext());
    reply()->start(std::move(request), m_conversation->isStored() ? m_conversation->id() : -1,
                   model.fileName(), used, messages());
}

bool ChatController::decideTool(int row, int index, const QString &decision)
{
    return m_toolRunner->decide(row, index, decision);
}

void ChatController::stop()
{
    if (ReplyStream *shown = m_replies->find(m_conversation->id()))
        shown->stop();
}

bool ChatController::regenerate()
{
    if (!canRegenerate())
        return false;
    const int last = messages()->rowCount() - 1;
    if (messages()->message(last).author == Chat::Role::Assistant)
        m_conversation->removeFrom(last);
    if (messages()->rowCount() == 0)
        return false;
    startReply();
    return true;
}

bool ChatController::editDiscardsReplies(int row) const
{
    const int rows = messages()->rowCount();
    for (int i = row + 1; i < rows; ++i) {
        const MessageModel::Message &m = messages()->message(i);
        if (m.author == Chat::Role::Assistant && !m.text.isEmpty())
            return true;
    }
    return false;
}

bool ChatController::editAndResend(int row, const QString &text)
{
    if (row < 0 || row >= messages()->rowCount() || text.trimmed().isEmpty() || !canSend())
        return false;
    if (messages()->message(row).author != Chat::Role::User)
        return false;
    m_conversation->removeFrom(row + 1);
    m_conversation->editText(row, text);
    startReply();
    return true;
}

void ChatController::clearConversation()
{
    if (isGenerating())
        reply()->abandon();   // its late signals are ignored
    m_conversation->clear();
    reply()->clearStats();
}

void ChatController::copyToClipboard(const QString &text) const
{
    if (QClipboard *clipboard = QGuiApplication::clipboard())
        clipboard->setText(text);
}

// ---- conversations -------------------------------------------------------

bool ChatController::startPersistence(const QString &databasePath)
{
    if (!databasePath.isEmpty()) {
        m_store->setDatabasePath(databasePath);
    } else if (m_store->databasePath().isEmpty()) {
        // The default place: what Burrow 0.1 kept in Burrow/Burrow/ moves once.
        const QString moved = DataFolder::moveOldData();
        if (!moved.isEmpty())
            setBanner(moved);
    }
    if (!m_store->isReady() && !m_store->open()) {
        if (!m_store->problem().isEmpty())
            setBanner(m_store->problem());
        return false;
    }
    if (!m_store->problem().isEmpty())
        setBanner(m_store->problem());   // a damaged database was moved aside
    // The chat shown last, else the one updated last.
    const qint64 shown = m_store->lastShown();
    if (shown > 0 && openConversation(double(shown)))
        return true;
    const QVector<ConversationRecord> list = m_store->conversations();
    if (!list.isEmpty() && openConversation(double(list.first().id)))
        return true;
    return newConversation() > 0;
}

bool ChatController::openConversation(double id)
{
    if (qint64(id) <= 0)
        return newConversation() > 0;
    if (!m_conversation->open(qint64(id)))
        return false;
    Q_EMIT canRegenerateChanged();
    Q_EMIT contextChanged();
    return true;
}

double ChatController::newConversation()
{
    const QJsonObject defaults = m_defaults ? m_defaults->toJson() : ChatSettings().toJson();
    const ModelCard model = m_models->model();
    const qint64 id = m_conversation->create(defaults, model.path, qint64(model.fileSize));
    if (id <= 0)
        return -1;
    reply()->clearStats();
    Q_EMIT canRegenerateChanged();
    Q_EMIT contextChanged();
    return double(id);
}

void ChatController::loadConversationModel()
{
    const QString path = m_conversation->otherModelPath();
    if (path.isEmpty() || !m_conversation->otherModelFound())
        return;
    m_conversation->clearOtherModel();
    m_models->openFile(path, false);
}

void ChatController::continueWithLoadedModel()
{
    m_conversation->clearOtherModel();
}

QString ChatController::replyDetails(double messageId) const
{
    if (messageId <= 0 || !m_store->isReady())
        return QString();
    return ReplyDetails::describe(m_store->message(qint64(messageId)));
}
