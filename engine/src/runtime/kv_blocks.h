// BlockPool: the bookkeeping of a paged KV cache (the storage lives in
// KvCache). Positions are kept in blocks of kKvBlockSize; a sequence maps its
// positions to blocks through a block table. Blocks are reference-counted so
// sequences can share a prefix, and a full block can be registered under a
// hash of its tokens and of everything before it (its parent's hash), so a
// new request whose prompt starts like a cached one finds those blocks
// instead of recomputing them.
//
// Life of a block: free (no hash) -> allocated (ref 1) -> [registered under
// a hash when full] -> released to ref 0: a hashed block is kept as "cached"
// (still findable) at the young end of an LRU list, an unhashed one goes
// back to the free list. allocate() takes a free block first, else evicts
// the least recently released cached block (its hash is forgotten).
//
// Invariants (checkInvariants(), used by the tests): every block is in
// exactly one state; free + cached + referenced == capacity; the hash map
// holds exactly the hashed blocks; ref counts are >= 0.
//
// Cost: every operation is O(1) expected (hash map + intrusive lists).
// Not thread-safe: one owner (the scheduler thread) uses it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace burrow::runtime {

inline constexpr uint32_t kKvBlockSize = 16;   // positions per block

using BlockId = int32_t;                       // -1: none
using BlockHash = uint64_t;

// hash(parent, tokens[0..n)): the identity of a full block given what came
// before it (parent = 0 for the first block). FNV-1a over the bytes with a
// final mix; `salt` separates models or settings that must not share.
BlockHash blockHash(BlockHash parent, const int32_t *tokens, uint32_t n, uint64_t salt = 0);

class BlockPool {
public:
    explicit BlockPool(uint32_t capacity);

    uint32_t capacity() const { return static_cast<uint32_t>(m_blocks.size()); }
    uint32_t freeCount() const { return m_freeCount; }       // never hashed, ready
    uint32_t cachedCount() const { return m_cachedCount; }   // ref 0 but findable by hash
    // Blocks allocate() can still hand out (free + cached).
    uint32_t availableCount() const { return m_freeCount + m_cachedCount; }

    // A block with ref 1 (its old hash, if any, is dropped), or -1 when none is left.
    BlockId allocate();
    // ref + 1 (a sequence starts sharing the block). A cached block leaves the LRU list.
    void retain(BlockId id);
    // ref - 1; at 0 the block becomes cached (hashed) or free.
    void release(BlockId id);

    // Registers a full, referenced block under `hash` (a block already
    // registered under another hash is re-registered). When another block
    // already holds the hash, nothing changes and that block's id is
    // returned (the caller may switch to it); else `id`.
    BlockId registerHash(BlockId id, BlockHash hash);
    // The block holding `hash` (referenced or cached), or -1. Does not retain.
    BlockId find(BlockHash hash) const;

    int32_t refCount(BlockId id) const { return m_blocks[static_cast<size_t>(id)].ref; }
    bool isHashed(BlockId id) const { return m_blocks[static_cast<size_t>(id)].hashed; }

    // "" when consistent, else what is wrong (tests).
    std::string checkInvariants() const;

private:
    struct Block {
        int32_t ref = 0;
        bool hashed = false;
        BlockHash hash = 0;
        // Intrusive doubly linked list: the free list or the LRU list (cached).
        BlockId prev = -1, next = -1;
        uint8_t list = 0;   // 0 none (referenced), 1 free, 2 cached
    };
    struct List {
        BlockId head = -1, tail = -1;   // head: oldest
    };
    void pushBack(List &l, uint8_t which, BlockId id);
    void unlink(List &l, BlockId id);
    void forgetHash(BlockId id);

    std::vector<Block> m_blocks;
    List m_free, m_cached;
    uint32_t m_freeCount = 0, m_cachedCount = 0;
    std::unordered_map<BlockHash, BlockId> m_byHash;
};

} // namespace burrow::runtime
