#include "conversationlistmodel.h"

#include "backend/remoteendpoints.h"
#include "language/language.h"

#include <QFileInfo>
#include <QLocale>
#include <QSet>

#include <algorithm>

ConversationListModel::ConversationListModel(QObject *parent)
    : QAbstractListModel(parent)
{
    m_midnight.setSingleShot(true);
    connect(&m_midnight, &QTimer::timeout, this, [this] {
        if (!m_rows.isEmpty())
            emit dataChanged(index(0), index(int(m_rows.size()) - 1), {SectionRole});
        scheduleMidnight();
    });
    // "New chat", "Today", day names: shown again in a new language.
    connect(Language::instance(), &Language::changed, this, [this] {
        if (!m_rows.isEmpty())
            emit dataChanged(index(0), index(int(m_rows.size()) - 1), {Qt::DisplayRole, DisplayTitleRole, SectionRole});
    });
}

int ConversationListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant ConversationListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const Row &r = m_rows.at(index.row());
    switch (role) {
    case IdRole: return r.id;
    case TitleRole: return r.title;
    case Qt::DisplayRole:
    case DisplayTitleRole: return r.title.isEmpty() ? tr("New chat") : r.title;
    case CreatedRole: return r.created;
    case UpdatedRole: return r.updated;
    case ModelPathRole: return r.modelPath;
    case ModelNameRole: return RemoteModelRef::displayName(r.modelPath);
    case SectionRole: return sectionFor(r.updated, m_now.isValid() ? m_now : QDateTime::currentDateTime());
    case SnippetRole: return r.snippet;
    case SnippetHtmlRole: return r.snippetHtml;
    case MatchedMessageIdRole: return r.matchedMessageId;
    case GeneratingRole: return (m_generatingId >= 0 && r.id == m_generatingId) || m_generatingIds.contains(r.id);
    case SelectedRole: return r.id == m_currentId || m_extraSelected.contains(r.id);
    }
    return QVariant();
}

QHash<int, QByteArray> ConversationListModel::roleNames() const
{
    return {
        {IdRole, "conversationId"},
        {TitleRole, "title"},
        {DisplayTitleRole, "displayTitle"},
        {CreatedRole, "created"},
        {UpdatedRole, "updated"},
        {ModelPathRole, "modelPath"},
        {ModelNameRole, "modelName"},
        {SectionRole, "section"},
        {SnippetRole, "snippet"},
        {SnippetHtmlRole, "snippetHtml"},
        {MatchedMessageIdRole, "matchedMessageId"},
        {GeneratingRole, "generating"},
        {SelectedRole, "selected"},
    };
}

void ConversationListModel::setStore(ConversationStore *store)
{
    if (store == m_store)
        return;
    if (m_store)
        disconnect(m_store, nullptr, this, nullptr);
    m_store = store;
    if (m_store) {
        const auto reload = [this] { refresh(); };
        connect(m_store, &ConversationStore::readyChanged, this, reload);
        connect(m_store, &ConversationStore::conversationAdded, this, reload);
        connect(m_store, &ConversationStore::conversationChanged, this, reload);
        connect(m_store, &ConversationStore::conversationRemoved, this, reload);
        connect(m_store, &ConversationStore::conversationRestored, this, reload);
        connect(m_store, &ConversationStore::destroyed, this, reload);
    }
    emit storeChanged();
    refresh();
}

void ConversationListModel::setSearchText(const QString &text)
{
    if (text == m_searchText)
        return;
    m_searchText = text;
    // Another filter lists other chats: the selection starts again from the current one.
    const QList<qint64> before = selection();
    m_extraSelected.clear();
    m_anchorId = -1;
    notifySelection(before);
    emit searchTextChanged();
    refresh();
}

void ConversationListModel::setCurrentId(qint64 id)
{
    if (id == m_currentId)
        return;
    const QList<qint64> before = selection();
    m_currentId = id;
    m_extraSelected.clear();
    m_anchorId = -1;
    emit currentIdChanged();
    notifySelection(before);
}

