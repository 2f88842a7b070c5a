#include "replyhandle.h"

ReplyHandle::ReplyHandle(quint64 id, int priority, int flushIntervalMs, QObject *parent)
    : QObject(parent), m_id(id), m_priority(std::make_shared<ReplyPriorityCell>(priority)),
      m_flushIntervalMs(flushIntervalMs < 1 ? 1 : flushIntervalMs)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setTimerType(Qt::PreciseTimer);   // a coarse timer may fire 5 % early: more takes than asked
    connect(&m_flushTimer, &QTimer::timeout, this, &ReplyHandle::deliver);
}

void ReplyHandle::cancel()
{
    m_cancel->cancel();
}

void ReplyHandle::setPriority(int priority)
{
    m_priority->set(priority);
}

void ReplyHandle::wake()
{
    // At most one take every flushIntervalMs(): each take of the reply shown
    // repaints the view. Until the timer fires the buffer keeps filling and
    // the engine thread posts nothing more (the buffer is not empty).
    if (!m_running || m_flushTimer.isActive())
        return;
    const qint64 since = m_sinceFlush.isValid() ? m_sinceFlush.elapsed() : qint64(m_flushIntervalMs);
    if (since >= m_flushIntervalMs)
        deliver();
    else
        m_flushTimer.start(int(m_flushIntervalMs - since));
}

void ReplyHandle::deliver()
{
    m_flushTimer.stop();
    ReplyBuffer::Taken taken = m_buffer->take();
    if (taken.text.isEmpty() && taken.reasoning.isEmpty())
        return;
    m_sinceFlush.start();
    Q_EMIT textReady(taken.text, taken.reasoning, taken.tokens, taken.elapsedMs);
}

void ReplyHandle::finish(const GenerationOutcome &outcome)
{
    if (!m_running)
        return;
    deliver();   // the text still in the buffer comes first
    m_running = false;
    Q_EMIT finished(outcome);
    deleteLater();
}
