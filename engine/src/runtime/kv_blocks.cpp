#include "runtime/kv_blocks.h"

namespace burrow::runtime {

BlockHash blockHash(BlockHash parent, const int32_t *tokens, uint32_t n, uint64_t salt)
{
    uint64_t h = 1469598103934665603ull ^ salt;
    const auto mix = [&h](uint64_t v) {
        for (int i = 0; i < 8; ++i) {
            h ^= (v >> (8 * i)) & 0xFF;
            h *= 1099511628211ull;
        }
    };
    mix(parent);
    mix(n);
    for (uint32_t i = 0; i < n; ++i)
        mix(static_cast<uint32_t>(tokens[i]));
    // Final avalanche (splitmix64), so nearby inputs spread over the map.
    h += 0x9E3779B97F4A7C15ull;
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

BlockPool::BlockPool(uint32_t capacity) : m_blocks(capacity)
{
    for (uint32_t i = 0; i < capacity; ++i)
        pushBack(m_free, 1, static_cast<BlockId>(i));
    m_freeCount = capacity;
}

void BlockPool::pushBack(List &l, uint8_t which, BlockId id)
{
    Block &b = m_blocks[static_cast<size_t>(id)];
    b.list = which;
    b.prev = l.tail;
    b.next = -1;
    if (l.tail >= 0)
        m_blocks[static_cast<size_t>(l.tail)].next = id;
    else
        l.head = id;
    l.tail = id;
}

void BlockPool::unlink(List &l, BlockId id)
{
    Block &b = m_blocks[static_cast<size_t>(id)];
    if (b.prev >= 0)
        m_blocks[static_cast<size_t>(b.prev)].next = b.next;
    else
        l.head = b.next;
    if (b.next >= 0)
        m_blocks[static_cast<size_t>(b.next)].prev = b.prev;
    else
        l.tail = b.prev;
    b.prev = b.next = -1;
    b.list = 0;
}

void BlockPool::forgetHash(BlockId id)
{
    Block &b = m_blocks[static_cast<size_t>(id)];
    if (!b.hashed)
        return;
    auto it = m_byHash.find(b.hash);
    if (it != m_byHash.end() && it->second == id)
        m_byHash.erase(it);
    b.hashed = false;
    b.hash = 0;
}

BlockId BlockPool::allocate()
{
    BlockId id = -1;
    if (m_free.head >= 0) {
        id = m_free.head;
        unlink(m_free, id);
        --m_freeCount;
    } else if (m_cached.head >= 0) {
        id = m_cached.head;   // the least recently released
        unlink(m_cached, id);
        --m_cachedCount;
        forgetHash(id);
    } else {
        return -1;
    }
    m_blocks[static_cast<size_t>(id)].ref = 1;
    return id;
}

void BlockPool::retain(BlockId id)
{
    Block &b = m_blocks[static_cast<size_t>(id)];
    if (b.ref == 0 && b.list == 2) {
        unlink(m_cached, id);
        --m_cachedCount;
    } else if (b.ref == 0 && b.list == 1) {
        unlink(m_free, id);
        --m_freeCount;
    }
    ++b.ref;
}

void BlockPool::release(BlockId id)
{
    Block &b = m_blocks[static_cast<size_t>(id)];
    if (b.ref <= 0)
        return;   // a double release is a programmer error; checkInvariants() would not see it, so ignore safely
    if (--b.ref > 0)
        return;
    if (b.hashed) {
        pushBack(m_cached, 2, id);
        ++m_cachedCount;
    } else {
        pushBack(m_free, 1, id);
        ++m_freeCount;
    }
}

BlockId BlockPool::registerHash(BlockId id, BlockHash hash)
{
    auto it = m_byHash.find(hash);
    if (it != m_byHash.end() && it->second != id)
        return it->second;
    Block &b = m_blocks[static_cast<size_t>(id)];
    if (b.hashed && b.hash != hash)
        forgetHash(id);
    b.hashed = true;
    b.hash = hash;
    m_byHash[hash] = id;
    return id;
}

BlockId BlockPool::find(BlockHash hash) const
{
    auto it = m_byHash.find(hash);
    return it == m_byHash.end() ? -1 : it->second;
}

std::string BlockPool::checkInvariants() const
{
    uint32_t nFree = 0, nCached = 0, nRef = 0, nHashed = 0;
    for (size_t i = 0; i < m_blocks.size(); ++i) {
        const Block &b = m_blocks[i];
        if (b.ref < 0)
            return "block " + std::to_string(i) + " has ref " + std::to_string(b.ref);
        if (b.ref > 0) {
            ++nRef;
            if (b.list != 0)
                return "referenced block " + std::to_string(i) + " is on a list";
        } else if (b.list == 1) {
            ++nFree;
            if (b.hashed)
                return "free block " + std::to_string(i) + " is hashed";
        } else if (b.list == 2) {
            ++nCached;
            if (!b.hashed)
                return "cached block " + std::to_string(i) + " has no hash";
        } else {
            return "block " + std::to_string(i) + " has ref 0 and is on no list";
        }
        if (b.hashed) {
            ++nHashed;
            auto it = m_byHash.find(b.hash);
            if (it == m_byHash.end() || it->second != static_cast<BlockId>(i))
                return "block " + std::to_string(i) + " is hashed but not in the map";
        }
    }
    if (nFree != m_freeCount || nCached != m_cachedCount)
        return "counts differ: free " + std::to_string(nFree) + "/" + std::to_string(m_freeCount) + ", cached " +
               std::to_string(nCached) + "/" + std::to_string(m_cachedCount);
    if (nFree + nCached + nRef != m_blocks.size())
        return "blocks are lost";
    if (nHashed != m_byHash.size())
        return "the hash map holds " + std::to_string(m_byHash.size()) + " entries for " + std::to_string(nHashed) +
               " hashed blocks";
    // The lists are consistent with the counts.
    uint32_t walked = 0;
    for (BlockId id = m_free.head; id >= 0; id = m_blocks[static_cast<size_t>(id)].next)
        if (++walked > m_blocks.size())
            return "the free list loops";
    if (walked != m_freeCount)
        return "the free list has " + std::to_string(walked) + " blocks";
    walked = 0;
    for (BlockId id = m_cached.head; id >= 0; id = m_blocks[static_cast<size_t>(id)].next)
        if (++walked > m_blocks.size())
            return "the cached list loops";
    if (walked != m_cachedCount)
        return "the cached list has " + std::to_string(walked) + " blocks";
    return {};
}

} // namespace burrow::runtime
