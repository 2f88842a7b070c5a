// The sidebar's list of conversations: newest first, grouped by day.
#pragma once

#include <QAbstractListModel>
#include <QDateTime>
#include <QPointer>
#include <QTimer>
#include <QVector>
#include <QtQml/qqmlregistration.h>

#include "conversationstore.h"

/**
 * @brief Conversations of a ConversationStore for the sidebar, newest (last updated) first.
 *
 * Follows the store's signals and applies the smallest change (insert, move,
 * remove, dataChanged), so views keep their scroll position and selection.
 * The `section` role groups rows by day: "Today", "Yesterday", the weekday
 * name for the rest of the last week, then the date (all localized). With
 * `searchText` set, only conversations matching it (titles and message
 * text, full-text) are listed, each with a snippet of the match.
 */
class ConversationListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(ConversationStore *store READ store WRITE setStore NOTIFY storeChanged)
    Q_PROPERTY(QString searchText READ searchText WRITE setSearchText NOTIFY searchTextChanged)
    Q_PROPERTY(qint64 generatingId READ generatingId WRITE setGeneratingId NOTIFY generatingIdChanged)
    Q_PROPERTY(QDateTime now READ now WRITE setNow NOTIFY nowChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Roles {
        IdRole = Qt::UserRole + 1,
        TitleRole,            // as stored ("" for an untitled chat)
        DisplayTitleRole,     // the title, or "New chat"
        CreatedRole,
        UpdatedRole,
        ModelPathRole,
        ModelNameRole,        // file name of the model
        SectionRole,          // "Today", "Yesterday", "Monday", "March 2, 2026", ...
        SnippetRole,          // search mode: plain text around the match
        SnippetHtmlRole,      // search mode: the same, matches in <b>
        MatchedMessageIdRole, // search mode: the matching message (-1: the title)
        GeneratingRole,       // this chat's reply is being generated
    };
    Q_ENUM(Roles)

    explicit ConversationListModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    ConversationStore *store() const { return m_store; }
    void setStore(ConversationStore *store);
    QString searchText() const { return m_searchText; }
    void setSearchText(const QString &text);
    qint64 generatingId() const { return m_generatingId; }
    void setGeneratingId(qint64 id);
    /// The moment sections are relative to; invalid (the default): the current time.
    QDateTime now() const { return m_now; }
    void setNow(const QDateTime &now);
    int count() const { return int(m_rows.size()); }

    /// Row of a conversation, -1 when it is not listed.
    Q_INVOKABLE int indexOf(qint64 conversationId) const;
    Q_INVOKABLE qint64 idAt(int row) const;
    /// Re-reads the store (done automatically on every store change).
    Q_INVOKABLE void refresh();

    /// The day group of `updated` seen from `now` (both converted to local time).
    static QString sectionFor(const QDateTime &updated, const QDateTime &now);

signals:
    void storeChanged();
    void searchTextChanged();
    void generatingIdChanged();
    void nowChanged();
    void countChanged();

private:
    struct Row {
        qint64 id = -1;
        QString title;
        QDateTime created;
        QDateTime updated;
        QString modelPath;
        QString snippet;
        QString snippetHtml;
        qint64 matchedMessageId = -1;
        bool operator==(const Row &) const = default;
    };
    QVector<Row> load() const;
    void sync(const QVector<Row> &fresh);
    void scheduleMidnight();

    QPointer<ConversationStore> m_store;
    QString m_searchText;
    qint64 m_generatingId = -1;
    QDateTime m_now;
    QVector<Row> m_rows;
    QTimer m_midnight;  // sections change when the day does
};
