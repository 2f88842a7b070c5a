#include "toolrunner.h"

#include <QJsonDocument>
#include <QJsonObject>

#include "chat/conversation.h"
#include "chat/messagemodel.h"
#include "settings/toolservers.h"
#include "storage/conversationstore.h"

namespace {
const QString Pending = QStringLiteral("pending");
const QString Running = QStringLiteral("running");

bool settledState(const QString &state)
{
    return state == QLatin1String("done") || state == QLatin1String("failed") || state == QLatin1String("denied");
}
} // namespace

ToolRunner::ToolRunner(Conversation *conversation, ConversationStore *store, ToolServers *servers, QObject *parent)
    : QObject(parent), m_conversation(conversation), m_store(store), m_servers(servers)
{
}

QJsonArray ToolRunner::entriesFor(const QList<ModelToolCall> &calls, qint64 messageId)
{
    QJsonArray entries;
    for (const ModelToolCall &c : calls) {
        if (entries.size() >= MaxCallsPerReply)
            break;
        entries.append(QJsonObject{{QStringLiteral("id"), QStringLiteral("call_%1_%2").arg(messageId).arg(entries.size())},
                                   {QStringLiteral("name"), c.name},
                                   {QStringLiteral("arguments"), c.argumentsJson},
                                   {QStringLiteral("decision"), QString()},
                                   {QStringLiteral("state"), Pending},
                                   {QStringLiteral("result"), QString()}});
    }
    return entries;
}

bool ToolRunner::alwaysAllowed(const QString &tool) const
{
    const MessageModel *messages = m_conversation->messages();
    for (int row = 0; row < messages->rowCount(); ++row)
        for (const QJsonValue &v : messages->message(row).tools)
            if (v.toObject().value(QLatin1String("name")).toString() == tool
                && v.toObject().value(QLatin1String("decision")).toString() == QLatin1String("always"))
                return true;
    return false;
}

int ToolRunner::roundsSinceUser(int row) const
{
    const MessageModel *messages = m_conversation->messages();
    int rounds = 0;
    for (int r = row; r >= 0 && messages->message(r).author != Chat::Role::User; --r)
        rounds += messages->message(r).tools.isEmpty() ? 0 : 1;
    return rounds;
}

void ToolRunner::replyEnded(int row)
{
    const MessageModel *messages = m_conversation->messages();
    if (row < 0 || row >= messages->rowCount())
        return;
    const QJsonArray tools = messages->message(row).tools;
    if (tools.isEmpty())
        return;
    const bool mayRunAlone = roundsSinceUser(row) <= MaxAutoRounds;
    for (int i = 0; i < tools.size(); ++i) {
        const QJsonObject e = tools.at(i).toObject();
        if (e.value(QLatin1String("state")).toString() == Pending && mayRunAlone
            && alwaysAllowed(e.value(QLatin1String("name")).toString())) {
            QJsonObject allowed = e;
            allowed.insert(QStringLiteral("decision"), QStringLiteral("always"));
            update(row, i, allowed);
            run(row, i);
        }
    }
    checkSettled(row);
}

bool ToolRunner::decide(int row, int index, const QString &decision)
{
    const MessageModel *messages = m_conversation->messages();
    if (row < 0 || row >= messages->rowCount())
        return false;
    const QJsonArray tools = messages->message(row).tools;
    if (index < 0 || index >= tools.size())
        return false;
    QJsonObject e = tools.at(index).toObject();
    if (e.value(QLatin1String("state")).toString() != Pending)
        return false;
    if (decision == QLatin1String("denied")) {
        e.insert(QStringLiteral("decision"), decision);
        e.insert(QStringLiteral("state"), QStringLiteral("denied"));
        e.insert(QStringLiteral("result"), tr("The user did not allow this call."));
        update(row, index, e);
        checkSettled(row);
        return true;
    }
    if (decision != QLatin1String("once") && decision != QLatin1String("always"))
        return false;
    e.insert(QStringLiteral("decision"), decision);
    update(row, index, e);
    run(row, index);
    if (decision == QLatin1String("always")) {
        // The other calls of this reply to the same tool go too.
        const QString name = e.value(QLatin1String("name")).toString();
        for (int i = 0; i < tools.size(); ++i) {
            QJsonObject other = messages->message(row).tools.at(i).toObject();
            if (i != index && other.value(QLatin1String("name")).toString() == name
                && other.value(QLatin1String("state")).toString() == Pending) {
                other.insert(QStringLiteral("decision"), decision);
                update(row, i, other);
                run(row, i);
            }
        }
    }
    return true;
}

void ToolRunner::run(int row, int index)
{
    MessageModel *messages = m_conversation->messages();
    QJsonObject e = messages->message(row).tools.at(index).toObject();
    e.insert(QStringLiteral("state"), Running);
    update(row, index, e);
    const qint64 messageId = messages->message(row).id;
    const qint64 conversationId = m_conversation->id();
    const QJsonDocument args = QJsonDocument::fromJson(e.value(QLatin1String("arguments")).toString().toUtf8());
    ++m_running;
    auto finish = [this, messageId, conversationId, index](const QString &text, bool isError) {
        --m_running;
        // The chat may have changed meanwhile: the entry is found by its message.
        const MessageModel *shown = m_conversation ? m_conversation->messages() : nullptr;
        int row = -1;
        if (shown && m_conversation->id() == conversationId)
            for (int r = 0; r < shown->rowCount() && row < 0; ++r)
                if (shown->message(r).id == messageId)
                    row = r;
        QJsonArray tools = row >= 0 ? shown->message(row).tools
                         : (m_store && messageId > 0 ? m_store->message(messageId).tools : QJsonArray());
        if (index >= tools.size())
            return;
        QJsonObject entry = tools.at(index).toObject();
        entry.insert(QStringLiteral("state"), isError ? QStringLiteral("failed") : QStringLiteral("done"));
        entry.insert(QStringLiteral("result"), text);
        if (row >= 0) {
            update(row, index, entry);
            checkSettled(row);
        } else if (m_store && messageId > 0) {
            tools.replace(index, entry);
            m_store->setTools(messageId, tools);
        }
    };
    if (!m_servers) {
        finish(tr("There are no tool servers."), true);
        return;
    }
    if (!args.isObject()) {
        finish(tr("The model's arguments are not a JSON object."), true);
        return;
    }
    m_servers->call(e.value(QLatin1String("name")).toString(), args.object(), finish);
}

void ToolRunner::update(int row, int index, const QJsonObject &entry)
{
    MessageModel *messages = m_conversation->messages();
    QJsonArray tools = messages->message(row).tools;
    if (index < 0 || index >= tools.size())
        return;
    tools.replace(index, entry);
    messages->setTools(row, tools);
    const qint64 id = messages->message(row).id;
    if (m_store && m_conversation->isStored() && id > 0)
        m_store->setTools(id, tools);
}

void ToolRunner::checkSettled(int row)
{
    const QJsonArray tools = m_conversation->messages()->message(row).tools;
    for (const QJsonValue &v : tools)
        if (!settledState(v.toObject().value(QLatin1String("state")).toString()))
            return;
    // Only the newest reply goes on (an older card settled late does not start one).
    if (row == m_conversation->messages()->rowCount() - 1)
        Q_EMIT settled(row);
}
