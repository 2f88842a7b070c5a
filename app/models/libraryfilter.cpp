#include "libraryfilter.h"

#include <QRegularExpression>

LibraryFilter::LibraryFilter(QObject *parent) : QSortFilterProxyModel(parent)
{
    setDynamicSortFilter(true);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    const auto forgetRoles = [this] { m_roles.clear(); };
    connect(this, &QAbstractProxyModel::sourceModelChanged, this, forgetRoles);
    connect(this, &QAbstractItemModel::modelReset, this, forgetRoles);
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(this, signal, this, &LibraryFilter::countChanged);
    connect(this, &QAbstractItemModel::modelReset, this, &LibraryFilter::countChanged);
    connect(this, &QAbstractItemModel::layoutChanged, this, &LibraryFilter::countChanged);
    sort(0);
}

void LibraryFilter::setSearchText(const QString &text)
{
    if (text == m_search)
        return;
    m_search = text;
    m_words = text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    invalidateFilter();
    Q_EMIT searchTextChanged();
    Q_EMIT countChanged();
}

void LibraryFilter::setSortOrder(SortOrder order)
{
    if (order == m_sortOrder)
        return;
    m_sortOrder = order;
    invalidate();
    sort(0);
    Q_EMIT sortOrderChanged();
}

int LibraryFilter::role(const char *name) const
{
    const QByteArray key(name);
    if (const auto it = m_roles.constFind(key); it != m_roles.constEnd())
        return it.value();
    // Not known yet (a ListModel learns its roles from its first element).
    m_roles.clear();
    if (sourceModel()) {
        const QHash<int, QByteArray> names = sourceModel()->roleNames();
        for (auto it = names.begin(); it != names.end(); ++it)
            m_roles.insert(it.value(), it.key());
    }
    return m_roles.value(key, -1);
}

QVariant LibraryFilter::value(const QModelIndex &sourceIndex, const char *roleName) const
{
    const int r = role(roleName);
    return r < 0 ? QVariant() : sourceIndex.data(r);
}

QVariant LibraryFilter::valueAt(int row, const QString &roleName) const
{
    if (row < 0 || row >= rowCount())
        return {};
    return value(mapToSource(index(row, 0)), roleName.toUtf8().constData());
}

bool LibraryFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_words.isEmpty())
        return true;
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    QString haystack;
    for (const char *name : {"name", "repository", "modelName", "family", "quantization", "sizeClass", "sourceName"})
        haystack += value(i, name).toString() + QLatin1Char('\n');
    for (const QString &word : m_words)
        if (!haystack.contains(word, Qt::CaseInsensitive))
            return false;
    return true;
}

bool LibraryFilter::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const auto number = [&](const QModelIndex &i, const char *name) { return value(i, name).toDouble(); };
    const auto byName = [&]() {
        const int c = QString::localeAwareCompare(value(left, "name").toString().toCaseFolded(),
                                                  value(right, "name").toString().toCaseFolded());
        if (c != 0)
            return c < 0;
        return value(left, "path").toString() < value(right, "path").toString();
    };
    switch (m_sortOrder) {
    case SortRecent: {
        // Recently opened first (rank 0 is the newest; -1: never), then what runs.
        const double a = number(left, "recentRank"), b = number(right, "recentRank");
        if ((a >= 0) != (b >= 0))
            return a >= 0;
        if (a >= 0 && a != b)
            return a < b;
        const bool runsA = value(left, "runnable").toBool(), runsB = value(right, "runnable").toBool();
        if (runsA != runsB)
            return runsA;
        return byName();
    }
    case SortName:
        return byName();
    case SortSize: {
        const double a = number(left, "fileSize"), b = number(right, "fileSize");
        return a != b ? a < b : byName();
    }
    case SortSource: {
        const double a = number(left, "sourceOrder"), b = number(right, "sourceOrder");
        return a != b ? a < b : byName();
    }
    }
    return byName();
}
