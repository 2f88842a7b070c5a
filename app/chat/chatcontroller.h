// ChatController: the chat window's state and actions, on the GUI thread.
// It owns the engine thread (EngineWorker + ChatBackend), the open
// conversation (MessageModel), its settings (ChatSettings) and the recent
// models. It never waits on the engine: requests go out as queued
// invocations, results come back as queued signals, and a stop is an atomic
// flag the token loop reads.
//
// Model flow (drop, File → Open, command line, recent list):
//   openUrls()/openFile() -> header read on a pool thread -> pendingCard
//   (the model card, when confirmation is wanted) -> loadPending() -> load on
//   the engine thread with loadProgress -> model / banner on failure (the
//   model loaded before stays).
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <QTimer>
#include <QUrl>
#include <QtQml/qqmlregistration.h>

#include "backend/chatbackend.h"
#include "settings/chatsettings.h"
#include "storage/conversationstore.h"
#include "messagemodel.h"
#include "models/modelcard.h"
#include "models/recentmodels.h"

class EngineWorker;

class ChatController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(MessageModel *messages READ messages CONSTANT)
    Q_PROPERTY(ChatSettings *settings READ settings CONSTANT)
    Q_PROPERTY(RecentModels *recentModels READ recentModels CONSTANT)
    Q_PROPERTY(bool hasModel READ hasModel NOTIFY modelChanged)
    Q_PROPERTY(ModelCard model READ model NOTIFY modelChanged)
    Q_PROPERTY(bool inspecting READ isInspecting NOTIFY inspectingChanged)
    Q_PROPERTY(ModelCard pendingCard READ pendingCard NOTIFY pendingCardChanged)
    Q_PROPERTY(bool loading READ isLoading NOTIFY loadingChanged)
    Q_PROPERTY(QString loadingFileName READ loadingFileName NOTIFY loadingChanged)
    Q_PROPERTY(double loadProgress READ loadProgress NOTIFY loadProgressChanged)
    Q_PROPERTY(QString banner READ banner NOTIFY bannerChanged)
    Q_PROPERTY(bool generating READ isGenerating NOTIFY generatingChanged)
    Q_PROPERTY(bool canRegenerate READ canRegenerate NOTIFY canRegenerateChanged)
    Q_PROPERTY(double promptProgress READ promptProgress NOTIFY statsChanged)
    Q_PROPERTY(double tokensPerSecond READ tokensPerSecond NOTIFY statsChanged)
    Q_PROPERTY(QString lastReplyStats READ lastReplyStats NOTIFY statsChanged)
    Q_PROPERTY(int contextUsed READ contextUsed NOTIFY statsChanged)
    Q_PROPERTY(int contextSize READ contextSize NOTIFY statsChanged)
    // Persistence (after startPersistence()): the store, the conversation shown,
    // the one whose reply is generating, and the defaults new chats copy.
    Q_PROPERTY(ConversationStore *store READ store CONSTANT)
    Q_PROPERTY(ChatSettings *defaults READ defaults WRITE setDefaults NOTIFY defaultsChanged)
    Q_PROPERTY(double conversationId READ conversationId NOTIFY conversationChanged)
    Q_PROPERTY(QString conversationTitle READ conversationTitle NOTIFY conversationChanged)
    Q_PROPERTY(double generatingConversationId READ generatingConversationId NOTIFY generatingChanged)
    // The model file the shown chat used, when it is not the loaded one ("" otherwise).
    Q_PROPERTY(QString conversationModelPath READ conversationModelPath NOTIFY conversationModelChanged)
    Q_PROPERTY(QString conversationModelName READ conversationModelName NOTIFY conversationModelChanged)

