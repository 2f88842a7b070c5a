#include "conversationstore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLocale>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QUrl>
#include <QUuid>

#include "common/logging.h"
#include "conversationsearch.h"
#include "datafolder.h"
#include "schema.h"


namespace {

constexpr qint64 TrashDays = 30;  // soft-deleted chats are purged after this many days


// Qt binds a null QString as SQL NULL; the text columns are NOT NULL.
QString text(const QString &s) { return s.isNull() ? QStringLiteral("") : s; }

qint64 toMs(const QDateTime &t) { return t.isValid() ? t.toMSecsSinceEpoch() : 0; }
QDateTime fromMs(const QVariant &v)
{
    if (v.isNull())
        return QDateTime();
    return QDateTime::fromMSecsSinceEpoch(v.toLongLong(), Qt::UTC);
}

QString jsonText(const QJsonObject &o) { return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)); }
QJsonObject jsonObject(const QVariant &v)
{
    const QJsonDocument doc = QJsonDocument::fromJson(v.toString().toUtf8());
    return doc.isObject() ? doc.object() : QJsonObject();
}



const char *ConversationColumns =
    "id, title, created, updated, model_path, model_size, settings, deleted_at";
const char *MessageColumns =
    "id, conversation_id, parent_id, role, content, state, created, updated, model, settings,"
    " prompt_tokens, generated_tokens, tokens_per_second, error, reasoning, reasoning_ms,"
    " context_full, drafted_tokens, accepted_tokens, tools";

ConversationRecord readConversation(const QSqlQuery &q)
{
    ConversationRecord c;
    c.id = q.value(0).toLongLong();
    c.title = q.value(1).toString();
    c.created = fromMs(q.value(2));
    c.updated = fromMs(q.value(3));
    c.modelPath = q.value(4).toString();
    c.modelSize = q.value(5).toLongLong();
    c.settings = jsonObject(q.value(6));
    c.deletedAt = fromMs(q.value(7));
    return c;
}

MessageRecord readMessage(const QSqlQuery &q)
{
    MessageRecord m;
    m.id = q.value(0).toLongLong();
    m.conversationId = q.value(1).toLongLong();
    m.parentId = q.value(2).isNull() ? -1 : q.value(2).toLongLong();
    if (!Chat::roleFromName(q.value(3).toString(), &m.role))
        m.role = Chat::Role::User;   // (the store writes only the three roles)
    m.content = q.value(4).toString();
    m.state = Chat::stateFromName(q.value(5).toString());
    m.created = fromMs(q.value(6));
    m.updated = fromMs(q.value(7));
    m.model = q.value(8).toString();
    m.settings = jsonObject(q.value(9));
    m.promptTokens = q.value(10).isNull() ? -1 : q.value(10).toInt();
    m.generatedTokens = q.value(11).isNull() ? -1 : q.value(11).toInt();
    m.tokensPerSecond = q.value(12).isNull() ? -1 : q.value(12).toDouble();
    m.error = q.value(13).toString();
    m.reasoning = q.value(14).toString();
    m.reasoningMs = q.value(15).isNull() ? -1 : q.value(15).toDouble();
    m.contextFull = q.value(16).toInt() != 0;
    m.draftedTokens = q.value(17).isNull() ? -1 : q.value(17).toInt();
    m.acceptedTokens = q.value(18).isNull() ? -1 : q.value(18).toInt();
    m.tools = QJsonDocument::fromJson(q.value(19).toString().toUtf8()).array();
    return m;
}

QVariantMap conversationToMap(const ConversationRecord &c)
{
    return {
        {QStringLiteral("id"), c.id},
        {QStringLiteral("title"), c.title},
        {QStringLiteral("created"), c.created},
        {QStringLiteral("updated"), c.updated},
        {QStringLiteral("modelPath"), c.modelPath},
        {QStringLiteral("modelSize"), c.modelSize},
        {QStringLiteral("settings"), c.settings.toVariantMap()},
        {QStringLiteral("deleted"), c.deletedAt.isValid()},
    };
}

