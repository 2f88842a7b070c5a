// ConnectionRegistry: admission and eviction (see connection_registry.h).
#include "server/connection_registry.h"

#include <algorithm>
#include <chrono>

namespace burrow::server {

void ConnectionSlot::waitingForHeader()
{
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
    m_waitingSince.store(std::max<int64_t>(now, 1), std::memory_order_relaxed);
}

void ConnectionRegistry::add(std::weak_ptr<ConnectionSlot> slot)
{
    std::lock_guard lock(m_mutex);
    if (m_slots.size() >= 2 * size_t(std::max(m_maxTotal, 16)))
        prune();
    m_slots.push_back(std::move(slot));
}

void ConnectionRegistry::prune()
{
    std::erase_if(m_slots, [](const std::weak_ptr<ConnectionSlot> &w) { return w.expired(); });
}

int ConnectionRegistry::count()
{
    std::lock_guard lock(m_mutex);
    prune();
    int n = 0;
    for (const auto &w : m_slots)
        if (auto s = w.lock(); s && !s->evicted())
            ++n;
    return n;
}

ConnectionRegistry::Admission ConnectionRegistry::admit(const std::string &peer)
{
    std::vector<std::shared_ptr<ConnectionSlot>> open;   // released after the lock (a last reference may close one)
    std::shared_ptr<ConnectionSlot> victim;
    {
        std::lock_guard lock(m_mutex);
        prune();
        int total = 0, ofPeer = 0;
        for (const auto &w : m_slots) {
            auto s = w.lock();
            if (!s || s->evicted())
                continue;
            ++total;
            ofPeer += !peer.empty() && s->peer() == peer;
            open.push_back(std::move(s));
        }
        const bool peerFull = !peer.empty() && m_maxPerPeer > 0 && ofPeer >= m_maxPerPeer;
        if (!peerFull && total < m_maxTotal)
            return Admission::ADMISSION_ACCEPTED;
        // The one waiting longest for a header: of the peer when the peer is
        // full, else of all.
        int64_t oldest = INT64_MAX;
        for (const auto &s : open) {
            if (peerFull && s->peer() != peer)
                continue;
            const int64_t since = s->m_waitingSince.load(std::memory_order_relaxed);
            if (since != 0 && since < oldest) {
                oldest = since;
                victim = s;
            }
        }
        if (!victim)
            return Admission::ADMISSION_REFUSED;
        victim->m_evicted.store(true, std::memory_order_relaxed);
    }
    victim->evict();
    return Admission::ADMISSION_EVICTED;
}

} // namespace burrow::server
