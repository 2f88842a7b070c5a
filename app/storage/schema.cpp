#include "schema.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>

#include "common/logging.h"

// The schema, one step per version: step N turns version N-1 into N. A new
// database runs every step, so each migration is exercised on every start-up
// of a fresh install, not only on upgrades.
const QList<QStringList> &StoreSchema::steps()
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
        // v4: a reply's reasoning (Qwen3's <think>, gpt-oss's analysis
        // channel), kept apart from its answer, and how long it took.
        {
            QStringLiteral("ALTER TABLE messages ADD COLUMN reasoning TEXT NOT NULL DEFAULT ''"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN reasoning_ms REAL"),
        },
        // v5: a reply that ended because the context was full says so; the
        // chat shown last is opened at the next start (when it was shown).
        {
            QStringLiteral("ALTER TABLE messages ADD COLUMN context_full INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("ALTER TABLE conversations ADD COLUMN shown INTEGER"),
        },
        // v6: speculative decoding's count of a reply: draft tokens checked,
        // and of them accepted (NULL: unknown, or a reply written before).
        {
            QStringLiteral("ALTER TABLE messages ADD COLUMN drafted_tokens INTEGER"),
            QStringLiteral("ALTER TABLE messages ADD COLUMN accepted_tokens INTEGER"),
        },
        // v7: a reply's tool calls (MCP tools): per call its id, name,
        // arguments, the user's decision, state and result, as a JSON array.
        {
            QStringLiteral("ALTER TABLE messages ADD COLUMN tools TEXT NOT NULL DEFAULT ''"),
        },
    };
    return steps;
}

// Why the file at the open connection cannot be used as a Burrow database
// ("" when it can). Sets *newer when it is a Burrow database of a later version.
QString StoreSchema::inspect(const QSqlDatabase &db, int *version, bool *newer, StoreFailure *failure)
{
    *newer = false;
    *version = 0;
    *failure = StoreFailure::None;
    QSqlQuery q(db);
    // A query that fails: damaged only by SQLite's word (CORRUPT, NOTADB).
    const auto failed = [&]() {
        *failure = StoreFailures::of(q.lastError());
        if (*failure == StoreFailure::None)
            *failure = StoreFailure::Other;
        return StoreFailures::describe(*failure, q.lastError());
    };
    if (!q.exec(QStringLiteral("PRAGMA quick_check")))
        return failed();
    QStringList problems;
    while (q.next())
        problems << q.value(0).toString();
    if (problems != QStringList{QStringLiteral("ok")}) {
        // quick_check lists page-level findings; the first two tell enough.
        QStringList lines = problems.join(QLatin1Char('\n')).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        lines.removeIf([](const QString &l) { return l.startsWith(QLatin1String("***")); });
        *failure = StoreFailure::Damaged;
        return tr("the file is damaged: %1").arg(lines.mid(0, 2).join(QStringLiteral("; ")));
    }
    if (!q.exec(QStringLiteral("PRAGMA user_version")) || !q.next())
        return failed();
    *version = q.value(0).toInt();
    if (!q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master")) || !q.next())
        return failed();
    const int objects = q.value(0).toInt();
    if (*version == 0 && objects > 0) {
        *failure = StoreFailure::Damaged;   // another program's database: not ours to write into
        return tr("it holds tables but no Burrow schema version");
    }
    if (*version > Version) {
        *newer = true;
        *failure = StoreFailure::Other;
        return tr("it was written by a newer version of Burrow (schema %1, this version reads up to %2)")
            .arg(*version)
            .arg(Version);
    }
    if (*version > 0) {
        // Our own tables must be there for the version it claims.
        if (!q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                                   " AND name IN ('conversations', 'messages')"))
            || !q.next())
            return failed();
        if (q.value(0).toInt() != 2) {
            *failure = StoreFailure::Damaged;
            return tr("the conversation tables are missing");
        }
    }
    return QString();
}

// Renames `path` and its -wal/-shm companions to `<path>.corrupt-<timestamp>`.
QString StoreSchema::moveAside(const QString &path)
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

bool StoreSchema::migrate(const QSqlDatabase &db, int from, const QString &path, bool inMemory, QString *backupPath,
                          QString *what, QString *detail, StoreFailure *failure)
{
    *failure = StoreFailure::None;
    const auto failedWith = [&](const QSqlError &error) {
        *failure = StoreFailures::of(error);
        if (*failure == StoreFailure::None)
            *failure = StoreFailure::Other;
        *detail = StoreFailures::describe(*failure, error);
        return false;
    };
    if (from > 0 && !inMemory) {
        QString backup = path + QStringLiteral(".bak-v") + QString::number(from);
        if (QFileInfo::exists(backup))  // an earlier attempt's copy: keep it, write another
            backup += QLatin1Char('-') + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
        QSqlQuery q(db);
        QString quoted = backup;
        quoted.replace(QLatin1Char('\''), QLatin1String("''"));
        if (!q.exec(QStringLiteral("VACUUM INTO '%1'").arg(quoted))) {
            *what = tr("Could not back up the conversation database before upgrading it; nothing was changed");
            return failedWith(q.lastError());
        }
        *backupPath = backup;
        qCInfo(lcApp) << "backed up schema" << from << "to" << backup;
    }
    for (int v = from + 1; v <= Version; ++v) {
        QSqlDatabase d = db;
        if (!d.transaction()) {
            *what = tr("Could not upgrade the conversation database");
            return failedWith(d.lastError());
        }
        QStringList sql = steps()[v - 1];
        sql << QStringLiteral("PRAGMA user_version = %1").arg(v);
        for (const QString &statement : std::as_const(sql)) {
            QSqlQuery q(d);
            if (!q.exec(statement)) {
                *what = tr("Could not upgrade the conversation database to version %1").arg(v);
                const QSqlError error = q.lastError();
                d.rollback();
                return failedWith(error);
            }
        }
        if (!d.commit()) {
            *what = tr("Could not upgrade the conversation database");
            return failedWith(d.lastError());
        }
    }
    return true;
}