QVariantMap messageToMap(const MessageRecord &m)
{
    return {
        {QStringLiteral("id"), m.id},
        {QStringLiteral("conversationId"), m.conversationId},
        {QStringLiteral("parentId"), m.parentId},
        {QStringLiteral("role"), Chat::roleName(m.role)},
        {QStringLiteral("content"), m.content},
        {QStringLiteral("state"), int(m.state)},
        {QStringLiteral("stateName"), Chat::stateName(m.state)},
        {QStringLiteral("created"), m.created},
        {QStringLiteral("updated"), m.updated},
        {QStringLiteral("model"), m.model},
        {QStringLiteral("settings"), m.settings.toVariantMap()},
        {QStringLiteral("promptTokens"), m.promptTokens},
        {QStringLiteral("generatedTokens"), m.generatedTokens},
        {QStringLiteral("tokensPerSecond"), m.tokensPerSecond},
        {QStringLiteral("error"), m.error},
        {QStringLiteral("reasoning"), m.reasoning},
        {QStringLiteral("reasoningMs"), m.reasoningMs},
        {QStringLiteral("contextFull"), m.contextFull},
        {QStringLiteral("draftedTokens"), m.draftedTokens},
        {QStringLiteral("acceptedTokens"), m.acceptedTokens},
        {QStringLiteral("tools"), m.tools.toVariantList()},
    };
}


} // namespace

ConversationStore::ConversationStore(QObject *parent)
    : QObject(parent)
    , m_connection(QStringLiteral("burrow-store-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{
}

ConversationStore::~ConversationStore() { close(); }

QString ConversationStore::defaultDatabasePath()
{
    return DataFolder::path() + QStringLiteral("/burrow.db");
}

void ConversationStore::setDatabasePath(const QString &path)
{
    if (path == m_path)
        return;
    m_path = path;
    emit databasePathChanged();
    if (m_componentComplete)
        open();
}

void ConversationStore::setClock(std::function<QDateTime()> clock)
{
    m_clock = clock ? std::move(clock) : [] { return QDateTime::currentDateTimeUtc(); };
}

qint64 ConversationStore::nowMs() const { return m_clock().toMSecsSinceEpoch(); }

void ConversationStore::componentComplete()
{
    m_componentComplete = true;
    if (!m_ready)
        open();
}

QSqlDatabase ConversationStore::db() const { return QSqlDatabase::database(m_connection, false); }

void ConversationStore::closeConnection()
{
    {
        QSqlDatabase d = QSqlDatabase::database(m_connection, false);
        if (d.isValid())
            d.close();
    }
    if (QSqlDatabase::contains(m_connection))
        QSqlDatabase::removeDatabase(m_connection);
}

void ConversationStore::close()
{
    closeConnection();
    if (m_ready) {
        m_ready = false;
        emit readyChanged();
    }
}

bool ConversationStore::fail(const QString &what, const QString &detail)
{
    const QString message = detail.isEmpty() ? what : what + QStringLiteral(": ") + detail;
    m_lastError = message;
    if (m_lastFailure == StoreFailure::None)
        m_lastFailure = StoreFailure::Other;
    qCWarning(lcApp).noquote() << message;
    emit errorOccurred(message);
    return false;
}

bool ConversationStore::fail(const QString &what, const QSqlError &error)
{
    m_lastFailure = StoreFailures::of(error);
    if (m_lastFailure == StoreFailure::None)
        m_lastFailure = StoreFailure::Other;
    return fail(what, StoreFailures::describe(m_lastFailure, error));
}

void ConversationStore::setProblem(const QString &message, const QString &movedAside)
{
    m_problem = message;
    m_movedAside = movedAside;
    if (!message.isEmpty())
        qCWarning(lcApp).noquote() << message;
    emit problemChanged();
}

bool ConversationStore::exec(const QString &sql, const char *what)
{
    QSqlQuery q(db());
    if (!q.exec(sql))
        return fail(tr("Could not %1 in the conversation database").arg(QString::fromUtf8(what)), q.lastError());
    return true;
}

// Opens the connection (no message: the caller words it from *failure and *reason).
bool ConversationStore::openConnection(const QString &path, StoreFailure *failure, QString *reason)
{
    QSqlDatabase d = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    d.setDatabaseName(path);
    d.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(m_busyTimeoutMs));
    if (d.open())
        return true;
    const QSqlError error = d.lastError();
    StoreFailure kind = StoreFailures::of(error);
    if (kind == StoreFailure::None || kind == StoreFailure::Other)
        kind = StoreFailure::CannotOpen;
    if (failure)
        *failure = kind;
    if (reason)
        *reason = StoreFailures::describe(kind, error);
    return false;
}



bool ConversationStore::open()
{
    m_lastError.clear();
    const bool ok = openImpl();
    if (!ok && m_problem.isEmpty())  // every reason not to open reaches the user
        setProblem(tr("Your conversations could not be opened: %1").arg(m_lastError), QString());
    if (ok)
        m_lastFailure = StoreFailure::None;
    return ok;
}

