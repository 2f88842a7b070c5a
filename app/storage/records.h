// What the conversation store reads and writes: plain rows, copied out.
#pragma once

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QMetaType>
#include <QString>

#include "common/chat.h"

/**
 * @brief One conversation row as the sidebar and the chat window need it.
 */
struct ConversationRecord {
    qint64 id = -1;
    QString title;
    QDateTime created;   // UTC
    QDateTime updated;   // UTC; bumped by new messages and finished replies
    QString modelPath;   // the model file the chat uses ("" when none yet)
    qint64 modelSize = 0;
    QJsonObject settings;  // ChatSettings::toJson()
    QDateTime deletedAt;   // invalid unless soft-deleted
};

/**
 * @brief One message. Replies carry what produced them (model, settings, stats).
 */
struct MessageRecord {
    qint64 id = -1;
    qint64 conversationId = -1;
    qint64 parentId = -1;  // -1: none (linear chat); kept for future branching
    Chat::Role role = Chat::Role::User;
    QString content;
    Chat::State state = Chat::State::Complete;
    QDateTime created;
    QDateTime updated;
    QString model;         // model file name that wrote the reply
    QJsonObject settings;  // sampling settings used for the reply
    int promptTokens = -1;     // -1: unknown
    int generatedTokens = -1;  // -1: unknown
    double tokensPerSecond = -1;
    QString error;         // for state Error: what went wrong
    QString reasoning;     // a reply's reasoning, apart from its answer ("" when none)
    double reasoningMs = -1;   // how long the reasoning took (-1: unknown or none)
    bool contextFull = false;  // the reply ended because the context was full
    // Speculative decoding: draft tokens the model checked, and of them
    // accepted (each saved a pass); -1: unknown (none drafted is 0).
    int draftedTokens = -1;
    int acceptedTokens = -1;
    // A reply's tool calls, in order: [{id, name, arguments (JSON object
    // text), decision ("", "once", "always", "denied"), state ("pending",
    // "running", "done", "failed", "denied"), result}] (ToolCalls, chat/).
    QJsonArray tools;
};

/**
 * @brief One search hit: a conversation and where the text was found.
 */
struct SearchHit {
    qint64 conversationId = -1;
    qint64 messageId = -1;  // -1: the title matched
    QString title;
    QDateTime updated;
    QString snippet;        // plain text around the match
    QString snippetHtml;    // the same, HTML-escaped, matches in <b>…</b>
};

Q_DECLARE_METATYPE(ConversationRecord)
Q_DECLARE_METATYPE(MessageRecord)
