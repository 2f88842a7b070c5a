#include "conversationbundle.h"

#include "backend/remoteendpoints.h"
#include "settings/chatsettings.h"

#include "storage/conversationstore.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QSet>

namespace ConversationBundle {
namespace {

QString iso(const QDateTime &t)
{
    return t.isValid() ? t.toUTC().toString(Qt::ISODateWithMs) : QString();
}

QString roleHeading(Chat::Role role)
{
    switch (role) {
    case Chat::Role::User: return QStringLiteral("User");
    case Chat::Role::Assistant: return QStringLiteral("Assistant");
    case Chat::Role::System: return QStringLiteral("System");
    }
    return QStringLiteral("User");
}

// A file name from a title: no separators or control characters, bounded.
QString safeFileStem(const QString &title)
{
    QString out;
    for (const QChar c : title) {
        if (c.unicode() < 0x20 || QStringLiteral("/\\:*?\"<>|").contains(c))
            out += QLatin1Char('_');
        else
            out += c;
    }
    out = out.trimmed();
    while (out.startsWith(QLatin1Char('.')))
        out.remove(0, 1);
    if (out.isEmpty())
        out = QStringLiteral("Conversation");
    return out.left(80);
}

bool writeBytes(const QString &path, const QByteArray &bytes, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QCoreApplication::translate("ConversationBundle", "cannot write %1: %2").arg(QFileInfo(path).fileName(), file.errorString());
        return false;
    }
    return true;
}

struct ParsedMessage {
    MessageRecord record;
};

struct ParsedConversation {
    ConversationRecord record;
    QVector<MessageRecord> messages;
    QString uid;
};

} // namespace

QString fingerprint(const QVector<MessageRecord> &messages)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const MessageRecord &m : messages) {
        const QByteArray role = Chat::roleName(m.role).toUtf8();
        const QByteArray content = m.content.toUtf8();
        // Length-prefixed so that ("ab","c") and ("a","bc") differ.
        hash.addData(QByteArray::number(role.size()) + ':' + role + QByteArray::number(content.size()) + ':' + content);
    }
    return QString::fromLatin1(hash.result().toHex());
}

// A chat's model in the bundle: the file's name and size, or a remote
// model's id with its server's address (its provenance).
static QJsonObject modelJson(const ConversationRecord &c)
{
    QJsonObject model{{QStringLiteral("file"), RemoteModelRef::displayName(c.modelPath)},
                      {QStringLiteral("size"), c.modelSize}};
    const RemoteModelRef ref = RemoteModelRef::parse(c.modelPath);
    if (ref.isValid())
        model.insert(QStringLiteral("remote"), QJsonObject{{QStringLiteral("endpoint"), ref.baseUrl.toString()},
                                                           {QStringLiteral("model"), ref.modelId}});
    return model;
}