bool ConversationStore::openImpl()
{
    close();
    m_interruptedOnOpen = 0;
    m_readOnly = false;
    m_lastFailure = StoreFailure::None;
    if (!m_problem.isEmpty())
        setProblem(QString(), QString());
    const QString path = m_path.isEmpty() ? defaultDatabasePath() : m_path;
    const bool inMemory = path == QLatin1String(":memory:");
    if (!inMemory && !QDir().mkpath(QFileInfo(path).absolutePath())) {
        m_lastFailure = StoreFailure::CannotOpen;
        return fail(tr("Could not create the folder for conversations %1")
                        .arg(QDir::toNativeSeparators(QFileInfo(path).absolutePath())),
                    QString());
    }
    if (!openChecked(path, inMemory))
        return false;
    m_ready = true;
    if (!m_readOnly)
        purgeDeleted(QDateTime::fromMSecsSinceEpoch(nowMs() - TrashDays * 24 * 3600 * 1000, Qt::UTC));
    if (!inMemory && m_problem.isEmpty())
        mentionKeptDamaged(path);
    emit readyChanged();
    return true;
}

// Opens, checks and migrates `path`; false when it cannot be used (the
// problem is set). Only a damaged file is moved aside.
bool ConversationStore::openChecked(const QString &path, bool inMemory)
{
    StoreFailure failure = StoreFailure::None;
    QString reason;
    if (!openConnection(path, &failure, &reason))
        return leaveAlone(path, failure, reason);

    int version = 0;
    bool newer = false;
    reason = StoreSchema::inspect(db(), &version, &newer, &failure);
    if (newer) {
        // Not damaged: leave it alone, and refuse to write into it.
        closeConnection();
        setProblem(tr("Your conversations could not be opened because %1. Nothing was changed; "
                      "start the newer version of Burrow to see them.")
                       .arg(reason),
                   QString());
        return false;
    }
    if (!reason.isEmpty() && failure != StoreFailure::Damaged) {
        closeConnection();
        return leaveAlone(path, failure, reason);
    }
    if (!reason.isEmpty()) {
        closeConnection();
        if (inMemory)
            return fail(tr("Could not open the conversation database"), reason);
        const QString aside = StoreSchema::moveAside(path);
        if (aside.isEmpty()) {
            setProblem(tr("The conversation database %1 cannot be read (%2) and could not be moved aside. "
                          "Nothing was deleted; close Burrow and move the file away yourself.")
                           .arg(QDir::toNativeSeparators(path), reason),
                       QString());
            return false;
        }
        setProblem(tr("The conversation database could not be read (%1). It was kept as %2 and a new, "
                      "empty one was started.")
                       .arg(reason, QDir::toNativeSeparators(aside)),
                   aside);
        if (!openConnection(path, &failure, &reason))
            return leaveAlone(path, failure, reason);
        version = 0;
    }

    // WAL: readers never block the writer and a crash mid-write leaves the
    // last committed state. FULL: the WAL is synced on every commit, so a
    // power cut keeps every committed message too (NORMAL could lose the
    // commits since the last checkpoint).
    QSqlQuery q(db());
    // The query is let go before the connection is (Qt warns otherwise).
    const auto unusable = [&](const QSqlError &error) {
        failure = StoreFailures::of(error);
        reason = StoreFailures::describe(failure == StoreFailure::None ? StoreFailure::Other : failure, error);
        q = QSqlQuery();
        closeConnection();
        return leaveAlone(path, failure, reason);
    };
    if (!inMemory) {
        if (!q.exec(QStringLiteral("PRAGMA journal_mode=WAL")) || !q.next())
            return unusable(q.lastError());
        if (q.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
            q = QSqlQuery();
            closeConnection();
            return leaveAlone(path, StoreFailure::ReadOnly, tr("it cannot be switched to WAL mode"));
        }
    }
    if (!q.exec(QStringLiteral("PRAGMA synchronous=FULL")) || !q.exec(QStringLiteral("PRAGMA foreign_keys=ON")))
        return unusable(q.lastError());

    if (version < SchemaVersion) {
        QString backup, what, detail;
        const bool migrated = StoreSchema::migrate(db(), version, path, inMemory, &backup, &what, &detail, &failure);
        if (!backup.isEmpty()) {
            m_backupPath = backup;
            emit backupPathChanged();
        }
        if (!migrated) {
            q = QSqlQuery();
            closeConnection();
            if (failure == StoreFailure::DiskFull || failure == StoreFailure::ReadOnly
                || failure == StoreFailure::Locked)
                return leaveAlone(path, failure, what + QStringLiteral(": ") + detail);
            m_lastFailure = failure;
            return fail(what, detail);
        }
    }

    // A reply still marked streaming was cut off by a crash or a kill.
    q.prepare(QStringLiteral("UPDATE messages SET state = 'interrupted' WHERE state = 'streaming'"));
    if (!q.exec())
        return unusable(q.lastError());
    m_interruptedOnOpen = q.numRowsAffected();
    return true;
}

