// ChatController: the chat window's actions, on the GUI thread. It owns the
// parts that hold the facts and wires them together:
//   EngineBridge  (backend/)  the engine thread, the context size in use
//   ModelLoader   (models/)   the loaded model, the model card, loading
//   Conversation  (chat/)     the chat shown: its messages and settings
//   ReplyStreams  (chat/)     the replies being written, one ReplyStream per
//                             chat (text, tokens, speed); several at once
//   ArchiveService (archive/) exports, imports, compressed models
//   ConversationStore (storage/) the database
// The actions that need several of them (send, regenerate, edit and resend,
// clear, switch chats) are here; everything else is asked of its owner.
// It never waits on the engine.
#pragma once

#include <QObject>
#include <QPointer>
#include <QUrl>
#include <QtQml/qqmlregistration.h>

#include "archive/archiveservice.h"
#include "chat/conversation.h"
#include "chat/messagemodel.h"
#include "chat/replystream.h"
#include "chat/replystreams.h"
#include "models/modellibrary.h"
#include "models/modelloader.h"
#include "settings/chatsettings.h"
#include "settings/localserver.h"
#include "settings/toolservers.h"
#include "storage/conversationstore.h"

#include "backend/chatbackend.h"

class EngineBridge;
class ToolRunner;

class ChatController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(ModelLoader *models READ models CONSTANT)
    Q_PROPERTY(Conversation *conversation READ conversation CONSTANT)
    // The shown chat's reply (what the view, the composer and the status line bind to).
    Q_PROPERTY(ReplyStream *reply READ reply NOTIFY replyChanged)
    // The chats whose reply is being written (store ids; the sidebar marks them).
    Q_PROPERTY(QVariantList generatingIds READ generatingIds NOTIFY generatingChanged)
    Q_PROPERTY(ArchiveService *archives READ archives CONSTANT)
    Q_PROPERTY(ConversationStore *store READ store CONSTANT)
    // Settings → Local server: the OpenAI-compatible API on the loaded model.
    Q_PROPERTY(LocalServer *server READ server CONSTANT)
    // Settings → Tools: the MCP servers whose tools the chats may call.
    Q_PROPERTY(ToolServers *tools READ tools CONSTANT)
    // The defaults new chats copy (DefaultSettings.settings).
    Q_PROPERTY(ChatSettings *defaults READ defaults WRITE setDefaults NOTIFY defaultsChanged)
    // The models on this computer: a chat whose model file is not where it
    // was written (an imported chat) finds it here, or among the recent
    // models, by file name and size.
    Q_PROPERTY(ModelLibrary *library READ library WRITE setLibrary NOTIFY libraryChanged)
    Q_PROPERTY(QString banner READ banner NOTIFY bannerChanged)
    Q_PROPERTY(bool canSend READ canSend NOTIFY canSendChanged)
    Q_PROPERTY(bool canRegenerate READ canRegenerate NOTIFY canRegenerateChanged)
    // The context the shown chat gets: its setting decided for the loaded
    // model (ContextLimit::decide), within what the engine holds now.
    Q_PROPERTY(int contextSize READ contextSize NOTIFY contextChanged)
    // The shown chat asks for a larger size than the one in use: what it
    // asks for, clamped to the model (0 when the size in use holds it).
    Q_PROPERTY(int contextWanted READ contextWanted NOTIFY contextChanged)

public:
    explicit ChatController(QObject *parent = nullptr);
    ~ChatController() override;

    ModelLoader *models() const { return m_models; }
    Conversation *conversation() const { return m_conversation; }
    ReplyStream *reply() const;
    ReplyStreams *replies() const { return m_replies; }
    QVariantList generatingIds() const;
    ArchiveService *archives() const { return m_archives; }
    ConversationStore *store() const { return m_store; }
    LocalServer *server() const { return m_server; }
    ToolServers *tools() const { return m_tools; }
    ChatSettings *defaults() const { return m_defaults; }
    void setDefaults(ChatSettings *defaults);
    ModelLibrary *library() const { return m_library; }
    void setLibrary(ModelLibrary *library);
    // A model file on this computer with this file name and size (0: any): "" when none.
    QString findModel(const QString &fileName, qint64 size) const;
    QString banner() const { return m_banner; }
    bool canSend() const;
    bool canRegenerate() const;
    int contextSize() const;
    int contextWanted() const;

    // Shortcuts to the owners, for C++ callers and tests.
    MessageModel *messages() const;
    ChatSettings *settings() const;
    bool hasModel() const;
    // The shown chat's reply is being written.
    bool isGenerating() const;
    double conversationId() const;
    // How often streamed text reaches the view (EngineBridge::setFlushIntervalMs;
    // main.cpp sets it from the window's renderer, app/common/renderpacing.h).
    void setViewFlushInterval(int ms);
    int viewFlushInterval() const;

    // Opens the conversation store (`databasePath` empty: the default file),
    // reports a moved-aside database in the banner, and opens the most recent
    // conversation (or a new one). Without it nothing is stored (unit tests).
    Q_INVOKABLE bool startPersistence(const QString &databasePath = QString());
    // Shows conversation `id` (its messages and settings). A reply generating
    // in another chat keeps going there. id <= 0: a new conversation.
    Q_INVOKABLE bool openConversation(double id);
    // A new, empty chat with the default settings (the shown one is reused when empty).
    Q_INVOKABLE double newConversation();
    // The shown chat's model offer: load its model, or go on with the loaded one.
    Q_INVOKABLE void loadConversationModel();
    Q_INVOKABLE void continueWithLoadedModel();
    // What produced a stored reply (model, settings, tokens, speed), "" when unknown.
    Q_INVOKABLE QString replyDetails(double messageId) const;

    // Sends a user message and starts the reply; false when it cannot now.
    Q_INVOKABLE bool send(const QString &text);
    // Stops the shown chat's reply (also while it reads the prompt); its text so far stays, marked stopped.
    Q_INVOKABLE void stop();
    Q_INVOKABLE bool regenerate();
    // Whether editing `row` would throw away replies that follow it.
    Q_INVOKABLE bool editDiscardsReplies(int row) const;
    Q_INVOKABLE bool editAndResend(int row, const QString &text);
    Q_INVOKABLE void clearConversation();
    Q_INVOKABLE void copyToClipboard(const QString &text) const;
    Q_INVOKABLE void dismissBanner();
    // The user's decision on a tool call's card: call `index` of the reply
    // at `row`, "once", "always" (this tool in this chat) or "denied". Once
    // every call of the reply is settled the reply goes on by itself.
    Q_INVOKABLE bool decideTool(int row, int index, const QString &decision);

Q_SIGNALS:
    void defaultsChanged();
    void libraryChanged();
    void bannerChanged();
    void canSendChanged();
    void canRegenerateChanged();
    void contextChanged();
    void replyChanged();
    void generatingChanged();
    // A reply ended (complete, stopped or failed); `row` is its message.
    void replyFinished(int row);
    // A load ended; `ok` false: `banner` says why.
    void loadFinished(bool ok);

private:
    void setBanner(const QString &text);
    void startReply();
    // The shown chat's context on the loaded model (0: none loaded).
    int chatContext() const;
    void updateLoadedModel(bool adopt);

    ConversationStore *m_store;
    EngineBridge *m_bridge;
    ReplyStreams *m_replies;
    Conversation *m_conversation;
    ArchiveService *m_archives;
    ModelLoader *m_models;
    LocalServer *m_server;
    ToolServers *m_tools;
    ToolRunner *m_toolRunner;
    QPointer<ChatSettings> m_defaults;
    QPointer<ModelLibrary> m_library;
    QString m_banner;
};
