#include "conversation.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "backend/remoteendpoints.h"
#include "messagemodel.h"
#include "replystream.h"
#include "replystreams.h"
#include "settings/chatsettings.h"
#include "storage/conversationstore.h"

Conversation::Conversation(ConversationStore *store, ReplyStreams *replies, QObject *parent)
    : QObject(parent), m_store(store), m_replies(replies), m_messages(new MessageModel(this)),
      m_settings(new ChatSettings(this))
{
    connect(m_settings, &ChatSettings::changed, this, &Conversation::saveSettings);
    connect(m_store, &ConversationStore::conversationChanged, this, [this](qint64 id) {
        if (id == m_id)
            Q_EMIT changed();
    });
}

bool Conversation::isStored() const
{
    return m_store && m_store->isReady() && m_id > 0;
}

QString Conversation::title() const
{
    return isStored() ? m_store->conversation(m_id).title : QString();
}

QString Conversation::otherModelName() const
{
    return RemoteModelRef::displayName(m_otherModel);
}

qint64 Conversation::storedId(int row) const
{
    return row >= 0 && row < m_messages->rowCount() ? m_messages->message(row).id : -1;
}

bool Conversation::open(qint64 id)
{
    if (!m_store || !m_store->isReady())
        return false;
    const ConversationRecord record = m_store->conversation(id);
    if (record.id <= 0 || record.deletedAt.isValid())
        return false;
    if (ReplyStream *before = m_replies->find(m_id))
        before->hide();   // a reply in the chat shown so far keeps its text
    ReplyStream *reply = m_replies->find(id);
    if (reply && !reply->isActive())
        reply = nullptr;
    QList<MessageModel::Message> rows;
    int replyRow = -1;
    int contextUsed = 0;
    const QVector<MessageRecord> stored = m_store->messages(id);
    for (const MessageRecord &r : stored) {
        if (r.role == Chat::Role::Assistant && r.promptTokens > 0)
            contextUsed = r.promptTokens + qMax(0, r.generatedTokens);
        MessageModel::Message m;
        m.id = r.id;
        m.author = r.role;
        m.text = r.content;
        m.created = r.created.toLocalTime();
        m.error = r.error;
        m.tokens = qMax(0, r.generatedTokens);
        m.tokensPerSecond = qMax(0.0, r.tokensPerSecond);
        m.state = r.state;
        m.reasoning = r.reasoning;
        m.reasoningMs = r.reasoningMs;
        m.contextFull = r.contextFull;
        m.tools = r.tools;
        // A call that was running when Burrow ended has no result.
        for (qsizetype i = 0; i < m.tools.size(); ++i) {
            QJsonObject e = m.tools.at(i).toObject();
            if (e.value(QLatin1String("state")).toString() == QLatin1String("running")) {
                e.insert(QStringLiteral("state"), QStringLiteral("failed"));
                e.insert(QStringLiteral("result"), tr("Burrow ended before the tool answered."));
                m.tools.replace(i, e);
            }
        }
        if (reply && r.id == reply->messageId())
            replyRow = int(rows.size());   // its text comes from the reply stream
        rows.append(m);
    }
    m_id = id;
    m_storedContextUsed = contextUsed;
    m_store->markShown(id);   // opened again at the next start
    m_messages->setMessages(rows);
    if (replyRow >= 0)
        reply->show(m_messages, replyRow);
    applySettings(record.settings);
    updateOtherModel();
    Q_EMIT opened();
    Q_EMIT changed();
    return true;
}

qint64 Conversation::create(const QJsonObject &settings, const QString &modelPath, qint64 modelSize)
{
    if (!m_store || !m_store->isReady())
        return -1;
    const ReplyStream *here = m_replies->find(m_id);
    const bool replyHere = here && here->isActive();
    if (isStored() && m_messages->rowCount() == 0 && !replyHere && !m_store->conversation(m_id).deletedAt.isValid()) {
        // The shown chat is still empty: it becomes the new one.
        m_store->markShown(m_id);
        m_storedContextUsed = 0;
        applySettings(settings);
        m_store->setSettings(m_id, settings);
        Q_EMIT opened();
        Q_EMIT changed();
        return m_id;
    }
    const qint64 id = m_store->createConversation(QString(), modelPath, modelSize, settings);
    if (id <= 0 || !open(id))
        return -1;
    return id;
}

int Conversation::appendUser(const QString &text)
{
    MessageModel::Message message;
    message.author = Chat::Role::User;
    message.text = text;
    if (isStored()) {
        // Stored before the reply starts: what the user typed is never lost.
        message.id = m_store->appendMessage(m_id, Chat::Role::User, text);
        if (message.id < 0)
            return -1;
    }
    const int row = m_messages->append(message);
    updateOtherModel();
    return row;
}

void Conversation::removeFrom(int row)
{
    if (isStored() && storedId(row) > 0)
        m_store->removeMessagesFrom(m_id, storedId(row));
    m_messages->removeFrom(row);
}

void Conversation::editText(int row, const QString &text)
{
    if (isStored() && storedId(row) > 0)
        m_store->editMessage(storedId(row), text);
    m_messages->setText(row, text);
}

void Conversation::clear()
{
    if (m_messages->rowCount() > 0)
        removeFrom(0);
    m_messages->clear();
}

