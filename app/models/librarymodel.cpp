#include "librarymodel.h"

#include "language/language.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include "burrow/library.h"

namespace {

// The sources in burrow::library::Source order.
const QStringList &sourceIds()
{
    static const QStringList ids = {
        QStringLiteral("burrow"), QStringLiteral("lmstudio"),    QStringLiteral("ollama"), QStringLiteral("gpt4all"),
        QStringLiteral("jan"),    QStringLiteral("huggingface"), QStringLiteral("folder"), QStringLiteral("remote"),
    };
    return ids;
}

bool sameEntry(const LibraryEntry &a, const LibraryEntry &b)
{
    return a.realPath == b.realPath && a.name == b.name && a.fileSize == b.fileSize && a.modifiedMs == b.modifiedMs &&
           a.runnable == b.runnable && a.source == b.source && a.parts == b.parts;
}

} // namespace

LibraryModel::LibraryModel(QObject *parent) : QAbstractListModel(parent)
{
    // Where a model came from and why it cannot run are words: shown again in a new language.
    connect(Language::instance(), &Language::changed, this, [this] {
        if (!m_entries.isEmpty())
            emit dataChanged(index(0), index(int(m_entries.size()) - 1));
    });
}

int LibraryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

QHash<int, QByteArray> LibraryModel::roleNames() const
{
    return {
        {PathRole, "path"},
        {NameRole, "name"},
        {RepositoryRole, "repository"},
        {ModelNameRole, "modelName"},
        {FamilyRole, "family"},
        {SizeClassRole, "sizeClass"},
        {QuantizationRole, "quantization"},
        {FileSizeRole, "fileSize"},
        {FileSizeTextRole, "fileSizeText"},
        {ContextLengthRole, "contextLength"},
        {SourceRole, "source"},
        {SourceNameRole, "sourceName"},
        {SourceOrderRole, "sourceOrder"},
        {PlacePathRole, "placePath"},
        {PartsRole, "parts"},
        {ModifiedRole, "modified"},
        {RunnableRole, "runnable"},
        {WhyNotRole, "whyNot"},
        {FitsRole, "fits"},
        {MemoryTextRole, "memoryText"},
        {RecentRankRole, "recentRank"},
        {RemoteRole, "remote"},
    };
}

QVariant LibraryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LibraryEntry &e = m_entries.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case NameRole: return e.name;
    case PathRole: return e.path;
    case RepositoryRole: return e.repository;
    case ModelNameRole: return e.modelName;
    case FamilyRole: return e.family;
    case SizeClassRole: return e.sizeClass;
    case QuantizationRole: return e.quantization;
    case FileSizeRole: return double(e.fileSize);   // QML has no 64-bit integer type
    case FileSizeTextRole: return ModelCard::formatBytes(e.fileSize);
    case ContextLengthRole: return e.contextLength;
    case SourceRole: return e.source;
    case SourceNameRole: return sourceName(e.source, e.placePath);
    case SourceOrderRole: return int(sourceIds().indexOf(e.source));
    case PlacePathRole: return e.placePath;
    case PartsRole: return e.parts;
    case ModifiedRole: return double(e.modifiedMs);
    case RunnableRole: return e.runnable == int(burrow::library::Runnable::RUNNABLE_YES);
    case WhyNotRole: return whyNotText(e);
    case FitsRole: return e.card.fitsAt(m_contextSize, m_kvCacheType);
    case MemoryTextRole: return e.card.remote ? QString() : e.card.memoryTextAt(m_contextSize, m_kvCacheType);
    case RemoteRole: return e.card.remote;
    case RecentRankRole: return recentRank(e);
    default: return {};
    }
}