// A file that cannot be used now (locked, full disk, read-only, cannot be
// opened) is left exactly as it is. Where SQLite can read it, it is opened
// read-only so the conversations are still shown. Returns whether it opened.
bool ConversationStore::leaveAlone(const QString &path, StoreFailure failure, const QString &reason)
{
    m_lastFailure = failure;
    const QString where = QDir::toNativeSeparators(path);
    if (failure == StoreFailure::Locked) {
        setProblem(tr("Your conversations could not be opened: %1 (%2). Burrow left it alone; close the other "
                      "program (or the other Burrow) and start Burrow again.")
                       .arg(where, reason),
                   QString());
        return false;
    }
    const bool readable = QFileInfo(path).isFile() && QFileInfo(path).size() > 0;
    if ((failure == StoreFailure::DiskFull || failure == StoreFailure::ReadOnly
         || failure == StoreFailure::CannotOpen) && readable && openReadOnly(path)) {
        m_readOnly = true;
        setProblem(failure == StoreFailure::DiskFull
                       ? tr("The disk holding your conversations is full (%1). They are shown, but nothing new can "
                            "be saved until there is room; the file was left as it is.")
                             .arg(reason)
                       : tr("Burrow cannot write to %1 (%2). Your conversations are shown, but nothing new will be "
                            "saved until it can; the file was left as it is.")
                             .arg(where, reason),
                   QString());
        return true;
    }
    if (failure == StoreFailure::Other)   // SQLite's words are all there is: say what the user can do
        setProblem(tr("Your conversations could not be opened: %1 (%2). Nothing was changed, and nothing new will "
                      "be saved. If this stays after a restart, move the file away: Burrow then starts a new one.")
                       .arg(where, reason),
                   QString());
    else
        setProblem(tr("Your conversations could not be opened: %1 (%2). Nothing was changed.").arg(where, reason),
                   QString());
    return false;
}

// Read-only: SQLite's read-only mode, else (a WAL database in a folder
// where its -shm file cannot be made) the file taken as immutable.
bool ConversationStore::openReadOnly(const QString &path)
{
    for (const bool immutable : {false, true}) {
        closeConnection();
        QSqlDatabase d = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
        if (immutable) {
            QUrl url = QUrl::fromLocalFile(path);
            url.setQuery(QStringLiteral("immutable=1"));
            d.setDatabaseName(url.toString(QUrl::FullyEncoded));
            d.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_OPEN_URI"));
        } else {
            d.setDatabaseName(path);
            d.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=%1").arg(m_busyTimeoutMs));
        }
        if (!d.open())
            continue;
        int version = 0;
        bool newer = false;
        StoreFailure failure = StoreFailure::None;
        if (StoreSchema::inspect(d, &version, &newer, &failure).isEmpty() && version == SchemaVersion)
            return true;
    }
    closeConnection();
    return false;
}

// A damaged file moved aside at an earlier start is still there: say so
// (every start, until the user moves it away; Burrow never deletes it).
void ConversationStore::mentionKeptDamaged(const QString &path)
{
    const QFileInfo info(path);
    QStringList kept = QDir(info.absolutePath())
                           .entryList({info.fileName() + QStringLiteral(".corrupt-*")}, QDir::Files, QDir::Name);
    kept.removeIf([](const QString &name) {
        return name.endsWith(QLatin1String("-wal")) || name.endsWith(QLatin1String("-shm"));
    });
    if (kept.isEmpty())
        return;
    setProblem(tr("A damaged conversation database from before was kept as %1 (%n file(s) in all); Burrow deleted "
                  "nothing. The conversations since then are here. Move it away once you no longer need it.",
                  nullptr, int(kept.size()))
                   .arg(QDir::toNativeSeparators(info.absolutePath() + QLatin1Char('/') + kept.constLast())),
               QString());
}


// ---- conversations ----------------------------------------------------------

qint64 ConversationStore::createConversation(const QString &title, const QString &modelPath, qint64 modelSize,
                                             const QJsonObject &settings)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString()), -1;
    const qint64 now = nowMs();
    QSqlQuery q(db());
    q.prepare(QStringLiteral("INSERT INTO conversations (title, created, updated, model_path, model_size, settings)"
                             " VALUES (?, ?, ?, ?, ?, ?)"));
    q.addBindValue(text(title.trimmed()));
    q.addBindValue(now);
    q.addBindValue(now);
    q.addBindValue(text(modelPath));
    q.addBindValue(modelSize);
    q.addBindValue(jsonText(settings));
    if (!q.exec())
        return fail(tr("Could not create a conversation"), q.lastError()), -1;
    const qint64 id = q.lastInsertId().toLongLong();
    emit conversationAdded(id);
    return id;
}