public:
    explicit ChatController(QObject *parent = nullptr);
    ~ChatController() override;

    // Tests: the backend for controllers created from now on (default: the engine).
    static void setBackendFactory(const BackendFactory &factory);
    static void resetBackendFactory();

    MessageModel *messages() const { return m_messages; }
    ChatSettings *settings() const { return m_settings; }
    RecentModels *recentModels() const { return m_recent; }
    bool hasModel() const { return m_model.isValid(); }
    ModelCard model() const { return m_model; }
    bool isInspecting() const { return m_inspecting; }
    ModelCard pendingCard() const { return m_pendingCard; }
    bool isLoading() const { return m_loadId != 0; }
    QString loadingFileName() const;
    double loadProgress() const { return m_loadProgress; }
    QString banner() const { return m_banner; }
    bool isGenerating() const { return m_activeRequest != 0; }
    bool canRegenerate() const;
    double promptProgress() const { return m_promptProgress; }
    double tokensPerSecond() const { return m_tokensPerSecond; }
    QString lastReplyStats() const { return m_lastReplyStats; }
    int contextUsed() const { return m_contextUsed; }
    int contextSize() const { return m_contextSize; }
    ConversationStore *store() const { return m_store; }
    ChatSettings *defaults() const { return m_defaults; }
    void setDefaults(ChatSettings *defaults);
    double conversationId() const { return double(m_conversationId); }
    QString conversationTitle() const;
    double generatingConversationId() const { return isGenerating() ? double(m_replyConversation) : -1; }
    QString conversationModelPath() const { return m_conversationModelMismatch; }
    QString conversationModelName() const;

    // Opens the conversation store (`databasePath` empty: the default file),
    // reports a moved-aside database in the banner, and opens the most recent
    // conversation (or a new one). Without it nothing is stored (unit tests).
    Q_INVOKABLE bool startPersistence(const QString &databasePath = QString());
    // Shows conversation `id` (its messages and settings). A reply generating
    // in another chat keeps going there. id <= 0: a new conversation.
    Q_INVOKABLE bool openConversation(double id);
    // A new, empty chat with the default settings (the shown one is reused when empty).
    Q_INVOKABLE double newConversation();
    // The shown chat's model prompt: load its model, or go on with the loaded one.
    Q_INVOKABLE void loadConversationModel();
    Q_INVOKABLE void continueWithLoadedModel();
    // What produced a stored reply (model, settings, tokens, speed), "" when unknown.
    Q_INVOKABLE QString replyDetails(double messageId) const;
    // The store's interval for streaming writes (at least once a second).
    static constexpr int StoreIntervalMs = 1000;

    // Why these dropped URLs cannot be opened ("" when they can): one local .gguf file.
    Q_INVOKABLE QString refusalFor(const QList<QUrl> &urls) const;
    // A drop or the file dialog: refused with a banner, or the card is shown for confirmation.
    Q_INVOKABLE void openUrls(const QList<QUrl> &urls);
    // Command line or recent list; `confirm` false loads at once unless memory is short.
    Q_INVOKABLE void openFile(const QString &path, bool confirm);
    Q_INVOKABLE void loadPending();
    Q_INVOKABLE void dismissPending();

    // Sends a user message and starts the reply; false when it cannot now.
    Q_INVOKABLE bool send(const QString &text);
    static constexpr int FlushIntervalMs = 16;

    // Stops the running reply; its text so far stays, marked stopped.
    Q_INVOKABLE void stop();
    Q_INVOKABLE bool regenerate();
    // Whether editing `row` would throw away replies that follow it.
    Q_INVOKABLE bool editDiscardsReplies(int row) const;
    Q_INVOKABLE bool editAndResend(int row, const QString &text);
    Q_INVOKABLE void clearConversation();
    Q_INVOKABLE void copyToClipboard(const QString &text) const;
    Q_INVOKABLE void dismissBanner();

Q_SIGNALS:
    void modelChanged();
    void inspectingChanged();
    void pendingCardChanged();
    void loadingChanged();
    void loadProgressChanged();
    void bannerChanged();
    void generatingChanged();
    void canRegenerateChanged();
    void statsChanged();
    void defaultsChanged();
    void conversationChanged();
    void conversationModelChanged();
    // A reply ended (complete, stopped or failed); `row` is its message.
    void replyFinished(int row);
    // A load ended; `ok` false: `banner` says why.
    void loadFinished(bool ok);

private:
    void setBanner(const QString &text);
    void startLoad(const QString &path);
    void startReply();
    void setGenerating(quint64 requestId, int row);
    void onInspected(quint64 ticket, const QString &path, const ModelCard &card, const QString &error, bool confirm);
    void onModelLoaded(quint64 id, const ModelCard &card);
    void onLoadFailed(quint64 id, const QString &path, const QString &reason);
    void onPromptPlanned(quint64 id, const PromptPlan &plan);
    void onPromptProgress(quint64 id, int done, int total);
    void onTextReady(quint64 id, const QString &text, int pieces, double elapsedMs);
    void onGenerationFinished(quint64 id, const GenerationOutcome &outcome);
    // Moves the streamed text received since the last flush into the model.
    void flushStreamedText();
    bool persistent() const { return m_store->isReady() && m_conversationId > 0; }
    void saveStreamingReply();
    void applyConversationSettings(const QJsonObject &json);
    void saveSettings();
    void updateModelMismatch();
    void updateMemoryLimit();
    qint64 storedId(int row) const;

    MessageModel *m_messages;
    ChatSettings *m_settings;
    RecentModels *m_recent;
    QThread m_thread;
    EngineWorker *m_worker = nullptr;
    ModelInspector m_inspect;

    ModelCard m_model;
    ModelCard m_pendingCard;
    bool m_inspecting = false;
    quint64 m_inspectTicket = 0;
    quint64 m_nextId = 0;          // requests and loads share one sequence (see EngineWorker::cancelUpTo)
    quint64 m_loadId = 0;          // the load in progress, 0 when none
    QString m_loadingPath;
    double m_loadProgress = 0;
    QString m_banner;

    quint64 m_activeRequest = 0;   // the reply streaming now, 0 when none
    int m_streamRow = -1;
    int m_planTokens = 0;
    QString m_streamBuffer;        // pieces not yet in the model
    int m_streamPieces = 0;
    QTimer m_flushTimer;           // 16 ms, single shot: at most ~60 view updates a second
    double m_promptProgress = -1;
    double m_tokensPerSecond = 0;
    QString m_lastReplyStats;
    int m_contextUsed = 0;
    int m_contextSize = 0;

    ConversationStore *m_store;
    QPointer<ChatSettings> m_defaults;
    qint64 m_conversationId = -1;      // the chat shown (-1: none / not persistent)
    qint64 m_replyConversation = -1;   // the chat the streaming reply belongs to
    qint64 m_replyMessageId = -1;      // its stored message
    QString m_replyText;               // the whole reply so far (also when its chat is not shown)
    QString m_replyStored;             // what the store has of it
    QTimer m_storeTimer;               // streaming writes, once a second
    bool m_applyingSettings = false;
    QString m_conversationModelMismatch;

};
