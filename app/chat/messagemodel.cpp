#include "messagemodel.h"

#include "language/language.h"

#include <QCoreApplication>
#include <QLocale>

#include "messageblocks.h"

MessageModel::MessageModel(QObject *parent) : QAbstractListModel(parent)
{
    // The stats are words ("%n tokens · …"): shown again in a new language.
    connect(Language::instance(), &Language::changed, this, [this] {
        if (!m_rows.isEmpty())
            emit dataChanged(index(0), index(int(m_rows.size()) - 1), {StatsRole});
    });
}

MessageModel::~MessageModel() = default;   // the blocks are children

int MessageModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant MessageModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Message &m = m_rows.at(index.row()).message;
    switch (role) {
    case Qt::DisplayRole:
    case TextRole: return m.text;
    case IdRole: return m.id;
    case AuthorRole: return int(m.author);
    case BlocksRole: return QVariant::fromValue(blocksAt(index.row()));
    case StateRole: return int(m.state);
    case ErrorRole: return m.error;
    case CreatedRole: return m.created;
    case StatsRole:
        if (m.author != Chat::Role::Assistant || m.tokens <= 0)
            return QString();
        return QCoreApplication::translate("MessageModel", "%n tokens · %1 tokens/s", nullptr, m.tokens)
            .arg(QLocale().toString(m.tokensPerSecond, 'f', 1));
    case InContextRole: return m_memoryStart < 0 || index.row() >= m_memoryStart || index.row() < m_keptEnd;
    case MemoryStartsHereRole: return m_memoryStart > 0 && index.row() == m_memoryStart;
    case IsLastRole: return index.row() == m_rows.size() - 1;
    case ReasoningRole: return m.reasoning;
    case ReasoningMsRole: return m.reasoningMs;
    case ContextFullRole: return m.contextFull;
    case ToolsRole: return m.tools.toVariantList();
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
        {ReasoningRole, "reasoning"},
        {ReasoningMsRole, "reasoningMs"},
        {ContextFullRole, "contextFull"},
        {ToolsRole, "tools"},
    };
}

QList<MessageModel::Message> MessageModel::messages() const
{
    QList<Message> out;
    out.reserve(m_rows.size());
    for (const Row &r : m_rows)
        out.append(r.message);
    return out;
}

MessageBlocks *MessageModel::blocksAt(int row) const
{
    if (row < 0 || row >= m_rows.size())
        return nullptr;
    const Row &r = m_rows.at(row);
    if (!r.blocks) {
        r.blocks = new MessageBlocks(const_cast<MessageModel *>(this));
        // A person's own words are shown as written (line breaks kept).
        r.blocks->setPlainProse(r.message.author == Chat::Role::User);
        r.blocks->reset(r.message.text, Chat::isFinal(r.message.state));
    }
    return r.blocks;
}

void MessageModel::dropBlocks(qsizetype from)
{
    for (qsizetype i = from; i < m_rows.size(); ++i) {
        if (m_rows[i].blocks)
            m_rows[i].blocks->deleteLater();   // a delegate may still hold it until the view updates
        m_rows[i].blocks = nullptr;
    }
}

void MessageModel::setMessages(const QList<Message> &messages)
{
    beginResetModel();
    dropBlocks(0);
    m_rows.clear();
    m_rows.reserve(messages.size());
    for (const Message &m : messages)
        m_rows.append(Row{m, nullptr});
    m_memoryStart = -1;
    m_keptEnd = 0;
    endResetModel();
    Q_EMIT countChanged();
}

int MessageModel::append(const Message &message)
{
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append(Row{message, nullptr});
    Message &m = m_rows.last().message;
    if (!m.created.isValid())
        m.created = QDateTime::currentDateTime();
    endInsertRows();
    if (row > 0)
        emitRowChanged(row - 1, {IsLastRole});
    Q_EMIT countChanged();
    return row;
}

void MessageModel::appendText(int row, const QString &text)
{
    if (row < 0 || row >= m_rows.size() || text.isEmpty())
        return;
    Row &r = m_rows[row];
    r.message.text.append(text);
    if (r.blocks)
        r.blocks->grow(r.message.text, Chat::isFinal(r.message.state));
    emitRowChanged(row, {TextRole, Qt::DisplayRole});
}

