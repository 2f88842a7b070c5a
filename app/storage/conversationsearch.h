// Full-text search over a conversation database: titles and message text,
// case-insensitive substrings, every word must occur (FTS5 trigram tables,
// a LIKE scan for words shorter than three characters). The snippets are
// cut here, around the first match, with the matches marked.
#pragma once

#include <QSqlDatabase>
#include <QString>
#include <QVector>

#include "records.h"

namespace ConversationSearch {

// One hit per conversation, newest conversation first, deleted ones excluded.
QVector<SearchHit> search(const QSqlDatabase &db, const QString &text, int limit);

} // namespace ConversationSearch