QList<qint64> ConversationListModel::selection() const
{
    QList<qint64> out;
    for (const Row &r : m_rows)
        if (r.id == m_currentId || m_extraSelected.contains(r.id))
            out.append(r.id);
    return out;
}

QVariantList ConversationListModel::selectedIdList() const
{
    QVariantList out;
    for (qint64 id : selection())
        out.append(id);
    return out;
}

bool ConversationListModel::isSelected(qint64 conversationId) const
{
    return indexOf(conversationId) >= 0 && (conversationId == m_currentId || m_extraSelected.contains(conversationId));
}

bool ConversationListModel::toggle(qint64 conversationId)
{
    if (indexOf(conversationId) < 0 || conversationId == m_currentId)
        return false;
    const QList<qint64> before = selection();
    if (!m_extraSelected.remove(conversationId))
        m_extraSelected.insert(conversationId);
    m_anchorId = conversationId;
    notifySelection(before);
    return true;
}

bool ConversationListModel::selectRange(qint64 conversationId)
{
    const int to = indexOf(conversationId);
    if (to < 0)
        return false;
    int from = indexOf(m_anchorId >= 0 ? m_anchorId : m_currentId);
    if (from < 0)
        from = to;
    const QList<qint64> before = selection();
    m_extraSelected.clear();
    for (int row = std::min(from, to); row <= std::max(from, to); ++row)
        if (m_rows.at(row).id != m_currentId)
            m_extraSelected.insert(m_rows.at(row).id);
    notifySelection(before);
    return true;
}

void ConversationListModel::selectAll()
{
    const QList<qint64> before = selection();
    for (const Row &r : m_rows)
        if (r.id != m_currentId)
            m_extraSelected.insert(r.id);
    notifySelection(before);
}

void ConversationListModel::clearSelection()
{
    const QList<qint64> before = selection();
    m_extraSelected.clear();
    m_anchorId = -1;
    notifySelection(before);
}

void ConversationListModel::notifySelection(const QList<qint64> &before)
{
    const QList<qint64> after = selection();
    if (after == before)
        return;
    const QSet<qint64> was(before.begin(), before.end());
    const QSet<qint64> now(after.begin(), after.end());
    for (int i = 0; i < m_rows.size(); ++i) {
        const qint64 id = m_rows.at(i).id;
        if (was.contains(id) != now.contains(id))
            emit dataChanged(index(i), index(i), {SelectedRole});
    }
    emit selectionChanged();
}

void ConversationListModel::setGeneratingId(qint64 id)
{
    if (id == m_generatingId)
        return;
    const int before = indexOf(m_generatingId);
    const int after = indexOf(id);
    m_generatingId = id;
    for (int row : {before, after})
        if (row >= 0)
            emit dataChanged(index(row), index(row), {GeneratingRole});
    emit generatingIdChanged();
}

QVariantList ConversationListModel::generatingIds() const
{
    QList<qint64> sorted(m_generatingIds.begin(), m_generatingIds.end());
    std::sort(sorted.begin(), sorted.end());
    QVariantList out;
    for (qint64 id : sorted)
        out.append(double(id));
    return out;
}

void ConversationListModel::setGeneratingIds(const QVariantList &ids)
{
    QSet<qint64> now;
    for (const QVariant &id : ids) {
        bool ok = false;
        const qint64 value = qint64(id.toDouble(&ok));
        if (ok && value > 0)
            now.insert(value);
    }
    if (now == m_generatingIds)
        return;
    const QSet<qint64> changed = (now - m_generatingIds) + (m_generatingIds - now);
    m_generatingIds = now;
    for (qint64 id : changed) {
        const int row = indexOf(id);
        if (row >= 0)
            emit dataChanged(index(row), index(row), {GeneratingRole});
    }
    emit generatingIdsChanged();
}

void ConversationListModel::setNow(const QDateTime &now)
{
    if (now == m_now)
        return;
    m_now = now;
    emit nowChanged();
    if (!m_rows.isEmpty())
        emit dataChanged(index(0), index(int(m_rows.size()) - 1), {SectionRole});
    scheduleMidnight();
}

