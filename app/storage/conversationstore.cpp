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
    " context_full";

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
    const QString reason = StoreSchema::inspect(db(), &version, &newer);
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

    if (version < SchemaVersion) {
        QString backup, what, detail;
        const bool migrated = StoreSchema::migrate(db(), version, path, inMemory, &backup, &what, &detail);
        if (!backup.isEmpty()) {
            m_backupPath = backup;
            emit backupPathChanged();
        }
        if (!migrated) {
            fail(what, detail);
            closeConnection();
            return false;
        }
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

qint64 ConversationStore::insertMessage(qint64 conversationId, Chat::Role role, const QString &content,
                                       Chat::State state, const QString &model, const QJsonObject &settings,
                                       qint64 parentId)
{
    if (!m_ready)
        return fail(tr("The conversation database is not open"), QString()), -1;
    QSqlDatabase d = db();
    if (!d.transaction())
        return fail(tr("Could not store the message"), d.lastError().text()), -1;
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
        const QString detail = q.lastError().text();
        d.rollback();
        return fail(tr("Could not store the message"), detail), -1;
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
        const QString detail = d.lastError().text();
        d.rollback();
        return fail(tr("Could not store the message"), detail), -1;
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
        return fail(tr("Could not save the reply"), q.lastError().text());
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
        return fail(tr("Could not save the reply"), q.lastError().text());
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
        return fail(tr("Could not save the reply"), d.lastError().text());
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
