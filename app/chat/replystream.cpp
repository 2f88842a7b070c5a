#include "replystream.h"

#include <QLocale>

#include "backend/enginebridge.h"
#include "backend/replyhandle.h"
#include "common/logging.h"
#include "messagemodel.h"
#include "toolrunner.h"
#include "storage/conversationstore.h"
#include "storage/storefailure.h"

ReplyStream::ReplyStream(EngineBridge *bridge, ConversationStore *store, QObject *parent)
    : QObject(parent), m_bridge(bridge), m_store(store)
{
    m_storeTimer.setInterval(StoreIntervalMs);
    connect(&m_storeTimer, &QTimer::timeout, this, &ReplyStream::save);
}

ReplyStream::~ReplyStream()
{
    // A reply still streaming keeps all its text so far; it stays Streaming in
    // the store and shows as interrupted at the next start.
    save();
}

QString ReplyStream::text() const
{
    return m_messages && m_row >= 0 ? m_messages->textAt(m_row) : m_text;
}

QString ReplyStream::reasoning() const
{
    return m_messages && m_row >= 0 ? m_messages->reasoningAt(m_row) : m_reasoning;
}

int ReplyStream::start(ChatRequest request, qint64 conversationId, const QString &modelFile,
                       const QJsonObject &settingsUsed, MessageModel *shown)
{
    m_conversationId = conversationId;
    m_messageId = -1;
    m_text.clear();
    m_reasoning.clear();
    m_storedLength = 0;
    m_storedReasoning = 0;
    m_storeError.clear();
    const bool stored = m_store && m_store->isReady() && conversationId > 0;
    if (stored) {
        m_messageId = m_store->beginReply(conversationId, modelFile, settingsUsed);
        m_storeTimer.start();
    }
    m_messages = shown;
    m_row = -1;
    if (shown) {
        MessageModel::Message reply;
        reply.id = qMax<qint64>(0, m_messageId);
        reply.author = Chat::Role::Assistant;
        reply.state = Chat::State::Streaming;
        m_row = shown->append(reply);
    }
    m_promptTokens = 0;
    m_tokens = 0;
    m_promptProgress = -1;
    m_tokensPerSecond = 0;
    m_handle = m_bridge->generate(std::move(request));
    connect(m_handle, &ReplyHandle::planned, this, &ReplyStream::onPlanned);
    connect(m_handle, &ReplyHandle::promptProgress, this, &ReplyStream::onProgress);
    connect(m_handle, &ReplyHandle::textReady, this, &ReplyStream::onText);
    connect(m_handle, &ReplyHandle::finished, this, &ReplyStream::onFinished);
    if (stored && m_messageId <= 0)
        storeFailed();   // not even begun: a reply that cannot be kept is not written
    Q_EMIT activeChanged();
    Q_EMIT statsChanged();
    return m_row;
}

void ReplyStream::setPriority(int priority)
{
    if (isActive())
        m_handle->setPriority(priority);
}

void ReplyStream::stop()
{
    if (isActive())
        m_handle->cancel();
}

void ReplyStream::release()
{
    if (m_handle) {
        m_handle->cancel();
        disconnect(m_handle, nullptr, this, nullptr);
    }
    m_handle = nullptr;
}

void ReplyStream::stopNow()
{
    if (!isActive())
        return;
    release();
    // What the engine would have said had it stopped here: the text and the
    // token count so far.
    GenerationOutcome outcome;
    outcome.stop = GenerationOutcome::Stop::Cancelled;
    outcome.generatedTokens = m_tokens;
    outcome.contextUsed = m_contextUsed;
    outcome.generateMs = m_tokensPerSecond > 0 ? m_tokens * 1000.0 / m_tokensPerSecond : 0;
    onFinished(outcome);
}