int ConversationListModel::indexOf(qint64 conversationId) const
{
    if (conversationId < 0)
        return -1;
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows.at(i).id == conversationId)
            return i;
    return -1;
}

qint64 ConversationListModel::idAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).id : -1;
}

QVector<ConversationListModel::Row> ConversationListModel::load() const
{
    QVector<Row> rows;
    if (!m_store || !m_store->isReady())
        return rows;
    if (m_searchText.trimmed().isEmpty()) {
        for (const ConversationRecord &c : m_store->conversations())
            rows.append({c.id, c.title, c.created, c.updated, c.modelPath, QString(), QString(), -1});
        return rows;
    }
    for (const SearchHit &h : m_store->search(m_searchText)) {
        const ConversationRecord c = m_store->conversation(h.conversationId);
        rows.append({c.id, c.title, c.created, c.updated, c.modelPath, h.snippet, h.snippetHtml, h.messageId});
    }
    return rows;
}

void ConversationListModel::refresh()
{
    sync(load());
    scheduleMidnight();
}

// Turns m_rows into `fresh` with removals, moves, inserts and dataChanged.
// Cost: O(n^2) in the worst case; n is the number of chats (hundreds).
void ConversationListModel::sync(const QVector<Row> &fresh)
{
    const int countBefore = int(m_rows.size());
    const QList<qint64> selectedBefore = selection();
    QSet<qint64> freshIds;
    for (const Row &r : fresh)
        freshIds.insert(r.id);
    // Chats that are no longer listed leave the selection.
    for (auto it = m_extraSelected.begin(); it != m_extraSelected.end();) {
        if (freshIds.contains(*it))
            ++it;
        else
            it = m_extraSelected.erase(it);
    }
    if (m_anchorId >= 0 && !freshIds.contains(m_anchorId))
        m_anchorId = -1;
    for (int i = int(m_rows.size()) - 1; i >= 0; --i) {
        if (!freshIds.contains(m_rows.at(i).id)) {
            beginRemoveRows(QModelIndex(), i, i);
            m_rows.removeAt(i);
            endRemoveRows();
        }
    }
    for (int i = 0; i < fresh.size(); ++i) {
        const Row &want = fresh.at(i);
        if (i < m_rows.size() && m_rows.at(i).id == want.id) {
            if (!(m_rows.at(i) == want)) {
                m_rows[i] = want;
                emit dataChanged(index(i), index(i));
            }
            continue;
        }
        int from = -1;
        for (int j = i + 1; j < m_rows.size(); ++j) {
            if (m_rows.at(j).id == want.id) {
                from = j;
                break;
            }
        }
        if (from >= 0) {
            beginMoveRows(QModelIndex(), from, from, QModelIndex(), i);
            m_rows.move(from, i);
            endMoveRows();
            if (!(m_rows.at(i) == want)) {
                m_rows[i] = want;
                emit dataChanged(index(i), index(i));
            }
        } else {
            beginInsertRows(QModelIndex(), i, i);
            m_rows.insert(i, want);
            endInsertRows();
        }
    }
    if (countBefore != m_rows.size())
        emit countChanged();
    notifySelection(selectedBefore);
}

void ConversationListModel::scheduleMidnight()
{
    if (m_now.isValid() || m_rows.isEmpty()) {
        m_midnight.stop();
        return;
    }
    const QDateTime current = QDateTime::currentDateTime();
    const QDateTime next(current.date().addDays(1), QTime(0, 0, 1));
    m_midnight.start(int(qBound<qint64>(1000, current.msecsTo(next), 24LL * 3600 * 1000)));
}

QString ConversationListModel::sectionFor(const QDateTime &updated, const QDateTime &now)
{
    const QDate day = updated.toLocalTime().date();
    const QDate today = now.toLocalTime().date();
    const qint64 ago = day.daysTo(today);
    if (ago <= 0)  // today (or a clock that was ahead)
        return tr("Today");
    if (ago == 1)
        return tr("Yesterday");
    const QLocale locale;
    if (ago < 7)
        return locale.standaloneDayName(day.dayOfWeek(), QLocale::LongFormat);
    return locale.toString(day, QLocale::LongFormat);
}