ChatRequest Conversation::request() const
{
    ChatRequest request;
    const int rows = m_messages->rowCount();
    for (int row = 0; row < rows; ++row) {
        const MessageModel::Message &m = m_messages->message(row);
        if ((m.text.isEmpty() && m.tools.isEmpty()) || m.state == Chat::State::Failed)
            continue;
        burrow::ChatMessage message;
        message.role = Chat::roleName(m.author).toStdString();
        message.content = m.text.toUtf8().toStdString();
        // The reply's reasoning goes with it; the chat template decides
        // whether the model sees it again (Qwen3's and gpt-oss's drop it from
        // earlier turns).
        message.reasoning = m.reasoning.toUtf8().toStdString();
        // Its tool calls (OpenAI's shape: arguments as JSON text; the engine
        // backend gives them to the template as the family reads them),
        // then one tool message per call with its result.
        QJsonArray calls;
        std::vector<burrow::ChatMessage> results;
        for (const QJsonValue &v : m.tools) {
            const QJsonObject e = v.toObject();
            const QString id = e.value(QLatin1String("id")).toString();
            const QString name = e.value(QLatin1String("name")).toString();
            calls.append(QJsonObject{{QStringLiteral("id"), id},
                                     {QStringLiteral("type"), QStringLiteral("function")},
                                     {QStringLiteral("function"),
                                      QJsonObject{{QStringLiteral("name"), name},
                                                  {QStringLiteral("arguments"), e.value(QLatin1String("arguments"))}}}});
            const QString state = e.value(QLatin1String("state")).toString();
            QString result = e.value(QLatin1String("result")).toString();
            if (state == QLatin1String("pending") || state == QLatin1String("running"))
                result = tr("The call was not run.");
            const QJsonObject extra{{QStringLiteral("tool_call_id"), id}, {QStringLiteral("name"), name}};
            results.push_back({"tool", result.toUtf8().toStdString(), {},
                               QJsonDocument(extra).toJson(QJsonDocument::Compact).toStdString()});
        }
        if (!calls.isEmpty())
            message.extraJson = QJsonDocument(QJsonObject{{QStringLiteral("tool_calls"), calls}})
                                    .toJson(QJsonDocument::Compact).toStdString();
        request.messages.push_back(std::move(message));
        request.rows.append(row);
        for (burrow::ChatMessage &r : results) {
            request.messages.push_back(std::move(r));
            request.rows.append(row);
        }
    }
    request.settings = m_settings->toEngine();
    return request;
}

void Conversation::applySettings(const QJsonObject &json)
{
    m_applyingSettings = true;
    if (json.isEmpty() && m_settings->defaults())
        m_settings->copyFrom(m_settings->defaults());
    else
        m_settings->fromJson(json);
    m_applyingSettings = false;
}

void Conversation::saveSettings()
{
    if (!m_applyingSettings && isStored())
        m_store->setSettings(m_id, m_settings->toJson());
}

void Conversation::setModelFinder(ModelFinder finder)
{
    m_findModel = std::move(finder);
    updateOtherModel();
}

bool Conversation::sameModel(const QString &pathA, qint64 sizeA, const QString &pathB, qint64 sizeB)
{
    if (pathA.isEmpty() || pathB.isEmpty())
        return false;
    if (pathA == pathB)
        return true;
    return QFileInfo(pathA).fileName() == QFileInfo(pathB).fileName() && sizeA > 0 && sizeA == sizeB;
}

void Conversation::setLoadedModel(const QString &path, qint64 size, const QString &loadingPath, bool adopt)
{
    m_loadedModel = path;
    m_loadedSize = size;
    m_loadingModel = loadingPath;
    if (adopt && isStored() && !path.isEmpty() && m_store->conversation(m_id).modelPath != path)
        m_store->setModel(m_id, path, size);   // this chat now uses it
    updateOtherModel();
}

void Conversation::clearOtherModel()
{
    if (m_otherModel.isEmpty())
        return;
    m_otherModel.clear();
    Q_EMIT otherModelChanged();
}

void Conversation::updateOtherModel()
{
    QString other;
    bool found = false;
    if (isStored()) {
        const ConversationRecord record = m_store->conversation(m_id);
        const QString &recorded = record.modelPath;
        // The loaded model (or the one loading) is the chat's when it is the
        // same file, also under another path (an imported chat).
        const bool loaded = sameModel(recorded, record.modelSize, m_loadedModel, m_loadedSize)
                            || sameModel(recorded, record.modelSize, m_loadingModel, QFileInfo(m_loadingModel).size());
        if (!recorded.isEmpty() && !loaded && m_messages->rowCount() > 0 && RemoteModelRef::isLocator(recorded)) {
            // A remote model: usable while its server is among the user's.
            other = recorded;
            found = RemoteEndpoints::instance().find(RemoteModelRef::parse(recorded).baseUrl).has_value();
        } else if (!recorded.isEmpty() && !loaded && m_messages->rowCount() > 0) {
            const QFileInfo file(recorded);
            if (file.isAbsolute() && file.isFile() && (record.modelSize <= 0 || file.size() == record.modelSize)) {
                other = recorded;
                found = true;
            } else if (m_findModel) {
                other = m_findModel(file.fileName(), record.modelSize);
                found = !other.isEmpty();
            }
            if (!found)
                other = recorded;   // named, not on this computer
        }
    }
    if (other == m_otherModel && found == m_otherModelFound)
        return;
    m_otherModel = other;
    m_otherModelFound = found;
    Q_EMIT otherModelChanged();
}