bool ConversationStore::updateConversation(qint64 conversationId, const QString &sql, const QVariantList &values,
                                           const QString &what)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString());
    QSqlQuery q(db());
    q.prepare(sql);
    for (const QVariant &v : values)
        q.addBindValue(v);
    q.addBindValue(conversationId);
    if (!q.exec())
        return fail(what, q.lastError());
    if (q.numRowsAffected() != 1)
        return fail(what, tr("there is no conversation %1").arg(conversationId));
    return true;
}

bool ConversationStore::rename(qint64 conversationId, const QString &title)
{
    if (!updateConversation(conversationId, QStringLiteral("UPDATE conversations SET title = ? WHERE id = ?"),
                            {text(title.trimmed())}, tr("Could not rename the conversation")))
        return false;
    emit conversationChanged(conversationId);
    return true;
}

bool ConversationStore::setModel(qint64 conversationId, const QString &modelPath, qint64 modelSize)
{
    if (!updateConversation(conversationId,
                            QStringLiteral("UPDATE conversations SET model_path = ?, model_size = ? WHERE id = ?"),
                            {text(modelPath), modelSize}, tr("Could not store the conversation's model")))
        return false;
    emit conversationChanged(conversationId);
    return true;
}

bool ConversationStore::setSettings(qint64 conversationId, const QJsonObject &settings)
{
    if (!updateConversation(conversationId, QStringLiteral("UPDATE conversations SET settings = ? WHERE id = ?"),
                            {jsonText(settings)}, tr("Could not store the conversation's settings")))
        return false;
    emit conversationChanged(conversationId);
    return true;
}

bool ConversationStore::remove(qint64 conversationId)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString());
    emit conversationAboutToBeRemoved(conversationId);   // a reply streaming into it stops first
    if (!updateConversation(conversationId,
                            QStringLiteral("UPDATE conversations SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL"),
                            {nowMs()}, tr("Could not delete the conversation")))
        return false;
    emit conversationRemoved(conversationId);
    return true;
}

bool ConversationStore::undoRemove(qint64 conversationId)
{
    if (!updateConversation(conversationId,
                            QStringLiteral("UPDATE conversations SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL"),
                            {}, tr("Could not restore the conversation")))
        return false;
    emit conversationRestored(conversationId);
    return true;
}

bool ConversationStore::purge(qint64 conversationId)
{
    if (!updateConversation(conversationId,
                            QStringLiteral("DELETE FROM conversations WHERE id = ? AND deleted_at IS NOT NULL"), {},
                            tr("Could not delete the conversation for good (only deleted conversations can be)")))
        return false;
    return true;
}

int ConversationStore::purgeDeleted(const QDateTime &before)
{
    if (!m_ready)
        return 0;
    QSqlQuery q(db());
    if (before.isValid()) {
        q.prepare(QStringLiteral("DELETE FROM conversations WHERE deleted_at IS NOT NULL AND deleted_at < ?"));
        q.addBindValue(toMs(before));
    } else {
        q.prepare(QStringLiteral("DELETE FROM conversations WHERE deleted_at IS NOT NULL"));
    }
    if (!q.exec())
        return fail(tr("Could not empty the deleted conversations"), q.lastError()), 0;
    return q.numRowsAffected();
}

ConversationRecord ConversationStore::conversation(qint64 conversationId) const
{
    if (!m_ready)
        return {};
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM conversations WHERE id = ?").arg(QLatin1String(ConversationColumns)));
    q.addBindValue(conversationId);
    if (!q.exec() || !q.next())
        return {};
    return readConversation(q);
}

QVector<ConversationRecord> ConversationStore::conversations() const
{
    QVector<ConversationRecord> out;
    if (!m_ready)
        return out;
    QSqlQuery q(db());
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("SELECT %1 FROM conversations WHERE deleted_at IS NULL ORDER BY updated DESC, id DESC")
                    .arg(QLatin1String(ConversationColumns))))
        return out;
    while (q.next())
        out.append(readConversation(q));
    return out;
}

QVector<ConversationRecord> ConversationStore::deletedConversations() const
{
    QVector<ConversationRecord> out;
    if (!m_ready)
        return out;
    QSqlQuery q(db());
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("SELECT %1 FROM conversations WHERE deleted_at IS NOT NULL"
                               " ORDER BY deleted_at DESC, id DESC")
                    .arg(QLatin1String(ConversationColumns))))
        return out;
    while (q.next())
        out.append(readConversation(q));
    return out;
}

