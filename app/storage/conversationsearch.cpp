#include "conversationsearch.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QVariant>

#include "common/logging.h"

namespace {

// Markers put around a match in a snippet; control characters that never
// occur in chat text, replaced after HTML-escaping.
const QChar MatchOpen(0x02);
const QChar MatchClose(0x03);

QDateTime fromMs(const QVariant &v)
{
    return v.isNull() ? QDateTime() : QDateTime::fromMSecsSinceEpoch(v.toLongLong(), Qt::UTC);
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

namespace ConversationSearch {

QVector<SearchHit> search(const QSqlDatabase &db, const QString &text, int limit)
{
    QVector<SearchHit> hits;
    const QStringList terms = searchTerms(text);
    if (terms.isEmpty())
        return hits;

    // Trigram FTS matches substrings of at least three characters; shorter
    // words fall back to a scan with LIKE (still fast for a desktop's chats).
    bool useFts = true;
    for (const QString &t : terms)
        useFts = useFts && t.size() >= 3;

    QSqlQuery q(db);
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

} // namespace ConversationSearch