void MessageModel::setText(int row, const QString &text)
{
    if (row < 0 || row >= m_rows.size())
        return;
    Row &r = m_rows[row];
    r.message.text = text;
    if (r.blocks)
        r.blocks->reset(r.message.text, Chat::isFinal(r.message.state));
    emitRowChanged(row, {TextRole, Qt::DisplayRole});
}

QString MessageModel::takeText(int row)
{
    if (row < 0 || row >= m_rows.size())
        return QString();
    return std::exchange(m_rows[row].message.text, QString());
}

void MessageModel::appendReasoning(int row, const QString &text)
{
    if (row < 0 || row >= m_rows.size() || text.isEmpty())
        return;
    m_rows[row].message.reasoning.append(text);
    emitRowChanged(row, {ReasoningRole});
}

void MessageModel::setReasoning(int row, const QString &text, double reasoningMs)
{
    if (row < 0 || row >= m_rows.size())
        return;
    Message &m = m_rows[row].message;
    m.reasoning = text;
    m.reasoningMs = reasoningMs;
    emitRowChanged(row, {ReasoningRole, ReasoningMsRole});
}

QString MessageModel::takeReasoning(int row)
{
    if (row < 0 || row >= m_rows.size())
        return QString();
    return std::exchange(m_rows[row].message.reasoning, QString());
}

QString MessageModel::reasoningAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).message.reasoning : QString();
}

void MessageModel::setState(int row, Chat::State state, const QString &error)
{
    if (row < 0 || row >= m_rows.size())
        return;
    Row &r = m_rows[row];
    const bool ended = Chat::isFinal(state) && !Chat::isFinal(r.message.state);
    r.message.state = state;
    r.message.error = error;
    // The reply is complete: its last line counts as whole (a final "```").
    if (ended && r.blocks)
        r.blocks->grow(r.message.text, true);
    emitRowChanged(row, {StateRole, ErrorRole});
}

void MessageModel::setStats(int row, int tokens, double tokensPerSecond)
{
    if (row < 0 || row >= m_rows.size())
        return;
    m_rows[row].message.tokens = tokens;
    m_rows[row].message.tokensPerSecond = tokensPerSecond;
    emitRowChanged(row, {StatsRole});
}

void MessageModel::setContextFull(int row, bool full)
{
    if (row < 0 || row >= m_rows.size() || m_rows[row].message.contextFull == full)
        return;
    m_rows[row].message.contextFull = full;
    emitRowChanged(row, {ContextFullRole});
}

void MessageModel::setTools(int row, const QJsonArray &tools)
{
    if (row < 0 || row >= m_rows.size() || m_rows[row].message.tools == tools)
        return;
    m_rows[row].message.tools = tools;
    emitRowChanged(row, {ToolsRole});
}

void MessageModel::removeFrom(int row)
{
    row = qMax(0, row);
    if (row >= m_rows.size())
        return;
    beginRemoveRows({}, row, int(m_rows.size()) - 1);
    dropBlocks(row);
    m_rows.remove(row, m_rows.size() - row);
    endRemoveRows();
    if (m_memoryStart >= m_rows.size()) {
        m_memoryStart = -1;
        m_keptEnd = 0;
    }
    if (row > 0)
        emitRowChanged(row - 1, {IsLastRole});
    Q_EMIT countChanged();
}

void MessageModel::clear()
{
    if (m_rows.isEmpty())
        return;
    beginResetModel();
    dropBlocks(0);
    m_rows.clear();
    m_memoryStart = -1;
    m_keptEnd = 0;
    endResetModel();
    Q_EMIT countChanged();
}

void MessageModel::setMemoryStart(int row, int keptEnd)
{
    if (row >= m_rows.size() || row <= 0)
        row = -1;
    keptEnd = row < 0 ? 0 : qBound(0, keptEnd, row);
    if (row == m_memoryStart && keptEnd == m_keptEnd)
        return;
    const int before = m_memoryStart;
    m_memoryStart = row;
    m_keptEnd = keptEnd;
    // Rows whose InContext / MemoryStartsHere may differ: up to max(before, row).
    const int last = qMax(before, row);
    if (last >= 0 && !m_rows.isEmpty())
        Q_EMIT dataChanged(index(0), index(qMin(last, int(m_rows.size()) - 1)),
                           {InContextRole, MemoryStartsHereRole});
}

QString MessageModel::textAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).message.text : QString();
}

void MessageModel::emitRowChanged(int row, const QList<int> &roles)
{
    const QModelIndex i = index(row);
    Q_EMIT dataChanged(i, i, roles);
}