QVariantMap ConversationStore::conversationMap(qint64 conversationId) const
{
    const ConversationRecord c = conversation(conversationId);
    return c.id < 0 ? QVariantMap() : conversationToMap(c);
}

QJsonObject ConversationStore::settings(qint64 conversationId) const { return conversation(conversationId).settings; }

// ---- messages ---------------------------------------------------------------

QString ConversationStore::titleFromMessage(const QString &content)
{
    const QStringList lines = content.split(QLatin1Char('\n'));
    QString line;
    for (const QString &l : lines) {
        line = l.simplified();
        if (!line.isEmpty())
            break;
    }
    constexpr int MaxTitle = 60;
    if (line.size() <= MaxTitle)
        return line;
    int cut = MaxTitle - 1;
    if (line.at(cut - 1).isHighSurrogate())
        --cut;
    return line.left(cut).trimmed() + QChar(0x2026);
}

bool ConversationStore::touch(qint64 conversationId, qint64 now)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("UPDATE conversations SET updated = ? WHERE id = ?"));
    q.addBindValue(now);
    q.addBindValue(conversationId);
    return q.exec();
}

qint64 ConversationStore::insertMessage(qint64 conversationId, Chat::Role role, const QString &content,
                                       Chat::State state, const QString &model, const QJsonObject &settings,
                                       qint64 parentId)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString()), -1;
    // What was and was not saved, in the user's terms: a user message is
    // saved before the reply starts (it is not sent otherwise); a reply is
    // begun after its question was saved.
    const QString what = role == Chat::Role::User ? tr("Your message could not be saved, so it was not sent")
                         : state == Chat::State::Streaming
                             ? tr("The reply could not be saved (your message was saved; the reply was not)")
                             : tr("Could not save the message");
    QSqlDatabase d = db();
    if (!d.transaction())
        return fail(what, d.lastError()), -1;
    const qint64 now = nowMs();
    QSqlQuery q(d);
    q.prepare(QStringLiteral("INSERT INTO messages (conversation_id, parent_id, role, content, state, created, updated,"
                             " model, settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    q.addBindValue(conversationId);
    q.addBindValue(parentId >= 0 ? QVariant(parentId) : QVariant(QMetaType::fromType<qint64>()));
    q.addBindValue(Chat::roleName(role));
    q.addBindValue(text(content));
    q.addBindValue(Chat::stateName(state));
    q.addBindValue(now);
    q.addBindValue(now);
    q.addBindValue(text(model));
    q.addBindValue(jsonText(settings));
    if (!q.exec()) {
        const QSqlError error = q.lastError();
        d.rollback();
        return fail(what, error), -1;
    }
    const qint64 id = q.lastInsertId().toLongLong();
    bool ok = touch(conversationId, now);
    if (ok && role == Chat::Role::User) {
        QSqlQuery t(d);
        t.prepare(QStringLiteral("UPDATE conversations SET title = ? WHERE id = ? AND title = ''"));
        t.addBindValue(text(titleFromMessage(content)));
        t.addBindValue(conversationId);
        ok = t.exec();
    }
    if (!ok || !d.commit()) {
        const QSqlError error = d.lastError();
        d.rollback();
        return fail(what, error), -1;
    }
    emit messageAdded(conversationId, id);
    emit conversationChanged(conversationId);
    return id;
}

qint64 ConversationStore::appendMessage(qint64 conversationId, Chat::Role role, const QString &content,
                                       qint64 parentId)
{
    return insertMessage(conversationId, role, content, Chat::State::Complete, QString(), QJsonObject(),
                         parentId);
}

qint64 ConversationStore::beginReply(qint64 conversationId, const QString &model, const QJsonObject &settingsUsed,
                                    qint64 parentId)
{
    return insertMessage(conversationId, Chat::Role::Assistant, QString(), Chat::State::Streaming, model,
                         settingsUsed, parentId);
}

qint64 ConversationStore::conversationOf(qint64 messageId) const
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT conversation_id FROM messages WHERE id = ?"));
    q.addBindValue(messageId);
    if (!q.exec() || !q.next())
        return -1;
    return q.value(0).toLongLong();
}

bool ConversationStore::updateReply(qint64 messageId, const QString &content)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString());
    QSqlQuery q(db());
    q.prepare(QStringLiteral("UPDATE messages SET content = ?, updated = ? WHERE id = ? AND state = 'streaming'"));
    q.addBindValue(text(content));
    q.addBindValue(nowMs());
    q.addBindValue(messageId);
    if (!q.exec())
        return fail(tr("The reply could not be saved as it was written (your message and the reply's earlier "
                       "part were saved; the rest was not)"),
                    q.lastError());
    if (q.numRowsAffected() != 1)
        return fail(tr("Could not save the reply"), tr("message %1 is not a streaming reply").arg(messageId));
    emit messageChanged(conversationOf(messageId), messageId);
    return true;
}

