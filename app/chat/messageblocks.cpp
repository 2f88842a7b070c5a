#include "messageblocks.h"

MessageBlocks::MessageBlocks(QObject *parent) : QAbstractListModel(parent) {}

int MessageBlocks::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_texts.size());
}

bool MessageBlocks::continues(int row) const
{
    const auto &blocks = m_splitter.blocks();
    return row + 1 < blocks.size() && blocks.at(row + 1).continued;
}

QVariant MessageBlocks::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const MarkdownBlock &b = m_splitter.blocks().at(index.row());
    switch (role) {
    case KindRole:
        return b.kind == MarkdownBlock::Kind::Code ? QStringLiteral("code")
             : m_plainProse                        ? QStringLiteral("plain")
                                                   : QStringLiteral("text");
    case Qt::DisplayRole:
    case TextRole: return m_texts.at(index.row());
    case LanguageRole: return b.language;
    case ClosedRole: return b.closed;
    case ContinuedRole: return b.continued;
    case ContinuesRole: return continues(index.row());
    default: return {};
    }
}

QHash<int, QByteArray> MessageBlocks::roleNames() const
{
    return {
        {KindRole, "kind"},         {TextRole, "text"},         {LanguageRole, "language"},
        {ClosedRole, "closed"},     {ContinuedRole, "continued"}, {ContinuesRole, "continues"},
    };
}

void MessageBlocks::reset(QStringView text, bool complete)
{
    beginResetModel();
    m_splitter.reset();
    m_splitter.update(text, complete);
    m_texts.clear();
    for (const MarkdownBlock &b : m_splitter.blocks())
        m_texts.append(b.textIn(text));
    endResetModel();
    Q_EMIT countChanged();
}

void MessageBlocks::grow(QStringView text, bool complete)
{
    const int before = int(m_texts.size());
    const int first = int(m_splitter.update(text, complete));
    const auto &blocks = m_splitter.blocks();
    const int after = int(blocks.size());
    if (first >= after && after == before)
        return;
    // Rows [first, min(before, after)) changed in place; the rest came or went.
    const int kept = qMin(before, after);
    for (int row = first; row < kept; ++row)
        m_texts[row] = blocks.at(row).textIn(text);
    if (after < before) {
        beginRemoveRows({}, after, before - 1);
        m_texts.resize(after);
        endRemoveRows();
        Q_EMIT countChanged();
    }
    if (first < kept)
        Q_EMIT dataChanged(index(first), index(kept - 1));
    if (after > before) {
        beginInsertRows({}, before, after - 1);
        for (int row = before; row < after; ++row)
            m_texts.append(blocks.at(row).textIn(text));
        endInsertRows();
        Q_EMIT countChanged();
        // The block before the new ones may now be continued by them.
        if (before > 0 && before - 1 < first)
            Q_EMIT dataChanged(index(before - 1), index(before - 1), {ContinuesRole});
    }
}

QString MessageBlocks::codeAt(int row) const
{
    const auto &blocks = m_splitter.blocks();
    if (row < 0 || row >= blocks.size() || blocks.at(row).kind != MarkdownBlock::Kind::Code)
        return QString();
    int first = row;
    while (first > 0 && blocks.at(first).continued)
        --first;
    QStringList parts{m_texts.at(first)};
    for (int i = first + 1; i < blocks.size() && blocks.at(i).continued; ++i)
        parts.append(m_texts.at(i));
    return parts.join(u'\n');
}
