// The sidebar's list of conversations: newest first, grouped by day.
#pragma once

#include <cmath>

#include <QAbstractListModel>
#include <QDateTime>
#include <QPointer>
#include <QSet>
#include <QVariantList>
#include <QTimer>
#include <QVector>
#include <QtQml/qqmlregistration.h>

#include "storage/conversationstore.h"

/**
 * @brief Conversations of a ConversationStore for the sidebar, newest (last updated) first.
 *
 * Follows the store's signals and applies the smallest change (insert, move,
 * remove, dataChanged), so views keep their scroll position and selection.
 * The `section` role groups rows by day: "Today", "Yesterday", the weekday
 * name for the rest of the last week, then the date (all localized). With
 * `searchText` set, only conversations matching it (titles and message
 * text, full-text) are listed, each with a snippet of the match.
 *
 * Selection (for exporting several chats): the `selected` role and
 * selectedIds. The current conversation (the one shown) is always part of
 * it; toggle() adds or removes others (Ctrl+click), selectRange() selects
 * the rows from the anchor to a conversation (Shift+click), selectAll()
 * every listed one. Only listed conversations are selected: rows that go
 * away leave the selection, a new search text or a new current conversation
 * resets it to the current one alone.
 */
class ConversationListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(ConversationStore *store READ store WRITE setStore NOTIFY storeChanged)
    Q_PROPERTY(QString searchText READ searchText WRITE setSearchText NOTIFY searchTextChanged)
    // The ids are doubles to QML (exact up to 2^53), as everywhere in the app:
    // Qt 6.4's QML tooling (qmllint, qmlsc) has no type for qint64 properties.
    Q_PROPERTY(double generatingId READ generatingIdValue WRITE setGeneratingIdValue NOTIFY generatingIdChanged)
    // Every chat whose reply is being written (ids as numbers); GeneratingRole
    // is true for these and for generatingId.
    Q_PROPERTY(QVariantList generatingIds READ generatingIds WRITE setGeneratingIds NOTIFY generatingIdsChanged)
    Q_PROPERTY(QDateTime now READ now WRITE setNow NOTIFY nowChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(double currentId READ currentIdValue WRITE setCurrentIdValue NOTIFY currentIdChanged)
    Q_PROPERTY(QVariantList selectedIds READ selectedIdList NOTIFY selectionChanged)
    Q_PROPERTY(int selectionCount READ selectionCount NOTIFY selectionChanged)

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
        SelectedRole,         // part of the selection (the current conversation always is)
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
    QVariantList generatingIds() const;
    void setGeneratingIds(const QVariantList &ids);
    /// The moment sections are relative to; invalid (the default): the current time.
    QDateTime now() const { return m_now; }
    void setNow(const QDateTime &now);
    int count() const { return int(m_rows.size()); }
    /// The conversation shown in the chat (-1: none); changing it resets the selection to it.
    qint64 currentId() const { return m_currentId; }
    void setCurrentId(qint64 id);
    // The properties' QML face. A number that is no exact id (not finite,
    // or beyond 2^53) reads as -1 (none).
    double generatingIdValue() const { return double(m_generatingId); }
    void setGeneratingIdValue(double id) { setGeneratingId(idFromNumber(id)); }
    double currentIdValue() const { return double(m_currentId); }
    void setCurrentIdValue(double id) { setCurrentId(idFromNumber(id)); }
    static qint64 idFromNumber(double id) { return std::isfinite(id) && std::abs(id) <= 9007199254740992.0 ? qint64(id) : -1; }

    /// The selected conversations in row order (the current one included when listed).
    QList<qint64> selection() const;
    QVariantList selectedIdList() const;
    int selectionCount() const { return int(selection().size()); }
    Q_INVOKABLE bool isSelected(qint64 conversationId) const;
    /// Ctrl+click: adds or removes a listed conversation and makes it the
    /// anchor for ranges. The current conversation stays selected (false).
    Q_INVOKABLE bool toggle(qint64 conversationId);
    /// Shift+click: selects the rows from the anchor (the last toggled or the
    /// current conversation) to `conversationId`, replacing the earlier extra selection.
    Q_INVOKABLE bool selectRange(qint64 conversationId);
    /// Ctrl+A: every listed conversation.
    Q_INVOKABLE void selectAll();
    /// Back to the current conversation alone.
    Q_INVOKABLE void clearSelection();

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
    void generatingIdsChanged();
    void nowChanged();
    void countChanged();
    void currentIdChanged();
    void selectionChanged();

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
    // After a selection change: dataChanged(SelectedRole) for rows whose state
    // changed and selectionChanged() when selection() differs from `before`.
    void notifySelection(const QList<qint64> &before);

    QSet<qint64> m_extraSelected;   // selected besides the current conversation (all listed)
    qint64 m_anchorId = -1;         // where Shift ranges start (-1: the current conversation)
    qint64 m_currentId = -1;

    QPointer<ConversationStore> m_store;
    QString m_searchText;
    qint64 m_generatingId = -1;
    QSet<qint64> m_generatingIds;
    QDateTime m_now;
    QVector<Row> m_rows;
    QTimer m_midnight;  // sections change when the day does
};
