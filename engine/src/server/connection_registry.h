// The open connections as the accept loop sees them: which ones wait for a
// request header (a new socket that has sent nothing yet, a slow one still
// sending its header, a kept-alive one idle between requests) and since
// when, and from which peer. When the server is full, a new connection
// evicts the one that has waited longest for a header instead of being
// refused, so idle or slow sockets cannot lock others out (a client holding
// every slot idle only makes room for the next one); a connection busy with
// a request is never evicted. A non-loopback peer is also limited on its
// own (the same eviction among its connections); loopback peers are all
// this machine and share the whole limit.
//
// Threads: every member is thread-safe (one mutex); admit() costs
// O(open connections) and only runs when the server or a peer is full.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace burrow::server {

// What a connection shares with the registry (a base of the connection).
class ConnectionSlot {
public:
    explicit ConnectionSlot(std::string peer) : m_peer(std::move(peer)) {}
    virtual ~ConnectionSlot() = default;
    ConnectionSlot(const ConnectionSlot &) = delete;
    ConnectionSlot &operator=(const ConnectionSlot &) = delete;

    // It waits for a request header from now on: evictable.
    void waitingForHeader();
    // It has a whole header (its request is read or answered): not evictable.
    void busy() { m_waitingSince.store(0, std::memory_order_relaxed); }
    // Chosen for eviction, it had its header by then: it stays, and counts again.
    void spared() { m_evicted.store(false, std::memory_order_relaxed); }
    bool evicted() const { return m_evicted.load(std::memory_order_relaxed); }
    const std::string &peer() const { return m_peer; }   // "" for loopback

protected:
    // Closes the connection unless it has received a whole header since it
    // was chosen (thread-safe: post the close to the connection's own
    // thread); one that stays calls spared(). Called at most once per choice.
    virtual void evict() = 0;

private:
    friend class ConnectionRegistry;
    const std::string m_peer;
    std::atomic<int64_t> m_waitingSince{0};   // steady-clock ns since it waits for a header; 0: busy
    std::atomic<bool> m_evicted{false};
};

class ConnectionRegistry {
public:
    // maxPerPeer <= 0: no per-peer limit.
    ConnectionRegistry(int maxTotal, int maxPerPeer) : m_maxTotal(maxTotal), m_maxPerPeer(maxPerPeer) {}

    enum class Admission {
        ADMISSION_ACCEPTED,   // there was room
        ADMISSION_EVICTED,    // room was made: the longest-waiting header-less connection is being closed
        ADMISSION_REFUSED,    // full, and every connection (of the peer) is busy: answer 503
    };
    // For a new connection from `peer` ("" loopback). Call add() for it when accepted.
    Admission admit(const std::string &peer);
    void add(std::weak_ptr<ConnectionSlot> slot);
    // Connections open and not being evicted.
    int count();

private:
    void prune();   // drops the entries of closed connections (under m_mutex)

    const int m_maxTotal;
    const int m_maxPerPeer;
    std::mutex m_mutex;
    std::vector<std::weak_ptr<ConnectionSlot>> m_slots;   // guarded by m_mutex
};

} // namespace burrow::server
