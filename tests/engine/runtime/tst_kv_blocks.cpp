// The paged KV cache's block bookkeeping (runtime/kv_blocks.h) on its own,
// with token ids and no model:
//   - a block's life: free -> allocated -> registered -> cached -> reused
//     or evicted, the counts and the invariants at every step;
//   - prefix sharing as the scheduler does it: a prompt's full blocks are
//     registered under the hash chain of its token ids, a later prompt that
//     starts alike finds and retains them, one that differs in any earlier
//     token finds none from there on;
//   - eviction takes the least recently released cached block first and
//     forgets its hash;
//   - a long random run of allocate / retain / release / register against a
//     plain reference of what each block should be.
#include "runtime/kv_blocks.h"

#include <QtTest>

#include <map>
#include <random>
#include <set>
#include <vector>

using namespace burrow::runtime;

namespace {

// Token ids 0..n-1 shifted by `first`: one block per 16 of them.
std::vector<int32_t> tokens(uint32_t n, int32_t first = 0)
{
    std::vector<int32_t> out(n);
    for (uint32_t i = 0; i < n; ++i)
        out[i] = first + static_cast<int32_t>(i);
    return out;
}

// The hash chain of the full blocks of `t`, as KvCache::publish computes it.
std::vector<BlockHash> chain(const std::vector<int32_t> &t)
{
    std::vector<BlockHash> out;
    BlockHash parent = 0;
    for (size_t b = 0; (b + 1) * kKvBlockSize <= t.size(); ++b) {
        parent = blockHash(parent, t.data() + b * kKvBlockSize, kKvBlockSize);
        out.push_back(parent);
    }
    return out;
}

} // namespace

