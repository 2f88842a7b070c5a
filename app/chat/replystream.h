// ReplyStream: the one reply being written, on the GUI thread. It owns the
// reply's text (held once: in its message row while that chat is shown,
// here while it is not), its token counts and speed as the engine reports
// them, and its stored message, which it writes as the text grows (at least
// once a second) and when the reply ends.
//
// Flow: start() sends the request through the EngineBridge and keeps the
// reply's own ReplyHandle (its coalesced flush, its cancel); the handle's
// textReady appends (MessageModel::appendText re-splits only the last
// Markdown block); its finished sets the final state, the stats and the
// store. The stored text is written by save() (the one periodic write, at
// least once a second, by this reply's own timer) and by the final write
// (storeFinal()).
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QtQml/qqmlregistration.h>

#include "backend/chatbackend.h"
#include "backend/replyhandle.h"
#include "common/chat.h"

class ConversationStore;
class EngineBridge;
class MessageModel;

class ReplyStream : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("The reply stream belongs to a ChatController")
    Q_PROPERTY(bool active READ isActive NOTIFY activeChanged)
    // The chat the reply belongs to (-1: none, or not stored).
    Q_PROPERTY(double conversationId READ conversationIdValue NOTIFY activeChanged)
    // 0..1 while the prompt is read, -1 otherwise.
    Q_PROPERTY(double promptProgress READ promptProgress NOTIFY statsChanged)
    Q_PROPERTY(double tokensPerSecond READ tokensPerSecond NOTIFY statsChanged)
    // Tokens generated so far (the engine's count).
    Q_PROPERTY(int tokens READ tokens NOTIFY statsChanged)
    // Tokens of the whole prompt (the engine's count, known before the first token).
    Q_PROPERTY(int promptTokens READ promptTokens NOTIFY statsChanged)
    // Positions of the context the conversation uses (prompt + reply), as the engine counts them.
    Q_PROPERTY(int contextUsed READ contextUsed NOTIFY statsChanged)
    // After a reply: "24 tokens at 510.2 tokens/s · prompt: 12 new, 30 reused".
    Q_PROPERTY(QString lastReplyStats READ lastReplyStats NOTIFY statsChanged)

public:
    ReplyStream(EngineBridge *bridge, ConversationStore *store, QObject *parent = nullptr);
    ~ReplyStream() override;

    static constexpr int StoreIntervalMs = 1000;

    bool isActive() const { return m_handle != nullptr; }
    qint64 conversationId() const { return m_conversationId; }
    double conversationIdValue() const { return isActive() ? double(m_conversationId) : -1; }
    double promptProgress() const { return m_promptProgress; }
    double tokensPerSecond() const { return m_tokensPerSecond; }
    int tokens() const { return m_tokens; }
    int promptTokens() const { return m_promptTokens; }
    int contextUsed() const { return m_contextUsed; }
    QString lastReplyStats() const { return m_lastReplyStats; }

    // Starts a reply to `request` in conversation `conversationId` (-1: not
    // stored). The stored message is begun here (with `modelFile` and the
    // settings it is written with); when `shown` is given, the reply's row is
    // appended to it. Returns the row (-1 when not shown).
    int start(ChatRequest request, qint64 conversationId, const QString &modelFile, const QJsonObject &settingsUsed,
              MessageModel *shown);
    // Asks the engine to stop (the reply ends with its handle's finished).
    void stop();
    // Stops the reply at once (its chat is being deleted): the engine is
    // told to stop, the text so far is stored as Stopped now, and whatever
    // the engine still sends is ignored. finished() is emitted.
    void stopNow();
    // The running reply's priority from now on (ReplyPriority; nothing when none runs).
    void setPriority(int priority);
    // Stops and forgets the reply at once (its chat was cleared): late
    // signals are ignored, nothing more is written.
    void abandon();

    // The reply's chat is shown: its text moves into `messages` row `row`.
    void show(MessageModel *messages, int row);
    // The reply's chat goes out of view (its rows are about to be replaced):
    // the text moves back here.
    void hide();
    int row() const { return m_row; }
    qint64 messageId() const { return m_messageId; }
    // The whole reply so far (its answer).
    QString text() const;
    // Its reasoning so far ("" when none).
    QString reasoning() const;

    // No reply, no numbers (a new model, another chat shown).
    void clearStats();
    // The numbers a chat opened again shows before its next reply: the
    // positions its last reply left in the context (prompt + reply, as
    // stored), 0 when unknown. No effect while a reply runs.
    void restoreStats(int contextUsed);

Q_SIGNALS:
    void activeChanged();
    void statsChanged();
    // Where the model's memory starts for the reply's chat (MessageModel row, -1: all).
    void memoryStartChanged(int row);
    // The reply ended (complete, stopped or failed); `row` is its message (-1 when not shown).
    void finished(int row, const GenerationOutcome &outcome);

private:
    void onPlanned(const PromptPlan &plan);
    void onProgress(int done, int total);
    void onText(const QString &text, const QString &reasoning, int tokens, double elapsedMs);
    void onFinished(const GenerationOutcome &outcome);
    // The periodic write: the text and reasoning so far, when they grew.
    void save();
    // The final write: text, reasoning, state and numbers of the ended reply.
    void storeFinal(Chat::State state, const GenerationOutcome &outcome);
    // The store could not keep the reply: it stops, and says so on its message.
    void storeFailed();
    // Lets go of the handle (its later signals are not ours).
    void release();
    // `positions` kept to the loaded context's size (the meter never shows
    // more than the cache holds).
    int withinContext(int positions) const;

    EngineBridge *m_bridge;
    QPointer<ConversationStore> m_store;
    QPointer<ReplyHandle> m_handle;   // null: no reply
    qint64 m_conversationId = -1;
    qint64 m_messageId = -1;          // the stored message (-1: not stored)
    QPointer<MessageModel> m_messages;
    int m_row = -1;                   // its row while shown
    QString m_text;                   // the text while not shown
    QString m_reasoning;              // the reasoning while not shown
    qsizetype m_storedLength = 0;     // how much of the text the store has
    qsizetype m_storedReasoning = 0;  // how much of the reasoning the store has
    QTimer m_storeTimer;
    QString m_storeError;             // why the reply could not be stored ("" while it can)

    int m_promptTokens = 0;
    int m_tokens = 0;
    int m_contextUsed = 0;
    double m_promptProgress = -1;
    double m_tokensPerSecond = 0;
    QString m_lastReplyStats;
};
