// MessageModel: the messages of the open conversation, oldest first, for the
// chat view's ListView. Plain data rows (Message) so a conversation store can
// fill it (setMessages) and follow it (messageChanged / rowsRemoved) later;
// `id` is the store's key (0 until stored).
#pragma once

#include <QAbstractListModel>
#include <QDateTime>
#include <QList>
#include <QtQml/qqmlregistration.h>

#include "markdownblocks.h"

class MessageModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("MessageModel belongs to a ChatController")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum class Author { System, User, Assistant };
    Q_ENUM(Author)

    // How a message came to be the way it is.
    enum class State {
        Complete,       // sent, or a reply that ended by itself
        Streaming,      // a reply being generated now
        Stopped,        // the user stopped the reply; the partial text stays
        Failed,         // generation failed; `error` says why
        Interrupted,    // Burrow ended while the reply streamed (set by a store)
    };
    Q_ENUM(State)

    enum Roles {
        IdRole = Qt::UserRole + 1,
        AuthorRole,         // Author
        TextRole,           // Markdown source
        BlocksRole,         // [{kind, text, language}] (see markdownblocks.h)
        StateRole,          // State
        ErrorRole,          // why generation failed
        CreatedRole,        // QDateTime
        StatsRole,          // "24 tokens · 510 tokens/s", empty when none
        InContextRole,      // the model still sees this message
        MemoryStartsHereRole, // first message the model sees, with older ones left out
        IsLastRole,         // last row (regenerate is offered on it)
    };
    Q_ENUM(Roles)

    struct Message {
        qint64 id = 0;
        Author author = Author::User;
        QString text;
        State state = State::Complete;
        QString error;
        QDateTime created;
        int tokens = 0;            // generated tokens (replies)
        double tokensPerSecond = 0;
        QList<MarkdownBlock> blocks;  // derived from `text`
    };

    explicit MessageModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    const Message &message(int row) const { return m_messages.at(row); }
    const QList<Message> &messages() const { return m_messages; }

    // Replaces every row (e.g. a conversation read from the store).
    void setMessages(const QList<Message> &messages);
    // Appends a message (blocks are derived from its text); returns its row.
    int append(const Message &message);
    void appendText(int row, const QString &text);
    void setText(int row, const QString &text);
    void setState(int row, State state, const QString &error = QString());
    void setStats(int row, int tokens, double tokensPerSecond);
    // Removes rows [row, rowCount()).
    void removeFrom(int row);
    void clear();

    // Rows before `row` are outside the model's memory (-1: every row is inside).
    void setMemoryStart(int row);
    int memoryStart() const { return m_memoryStart; }

    Q_INVOKABLE QString textAt(int row) const;

Q_SIGNALS:
    void countChanged();
    // A row's text or state changed (a store persists it).
    void messageChanged(int row);

private:
    void emitRowChanged(int row, const QList<int> &roles);

    QList<Message> m_messages;
    int m_memoryStart = -1;
};
