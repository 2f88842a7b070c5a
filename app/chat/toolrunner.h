// ToolRunner: the tool calls of the chat shown, on the GUI thread. A reply
// whose text held tool calls (GenerationOutcome::toolCalls) gets them as its
// `tools` (one entry per call, stored with the message: MessageRecord::tools);
// each waits for the user's decision on its card: Allow once, Always for this
// chat (that tool, from then on, in this chat), Deny. An allowed call runs on
// the tool server that lists the tool (ToolServers::call); its result (or
// the error, or the denial) is stored on the entry, and once every call of
// the reply is settled the chat controller starts the next reply, which
// sees the calls and their results (Conversation::request: an assistant
// turn with tool_calls, then one tool message per call).
//
// An entry: {id, name, arguments (JSON object text), decision ("",
// "once", "always", "denied"), state ("pending", "running", "done",
// "failed", "denied"), result (text)}.
// Bounds: at most MaxCallsPerReply calls are kept from one reply (the rest
// are dropped with a note); after MaxAutoRounds replies in a row that call
// tools, "always" no longer runs a call without asking (a model in a loop).
#pragma once

#include <QJsonArray>
#include <QObject>
#include <QPointer>
#include <QtQml/qqmlregistration.h>

#include "backend/chatbackend.h"

class Conversation;
class ConversationStore;
class ToolServers;

class ToolRunner : public QObject {
    Q_OBJECT

public:
    static constexpr int MaxCallsPerReply = 16;
    static constexpr int MaxAutoRounds = 8;

    ToolRunner(Conversation *conversation, ConversationStore *store, ToolServers *servers, QObject *parent = nullptr);

    // The entries for a reply's calls (all pending), ids from `messageId`.
    static QJsonArray entriesFor(const QList<ModelToolCall> &calls, qint64 messageId);

    // A reply of the chat shown ended at `row` (its tools set): calls the
    // chat always allows run at once; the others wait for decide().
    void replyEnded(int row);
    // The user's decision on call `index` of the reply at `row`: "once",
    // "always" or "denied". False when there is no such pending call.
    bool decide(int row, int index, const QString &decision);
    // Calls running now (their results come later).
    int running() const { return m_running; }

Q_SIGNALS:
    // Every call of the reply at `row` is settled: the chat goes on.
    void settled(int row);

private:
    void run(int row, int index);
    void update(int row, int index, const QJsonObject &entry);
    bool alwaysAllowed(const QString &tool) const;
    int roundsSinceUser(int row) const;
    void checkSettled(int row);

    QPointer<Conversation> m_conversation;
    QPointer<ConversationStore> m_store;
    QPointer<ToolServers> m_servers;
    int m_running = 0;
};
