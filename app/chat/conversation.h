// Conversation: the chat shown in the window, on the GUI thread. It owns its
// messages (MessageModel) and its settings (ChatSettings), reads them from
// the store when a chat is opened and writes every change back at once: a
// sent message before the reply starts, an edit, a removal, a settings
// change. A reply being written is its chat's ReplyStream's (ReplyStreams);
// this object hands it the row of its chat when that chat is shown.
#pragma once

#include <functional>

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QtQml/qqmlregistration.h>

#include "chat/messagemodel.h"
#include "settings/chatsettings.h"

#include "backend/chatbackend.h"

class ConversationStore;
class ReplyStreams;

class Conversation : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("The conversation belongs to a ChatController")
    // The store's id of the chat shown (-1: none, or nothing is stored).
    Q_PROPERTY(double conversationId READ idValue NOTIFY opened)
    Q_PROPERTY(QString title READ title NOTIFY changed)
    Q_PROPERTY(MessageModel *messages READ messages CONSTANT)
    Q_PROPERTY(ChatSettings *settings READ settings CONSTANT)
    // The model file the chat was written with, when it is not the loaded one
    // ("" otherwise): where it is on this computer when otherModelFound (the
    // recorded path, or a file of the same name and size: an imported chat),
    // else the recorded path.
    Q_PROPERTY(QString otherModelPath READ otherModelPath NOTIFY otherModelChanged)
    Q_PROPERTY(QString otherModelName READ otherModelName NOTIFY otherModelChanged)
    Q_PROPERTY(bool otherModelFound READ otherModelFound NOTIFY otherModelChanged)

public:
    Conversation(ConversationStore *store, ReplyStreams *replies, QObject *parent = nullptr);

    qint64 id() const { return m_id; }
    double idValue() const { return double(m_id); }
    // Stored: the store is open and a chat is shown.
    bool isStored() const;
    QString title() const;
    MessageModel *messages() const { return m_messages; }
    ChatSettings *settings() const { return m_settings; }
    QString otherModelPath() const { return m_otherModel; }
    QString otherModelName() const;
    bool otherModelFound() const { return m_otherModelFound; }

    // Finds a model file on this computer by its file name and size (0: any
    // size): "" when none. The chat controller's, over the recent models and
    // the library.
    using ModelFinder = std::function<QString(const QString &fileName, qint64 size)>;
    void setModelFinder(ModelFinder finder);
    // Looks for the chat's model again (the library was scanned).
    void refreshOtherModel() { updateOtherModel(); }
    // Two records of a model name the same file: the same path, or the same
    // file name and size (a chat imported from another computer).
    static bool sameModel(const QString &pathA, qint64 sizeA, const QString &pathB, qint64 sizeB);

    // Shows chat `id` (its messages and settings); a reply being written for
    // it is shown in its row. False when there is no such chat.
    bool open(qint64 id);
    // A new, empty chat with `settings` (the shown one is reused when empty
    // and no reply is being written into it). Returns its id, -1 on failure.
    qint64 create(const QJsonObject &settings, const QString &modelPath, qint64 modelSize);

    // Stores a user message and appends it; -1 when the store refused (the
    // banner says why).
    int appendUser(const QString &text);
    // Removes rows [row, end) here and in the store (regenerate, edit).
    void removeFrom(int row);
    // Replaces a user message's text here and in the store.
    void editText(int row, const QString &text);
    // Removes every message.
    void clear();

    // Positions of the context the chat's last reply left used (its prompt
    // and its tokens, as stored), 0 when unknown: what the status line shows
    // for a chat opened again before its next reply.
    int storedContextUsed() const { return m_storedContextUsed; }

    // The conversation as the engine gets it (the reply continues after the
    // last message): failed and empty messages are left out.
    ChatRequest request() const;

    // The loaded model (and the one loading) for the "written with another
    // model" offer; `adopt`: the chat now uses it.
    void setLoadedModel(const QString &path, qint64 size, const QString &loadingPath, bool adopt);
    // The offer is dismissed.
    void clearOtherModel();

Q_SIGNALS:
    // Another chat is shown (open(), create()).
    void opened();
    // The title (or the chat shown) changed.
    void changed();
    void otherModelChanged();

private:
    void applySettings(const QJsonObject &json);
    void saveSettings();
    qint64 storedId(int row) const;
    void updateOtherModel();

    QPointer<ConversationStore> m_store;
    ReplyStreams *m_replies;
    MessageModel *m_messages;
    ChatSettings *m_settings;
    qint64 m_id = -1;
    int m_storedContextUsed = 0;
    bool m_applyingSettings = false;
    QString m_loadedModel;
    qint64 m_loadedSize = 0;
    QString m_loadingModel;
    QString m_otherModel;
    bool m_otherModelFound = false;
    ModelFinder m_findModel;
};