void ReplyStream::abandon()
{
    if (!isActive())
        return;
    release();
    m_storeTimer.stop();
    m_messageId = -1;
    m_messages = nullptr;
    m_row = -1;
    m_text.clear();
    m_reasoning.clear();
    Q_EMIT activeChanged();
}

void ReplyStream::show(MessageModel *messages, int row)
{
    if (!isActive() || !messages || row < 0)
        return;
    messages->setText(row, std::exchange(m_text, QString()));
    messages->setReasoning(row, std::exchange(m_reasoning, QString()));
    messages->setState(row, Chat::State::Streaming);
    m_messages = messages;
    m_row = row;
}

void ReplyStream::hide()
{
    if (m_messages && m_row >= 0) {
        m_text = m_messages->takeText(m_row);
        m_reasoning = m_messages->takeReasoning(m_row);
    }
    m_messages = nullptr;
    m_row = -1;
}

void ReplyStream::clearStats()
{
    if (isActive())
        return;
    m_contextUsed = 0;
    m_lastReplyStats.clear();
    Q_EMIT statsChanged();
}

int ReplyStream::withinContext(int positions) const
{
    const int size = m_bridge ? m_bridge->contextSize() : 0;
    return size > 0 ? qBound(0, positions, size) : qMax(0, positions);
}

void ReplyStream::restoreStats(int contextUsed)
{
    if (isActive())
        return;
    // The stored count is prompt + reply; a reply that filled the context
    // counts the token that found no room.
    m_contextUsed = withinContext(contextUsed);
    m_lastReplyStats.clear();
    Q_EMIT statsChanged();
}

void ReplyStream::onPlanned(const PromptPlan &plan)
{
    qCDebug(lcApp) << "prompt" << plan.promptTokens << "tokens, format" << plan.chatFormat << "first row"
                   << plan.firstRow;
    m_promptTokens = plan.promptTokens;
    m_contextUsed = plan.promptTokens;
    if (m_messages)
        m_messages->setMemoryStart(plan.firstRow, plan.keptEndRow);
    Q_EMIT memoryStartChanged(plan.firstRow);
    Q_EMIT statsChanged();
}

void ReplyStream::onProgress(int done, int total)
{
    m_promptProgress = total > 0 && done < total ? double(done) / total : -1;
    Q_EMIT statsChanged();
}

void ReplyStream::onText(const QString &text, const QString &reasoning, int tokens, double elapsedMs)
{
    if (m_messages && m_row >= 0) {
        m_messages->appendReasoning(m_row, reasoning);
        m_messages->appendText(m_row, text);
    } else {
        m_reasoning.append(reasoning);
        m_text.append(text);
    }
    m_tokens = tokens;
    // Past a full context the engine shifts it: the cache never holds more
    // than its size (the exact count arrives with the outcome).
    m_contextUsed = withinContext(m_promptTokens + tokens);
    m_promptProgress = -1;
    // The engine's measure: tokens over the time since generation started.
    m_tokensPerSecond = elapsedMs > 0 ? tokens * 1000.0 / elapsedMs : 0;
    Q_EMIT statsChanged();
}

void ReplyStream::save()
{
    if (!m_store || m_messageId <= 0)
        return;
    const QString thought = reasoning();
    if (thought.size() != m_storedReasoning && m_store->setReasoning(m_messageId, thought))
        m_storedReasoning = thought.size();
    const QString current = text();
    if (current.size() == m_storedLength)
        return;
    if (m_store->updateReply(m_messageId, current))
        m_storedLength = current.size();
    else
        storeFailed();
}

void ReplyStream::storeFailed()
{
    if (!m_storeError.isEmpty() || !m_store)
        return;
    m_storeError = tr("Stopped: this reply could not be saved (%1), so it would be gone after a restart.")
                       .arg(StoreFailures::brief(m_store->lastFailure()));
    m_storeTimer.stop();
    if (isActive())
        m_handle->cancel();
}

