// Conversations and their messages, kept in SQLite (Qt SQL) so that nothing
// the user typed or the model wrote is lost, even on a crash or power cut.
#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QObject>
#include <QQmlParserStatus>
#include <QSqlDatabase>
#include <QString>
#include <QVariantList>
#include <QVector>
#include <functional>
#include <QtQml/qqmlregistration.h>

#include "records.h"
#include "schema.h"
#include "storefailure.h"

/**
 * @brief The conversation database (burrow.db in the data folder, datafolder.h).
 *
 * This class is the records: conversations and messages, read and written.
 * The schema, its migrations and the checks on open are schema.h; search is
 * conversationsearch.h. Words for the user about a reply are the chat's
 * (chat/replydetails.h), not the store's.
 *
 * Storage contract:
 * - SQLite in WAL mode with synchronous=FULL: each committed write (a sent
 *   message, a streaming update, a finished reply) survives a crash of the
 *   app and a power cut. FULL costs one fsync of the WAL per commit; the
 *   caller writes a streaming reply about once a second, so that is cheap.
 * - Foreign keys on; messages are deleted with their conversation (purge).
 * - The schema version is PRAGMA user_version. Older databases are migrated
 *   step by step in one transaction each, after a copy `burrow.db.bak-v<N>`
 *   is written next to the database (VACUUM INTO, consistent).
 * - On open the database is checked (PRAGMA quick_check). Only a damaged
 *   file (SQLite finds it corrupt or not a database, the check fails) or one
 *   that is not a Burrow database is moved aside, to
 *   `burrow.db.corrupt-<timestamp>` (with its -wal/-shm files), and a new one
 *   is started; `problem` then holds a message for the user. Nothing is
 *   deleted. A `.corrupt-` file kept from an earlier start is mentioned at
 *   every start while it is there.
 * - A file that cannot be used now is never taken for damaged and is left
 *   exactly as it is, with its own message (StoreFailure): locked by another
 *   program (not opened); a full disk or a read-only file or folder (opened
 *   read-only where SQLite can: the conversations are shown, `readOnly` is
 *   true, and writes fail with that reason).
 * - Messages left in state Streaming by a crash become Interrupted on open.
 *
 * All calls are synchronous on the thread that opened the store (Qt SQL
 * connections are per thread). Failures return false / -1, emit
 * errorOccurred() with a message for the user that names what was and was
 * not saved, and leave lastFailure() saying why (a reply's handle stops the
 * reply when its text cannot be stored).
 *
 * In QML the store opens itself when the component is complete (at
 * `databasePath`, or the default location when empty); in C++ call open().
 */
class ConversationStore : public QObject, public QQmlParserStatus {
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    QML_ELEMENT
    Q_PROPERTY(QString databasePath READ databasePath WRITE setDatabasePath NOTIFY databasePathChanged)
    Q_PROPERTY(bool ready READ isReady NOTIFY readyChanged)
    Q_PROPERTY(QString problem READ problem NOTIFY problemChanged)
    Q_PROPERTY(QString movedAsidePath READ movedAsidePath NOTIFY problemChanged)
    Q_PROPERTY(QString backupPath READ backupPath NOTIFY backupPathChanged)
    Q_PROPERTY(int interruptedOnOpen READ interruptedOnOpen NOTIFY readyChanged)
    Q_PROPERTY(bool readOnly READ isReadOnly NOTIFY readyChanged)

public:
    /// The schema version this build writes. Older ones are migrated (schema.h).
    static constexpr int SchemaVersion = StoreSchema::Version;

    explicit ConversationStore(QObject *parent = nullptr);
    ~ConversationStore() override;

    /// The default database file: <data folder>/burrow.db.
    static QString defaultDatabasePath();