class TestKvBlocks : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void lifeOfABlock()
    {
        BlockPool pool(3);
        QCOMPARE(pool.capacity(), 3u);
        QCOMPARE(pool.freeCount(), 3u);
        QCOMPARE(pool.availableCount(), 3u);
        const BlockId a = pool.allocate(), b = pool.allocate(), c = pool.allocate();
        QVERIFY(a >= 0 && b >= 0 && c >= 0 && a != b && b != c && a != c);
        QCOMPARE(pool.allocate(), BlockId(-1));   // nothing left
        QCOMPARE(pool.availableCount(), 0u);
        QCOMPARE(pool.refCount(a), 1);
        QCOMPARE(pool.checkInvariants(), std::string());

        // Shared by a second sequence: one release leaves it in use.
        pool.retain(a);
        QCOMPARE(pool.refCount(a), 2);
        pool.release(a);
        QCOMPARE(pool.refCount(a), 1);
        QCOMPARE(pool.availableCount(), 0u);

        // An unhashed block goes back to the free list; a hashed one is cached.
        const std::vector<int32_t> t = tokens(16);
        const BlockHash h = blockHash(0, t.data(), 16);
        QCOMPARE(pool.registerHash(b, h), b);
        QVERIFY(pool.isHashed(b));
        pool.release(a);
        pool.release(b);
        QCOMPARE(pool.freeCount(), 1u);
        QCOMPARE(pool.cachedCount(), 1u);
        QCOMPARE(pool.find(h), b);                 // still findable at ref 0
        QCOMPARE(pool.checkInvariants(), std::string());

        // Taken up again from the cache: it leaves the LRU list.
        pool.retain(b);
        QCOMPARE(pool.refCount(b), 1);
        QCOMPARE(pool.cachedCount(), 0u);
        QCOMPARE(pool.checkInvariants(), std::string());
    }

    void hashesNameTheirWholePrefix()
    {
        const std::vector<int32_t> t = tokens(32);
        const BlockHash first = blockHash(0, t.data(), 16);
        // The same 16 tokens after another first block are another block.
        QVERIFY(blockHash(first, t.data(), 16) != first);
        QVERIFY(blockHash(first, t.data() + 16, 16) != blockHash(0, t.data() + 16, 16));
        // One token differs: another hash; the salt separates models.
        std::vector<int32_t> other = t;
        other[7] = 9999;
        QVERIFY(blockHash(0, other.data(), 16) != first);
        QVERIFY(blockHash(0, t.data(), 16, 1) != first);
        QCOMPARE(blockHash(0, t.data(), 16), first);   // and it is a function
    }

    // Two prompts that start alike share their common full blocks; the
    // first token that differs ends the sharing, also for later blocks that
    // hold the same ids.
    void promptsShareTheirCommonPrefix()
    {
        BlockPool pool(16);
        const std::vector<int32_t> first = tokens(48, 100);   // three full blocks
        std::vector<BlockId> held;
        for (BlockHash h : chain(first)) {
            const BlockId id = pool.allocate();
            QCOMPARE(pool.registerHash(id, h), id);
            held.push_back(id);
        }
        // The first request ends: its blocks stay cached.
        for (BlockId id : held)
            pool.release(id);
        QCOMPARE(pool.cachedCount(), 3u);

        // A second prompt with the same first 40 tokens: two whole blocks in common.
        std::vector<int32_t> second = first;
        second[40] = 7;
        const std::vector<BlockHash> hashes = chain(second);
        std::vector<BlockId> adopted;
        for (BlockHash h : hashes) {
            const BlockId id = pool.find(h);
            if (id < 0)
                break;
            pool.retain(id);
            adopted.push_back(id);
        }
        QCOMPARE(adopted, std::vector<BlockId>(held.begin(), held.begin() + 2));
        QCOMPARE(pool.refCount(held[0]), 1);
        QCOMPARE(pool.cachedCount(), 1u);

        // A prompt that differs in its first token shares nothing, though
        // its later blocks hold the same ids as the first prompt's.
        std::vector<int32_t> third = first;
        third[0] = 1;
        for (BlockHash h : chain(third))
            QCOMPARE(pool.find(h), BlockId(-1));
        QCOMPARE(pool.checkInvariants(), std::string());
    }

    // When the free list is empty, the least recently released cached block
    // is reused and its hash forgotten; a duplicate registration names the
    // block that holds the hash already.
    void evictionIsLeastRecentlyReleasedFirst()
    {
        BlockPool pool(3);
        const std::vector<int32_t> t = tokens(48);
        const std::vector<BlockHash> h = chain(t);
        BlockId ids[3];
        for (int i = 0; i < 3; ++i) {
            ids[i] = pool.allocate();
            pool.registerHash(ids[i], h[size_t(i)]);
        }
        // Released in the order 1, 0, 2: block 1 is the oldest.
        pool.release(ids[1]);
        pool.release(ids[0]);
        pool.release(ids[2]);
        QCOMPARE(pool.freeCount(), 0u);
        QCOMPARE(pool.cachedCount(), 3u);
        const BlockId reused = pool.allocate();
        QCOMPARE(reused, ids[1]);
        QVERIFY(!pool.isHashed(reused));
        QCOMPARE(pool.find(h[1]), BlockId(-1));
        QCOMPARE(pool.find(h[0]), ids[0]);
        QCOMPARE(pool.allocate(), ids[0]);       // the next oldest
        QCOMPARE(pool.find(h[2]), ids[2]);

        // Another block computed the same tokens: the hash keeps its first holder.
        QCOMPARE(pool.registerHash(reused, h[2]), ids[2]);
        QVERIFY(!pool.isHashed(reused));
        QCOMPARE(pool.checkInvariants(), std::string());
    }

    // Random operations against a reference: each block's expected ref
    // count and hash; the pool's counts and find() agree at every step.
    void randomOperationsKeepTheInvariants()
    {
        constexpr uint32_t kCapacity = 24;
        BlockPool pool(kCapacity);
        std::mt19937 rng(20260826);
        std::map<BlockId, int> ref;             // blocks with ref > 0
        std::map<BlockId, BlockHash> hashOf;    // hashed blocks (referenced or cached)
        std::map<BlockHash, BlockId> byHash;
        std::set<BlockId> cached;               // ref 0 and hashed
        std::vector<int32_t> ids = tokens(16 * 64);
        for (int step = 0; step < 20000; ++step) {
            const int op = int(rng() % 4);
            if (op == 0) {
                const BlockId id = pool.allocate();
                if (ref.size() == kCapacity) {
                    QCOMPARE(id, BlockId(-1));
                    continue;
                }
                QVERIFY(id >= 0);
                QVERIFY(!ref.count(id));
                if (cached.erase(id)) {            // evicted: its hash is gone
                    byHash.erase(hashOf[id]);
                    hashOf.erase(id);
                }
                QVERIFY(!hashOf.count(id));
                ref[id] = 1;
            } else if (op == 1 && !ref.empty()) {
                auto it = std::next(ref.begin(), long(rng() % ref.size()));
                pool.release(it->first);
                if (--it->second == 0) {
                    if (hashOf.count(it->first))
                        cached.insert(it->first);
                    ref.erase(it);
                }
            } else if (op == 2 && !ref.empty()) {
                auto it = std::next(ref.begin(), long(rng() % ref.size()));
                if (rng() % 2) {
                    pool.retain(it->first);
                    ++it->second;
                } else {
                    const uint32_t block = rng() % 64;
                    const BlockHash h = blockHash(0, ids.data() + block * 16, 16);
                    const BlockId got = pool.registerHash(it->first, h);
                    if (byHash.count(h) && byHash[h] != it->first) {
                        QCOMPARE(got, byHash[h]);
                    } else {
                        QCOMPARE(got, it->first);
                        if (hashOf.count(it->first))
                            byHash.erase(hashOf[it->first]);
                        hashOf[it->first] = h;
                        byHash[h] = it->first;
                    }
                }
            } else if (op == 3 && !cached.empty() && rng() % 2) {
                auto it = std::next(cached.begin(), long(rng() % cached.size()));
                QCOMPARE(pool.find(hashOf[*it]), *it);
                pool.retain(*it);
                ref[*it] = 1;
                cached.erase(it);
            }
            QCOMPARE(pool.cachedCount(), uint32_t(cached.size()));
            QCOMPARE(pool.availableCount(), kCapacity - uint32_t(ref.size()));
            if (step % 500 == 0)
                QCOMPARE(pool.checkInvariants(), std::string());
        }
        for (const auto &[h, id] : byHash)
            QCOMPARE(pool.find(h), id);
        QCOMPARE(pool.checkInvariants(), std::string());
    }
};

QTEST_GUILESS_MAIN(TestKvBlocks)
#include "tst_kv_blocks.moc"