bool ConversationStore::setReasoning(qint64 messageId, const QString &reasoning, double reasoningMs)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString());
    QSqlQuery q(db());
    q.prepare(QStringLiteral("UPDATE messages SET reasoning = ?, reasoning_ms = ?, updated = ? WHERE id = ? AND role = 'assistant'"));
    q.addBindValue(text(reasoning));
    q.addBindValue(reasoningMs >= 0 ? QVariant(reasoningMs) : QVariant(QMetaType::fromType<double>()));
    q.addBindValue(nowMs());
    q.addBindValue(messageId);
    if (!q.exec())
        return fail(tr("Could not save the reply"), q.lastError());
    if (q.numRowsAffected() != 1)
        return fail(tr("Could not save the reply"), tr("message %1 is not a reply").arg(messageId));
    emit messageChanged(conversationOf(messageId), messageId);
    return true;
}

bool ConversationStore::setDrafts(qint64 messageId, int drafted, int accepted)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString());
    if (drafted < 0 || accepted < 0 || accepted > drafted)
        return fail(tr("Could not save the reply"), tr("%1 of %2 drafts accepted").arg(accepted).arg(drafted));
    QSqlQuery q(db());
    q.prepare(QStringLiteral("UPDATE messages SET drafted_tokens = ?, accepted_tokens = ? WHERE id = ? AND role = 'assistant'"));
    q.addBindValue(drafted);
    q.addBindValue(accepted);
    q.addBindValue(messageId);
    if (!q.exec())
        return fail(tr("Could not save the reply"), q.lastError());
    if (q.numRowsAffected() != 1)
        return fail(tr("Could not save the reply"), tr("message %1 is not a reply").arg(messageId));
    emit messageChanged(conversationOf(messageId), messageId);
    return true;
}

bool ConversationStore::setContextFull(qint64 messageId)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString());
    QSqlQuery q(db());
    q.prepare(QStringLiteral("UPDATE messages SET context_full = 1 WHERE id = ? AND role = 'assistant'"));
    q.addBindValue(messageId);
    if (!q.exec())
        return fail(tr("Could not save the reply"), q.lastError().text());
    if (q.numRowsAffected() != 1)
        return fail(tr("Could not save the reply"), tr("message %1 is not a reply").arg(messageId));
    emit messageChanged(conversationOf(messageId), messageId);
    return true;
}

bool ConversationStore::setTools(qint64 messageId, const QJsonArray &tools)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString());
    QSqlQuery q(db());
    q.prepare(QStringLiteral("UPDATE messages SET tools = ? WHERE id = ? AND role = 'assistant'"));
    q.addBindValue(tools.isEmpty() ? QString() : QString::fromUtf8(QJsonDocument(tools).toJson(QJsonDocument::Compact)));
    q.addBindValue(messageId);
    if (!q.exec())
        return fail(tr("Could not save the reply"), q.lastError().text());
    if (q.numRowsAffected() != 1)
        return fail(tr("Could not save the reply"), tr("message %1 is not a reply").arg(messageId));
    emit messageChanged(conversationOf(messageId), messageId);
    return true;
}

bool ConversationStore::markShown(qint64 conversationId)
{
    if (!m_ready)
        return false;
    QSqlQuery q(db());
    q.prepare(QStringLiteral("UPDATE conversations SET shown = ? WHERE id = ? AND deleted_at IS NULL"));
    q.addBindValue(nowMs());
    q.addBindValue(conversationId);
    if (!q.exec())
        return fail(tr("Could not save which conversation is shown"), q.lastError().text());
    return q.numRowsAffected() == 1;
}

qint64 ConversationStore::lastShown() const
{
    if (!m_ready)
        return -1;
    QSqlQuery q(db());
    if (!q.exec(QStringLiteral("SELECT id FROM conversations WHERE deleted_at IS NULL AND shown IS NOT NULL"
                               " ORDER BY shown DESC, id DESC LIMIT 1"))
        || !q.next())
        return -1;
    return q.value(0).toLongLong();
}

