// MessageModel: the messages of the open conversation, oldest first, for the
// chat view's ListView. Plain data rows (Message) that the open conversation
// fills from the store (setMessages) and the reply stream grows
// (appendText); `id` is the store's key (0 until stored). Each row's
// Markdown blocks are a MessageBlocks model, made when the view first asks.
#pragma once

#include <QAbstractListModel>
#include <QDateTime>
#include <QJsonArray>
#include <QList>
#include <QtQml/qqmlregistration.h>

#include "common/chat.h"

class MessageBlocks;

class MessageModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("MessageModel belongs to a ChatController")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Roles {
        IdRole = Qt::UserRole + 1,
        AuthorRole,         // Chat::Role
        TextRole,           // Markdown source
        BlocksRole,         // MessageBlocks * (see messageblocks.h)
        StateRole,          // Chat::State
        ErrorRole,          // why generation failed
        CreatedRole,        // QDateTime
        StatsRole,          // "24 tokens · 510 tokens/s", empty when none
        InContextRole,      // the model still sees this message
        MemoryStartsHereRole, // first message the model sees, with older ones left out
        IsLastRole,         // last row (regenerate is offered on it)
        ReasoningRole,      // a reply's reasoning, apart from its answer ("" when none)
        ReasoningMsRole,    // how long it reasoned (-1: unknown or still reasoning)
        ContextFullRole,    // the reply ended because the context was full
        ToolsRole,          // a reply's tool calls (QVariantList of maps, MessageRecord::tools)
    };
    Q_ENUM(Roles)

    struct Message {
        qint64 id = 0;
        Chat::Role author = Chat::Role::User;
        QString text;
        Chat::State state = Chat::State::Complete;
        QString error;
        QDateTime created;
        int tokens = 0;            // generated tokens (replies)
        double tokensPerSecond = 0;
        QString reasoning;         // plain text, shown collapsed above the answer
        double reasoningMs = -1;
        bool contextFull = false;  // the reply ended because the context was full
        QJsonArray tools;          // the reply's tool calls (MessageRecord::tools)
    };

    explicit MessageModel(QObject *parent = nullptr);
    ~MessageModel() override;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    const Message &message(int row) const { return m_rows.at(row).message; }
    QList<Message> messages() const;

    // Replaces every row (e.g. a conversation read from the store).
    void setMessages(const QList<Message> &messages);
    // Appends a message; returns its row.
    int append(const Message &message);
    // Appends to a streaming reply. Cost: the new text and the last Markdown block.
    void appendText(int row, const QString &text);
    void setText(int row, const QString &text);
    // The text leaves the row (the reply stream takes it back when the row goes).
    QString takeText(int row);
    // The reasoning of a reply, as the text above: appended while it streams,
    // set, or taken back.
    void appendReasoning(int row, const QString &text);
    void setReasoning(int row, const QString &text, double reasoningMs = -1);
    QString takeReasoning(int row);
    QString reasoningAt(int row) const;
    void setState(int row, Chat::State state, const QString &error = QString());
    void setStats(int row, int tokens, double tokensPerSecond);
    void setContextFull(int row, bool full);
    void setTools(int row, const QJsonArray &tools);
    // Removes rows [row, rowCount()).
    void removeFrom(int row);
    void clear();

    // Rows before `row` are outside the model's memory (-1: every row is
    // inside), but for rows before `keptEnd` (the first exchange, kept).
    void setMemoryStart(int row, int keptEnd = 0);
    int memoryStart() const { return m_memoryStart; }

    Q_INVOKABLE QString textAt(int row) const;
    // The Markdown blocks of a row (made on first use; owned by the model).
    MessageBlocks *blocksAt(int row) const;

Q_SIGNALS:
    void countChanged();

private:
    struct Row {
        Message message;
        mutable MessageBlocks *blocks = nullptr;   // made on first use
    };
    void emitRowChanged(int row, const QList<int> &roles);
    void dropBlocks(qsizetype from);

    QList<Row> m_rows;
    int m_memoryStart = -1;
    int m_keptEnd = 0;
};
