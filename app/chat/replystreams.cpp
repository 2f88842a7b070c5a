#include "replystreams.h"

#include <utility>

#include "backend/chatbackend.h"
#include "replystream.h"
#include "storage/conversationstore.h"

ReplyStreams::ReplyStreams(EngineBridge *bridge, ConversationStore *store, QObject *parent)
    : QObject(parent), m_bridge(bridge), m_store(store)
{
    // A chat being deleted stops its reply first: the text so far is stored
    // (as stopped) before the chat goes, and nothing writes into it after.
    if (m_store)
        connect(m_store, &ConversationStore::conversationAboutToBeRemoved, this, [this](qint64 id) {
            if (ReplyStream *stream = find(id); stream && stream->isActive())
                stream->stopNow();
        });
}

ReplyStreams::~ReplyStreams()
{
    // Each stream saves the text it has (ReplyStream's destructor).
    for (auto &[id, stream] : m_streams)
        delete stream;
}

ReplyStream *ReplyStreams::find(qint64 conversationId) const
{
    const auto it = m_streams.find(conversationId);
    return it == m_streams.end() ? nullptr : it->second;
}

ReplyStream *ReplyStreams::forChat(qint64 conversationId)
{
    if (ReplyStream *stream = find(conversationId))
        return stream;
    auto *stream = new ReplyStream(m_bridge, m_store, this);
    m_streams[conversationId] = stream;
    connect(stream, &ReplyStream::activeChanged, this, &ReplyStreams::writingChanged);
    connect(stream, &ReplyStream::finished, this, [this, conversationId](int row) {
        Q_EMIT finished(conversationId, row);
        dropIfDone(conversationId);
    });
    return stream;
}

void ReplyStreams::setShown(qint64 conversationId)
{
    const qint64 before = std::exchange(m_shown, conversationId);
    if (before == conversationId)
        return;
    if (ReplyStream *left = find(before))
        left->setPriority(ReplyPriority::BackgroundChat);
    if (ReplyStream *shown = find(conversationId))
        shown->setPriority(ReplyPriority::ShownChat);
    dropIfDone(before);
}

void ReplyStreams::dropIfDone(qint64 conversationId)
{
    ReplyStream *stream = find(conversationId);
    if (!stream || stream->isActive() || conversationId == m_shown)
        return;
    m_streams.erase(conversationId);
    stream->deleteLater();   // it may be sending the signal that got us here
}

QList<qint64> ReplyStreams::writing() const
{
    QList<qint64> ids;
    for (const auto &[id, stream] : m_streams) {
        if (stream->isActive())
            ids.append(id);
    }
    return ids;
}

bool ReplyStreams::anyActive() const
{
    for (const auto &[id, stream] : m_streams) {
        if (stream->isActive())
            return true;
    }
    return false;
}

void ReplyStreams::stopAll()
{
    for (const auto &[id, stream] : m_streams)
        stream->stop();
}
