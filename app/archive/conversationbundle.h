// The export bundle: conversations as versioned JSON plus one Markdown
// transcript each. This file does the folder side; ArchiveService zips and
// unzips it through burrow-archive.
//
// conversations.json (format version 1):
// {
//   "format": "burrow-conversations", "version": 1, "exported": "<ISO 8601 UTC>",
//   "conversations": [{
//     "uid": "<sha256 of the messages>", "title": "...", "created": "<ISO>", "updated": "<ISO>",
//     "model": {"file": "name.gguf", "size": N,
//               "remote": {"endpoint": "<base URL>", "model": "<id>"}},   (a remote model only: its provenance)
//     "settings": {ChatSettings JSON},
//     "messages": [{"role": "user|assistant|system", "content": "...", "state": "complete|stopped|interrupted|error",
//                   "created": "<ISO>", "model": "...", "settings": {...},
//                   "prompt_tokens": N, "generated_tokens": N, "tokens_per_second": X}]
//   }]
// }
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QVector>

class ConversationStore;
struct ConversationRecord;
struct MessageRecord;

namespace ConversationBundle {

inline constexpr int FormatVersion = 1;
inline constexpr auto FormatName = "burrow-conversations";

/// Writes conversations.json and transcripts/NNN - <title>.md into `dir` for
/// the conversations `ids` (all when empty). False with *error on failure.
bool writeFolder(const ConversationStore &store, const QList<qint64> &ids, const QString &dir, QString *error);

struct ImportResult {
    bool ok = false;
    int added = 0;      // conversations created
    int skipped = 0;    // already present (same uid)
    QString error;      // why the bundle was refused (nothing was imported)
};

/// Reads `dir`/conversations.json, validates all of it, then adds every
/// conversation whose uid is not already in the store. Never overwrites.
ImportResult importFolder(ConversationStore &store, const QString &dir);

/// Identity of a conversation for de-duplication: SHA-256 over its messages'
/// roles and contents (titles can be renamed, so they are not part of it).
QString fingerprint(const QVector<MessageRecord> &messages);

/// A readable transcript: title, model, date, then each message under a heading.
QString markdownTranscript(const ConversationRecord &conversation, const QVector<MessageRecord> &messages);

} // namespace ConversationBundle
