#include "messagemodel.h"

#include <QCoreApplication>
#include <QLocale>

MessageModel::MessageModel(QObject *parent) : QAbstractListModel(parent) {}

int MessageModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_messages.size());
}

QVariant MessageModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Message &m = m_messages.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case TextRole: return m.text;
    case IdRole: return m.id;
    case AuthorRole: return int(m.author);
    case BlocksRole: return markdownBlocksToVariant(m.blocks);
    case StateRole: return int(m.state);
    case ErrorRole: return m.error;
    case CreatedRole: return m.created;
    case StatsRole:
        if (m.author != Author::Assistant || m.tokens <= 0)
            return QString();
        return QCoreApplication::translate("MessageModel", "%n tokens · %1 tokens/s", nullptr, m.tokens)
            .arg(QLocale().toString(m.tokensPerSecond, 'f', 1));
    case InContextRole: return m_memoryStart < 0 || index.row() >= m_memoryStart;
    case MemoryStartsHereRole: return m_memoryStart > 0 && index.row() == m_memoryStart;
    case IsLastRole: return index.row() == m_messages.size() - 1;
    default: return {};
    }
}

QHash<int, QByteArray> MessageModel::roleNames() const
{
    return {
        {IdRole, "messageId"},
        {AuthorRole, "author"},
        {TextRole, "text"},
        {BlocksRole, "blocks"},
        {StateRole, "state"},
        {ErrorRole, "error"},
        {CreatedRole, "created"},
        {StatsRole, "stats"},
        {InContextRole, "inContext"},
        {MemoryStartsHereRole, "memoryStartsHere"},
        {IsLastRole, "isLast"},
    };
}

void MessageModel::setMessages(const QList<Message> &messages)
{
    beginResetModel();
    m_messages = messages;
    for (Message &m : m_messages)
        m.blocks = splitMarkdown(m.text);
    m_memoryStart = -1;
    endResetModel();
    Q_EMIT countChanged();
}

int MessageModel::append(const Message &message)
{
    const int row = int(m_messages.size());
    beginInsertRows({}, row, row);
    m_messages.append(message);
    Message &m = m_messages.last();
    m.blocks = splitMarkdown(m.text);
    if (!m.created.isValid())
        m.created = QDateTime::currentDateTime();
    endInsertRows();
    if (row > 0)
        emitRowChanged(row - 1, {IsLastRole});
    Q_EMIT countChanged();
    Q_EMIT messageChanged(row);
    return row;
}

void MessageModel::appendText(int row, const QString &text)
{
    if (row < 0 || row >= m_messages.size() || text.isEmpty())
        return;
    setText(row, m_messages.at(row).text + text);
}

void MessageModel::setText(int row, const QString &text)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message &m = m_messages[row];
    m.text = text;
    m.blocks = splitMarkdown(text);
    emitRowChanged(row, {TextRole, Qt::DisplayRole, BlocksRole});
    Q_EMIT messageChanged(row);
}

void MessageModel::setState(int row, State state, const QString &error)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message &m = m_messages[row];
    m.state = state;
    m.error = error;
    emitRowChanged(row, {StateRole, ErrorRole});
    Q_EMIT messageChanged(row);
}

void MessageModel::setStats(int row, int tokens, double tokensPerSecond)
{
    if (row < 0 || row >= m_messages.size())
        return;
    m_messages[row].tokens = tokens;
    m_messages[row].tokensPerSecond = tokensPerSecond;
    emitRowChanged(row, {StatsRole});
}

void MessageModel::removeFrom(int row)
{
    row = qMax(0, row);
    if (row >= m_messages.size())
        return;
    beginRemoveRows({}, row, int(m_messages.size()) - 1);
    m_messages.remove(row, m_messages.size() - row);
    endRemoveRows();
    if (m_memoryStart >= m_messages.size())
        m_memoryStart = -1;
    if (row > 0)
        emitRowChanged(row - 1, {IsLastRole});
    Q_EMIT countChanged();
}

void MessageModel::clear()
{
    if (m_messages.isEmpty())
        return;
    beginResetModel();
    m_messages.clear();
    m_memoryStart = -1;
    endResetModel();
    Q_EMIT countChanged();
}

void MessageModel::setMemoryStart(int row)
{
    if (row >= m_messages.size() || row <= 0)
        row = -1;
    if (row == m_memoryStart)
        return;
    const int before = m_memoryStart;
    m_memoryStart = row;
    // Rows whose InContext / MemoryStartsHere may differ: up to max(before, row).
    const int last = qMax(before, row);
    if (last >= 0 && !m_messages.isEmpty())
        Q_EMIT dataChanged(index(0), index(qMin(last, int(m_messages.size()) - 1)),
                           {InContextRole, MemoryStartsHereRole});
}

QString MessageModel::textAt(int row) const
{
    return row >= 0 && row < m_messages.size() ? m_messages.at(row).text : QString();
}

void MessageModel::emitRowChanged(int row, const QList<int> &roles)
{
    const QModelIndex i = index(row);
    Q_EMIT dataChanged(i, i, roles);
}