void ReplyStream::storeFinal(Chat::State state, const GenerationOutcome &outcome)
{
    if (!m_store || m_messageId <= 0 || !m_storeError.isEmpty())
        return;   // (the store refused it already: the banner said why)
    const QString thought = reasoning();
    if (!thought.isEmpty() || outcome.reasoningMs >= 0)
        m_store->setReasoning(m_messageId, thought, outcome.reasoningMs);
    const int promptTokens = m_promptTokens > 0 ? m_promptTokens : outcome.promptTokens + outcome.reusedTokens;
    const double speed = outcome.tokensPerSecond();
    if (!m_store->finishReply(m_messageId, text(), state, promptTokens, outcome.generatedTokens,
                              outcome.generatedTokens > 0 ? speed : -1, outcome.error)) {
        storeFailed();
        return;
    }
    if (outcome.stop == GenerationOutcome::Stop::ContextFull)
        m_store->setContextFull(m_messageId);
    if (outcome.draftedTokens >= 0 && outcome.acceptedTokens >= 0)
        m_store->setDrafts(m_messageId, outcome.draftedTokens, outcome.acceptedTokens);
}

void ReplyStream::onFinished(const GenerationOutcome &outcome)
{
    m_handle = nullptr;
    m_storeTimer.stop();
    const Chat::State state = !m_storeError.isEmpty()                             ? Chat::State::Failed
                            : outcome.stop == GenerationOutcome::Stop::Cancelled ? Chat::State::Stopped
                            : outcome.stop == GenerationOutcome::Stop::Error     ? Chat::State::Failed
                                                                                 : Chat::State::Complete;
    const double speed = outcome.tokensPerSecond();
    const QString thought = reasoning();
    storeFinal(state, outcome);
    const int row = m_messages ? m_row : -1;
    // The reply's tool calls, each waiting for the user (ToolRunner).
    const QJsonArray tools = ToolRunner::entriesFor(outcome.toolCalls, qMax<qint64>(0, m_messageId));
    if (!tools.isEmpty() && m_store && m_messageId > 0 && m_storeError.isEmpty())
        m_store->setTools(m_messageId, tools);
    if (!tools.isEmpty() && row >= 0)
        m_messages->setTools(row, tools);
    if (row >= 0) {
        if (!thought.isEmpty() || outcome.reasoningMs >= 0)
            m_messages->setReasoning(row, thought, outcome.reasoningMs);
        // A reply the store refused (now or at its end) says so on itself.
        if (m_storeError.isEmpty())
            m_messages->setState(row, state, outcome.error);
        else
            m_messages->setState(row, Chat::State::Failed, m_storeError);
        m_messages->setStats(row, outcome.generatedTokens, speed);
        if (outcome.stop == GenerationOutcome::Stop::ContextFull)
            m_messages->setContextFull(row, true);
    }
    m_promptProgress = -1;
    m_tokens = outcome.generatedTokens;
    if (outcome.generatedTokens > 0) {
        m_tokensPerSecond = speed;
        m_lastReplyStats = tr("%n tokens at %1 tokens/s", nullptr, outcome.generatedTokens)
                               .arg(QLocale().toString(speed, 'f', 1));
        if (outcome.reusedTokens > 0 || outcome.promptTokens > 0)
            m_lastReplyStats += QStringLiteral(" · ")
                + tr("prompt: %1 new, %2 reused").arg(outcome.promptTokens).arg(outcome.reusedTokens);
    }
    if (outcome.contextUsed > 0 || outcome.stop != GenerationOutcome::Stop::Error)
        m_contextUsed = outcome.contextUsed;
    m_messageId = -1;
    m_messages = nullptr;
    m_row = -1;
    m_text.clear();
    m_reasoning.clear();
    qCDebug(lcApp) << "reply finished" << int(outcome.stop) << outcome.generatedTokens << "tokens";
    Q_EMIT activeChanged();
    Q_EMIT statsChanged();
    Q_EMIT finished(row, outcome);
}
