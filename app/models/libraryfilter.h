// LibraryFilter: the library screen's view of a LibraryModel (or any list
// model with its role names: the QML test gives it a ListModel): searched
// (every word of searchText in the name, repository, model name, family,
// quantization, size or source) and sorted (recently opened first, by name,
// by size or by source). Roles are found by name.
#pragma once

#include <QSortFilterProxyModel>
#include <QtQml/qqmlregistration.h>

class LibraryFilter : public QSortFilterProxyModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString searchText READ searchText WRITE setSearchText NOTIFY searchTextChanged)
    Q_PROPERTY(SortOrder sortOrder READ sortOrder WRITE setSortOrder NOTIFY sortOrderChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum SortOrder {
        SortRecent,   // opened recently first (most recent on top), then the ones Burrow runs, then by name
        SortName,
        SortSize,     // smallest file first
        SortSource,   // Burrow, LM Studio, Ollama, GPT4All, Jan, Hugging Face, folders; then by name
    };
    Q_ENUM(SortOrder)

    explicit LibraryFilter(QObject *parent = nullptr);

    QString searchText() const { return m_search; }
    void setSearchText(const QString &text);
    SortOrder sortOrder() const { return m_sortOrder; }
    void setSortOrder(SortOrder order);
    int count() const { return rowCount(); }

    // The row's value of the role called `roleName` (undefined past the end).
    Q_INVOKABLE QVariant valueAt(int row, const QString &roleName) const;

Q_SIGNALS:
    void searchTextChanged();
    void sortOrderChanged();
    void countChanged();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    int role(const char *name) const;
    QVariant value(const QModelIndex &sourceIndex, const char *roleName) const;

    QString m_search;
    QStringList m_words;
    SortOrder m_sortOrder = SortRecent;
    mutable QHash<QByteArray, int> m_roles;   // by name; read again for a name not found, and when the source changes
};
