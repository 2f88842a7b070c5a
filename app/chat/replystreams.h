// ReplyStreams: the replies being written, one ReplyStream per chat, keyed
// by the chat's store id (-1: the chat shown when nothing is stored). Each
// reply keeps streaming into its own chat while another is shown, and the
// user can send in another chat meanwhile (the engine's scheduler generates
// them at once). A chat's stream exists while its reply runs and while the
// chat is shown (for its numbers); the others are dropped when they end. A
// chat deleted while its reply runs has the reply stopped first.
#pragma once

#include <map>

#include <QList>
#include <QObject>

class ConversationStore;
class EngineBridge;
class ReplyStream;

class ReplyStreams : public QObject {
    Q_OBJECT

public:
    ReplyStreams(EngineBridge *bridge, ConversationStore *store, QObject *parent = nullptr);
    ~ReplyStreams() override;

    // The stream of chat `conversationId`, made when it has none.
    ReplyStream *forChat(qint64 conversationId);
    // Its stream, or null.
    ReplyStream *find(qint64 conversationId) const;
    // The chat shown: its stream is kept after its reply ends (its numbers
    // stay on the status line); others' are dropped once they end. A reply
    // running in it gets ReplyPriority::ShownChat, the one in the chat left
    // BackgroundChat (the scheduler serves the chat watched first).
    void setShown(qint64 conversationId);
    qint64 shown() const { return m_shown; }

    // Chats whose reply is running, in no particular order.
    QList<qint64> writing() const;
    bool anyActive() const;
    // Stops every reply (their text so far stays, marked stopped).
    void stopAll();

Q_SIGNALS:
    // A reply started or ended (writing() changed).
    void writingChanged();
    // A reply ended (complete, stopped or failed); `row` is its message in
    // the view (-1 when its chat is not shown).
    void finished(qint64 conversationId, int row);

private:
    void dropIfDone(qint64 conversationId);

    EngineBridge *m_bridge;
    ConversationStore *m_store;
    std::map<qint64, ReplyStream *> m_streams;
    qint64 m_shown = -1;
};