    QString databasePath() const { return m_path; }
    /// Takes effect at the next open(). ":memory:" gives a throw-away store.
    void setDatabasePath(const QString &path);
    bool isReady() const { return m_ready; }
    QString problem() const { return m_problem; }
    QString movedAsidePath() const { return m_movedAside; }
    QString backupPath() const { return m_backupPath; }
    int interruptedOnOpen() const { return m_interruptedOnOpen; }
    /// Open, but only for reading (a full disk, a read-only folder): see problem().
    bool isReadOnly() const { return m_readOnly; }
    /// Why the last failed operation failed (None after a success of open()).
    StoreFailure lastFailure() const { return m_lastFailure; }

    /// Opens (creating, checking, migrating) the database. Returns ready.
    Q_INVOKABLE bool open();
    Q_INVOKABLE void close();

    // ---- conversations ---------------------------------------------------
    /// A new, empty conversation; returns its id (-1 on failure).
    Q_INVOKABLE qint64 createConversation(const QString &title = QString(), const QString &modelPath = QString(),
                                          qint64 modelSize = 0, const QJsonObject &settings = QJsonObject());
    Q_INVOKABLE bool rename(qint64 conversationId, const QString &title);
    Q_INVOKABLE bool setModel(qint64 conversationId, const QString &modelPath, qint64 modelSize);
    Q_INVOKABLE bool setSettings(qint64 conversationId, const QJsonObject &settings);
    /// Soft delete: hidden from lists and search until undoRemove() or purge.
    /// conversationAboutToBeRemoved() comes first (a reply streaming into the
    /// chat is stopped and stored then), conversationRemoved() after.
    Q_INVOKABLE bool remove(qint64 conversationId);
    Q_INVOKABLE bool undoRemove(qint64 conversationId);
    /// Deletes one soft-deleted conversation for good, with its messages.
    Q_INVOKABLE bool purge(qint64 conversationId);
    /// Deletes for good every conversation soft-deleted before `before`
    /// (all of them when invalid). Returns how many.
    int purgeDeleted(const QDateTime &before = QDateTime());

    ConversationRecord conversation(qint64 conversationId) const;
    /// Not deleted, newest (last updated) first.
    QVector<ConversationRecord> conversations() const;
    /// Notes that the chat is shown now (the one opened at the next start).
    bool markShown(qint64 conversationId);
    /// The chat shown last that is not deleted (-1: none was ever shown).
    qint64 lastShown() const;
    /// Soft-deleted ones, most recently deleted first.
    QVector<ConversationRecord> deletedConversations() const;

    /// For QML: the same as maps (id, title, created, updated, modelPath, modelSize, settings).
    Q_INVOKABLE QVariantMap conversationMap(qint64 conversationId) const;
    Q_INVOKABLE QJsonObject settings(qint64 conversationId) const;

    // ---- messages --------------------------------------------------------
    /// Stores a finished message (a user message: call before generating).
    /// An untitled conversation takes its title from its first user message.
    Q_INVOKABLE qint64 appendMessage(qint64 conversationId, Chat::Role role, const QString &content,
                                     qint64 parentId = -1);
    /// Starts an assistant reply in state Streaming with empty content.
    Q_INVOKABLE qint64 beginReply(qint64 conversationId, const QString &model, const QJsonObject &settingsUsed,
                                  qint64 parentId = -1);
    /// The whole text so far. The caller throttles (at least once a second).
    Q_INVOKABLE bool updateReply(qint64 messageId, const QString &content);
    /// Final text, state (Complete, Stopped, Error) and stats (-1: unknown).
    Q_INVOKABLE bool finishReply(qint64 messageId, const QString &content, Chat::State state, int promptTokens = -1,
                                 int generatedTokens = -1, double tokensPerSecond = -1,
                                 const QString &error = QString());

    /// A reply's reasoning so far (or all of it) and how long it took (-1:
    /// unknown / still going). Kept with the message, shown collapsed above
    /// the answer; the next request passes it as ChatMessage::reasoning and
    /// the template decides whether the model sees it.
    Q_INVOKABLE bool setReasoning(qint64 messageId, const QString &reasoning, double reasoningMs = -1);
    /// Speculative decoding's count of a reply: draft tokens checked and
    /// accepted (0 <= accepted <= drafted; after finishReply).
    bool setDrafts(qint64 messageId, int drafted, int accepted);
    /// Marks a reply as ended because the context was full (after finishReply).
    bool setContextFull(qint64 messageId);
    /// A reply's tool calls, their decisions and results (MessageRecord::tools).
    bool setTools(qint64 messageId, const QJsonArray &tools);

