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
#include <QUuid>

#include "common/logging.h"


namespace {

constexpr qint64 TrashDays = 30;  // soft-deleted chats are purged after this many days

// Markers FTS5's snippet() puts around a match; control characters that never
// occur in chat text, replaced after HTML-escaping.
const QChar MatchOpen(0x02);
const QChar MatchClose(0x03);

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

bool validRole(const QString &role)
{
    return role == QLatin1String("user") || role == QLatin1String("assistant") || role == QLatin1String("system");
}

// The schema, one step per version: step N turns version N-1 into N. A new
// database runs every step, so each migration is exercised on every start-up
// of a fresh install, not only on upgrades.
const QList<QStringList> &migrationSteps()
{
    static const QList<QStringList> steps = {
        // v1: conversations and linear messages.
        {
            QStringLiteral("CREATE TABLE conversations ("
                           " id INTEGER PRIMARY KEY,"
                           " title TEXT NOT NULL DEFAULT '',"
                           " created INTEGER NOT NULL,"
                           " updated INTEGER NOT NULL,"
                           " model_path TEXT NOT NULL DEFAULT '')"),
            QStringLiteral("CREATE TABLE messages ("
                           " id INTEGER PRIMARY KEY,"
                           " conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
                           " role TEXT NOT NULL,"
                           " content TEXT NOT NULL DEFAULT '',"
                           " created INTEGER NOT NULL)"),
            QStringLiteral("CREATE INDEX messages_by_conversation ON messages(conversation_id, id)"),
        },
        // v2: per-chat settings, soft delete, reply state and provenance, parent ids.
        {
            QStringLiteral("ALTER TABLE conversations ADD COLUMN model_size INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("ALTER TABLE conversations ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'"),
            QStringLiteral("ALTER TABLE conversations ADD COLUMN deleted_at INTEGER"),
            QStringLiteral("CREATE INDEX conversations_by_updated ON conversations(deleted_at, updated)"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN parent_id INTEGER REFERENCES messages(id) ON DELETE SET NULL"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN state TEXT NOT NULL DEFAULT 'complete'"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN updated INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("UPDATE messages SET updated = created"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN model TEXT NOT NULL DEFAULT ''"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN prompt_tokens INTEGER"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN generated_tokens INTEGER"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN tokens_per_second REAL"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN error TEXT NOT NULL DEFAULT ''"),
            QStringLiteral("CREATE INDEX messages_streaming ON messages(state) WHERE state = 'streaming'"),
        },
        // v3: full-text search (FTS5, trigram: case-insensitive substrings,
        // works for languages without spaces between words).
        {
            QStringLiteral("CREATE VIRTUAL TABLE conversations_fts USING fts5("
                           "title, content='conversations', content_rowid='id', tokenize='trigram')"),
            QStringLiteral("CREATE VIRTUAL TABLE messages_fts USING fts5("
                           "content, content='messages', content_rowid='id', tokenize='trigram')"),
            QStringLiteral("CREATE TRIGGER conversations_fts_insert AFTER INSERT ON conversations BEGIN"
                           " INSERT INTO conversations_fts(rowid, title) VALUES (new.id, new.title); END"),
            QStringLiteral("CREATE TRIGGER conversations_fts_delete AFTER DELETE ON conversations BEGIN"
                           " INSERT INTO conversations_fts(conversations_fts, rowid, title) VALUES ('delete', old.id, old.title); END"),
            QStringLiteral("CREATE TRIGGER conversations_fts_update AFTER UPDATE OF title ON conversations BEGIN"
                           " INSERT INTO conversations_fts(conversations_fts, rowid, title) VALUES ('delete', old.id, old.title);"
                           " INSERT INTO conversations_fts(rowid, title) VALUES (new.id, new.title); END"),
            QStringLiteral("CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN"
                           " INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content); END"),
            QStringLiteral("CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN"
                           " INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content); END"),
            QStringLiteral("CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN"
                           " INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);"
                           " INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content); END"),
            QStringLiteral("INSERT INTO conversations_fts(conversations_fts) VALUES ('rebuild')"),
            QStringLiteral("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')"),
        },
    };
    return steps;
}

const char *ConversationColumns =
    "id, title, created, updated, model_path, model_size, settings, deleted_at";
const char *MessageColumns =
    "id, conversation_id, parent_id, role, content, state, created, updated, model, settings,"
    " prompt_tokens, generated_tokens, tokens_per_second, error";

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
    m.role = q.value(3).toString();
    m.content = q.value(4).toString();
    m.state = ConversationStore::stateFromName(q.value(5).toString());
    m.created = fromMs(q.value(6));
    m.updated = fromMs(q.value(7));
    m.model = q.value(8).toString();
    m.settings = jsonObject(q.value(9));
    m.promptTokens = q.value(10).isNull() ? -1 : q.value(10).toInt();
    m.generatedTokens = q.value(11).isNull() ? -1 : q.value(11).toInt();
    m.tokensPerSecond = q.value(12).isNull() ? -1 : q.value(12).toDouble();
    m.error = q.value(13).toString();
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
        {QStringLiteral("role"), m.role},
        {QStringLiteral("content"), m.content},
        {QStringLiteral("state"), m.state},
        {QStringLiteral("stateName"), ConversationStore::stateName(m.state)},
        {QStringLiteral("created"), m.created},
        {QStringLiteral("updated"), m.updated},
        {QStringLiteral("model"), m.model},
        {QStringLiteral("settings"), m.settings.toVariantMap()},
        {QStringLiteral("promptTokens"), m.promptTokens},
        {QStringLiteral("generatedTokens"), m.generatedTokens},
        {QStringLiteral("tokensPerSecond"), m.tokensPerSecond},
        {QStringLiteral("error"), m.error},
    };
}

// Words of a search text, as case-folded substrings.
QStringList searchTerms(const QString &text)
{
    return text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

// The snippet shown for a hit (cut here, not by FTS5's snippet()): up to
// `radius` characters either side of the first match, matches marked.
QString markedSnippet(const QString &text, const QStringList &terms, int radius = 40)
{
    const QString flat = text.simplified();
    int first = -1;
    for (const QString &t : terms) {
        const int at = flat.indexOf(t, 0, Qt::CaseInsensitive);
        if (at >= 0 && (first < 0 || at < first))
            first = at;
    }
    if (first < 0)
        first = 0;
    const int start = qMax(0, first - radius);
    const int end = qMin(int(flat.size()), first + radius);
    QString out = flat.mid(start, end - start);
    // Mark every occurrence of every term in the window.
    QVector<bool> marked(out.size(), false);
    for (const QString &t : terms) {
        for (int at = out.indexOf(t, 0, Qt::CaseInsensitive); at >= 0; at = out.indexOf(t, at + 1, Qt::CaseInsensitive))
            for (int i = at; i < at + t.size() && i < out.size(); ++i)
                marked[i] = true;
    }
    QString result;
    bool in = false;
    for (int i = 0; i < out.size(); ++i) {
        if (marked[i] != in) {
            result += marked[i] ? MatchOpen : MatchClose;
            in = marked[i];
        }
        result += out[i];
    }
    if (in)
        result += MatchClose;
    if (start > 0)
        result.prepend(QChar(0x2026));
    if (end < flat.size())
        result += QChar(0x2026);
    return result;
}

void fillSnippets(SearchHit &hit, const QString &marked)
{
    QString plain = marked;
    plain.remove(MatchOpen).remove(MatchClose);
    hit.snippet = plain.simplified();
    QString html = marked.toHtmlEscaped();
    html.replace(MatchOpen, QLatin1String("<b>")).replace(MatchClose, QLatin1String("</b>"));
    hit.snippetHtml = html.simplified();
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
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/burrow.db");
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
    qCWarning(lcApp).noquote() << message;
    emit errorOccurred(message);
    return false;
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
        return fail(tr("Could not %1 in the conversation database").arg(QString::fromUtf8(what)),
                    q.lastError().text());
    return true;
}

bool ConversationStore::openConnection(const QString &path)
{
    QSqlDatabase d = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    d.setDatabaseName(path);
    d.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (!d.open())
        return fail(tr("Could not open the conversation database %1").arg(QDir::toNativeSeparators(path)),
                    d.lastError().text());
    return true;
}

// Why the file at the open connection cannot be used as a Burrow database
// ("" when it can). Sets *newer when it is a Burrow database of a later version.
QString ConversationStore::inspectOpenDatabase(int *version, bool *newer)
{
    *newer = false;
    *version = 0;
    QSqlQuery q(db());
    if (!q.exec(QStringLiteral("PRAGMA quick_check")))
        return q.lastError().databaseText().isEmpty() ? q.lastError().text() : q.lastError().databaseText();
    QStringList problems;
    while (q.next())
        problems << q.value(0).toString();
    if (problems != QStringList{QStringLiteral("ok")}) {
        // quick_check lists page-level findings; the first two tell enough.
        QStringList lines = problems.join(QLatin1Char('\n')).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        lines.removeIf([](const QString &l) { return l.startsWith(QLatin1String("***")); });
        return tr("the file is damaged: %1").arg(lines.mid(0, 2).join(QStringLiteral("; ")));
    }
    if (!q.exec(QStringLiteral("PRAGMA user_version")) || !q.next())
        return q.lastError().text();
    *version = q.value(0).toInt();
    if (!q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master")) || !q.next())
        return q.lastError().text();
    const int objects = q.value(0).toInt();
    if (*version == 0 && objects > 0)
        return tr("it holds tables but no Burrow schema version");
    if (*version > SchemaVersion) {
        *newer = true;
        return tr("it was written by a newer version of Burrow (schema %1, this version reads up to %2)")
            .arg(*version)
            .arg(SchemaVersion);
    }
    if (*version > 0) {
        // Our own tables must be there for the version it claims.
        if (!q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                                   " AND name IN ('conversations', 'messages')"))
            || !q.next() || q.value(0).toInt() != 2)
            return tr("the conversation tables are missing");
    }
    return QString();
}

// Renames `path` and its -wal/-shm companions to `<path>.corrupt-<timestamp>`.
QString ConversationStore::moveAside(const QString &path)
{
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString target = path + QStringLiteral(".corrupt-") + stamp;
    for (int n = 2; QFileInfo::exists(target); ++n)
        target = path + QStringLiteral(".corrupt-") + stamp + QLatin1Char('-') + QString::number(n);
    if (!QFile::rename(path, target))
        return QString();
    for (const char *suffix : {"-wal", "-shm"}) {
        const QString companion = path + QLatin1String(suffix);
        if (QFileInfo::exists(companion) && !QFile::rename(companion, target + QLatin1String(suffix)))
            qCWarning(lcApp) << "could not move" << companion << "aside";
    }
    return target;
}

bool ConversationStore::open()
{
    m_lastError.clear();
    const bool ok = openImpl();
    if (!ok && m_problem.isEmpty())  // every reason not to open reaches the user
        setProblem(tr("Your conversations could not be opened: %1").arg(m_lastError), QString());
    return ok;
}

bool ConversationStore::openImpl()
{
    close();
    m_interruptedOnOpen = 0;
    if (!m_problem.isEmpty())
        setProblem(QString(), QString());
    const QString path = m_path.isEmpty() ? defaultDatabasePath() : m_path;
    const bool inMemory = path == QLatin1String(":memory:");
    if (!inMemory && !QDir().mkpath(QFileInfo(path).absolutePath()))
        return fail(tr("Could not create the folder for conversations %1")
                        .arg(QDir::toNativeSeparators(QFileInfo(path).absolutePath())),
                    QString());

    if (!openConnection(path))
        return false;

    int version = 0;
    bool newer = false;
    const QString reason = inspectOpenDatabase(&version, &newer);
    if (newer) {
        // Not damaged: leave it alone, and refuse to write into it.
        closeConnection();
        setProblem(tr("Your conversations could not be opened because %1. Nothing was changed; "
                      "start the newer version of Burrow to see them.")
                       .arg(reason),
                   QString());
        return false;
    }
    if (!reason.isEmpty()) {
        closeConnection();
        if (inMemory)
            return fail(tr("Could not open the conversation database"), reason);
        const QString aside = moveAside(path);
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
        if (!openConnection(path))
            return false;
        version = 0;
    }

    // WAL: readers never block the writer and a crash mid-write leaves the
    // last committed state. FULL: the WAL is synced on every commit, so a
    // power cut keeps every committed message too (NORMAL could lose the
    // commits since the last checkpoint).
    {
        QSqlQuery q(db());
        if (!inMemory) {
            if (!q.exec(QStringLiteral("PRAGMA journal_mode=WAL")) || !q.next()
                || q.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
                const QString detail = q.lastError().text();
                closeConnection();
                return fail(tr("Could not switch the conversation database to WAL mode"), detail);
            }
        }
    }
    if (!exec(QStringLiteral("PRAGMA synchronous=FULL"), "set synchronous")
        || !exec(QStringLiteral("PRAGMA foreign_keys=ON"), "enable foreign keys")) {
        closeConnection();
        return false;
    }

    if (version < SchemaVersion && !migrate(version, path, inMemory)) {
        closeConnection();
        return false;
    }

    // A reply still marked streaming was cut off by a crash or a kill.
    {
        QSqlQuery q(db());
        q.prepare(QStringLiteral("UPDATE messages SET state = 'interrupted' WHERE state = 'streaming'"));
        if (!q.exec()) {
            const QString detail = q.lastError().text();
            closeConnection();
            return fail(tr("Could not update interrupted replies"), detail);
        }
        m_interruptedOnOpen = q.numRowsAffected();
    }

    m_ready = true;
    purgeDeleted(QDateTime::fromMSecsSinceEpoch(nowMs() - TrashDays * 24 * 3600 * 1000, Qt::UTC));
    emit readyChanged();
    return true;
}

bool ConversationStore::migrate(int from, const QString &path, bool inMemory)
{
    if (from > 0 && !inMemory) {
        QString backup = path + QStringLiteral(".bak-v") + QString::number(from);
        if (QFileInfo::exists(backup))  // an earlier attempt's copy: keep it, write another
            backup += QLatin1Char('-') + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
        QSqlQuery q(db());
        QString quoted = backup;
        quoted.replace(QLatin1Char('\''), QLatin1String("''"));
        if (!q.exec(QStringLiteral("VACUUM INTO '%1'").arg(quoted)))
            return fail(tr("Could not back up the conversation database before upgrading it; "
                           "nothing was changed"),
                        q.lastError().text());
        m_backupPath = backup;
        emit backupPathChanged();
        qCInfo(lcApp) << "backed up schema" << from << "to" << backup;
    }
    const auto &steps = migrationSteps();
    for (int v = from + 1; v <= SchemaVersion; ++v) {
        QSqlDatabase d = db();
        if (!d.transaction())
            return fail(tr("Could not upgrade the conversation database"), d.lastError().text());
        bool ok = true;
        for (const QString &sql : steps[v - 1]) {
            QSqlQuery q(d);
            if (!q.exec(sql)) {
                fail(tr("Could not upgrade the conversation database to version %1").arg(v),
                     q.lastError().text());
                ok = false;
                break;
            }
        }
        ok = ok && exec(QStringLiteral("PRAGMA user_version = %1").arg(v), "set the schema version");
        if (!ok) {
            d.rollback();
            return false;
        }
        if (!d.commit())
            return fail(tr("Could not upgrade the conversation database"), d.lastError().text());
    }
    return true;
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
        return fail(tr("Could not create a conversation"), q.lastError().text()), -1;
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
        return fail(what, q.lastError().text());
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
        return fail(tr("Could not empty the deleted conversations"), q.lastError().text()), 0;
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

qint64 ConversationStore::insertMessage(qint64 conversationId, const QString &role, const QString &content,
                                       const QString &state, const QString &model, const QJsonObject &settings,
                                       qint64 parentId)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString()), -1;
    if (!validRole(role))
        return fail(tr("Could not store the message"), tr("unknown role \"%1\"").arg(role)), -1;
    QSqlDatabase d = db();
    if (!d.transaction())
        return fail(tr("Could not store the message"), d.lastError().text()), -1;
    const qint64 now = nowMs();
    QSqlQuery q(d);
    q.prepare(QStringLiteral("INSERT INTO messages (conversation_id, parent_id, role, content, state, created, updated,"
                             " model, settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    q.addBindValue(conversationId);
    q.addBindValue(parentId >= 0 ? QVariant(parentId) : QVariant(QMetaType::fromType<qint64>()));
    q.addBindValue(role);
    q.addBindValue(text(content));
    q.addBindValue(state);
    q.addBindValue(now);
    q.addBindValue(now);
    q.addBindValue(text(model));
    q.addBindValue(jsonText(settings));
    if (!q.exec()) {
        const QString detail = q.lastError().text();
        d.rollback();
        return fail(tr("Could not store the message"), detail), -1;
    }
    const qint64 id = q.lastInsertId().toLongLong();
    bool ok = touch(conversationId, now);
    if (ok && role == QLatin1String("user")) {
        QSqlQuery t(d);
        t.prepare(QStringLiteral("UPDATE conversations SET title = ? WHERE id = ? AND title = ''"));
        t.addBindValue(text(titleFromMessage(content)));
        t.addBindValue(conversationId);
        ok = t.exec();
    }
    if (!ok || !d.commit()) {
        const QString detail = d.lastError().text();
        d.rollback();
        return fail(tr("Could not store the message"), detail), -1;
    }
    emit messageAdded(conversationId, id);
    emit conversationChanged(conversationId);
    return id;
}

qint64 ConversationStore::appendMessage(qint64 conversationId, const QString &role, const QString &content,
                                       qint64 parentId)
{
    return insertMessage(conversationId, role, content, QStringLiteral("complete"), QString(), QJsonObject(),
                         parentId);
}

qint64 ConversationStore::beginReply(qint64 conversationId, const QString &model, const QJsonObject &settingsUsed,
                                    qint64 parentId)
{
    return insertMessage(conversationId, QStringLiteral("assistant"), QString(), QStringLiteral("streaming"), model,
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
        return fail(tr("Could not save the reply"), q.lastError().text());
    if (q.numRowsAffected() != 1)
        return fail(tr("Could not save the reply"), tr("message %1 is not a streaming reply").arg(messageId));
    emit messageChanged(conversationOf(messageId), messageId);
    return true;
}

bool ConversationStore::finishReply(qint64 messageId, const QString &content, int state, int promptTokens,
                                    int generatedTokens, double tokensPerSecond, const QString &error)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString());
    if (state != Complete && state != Stopped && state != Error && state != Interrupted)
        return fail(tr("Could not save the reply"), tr("%1 is not a final state").arg(stateName(state)));
    const qint64 conversationId = conversationOf(messageId);
    if (conversationId < 0)
        return fail(tr("Could not save the reply"), tr("there is no message %1").arg(messageId));
    QSqlDatabase d = db();
    if (!d.transaction())
        return fail(tr("Could not save the reply"), d.lastError().text());
    const qint64 now = nowMs();
    QSqlQuery q(d);
    q.prepare(QStringLiteral("UPDATE messages SET content = ?, state = ?, updated = ?, prompt_tokens = ?,"
                             " generated_tokens = ?, tokens_per_second = ?, error = ? WHERE id = ?"));
    const QVariant nullInt(QMetaType::fromType<int>());
    q.addBindValue(text(content));
    q.addBindValue(stateName(state));
    q.addBindValue(now);
    q.addBindValue(promptTokens >= 0 ? QVariant(promptTokens) : nullInt);
    q.addBindValue(generatedTokens >= 0 ? QVariant(generatedTokens) : nullInt);
    q.addBindValue(tokensPerSecond >= 0 ? QVariant(tokensPerSecond) : QVariant(QMetaType::fromType<double>()));
    q.addBindValue(text(error));
    q.addBindValue(messageId);
    if (!q.exec() || !touch(conversationId, now) || !d.commit()) {
        const QString detail = q.lastError().isValid() ? q.lastError().text() : d.lastError().text();
        d.rollback();
        return fail(tr("Could not save the reply"), detail);
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
        return fail(tr("Could not save the edited message"), q.lastError().text());
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
        return fail(tr("Could not remove the messages"), q.lastError().text()), -1;
    const int removed = q.numRowsAffected();
    emit messagesRemoved(conversationId, messageId);
    return removed;
}

QString ConversationStore::replyDetails(qint64 messageId) const
{
    const MessageRecord m = message(messageId);
    if (m.id < 0 || m.role != QLatin1String("assistant"))
        return QString();
    const QLocale locale;
    QStringList lines;
    if (!m.model.isEmpty())
        lines << tr("Model: %1").arg(m.model);
    QStringList counts;
    if (m.promptTokens >= 0)
        counts << tr("prompt: %1 tokens").arg(m.promptTokens);
    if (m.generatedTokens >= 0)
        counts << tr("reply: %1 tokens").arg(m.generatedTokens);
    if (m.tokensPerSecond >= 0)
        counts << tr("%1 tokens/s").arg(locale.toString(m.tokensPerSecond, 'f', 1));
    if (!counts.isEmpty())
        lines << counts.join(QStringLiteral(" · "));
    switch (m.state) {
    case Interrupted: lines << tr("Interrupted: Burrow stopped while this reply was being written."); break;
    case Stopped: lines << tr("Stopped before the end."); break;
    case Error: lines << tr("Failed: %1").arg(m.error); break;
    case Streaming: lines << tr("Being written…"); break;
    default: break;
    }
    const QJsonObject &s = m.settings;
    QStringList used;
    auto number = [&](const char *key, const QString &label) {
        if (s.contains(QLatin1String(key)))
            used << label.arg(locale.toString(s.value(QLatin1String(key)).toDouble(), 'g', 6));
    };
    number("temperature", tr("temperature %1"));
    number("topP", tr("top-p %1"));
    number("topK", tr("top-k %1"));
    number("minP", tr("min-p %1"));
    number("repeatPenalty", tr("repeat penalty %1"));
    number("contextSize", tr("context %1"));
    if (s.contains(QLatin1String("randomSeed")))
        used << (s.value(QLatin1String("randomSeed")).toBool()
                     ? tr("random seed")
                     : tr("seed %1").arg(qint64(s.value(QLatin1String("seed")).toDouble())));
    const QString chatFormat = s.value(QLatin1String("chatFormat")).toString();
    if (!chatFormat.isEmpty() && chatFormat != QLatin1String("auto"))
        used << tr("chat format %1").arg(chatFormat);
    if (!used.isEmpty())
        lines << tr("Settings: %1").arg(used.join(QStringLiteral(", ")));
    lines << tr("Written %1").arg(locale.toString(m.updated.toLocalTime(), QLocale::ShortFormat));
    return lines.join(QLatin1Char('\n'));
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

QString ConversationStore::stateName(int state)
{
    switch (state) {
    case Complete: return QStringLiteral("complete");
    case Streaming: return QStringLiteral("streaming");
    case Interrupted: return QStringLiteral("interrupted");
    case Stopped: return QStringLiteral("stopped");
    case Error: return QStringLiteral("error");
    }
    return QStringLiteral("unknown");
}

int ConversationStore::stateFromName(const QString &name)
{
    for (int s = Complete; s <= Error; ++s)
        if (stateName(s) == name)
            return s;
    return Error;
}

// ---- search -----------------------------------------------------------------

QVector<SearchHit> ConversationStore::search(const QString &text, int limit) const
{
    QVector<SearchHit> hits;
    const QStringList terms = searchTerms(text);
    if (!m_ready || terms.isEmpty())
        return hits;

    // Trigram FTS matches substrings of at least three characters; shorter
    // words fall back to a scan with LIKE (still fast for a desktop's chats).
    bool useFts = true;
    for (const QString &t : terms)
        useFts = useFts && t.size() >= 3;

    QSqlQuery q(db());
    q.setForwardOnly(true);
    if (useFts) {
        QStringList phrases;
        for (QString t : terms)
            phrases << QLatin1Char('"') + t.replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"');
        const QString match = phrases.join(QLatin1Char(' '));
        // FTS5 finds the matches; the snippets are cut here (snippet() costs
        // ~60 us per row and would run for every matching message).
        q.prepare(QStringLiteral(
            "SELECT c.id, -1, c.title, c.updated, c.title, 0 AS kind"
            " FROM conversations_fts JOIN conversations c ON c.id = conversations_fts.rowid"
            " WHERE conversations_fts MATCH ? AND c.deleted_at IS NULL"
            " UNION ALL "
            "SELECT c.id, m.id, c.title, c.updated, m.content, 1 AS kind"
            " FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
            " JOIN conversations c ON c.id = m.conversation_id"
            " WHERE messages_fts MATCH ? AND c.deleted_at IS NULL"
            " ORDER BY 4 DESC, 1 DESC, 6 ASC, 2 DESC"));
        q.addBindValue(match);
        q.addBindValue(match);
    } else {
        QStringList titleWhere, contentWhere;
        QVariantList titleArgs, contentArgs;
        for (QString t : terms) {
            t.replace(QLatin1Char('\\'), QLatin1String("\\\\"))
                .replace(QLatin1Char('%'), QLatin1String("\\%"))
                .replace(QLatin1Char('_'), QLatin1String("\\_"));
            titleWhere << QStringLiteral("c.title LIKE ? ESCAPE '\\'");
            contentWhere << QStringLiteral("m.content LIKE ? ESCAPE '\\'");
            titleArgs << QStringLiteral("%%1%").arg(t);
            contentArgs << QStringLiteral("%%1%").arg(t);
        }
        q.prepare(QStringLiteral("SELECT c.id, -1, c.title, c.updated, c.title, 0 AS kind FROM conversations c"
                                 " WHERE c.deleted_at IS NULL AND %1"
                                 " UNION ALL "
                                 "SELECT c.id, m.id, c.title, c.updated, m.content, 1 AS kind FROM messages m"
                                 " JOIN conversations c ON c.id = m.conversation_id"
                                 " WHERE c.deleted_at IS NULL AND %2"
                                 " ORDER BY 4 DESC, 1 DESC, 6 ASC, 2 DESC")
                      .arg(titleWhere.join(QStringLiteral(" AND ")), contentWhere.join(QStringLiteral(" AND "))));
        for (const QVariant &v : titleArgs)
            q.addBindValue(v);
        for (const QVariant &v : contentArgs)
            q.addBindValue(v);
    }
    if (!q.exec()) {
        qCWarning(lcApp) << "search failed:" << q.lastError().text();
        return hits;
    }
    qint64 lastConversation = -1;
    while (q.next() && hits.size() < limit) {
        const qint64 id = q.value(0).toLongLong();
        if (id == lastConversation)  // rows come grouped by conversation, best first
            continue;
        lastConversation = id;
        SearchHit hit;
        hit.conversationId = id;
        hit.messageId = q.value(1).toLongLong();
        hit.title = q.value(2).toString();
        hit.updated = fromMs(q.value(3));
        fillSnippets(hit, markedSnippet(q.value(4).toString(), terms));
        hits.append(hit);
    }
    return hits;
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