bool ConversationStore::finishReply(qint64 messageId, const QString &content, Chat::State state, int promptTokens,
                                    int generatedTokens, double tokensPerSecond, const QString &error)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString());
    if (!Chat::isFinal(state))
        return fail(tr("Could not save the reply"), tr("%1 is not a final state").arg(Chat::stateName(state)));
    const qint64 conversationId = conversationOf(messageId);
    if (conversationId < 0)
        return fail(tr("Could not save the reply"), tr("there is no message %1").arg(messageId));
    QSqlDatabase d = db();
    if (!d.transaction())
        return fail(tr("Could not save the reply"), d.lastError());
    const qint64 now = nowMs();
    QSqlQuery q(d);
    q.prepare(QStringLiteral("UPDATE messages SET content = ?, state = ?, updated = ?, prompt_tokens = ?,"
                             " generated_tokens = ?, tokens_per_second = ?, error = ? WHERE id = ?"));
    const QVariant nullInt(QMetaType::fromType<int>());
    q.addBindValue(text(content));
    q.addBindValue(Chat::stateName(state));
    q.addBindValue(now);
    q.addBindValue(promptTokens >= 0 ? QVariant(promptTokens) : nullInt);
    q.addBindValue(generatedTokens >= 0 ? QVariant(generatedTokens) : nullInt);
    q.addBindValue(tokensPerSecond >= 0 ? QVariant(tokensPerSecond) : QVariant(QMetaType::fromType<double>()));
    q.addBindValue(text(error));
    q.addBindValue(messageId);
    if (!q.exec() || !touch(conversationId, now) || !d.commit()) {
        const QSqlError error = q.lastError().isValid() ? q.lastError() : d.lastError();
        d.rollback();
        return fail(tr("The finished reply could not be saved (your message and the reply's earlier part were "
                       "saved; its end was not)"),
                    error);
    }
    emit messageChanged(conversationId, messageId);
    emit conversationChanged(conversationId);
    return true;
}

bool ConversationStore::editMessage(qint64 messageId, const QString &content)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString());
    QSqlQuery q(db());
    q.prepare(QStringLiteral("UPDATE messages SET content = ?, updated = ? WHERE id = ? AND state != 'streaming'"));
    q.addBindValue(text(content));
    q.addBindValue(nowMs());
    q.addBindValue(messageId);
    if (!q.exec())
        return fail(tr("Could not save the edited message"), q.lastError());
    if (q.numRowsAffected() != 1)
        return fail(tr("Could not save the edited message"),
                    tr("message %1 does not exist or is still streaming").arg(messageId));
    emit messageChanged(conversationOf(messageId), messageId);
    return true;
}

int ConversationStore::removeMessagesFrom(qint64 conversationId, qint64 messageId)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString()), -1;
    if (conversationOf(messageId) != conversationId)
        return fail(tr("Could not remove the messages"),
                    tr("message %1 is not in conversation %2").arg(messageId).arg(conversationId)), -1;
    QSqlQuery q(db());
    q.prepare(QStringLiteral("DELETE FROM messages WHERE conversation_id = ? AND id >= ?"));
    q.addBindValue(conversationId);
    q.addBindValue(messageId);
    if (!q.exec())
        return fail(tr("Could not remove the messages"), q.lastError()), -1;
    const int removed = q.numRowsAffected();
    emit messagesRemoved(conversationId, messageId);
    return removed;
}

MessageRecord ConversationStore::message(qint64 messageId) const
{
    if (!m_ready)
        return {};
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM messages WHERE id = ?").arg(QLatin1String(MessageColumns)));
    q.addBindValue(messageId);
    if (!q.exec() || !q.next())
        return {};
    return readMessage(q);
}

QVector<MessageRecord> ConversationStore::messages(qint64 conversationId) const
{
    QVector<MessageRecord> out;
    if (!m_ready)
        return out;
    QSqlQuery q(db());
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT %1 FROM messages WHERE conversation_id = ? ORDER BY id")
                  .arg(QLatin1String(MessageColumns)));
    q.addBindValue(conversationId);
    if (!q.exec())
        return out;
    while (q.next())
        out.append(readMessage(q));
    return out;
}

QVariantList ConversationStore::messageList(qint64 conversationId) const
{
    QVariantList out;
    for (const MessageRecord &m : messages(conversationId))
        out.append(messageToMap(m));
    return out;
}

// ---- search -----------------------------------------------------------------

QVector<SearchHit> ConversationStore::search(const QString &text, int limit) const
{
    return m_ready ? ConversationSearch::search(db(), text, limit) : QVector<SearchHit>();
}

QVariantList ConversationStore::searchList(const QString &text) const
{
    QVariantList out;
    for (const SearchHit &h : search(text)) {
        out.append(QVariantMap{
            {QStringLiteral("conversationId"), h.conversationId},
            {QStringLiteral("messageId"), h.messageId},
            {QStringLiteral("title"), h.title},
            {QStringLiteral("updated"), h.updated},
            {QStringLiteral("snippet"), h.snippet},
            {QStringLiteral("snippetHtml"), h.snippetHtml},
        });
    }
    return out;
}