    /// Replaces the text of a finished message (an edited user message).
    Q_INVOKABLE bool editMessage(qint64 messageId, const QString &content);
    /// Deletes `messageId` and every later message of its conversation
    /// (regenerate, edit and resend). Returns how many (-1 on failure).
    Q_INVOKABLE int removeMessagesFrom(qint64 conversationId, qint64 messageId);

    MessageRecord message(qint64 messageId) const;
    /// In the order they were written.
    QVector<MessageRecord> messages(qint64 conversationId) const;
    Q_INVOKABLE QVariantList messageList(qint64 conversationId) const;

    // ---- search ------------------------------------------------------------
    /// Full-text search over titles and message text (case-insensitive
    /// substring; every word must occur). One hit per conversation, newest
    /// conversation first, deleted ones excluded.
    QVector<SearchHit> search(const QString &text, int limit = 200) const;
    Q_INVOKABLE QVariantList searchList(const QString &text) const;

    /// Tests: the time source for created/updated/deleted (default: now, UTC).
    void setClock(std::function<QDateTime()> clock);
    /// How long a database locked by another program is waited for before
    /// open() gives up (default 5000 ms; takes effect at the next open()).
    void setBusyTimeoutMs(int ms) { m_busyTimeoutMs = ms; }

    /// The title a first message gives: its first line, trimmed, at most 60 characters.
    static QString titleFromMessage(const QString &content);

    void classBegin() override {}
    void componentComplete() override;

signals:
    void databasePathChanged();
    void readyChanged();
    void problemChanged();
    void backupPathChanged();
    /// An operation failed (disk full, read-only folder, ...): a user message.
    void errorOccurred(const QString &message);

    void conversationAdded(qint64 conversationId);
    /// Title, model, settings or updated time changed.
    void conversationChanged(qint64 conversationId);
    /// remove() is about to soft-delete it (synchronous: stop what writes into it).
    void conversationAboutToBeRemoved(qint64 conversationId);
    void conversationRemoved(qint64 conversationId);   // soft-deleted or purged
    void conversationRestored(qint64 conversationId);
    void messageAdded(qint64 conversationId, qint64 messageId);
    void messageChanged(qint64 conversationId, qint64 messageId);
    void messagesRemoved(qint64 conversationId, qint64 fromMessageId);

private:
    bool openImpl();
    bool openChecked(const QString &path, bool inMemory);
    bool leaveAlone(const QString &path, StoreFailure failure, const QString &reason);
    bool openReadOnly(const QString &path);
    void mentionKeptDamaged(const QString &path);
    QSqlDatabase db() const;
    bool openConnection(const QString &path, StoreFailure *failure = nullptr, QString *reason = nullptr);
    void closeConnection();
    bool exec(const QString &sql, const char *what);
    bool fail(const QString &what, const QString &detail);
    bool fail(const QString &what, const QSqlError &error);
    void setProblem(const QString &message, const QString &movedAside);
    qint64 nowMs() const;
    qint64 conversationOf(qint64 messageId) const;
    bool touch(qint64 conversationId, qint64 now);
    bool updateConversation(qint64 conversationId, const QString &sql, const QVariantList &values,
                            const QString &what);
    qint64 insertMessage(qint64 conversationId, Chat::Role role, const QString &content, Chat::State state,
                         const QString &model, const QJsonObject &settings, qint64 parentId);


    QString m_path;
    QString m_connection;
    std::function<QDateTime()> m_clock;
    bool m_ready = false;
    bool m_componentComplete = false;
    QString m_problem;
    QString m_movedAside;
    QString m_backupPath;
    QString m_lastError;
    StoreFailure m_lastFailure = StoreFailure::None;
    bool m_readOnly = false;
    int m_busyTimeoutMs = 5000;
    int m_interruptedOnOpen = 0;
};