QString LibraryModel::sourceName(const QString &id, const QString &placePath)
{
    if (id == QLatin1String("burrow"))
        return tr("Burrow");
    if (id == QLatin1String("lmstudio"))
        return QStringLiteral("LM Studio");
    if (id == QLatin1String("ollama"))
        return QStringLiteral("Ollama");
    if (id == QLatin1String("gpt4all"))
        return QStringLiteral("GPT4All");
    if (id == QLatin1String("jan"))
        return QStringLiteral("Jan");
    if (id == QLatin1String("huggingface"))
        return QStringLiteral("Hugging Face");
    if (id == QLatin1String("remote"))   // placePath: the server's name
        return tr("%1 (remote)").arg(placePath);
    // A folder of the user's: its name.
    const QString name = QFileInfo(placePath).fileName();
    return name.isEmpty() ? QDir::toNativeSeparators(placePath) : name;
}

QString LibraryModel::whyNotText(const LibraryEntry &e)
{
    using burrow::library::Runnable;
    switch (Runnable(e.runnable)) {
    case Runnable::RUNNABLE_YES: return QString();
    case Runnable::RUNNABLE_ARCHITECTURE:
        return tr("Burrow can't run the %1 architecture yet.").arg(e.runnableDetail);
    case Runnable::RUNNABLE_SPLIT:
        return tr("Split into %n files; Burrow opens single-file models only.", nullptr, e.parts);
    case Runnable::RUNNABLE_MISSING_PART:
        return tr("A part of this split model is missing: %1").arg(e.runnableDetail);
    case Runnable::RUNNABLE_SETTINGS:
        return tr("Its settings are not supported: %1").arg(e.runnableDetail);
    case Runnable::RUNNABLE_WEIGHTS:
        return tr("Its weights can't be used: %1").arg(e.runnableDetail);
    case Runnable::RUNNABLE_TOKENIZER:
        return tr("Its tokenizer is not supported: %1").arg(e.runnableDetail);
    }
    return QString();
}

int LibraryModel::recentRank(const LibraryEntry &e) const
{
    for (int i = 0; i < m_recent.size(); ++i)
        if (m_recent.at(i) == e.path || m_recent.at(i) == e.realPath)
            return i;
    return -1;
}

void LibraryModel::setEntries(const QList<LibraryEntry> &entries)
{
    QHash<QString, int> incoming;
    for (int i = 0; i < entries.size(); ++i)
        incoming.insert(entries.at(i).path, i);
    const int before = int(m_entries.size());
    // Rows that are gone, from the end (the rows above keep their numbers).
    for (int row = int(m_entries.size()) - 1; row >= 0; --row) {
        if (incoming.contains(m_entries.at(row).path))
            continue;
        beginRemoveRows(QModelIndex(), row, row);
        m_entries.removeAt(row);
        endRemoveRows();
    }
    // Rows that stay: changed in place.
    QHash<QString, int> present;
    for (int row = 0; row < m_entries.size(); ++row) {
        const LibraryEntry &now = entries.at(incoming.value(m_entries.at(row).path));
        present.insert(now.path, row);
        if (sameEntry(m_entries.at(row), now))
            continue;
        m_entries[row] = now;
        Q_EMIT dataChanged(index(row), index(row));
    }
    // New rows, at the end in the scan's order.
    QList<LibraryEntry> added;
    for (const LibraryEntry &e : entries)
        if (!present.contains(e.path))
            added.append(e);
    if (!added.isEmpty()) {
        const int first = int(m_entries.size());
        beginInsertRows(QModelIndex(), first, first + int(added.size()) - 1);
        m_entries.append(added);
        endInsertRows();
    }
    if (int(m_entries.size()) != before)
        Q_EMIT countChanged();
}

void LibraryModel::setRecentPaths(const QStringList &paths)
{
    if (paths == m_recent)
        return;
    m_recent = paths;
    if (!m_entries.isEmpty())
        Q_EMIT dataChanged(index(0), index(int(m_entries.size()) - 1), {RecentRankRole});
}

void LibraryModel::setMemoryContext(int contextSize, const QString &kvCacheType)
{
    if (contextSize == m_contextSize && kvCacheType == m_kvCacheType)
        return;
    m_contextSize = contextSize;
    m_kvCacheType = kvCacheType;
    if (!m_entries.isEmpty())
        Q_EMIT dataChanged(index(0), index(int(m_entries.size()) - 1), {FitsRole, MemoryTextRole});
}
