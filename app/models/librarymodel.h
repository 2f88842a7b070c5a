// LibraryModel: the models the library found (ModelLibrary fills it after
// each scan), one row per model, for the library screen. Rows are updated
// in place by path (a rescan that finds the same files changes nothing the
// view sees); whether a model fits in memory follows the context size and
// KV cache type it is given (the shown chat's), from the model card's
// estimate (ModelCard::fitsAt).
#pragma once

#include <QAbstractListModel>
#include <QHash>
#include <QStringList>
#include <QtQml/qqmlregistration.h>

#include "backend/modelcard.h"

// One found model, in Qt types (made on the scan's thread).
struct LibraryEntry {
    QString path;           // the file to open
    QString realPath;       // links resolved
    QString name;           // what to call it ("llama3.2:latest", "Qwen2.5-0.5B-Instruct-Q4_K_M")
    QString repository;     // "publisher/repo", "org/repo", a subfolder or ""
    QString modelName;      // general.name
    QString family;         // general.architecture
    QString sizeClass;      // "1.1B", "8B"
    QString quantization;   // "Q4_K_M"
    QString source;         // burrow::library::sourceId ("lmstudio", ...)
    QString placePath;      // the folder it was found in (a remote model: its server's name)
    quint64 fileSize = 0;   // all parts
    int contextLength = 0;  // trained
    int parts = 1;
    qint64 modifiedMs = 0;
    int runnable = 0;       // burrow::library::Runnable
    QString runnableDetail;
    ModelCard card;         // for the memory estimate
};

class LibraryModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("The library's models belong to a ModelLibrary")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Role {
        PathRole = Qt::UserRole + 1,
        NameRole,
        RepositoryRole,
        ModelNameRole,
        FamilyRole,
        SizeClassRole,
        QuantizationRole,
        FileSizeRole,
        FileSizeTextRole,
        ContextLengthRole,
        SourceRole,         // id
        SourceNameRole,     // for people
        SourceOrderRole,    // the order of the sources (Burrow, LM Studio, Ollama, ...)
        PlacePathRole,
        PartsRole,
        ModifiedRole,       // ms since the epoch
        RunnableRole,       // bool
        WhyNotRole,         // a sentence ("" when runnable)
        FitsRole,           // the estimate fits in the memory free when scanned
        MemoryTextRole,     // the estimate ("1.2 GB")
        RecentRankRole,     // 0 = opened last, 1, ...; -1 when not recent
        RemoteRole,         // served by a server the user added (source "remote", sourceName: its name)
    };
    Q_ENUM(Role)

    explicit LibraryModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // The rows become `entries` (matched by path: removed, changed, added).
    void setEntries(const QList<LibraryEntry> &entries);
    const QList<LibraryEntry> &entries() const { return m_entries; }
    // The recently opened files, newest first (RecentModels::paths).
    void setRecentPaths(const QStringList &paths);
    // What a model is estimated against (the shown chat's settings).
    void setMemoryContext(int contextSize, const QString &kvCacheType);

    static QString sourceName(const QString &sourceId, const QString &placePath);
    static QString whyNotText(const LibraryEntry &entry);

Q_SIGNALS:
    void countChanged();

private:
    int recentRank(const LibraryEntry &entry) const;

    QList<LibraryEntry> m_entries;
    QStringList m_recent;
    int m_contextSize = 4096;
    QString m_kvCacheType = QStringLiteral("f16");
};