QString markdownTranscript(const ConversationRecord &conversation, const QVector<MessageRecord> &messages)
{
    QString md = QStringLiteral("# %1\n\n").arg(conversation.title.isEmpty() ? QStringLiteral("Conversation") : conversation.title);
    QStringList facts;
    if (!conversation.modelPath.isEmpty())
        facts << QStringLiteral("Model: %1").arg(RemoteModelRef::displayName(conversation.modelPath));
    if (conversation.created.isValid())
        facts << QStringLiteral("Started: %1").arg(conversation.created.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")));
    if (!facts.isEmpty())
        md += QStringLiteral("_%1_\n\n").arg(facts.join(QStringLiteral(" · ")));
    for (const MessageRecord &m : messages) {
        md += QStringLiteral("## %1\n\n").arg(roleHeading(m.role));
        md += m.content;
        if (!m.content.endsWith(QLatin1Char('\n')))
            md += QLatin1Char('\n');
        // Its tool calls: the call, then the result as a quote.
        for (const QJsonValue &v : m.tools) {
            const QJsonObject t = v.toObject();
            md += QStringLiteral("\n**Tool call** `%1` `%2` (%3)\n")
                      .arg(t.value(QLatin1String("name")).toString(), t.value(QLatin1String("arguments")).toString(),
                           t.value(QLatin1String("state")).toString());
            const QString result = t.value(QLatin1String("result")).toString();
            if (!result.isEmpty())
                md += QStringLiteral("\n> ") + QString(result).replace(QLatin1Char('\n'), QStringLiteral("\n> ")) + QLatin1Char('\n');
        }
        if (m.state == Chat::State::Stopped)
            md += QStringLiteral("\n_(stopped)_\n");
        else if (m.state == Chat::State::Interrupted)
            md += QStringLiteral("\n_(interrupted)_\n");
        md += QLatin1Char('\n');
    }
    return md;
}

bool writeFolder(const ConversationStore &store, const QList<qint64> &ids, const QString &dir, QString *error)
{
    QVector<ConversationRecord> conversations;
    if (ids.isEmpty()) {
        conversations = store.conversations();
    } else {
        for (qint64 id : ids) {
            const ConversationRecord c = store.conversation(id);
            if (c.id < 0) {
                *error = QCoreApplication::translate("ConversationBundle", "conversation %1 does not exist").arg(id);
                return false;
            }
            conversations.append(c);
        }
    }
    if (!QDir().mkpath(dir + QStringLiteral("/transcripts"))) {
        *error = QCoreApplication::translate("ConversationBundle", "cannot create %1").arg(dir);
        return false;
    }
    QJsonArray list;
    int index = 0;
    for (const ConversationRecord &c : conversations) {
        const QVector<MessageRecord> messages = store.messages(c.id);
        QJsonArray jsonMessages;
        for (const MessageRecord &m : messages) {
            QJsonObject jm{{QStringLiteral("role"), Chat::roleName(m.role)},
                           {QStringLiteral("content"), m.content},
                           {QStringLiteral("state"), Chat::stateName(m.state)},
                           {QStringLiteral("created"), iso(m.created)}};
            if (!m.model.isEmpty())
                jm.insert(QStringLiteral("model"), m.model);
            if (!m.settings.isEmpty())
                jm.insert(QStringLiteral("settings"), ChatSettings::normalizedJson(m.settings));
            if (m.promptTokens >= 0)
                jm.insert(QStringLiteral("prompt_tokens"), m.promptTokens);
            if (m.generatedTokens >= 0)
                jm.insert(QStringLiteral("generated_tokens"), m.generatedTokens);
            if (m.tokensPerSecond >= 0)
                jm.insert(QStringLiteral("tokens_per_second"), m.tokensPerSecond);
            if (!m.reasoning.isEmpty())
                jm.insert(QStringLiteral("reasoning"), m.reasoning);
            if (m.reasoningMs >= 0)
                jm.insert(QStringLiteral("reasoning_ms"), m.reasoningMs);
            if (m.draftedTokens >= 0 && m.acceptedTokens >= 0) {
                jm.insert(QStringLiteral("drafted_tokens"), m.draftedTokens);
                jm.insert(QStringLiteral("accepted_tokens"), m.acceptedTokens);
            }
            if (!m.tools.isEmpty())
                jm.insert(QStringLiteral("tools"), m.tools);
            jsonMessages.append(jm);
        }
        list.append(QJsonObject{
            {QStringLiteral("uid"), fingerprint(messages)},
            {QStringLiteral("title"), c.title},
            {QStringLiteral("created"), iso(c.created)},
            {QStringLiteral("updated"), iso(c.updated)},
            {QStringLiteral("model"), modelJson(c)},
            {QStringLiteral("settings"), ChatSettings::normalizedJson(c.settings)},
            {QStringLiteral("messages"), jsonMessages}});
        const QString name = QStringLiteral("%1 - %2.md").arg(++index, 3, 10, QLatin1Char('0')).arg(safeFileStem(c.title));
        if (!writeBytes(dir + QStringLiteral("/transcripts/") + name, markdownTranscript(c, messages).toUtf8(), error))
            return false;
    }
    const QJsonObject root{{QStringLiteral("format"), QString::fromLatin1(FormatName)},
                           {QStringLiteral("version"), FormatVersion},
                           {QStringLiteral("exported"), iso(QDateTime::currentDateTimeUtc())},
                           {QStringLiteral("conversations"), list}};
    return writeBytes(dir + QStringLiteral("/conversations.json"), QJsonDocument(root).toJson(QJsonDocument::Indented), error);
}

ImportResult importFolder(ConversationStore &store, const QString &dir)
{
    ImportResult result;
    QFile file(dir + QStringLiteral("/conversations.json"));
    if (!file.exists()) {
        result.error = QCoreApplication::translate("ConversationBundle", "This is not a Burrow export: it has no conversations.json.");
        return result;
    }
    if (file.size() > (qint64(512) << 20)) {
        result.error = QCoreApplication::translate("ConversationBundle", "conversations.json is larger than 512 MiB; refusing to read it.");
        return result;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        result.error = QCoreApplication::translate("ConversationBundle", "Cannot read conversations.json: %1").arg(file.errorString());
        return result;
    }
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        result.error = QCoreApplication::translate("ConversationBundle", "conversations.json is not valid JSON (%1 at byte %2).")
                           .arg(parseError.errorString()).arg(parseError.offset);
        return result;
    }
    const QJsonObject root = doc.object();
    if (!doc.isObject() || root.value(QStringLiteral("format")).toString() != QLatin1String(FormatName)) {
        result.error = QCoreApplication::translate("ConversationBundle", "conversations.json is not a Burrow conversation export.");
        return result;
    }
    const int version = root.value(QStringLiteral("version")).toInt(-1);
    if (version < 1) {
        result.error = QCoreApplication::translate("ConversationBundle", "conversations.json has no valid format version.");
        return result;
    }
    if (version > FormatVersion) {
        result.error = QCoreApplication::translate("ConversationBundle", "This export was made by a newer Burrow (format version %1; this one reads up to %2).")
                           .arg(version).arg(FormatVersion);
        return result;
    }
    const QJsonValue listValue = root.value(QStringLiteral("conversations"));
    if (!listValue.isArray()) {
        result.error = QCoreApplication::translate("ConversationBundle", "conversations.json has no list of conversations.");
        return result;
    }

    // Validate everything before importing anything.
    QVector<ParsedConversation> parsed;
    const QJsonArray list = listValue.toArray();
    for (int i = 0; i < list.size(); ++i) {
        const QString where = QCoreApplication::translate("ConversationBundle", "Conversation %1").arg(i + 1);
        if (!list[i].isObject()) {
            result.error = QCoreApplication::translate("ConversationBundle", "%1 is not an object.").arg(where);
            return result;
        }
        const QJsonObject jc = list[i].toObject();
        ParsedConversation pc;
        pc.record.title = jc.value(QStringLiteral("title")).toString();
        pc.record.created = QDateTime::fromString(jc.value(QStringLiteral("created")).toString(), Qt::ISODateWithMs);
        const QJsonObject model = jc.value(QStringLiteral("model")).toObject();
        pc.record.modelPath = model.value(QStringLiteral("file")).toString();
        // A remote model's provenance: its server's address and its id.
        const QJsonObject remote = model.value(QStringLiteral("remote")).toObject();
        const RemoteModelRef ref{RemoteEndpoints::normalized(QUrl(remote.value(QStringLiteral("endpoint")).toString())),
                                 remote.value(QStringLiteral("model")).toString().left(1024)};
        if (ref.isValid())
            pc.record.modelPath = ref.locator();
        pc.record.modelSize = model.value(QStringLiteral("size")).toInteger();
        // Through the settings field table: only known fields with valid values.
        pc.record.settings = ChatSettings::normalizedJson(jc.value(QStringLiteral("settings")).toObject());
        const QJsonValue messagesValue = jc.value(QStringLiteral("messages"));
        if (!messagesValue.isArray()) {
            result.error = QCoreApplication::translate("ConversationBundle", "%1 has no list of messages.").arg(where);
            return result;
        }
        const QJsonArray jms = messagesValue.toArray();
        for (int k = 0; k < jms.size(); ++k) {
            const QJsonObject jm = jms[k].toObject();
            MessageRecord m;
            const QString role = jm.value(QStringLiteral("role")).toString();
            if (!Chat::roleFromName(role, &m.role)) {
                result.error = QCoreApplication::translate("ConversationBundle", "%1, message %2: unknown role \"%3\".").arg(where).arg(k + 1).arg(role);
                return result;
            }
            if (!jm.value(QStringLiteral("content")).isString()) {
                result.error = QCoreApplication::translate("ConversationBundle", "%1, message %2: content is not text.").arg(where).arg(k + 1);
                return result;
            }
            m.content = jm.value(QStringLiteral("content")).toString();
            const QString state = jm.value(QStringLiteral("state")).toString(QStringLiteral("complete"));
            m.state = Chat::stateFromName(state);
            if (m.state == Chat::State::Streaming)
                m.state = Chat::State::Interrupted;
            m.model = jm.value(QStringLiteral("model")).toString();
            if (jm.contains(QStringLiteral("settings")))
                m.settings = ChatSettings::normalizedJson(jm.value(QStringLiteral("settings")).toObject());
            m.promptTokens = jm.value(QStringLiteral("prompt_tokens")).toInt(-1);
            m.generatedTokens = jm.value(QStringLiteral("generated_tokens")).toInt(-1);
            m.tokensPerSecond = jm.value(QStringLiteral("tokens_per_second")).toDouble(-1);
            if (m.role == Chat::Role::Assistant) {
                m.reasoning = jm.value(QStringLiteral("reasoning")).toString();
                m.reasoningMs = jm.value(QStringLiteral("reasoning_ms")).toDouble(-1);
                m.draftedTokens = jm.value(QStringLiteral("drafted_tokens")).toInt(-1);
                m.acceptedTokens = jm.value(QStringLiteral("accepted_tokens")).toInt(-1);
                if (m.draftedTokens < 0 || m.acceptedTokens < 0 || m.acceptedTokens > m.draftedTokens)
                    m.draftedTokens = m.acceptedTokens = -1;   // a count that cannot be is dropped
                // Tool calls: objects only, at most 64 per reply (the file is bounded above).
                for (const QJsonValue &t : jm.value(QStringLiteral("tools")).toArray())
                    if (t.isObject() && m.tools.size() < 64)
                        m.tools.append(t);
            }
            pc.messages.append(m);
        }
        pc.uid = fingerprint(pc.messages);
        parsed.append(pc);
    }

    // What is already there (not deleted): never import it twice.
    QSet<QString> existing;
    for (const ConversationRecord &c : store.conversations())
        existing.insert(fingerprint(store.messages(c.id)));

    for (const ParsedConversation &pc : parsed) {
        if (existing.contains(pc.uid)) {
            ++result.skipped;
            continue;
        }
        const qint64 id = store.createConversation(pc.record.title, pc.record.modelPath, pc.record.modelSize, pc.record.settings);
        if (id < 0) {
            result.error = QCoreApplication::translate("ConversationBundle", "The conversation database refused the import.");
            return result;
        }
        for (const MessageRecord &m : pc.messages) {
            if (m.role == Chat::Role::Assistant) {
                const qint64 reply = store.beginReply(id, m.model, m.settings);
                if (reply < 0 || !store.finishReply(reply, m.content, m.state, m.promptTokens, m.generatedTokens, m.tokensPerSecond)
                    || ((!m.reasoning.isEmpty() || m.reasoningMs >= 0) && !store.setReasoning(reply, m.reasoning, m.reasoningMs))
                    || (m.draftedTokens >= 0 && !store.setDrafts(reply, m.draftedTokens, m.acceptedTokens))
                    || (!m.tools.isEmpty() && !store.setTools(reply, m.tools))) {
                    result.error = QCoreApplication::translate("ConversationBundle", "The conversation database refused the import.");
                    return result;
                }
            } else if (store.appendMessage(id, m.role, m.content) < 0) {
                result.error = QCoreApplication::translate("ConversationBundle", "The conversation database refused the import.");
                return result;
            }
        }
        if (!pc.record.title.isEmpty())
            store.rename(id, pc.record.title);
        existing.insert(pc.uid);
        ++result.added;
    }
    result.ok = true;
    return result;
}

} // namespace ConversationBundle
