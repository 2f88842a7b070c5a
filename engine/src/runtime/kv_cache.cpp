#include "runtime/kv_cache.h"

#include "common/checked.h"
#include "ops/f16.h"
#include "ops/flash_attention.h"
#include "ops/ops.h"
#include "runtime/recurrent_state.h"
#include "runtime/rope_tables.h"
#include "runtime/thread_pool.h"
#include "quant/quant_traits.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>
#include <unistd.h>

namespace burrow::runtime {

using namespace burrow::ops;   // the kernels (ops/)

namespace {

uint32_t blocksFor(uint64_t positions)
{
    return static_cast<uint32_t>((positions + kKvBlockSize - 1) / kKvBlockSize);
}

} // namespace

KvCache::KvCache(const model::ModelConfig &config, uint32_t contextSize, GgmlType type)
    : m_config(config), m_contextSize(contextSize), m_type(type)
{
    const bool q8 = type == GgmlType::GGML_TYPE_Q8_0;
    m_rows.resize(config.layers.size());   // the trunk and an MTP block
    for (uint32_t l = 0; l < config.layers.size(); ++l) {
        const model::LayerSpec &spec = config.layers[l];   // a shared layer has its kvLayer's sizes
        LayerRows &r = m_rows[l];
        r.kHead = q8 ? q8_0RowHalves(spec.headDimK) : spec.headDimK;
        r.vHead = q8 ? q8_0RowHalves(spec.headDimV) : spec.headDimV;
        r.kRow = r.kHead * spec.nHeadKv;
        r.vRow = r.vHead * spec.nHeadKv;
        // As the reference's llama_kv_cache (attn_rot_k / attn_rot_v).
        if (q8 && spec.headDimK % 64 == 0) {
            r.kRot = 64;
            while (spec.headDimK % (2u * static_cast<uint32_t>(r.kRot)) == 0)
                r.kRot *= 2;
        }
        if (q8 && spec.headDimV % 64 == 0)
            r.vRot = 64;
    }
}

KvCache::~KvCache() = default;

void KvCache::toCells(const float *src, uint16_t *dst, size_t n) const
{
    if (m_type == GgmlType::GGML_TYPE_Q8_0)
        quant::typeTraits(GgmlType::GGML_TYPE_Q8_0)->quantizeActivation(src, dst, static_cast<int64_t>(n));
    else
        f32ToF16Row(src, dst, static_cast<int64_t>(n));
}

void KvCache::fromCells(const uint16_t *src, float *dst, size_t n) const
{
    if (m_type == GgmlType::GGML_TYPE_Q8_0)
        quant::typeTraits(GgmlType::GGML_TYPE_Q8_0)->dequantize(src, dst, static_cast<int64_t>(n));
    else
        f16ToF32Row(src, dst, static_cast<int64_t>(n));
}

// Each head's elements into its plane (Q8_0: a head is whole blocks, so the
// cells equal those of the row quantized at once).
void KvCache::writeK(uint32_t layer, uint32_t seq, uint32_t pos, const float *row)
{
    const model::LayerSpec &spec = m_config.layers[layer];
    for (uint32_t h = 0; h < spec.nHeadKv; ++h)
        toCells(row + static_cast<size_t>(h) * spec.headDimK, k(layer, seq, pos, h), spec.headDimK);
}

void KvCache::writeV(uint32_t layer, uint32_t seq, uint32_t pos, const float *row)
{
    const model::LayerSpec &spec = m_config.layers[layer];
    for (uint32_t h = 0; h < spec.nHeadKv; ++h)
        toCells(row + static_cast<size_t>(h) * spec.headDimV, v(layer, seq, pos, h), spec.headDimV);
}

namespace {

// A position's row (heads x n halves) from the planes of `heads` heads
// `plane` halves apart (row writable) or into them (row const); the
// position's cell at `cell`.
template <typename Planes, typename Row>
void copyRow(Planes *planes, size_t plane, size_t n, uint32_t heads, size_t cell, Row *row)
{
    for (uint32_t h = 0; h < heads; ++h) {
        Planes *cells = planes + h * plane + cell * n;
        if constexpr (std::is_const_v<Row>)
            std::memcpy(cells, row + h * n, n * sizeof(uint16_t));
        else
            std::memcpy(row + h * n, cells, n * sizeof(uint16_t));
    }
}

} // namespace

void KvCache::readK(uint32_t layer, uint32_t seq, uint32_t pos, uint16_t *row) const
{
    copyRow(kCells(layer), kHeadPlane(layer), kCellStride(layer), m_config.layers[layer].nHeadKv, cell(seq, groupOf(layer), pos),
            row);
}

void KvCache::readV(uint32_t layer, uint32_t seq, uint32_t pos, uint16_t *row) const
{
    copyRow(vCells(layer), vHeadPlane(layer), vCellStride(layer), m_config.layers[layer].nHeadKv, cell(seq, groupOf(layer), pos),
            row);
}

void KvCache::storeK(uint32_t layer, uint32_t seq, uint32_t pos, const uint16_t *row)
{
    copyRow(kCells(layer), kHeadPlane(layer), kCellStride(layer), m_config.layers[layer].nHeadKv, cell(seq, groupOf(layer), pos),
            row);
}

void KvCache::storeV(uint32_t layer, uint32_t seq, uint32_t pos, const uint16_t *row)
{
    copyRow(vCells(layer), vHeadPlane(layer), vCellStride(layer), m_config.layers[layer].nHeadKv, cell(seq, groupOf(layer), pos),
            row);
}

uint64_t KvCache::bytes() const
{
    uint64_t total = m_recurrent ? m_recurrent->bytes() : 0;
    for (uint32_t l = 0; l < m_config.layers.size(); ++l)
        if (hasCells(l))
            total += static_cast<uint64_t>(m_groupCells[static_cast<size_t>(m_layerGroup[l])]) * rowBytes(l);
    return total;
}

Result<std::unique_ptr<KvCache>> KvCache::create(const model::ModelConfig &config, uint32_t contextSize,
                                                 uint32_t maxBatch, uint32_t sequences, uint32_t fullBlocks,
                                                 GgmlType type, uint32_t snapshots)
{
    if (type != GgmlType::GGML_TYPE_F16 && type != GgmlType::GGML_TYPE_Q8_0)
        return Status::error("KV cache: only F16 and Q8_0 cells are supported");
    if (type == GgmlType::GGML_TYPE_Q8_0)
        for (const model::LayerSpec &l : config.layers)
            if (!l.recurrent && (l.headDimK % 32 != 0 || l.headDimV % 32 != 0))
                return Status::error("KV cache: a Q8_0 cache needs head sizes that are multiples of 32 (this model's are " +
                                     std::to_string(l.headDimK) + " for keys and " + std::to_string(l.headDimV) +
                                     " for values); use the F16 cache");
    if (contextSize == 0)
        return Status::error("KV cache: the context size must be at least 1");
    if (sequences == 0)
        return Status::error("KV cache: at least one sequence");
    std::unique_ptr<KvCache> cache(new (std::nothrow) KvCache(config, contextSize, type));
    if (!cache)
        return Status::error("KV cache: out of memory");
    KvCache &c = *cache;
    const uint32_t perSeqFull = blocksFor(contextSize);
    uint64_t full = fullBlocks > 0 ? fullBlocks : static_cast<uint64_t>(perSeqFull) * sequences;
    // A sliding layer needs window - 1 earlier positions plus a chunk of new
    // ones, one block more for alignment; never more than the context.
    const bool sliding = config.slidingWindow != 0 && config.slidingLayerCount() > 0;
    uint64_t slidingBlocks = 0;
    if (sliding) {
        const uint32_t perSeq = std::min(perSeqFull, blocksFor(uint64_t{config.slidingWindow} + maxBatch) + 1);
        slidingBlocks = static_cast<uint64_t>(perSeq) * sequences;
    }
    if (full > (1u << 26) || slidingBlocks > (1u << 26))
        return Status::error("KV cache: " + std::to_string(contextSize) + " positions x " + std::to_string(sequences) +
                             " sequences is too large");
    c.m_groupCells = {static_cast<uint32_t>(full * kKvBlockSize)};
    c.m_pools.push_back(std::make_unique<BlockPool>(static_cast<uint32_t>(full)));
    if (sliding) {
        c.m_groupCells.push_back(static_cast<uint32_t>(slidingBlocks * kKvBlockSize));
        c.m_pools.push_back(std::make_unique<BlockPool>(static_cast<uint32_t>(slidingBlocks)));
    }
    c.m_layerGroup.resize(config.layers.size());
    for (uint32_t l = 0; l < config.layers.size(); ++l)
        c.m_layerGroup[l] = sliding && config.layers[l].sliding ? 1 : 0;
    for (uint32_t l = 0; l < config.layers.size(); ++l) {   // a shared layer: its kvLayer's planes
        LayerRows &r = c.m_rows[l];
        const size_t cells = c.m_groupCells[static_cast<size_t>(c.m_layerGroup[config.layers[l].kvLayer])];
        r.kPlane = cells * r.kHead;
        r.vPlane = cells * r.vHead;
    }

    uint64_t total = 0;
    if (config.hasRecurrentLayers()) {
        auto state = RecurrentState::create(config, sequences, snapshots);
        if (!state)
            return state.status();
        c.m_recurrent = std::move(state.value());
        total = c.m_recurrent->bytes();
    }
    for (uint32_t l = 0; l < config.layers.size(); ++l) {
        if (!c.hasCells(l))
            continue;
        uint64_t layerBytes = 0;
        const uint64_t cells = c.m_groupCells[static_cast<size_t>(c.m_layerGroup[l])];
        if (!checkedMul<uint64_t>(cells, c.rowBytes(l), &layerBytes) ||
            !checkedAdd<uint64_t>(total, layerBytes, &total))
            return Status::error("KV cache: size for " + std::to_string(contextSize) + " positions overflows");
    }
    const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && pageSize > 0) {
        const uint64_t physical = static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
        if (total > physical)
            return Status::error("KV cache: " + std::to_string(contextSize) + " positions need " +
                                 std::to_string(total >> 20) + " MiB, more than the " + std::to_string(physical >> 20) +
                                 " MiB of memory in this computer; use a smaller context size");
    }
    c.m_k.resize(config.layers.size());
    c.m_v.resize(config.layers.size());
    for (uint32_t l = 0; l < config.layers.size(); ++l) {
        if (!c.hasCells(l))
            continue;
        const size_t cells = c.m_groupCells[static_cast<size_t>(c.m_layerGroup[l])];
        c.m_k[l] = allocateStreamedArray<uint16_t>(cells * c.kStride(l));
        c.m_v[l] = allocateStreamedArray<uint16_t>(cells * c.vStride(l));
        if (!c.m_k[l] || !c.m_v[l])
            return Status::error("KV cache: out of memory allocating " + std::to_string(total >> 20) + " MiB for " +
                                 std::to_string(contextSize) + " positions; use a smaller context size");
    }
    c.m_seqs.resize(sequences);
    for (Seq &s : c.m_seqs)
        s.tables.assign(c.m_pools.size(), std::vector<int32_t>(perSeqFull, -1));
    return cache;
}

uint32_t KvCache::slidingFloor(uint32_t end) const
{
    // Position `end` sees keys end - window + 1 .. end.
    return end + 1 > m_config.slidingWindow ? end + 1 - m_config.slidingWindow : 0;
}

Status KvCache::reserve(uint32_t seq, uint32_t end)
{
    Seq &s = m_seqs[seq];
    if (end > m_contextSize)
        return Status::error("KV cache: " + std::to_string(end) + " positions exceed the context of " +
                             std::to_string(m_contextSize));
    if (end <= s.length)
        return Status::ok();
    // Count what is missing first, so a failure changes nothing.
    std::vector<uint32_t> need(m_pools.size(), 0);
    const uint32_t b0 = s.length / kKvBlockSize, b1 = blocksFor(end);
    for (size_t g = 0; g < m_pools.size(); ++g) {
        uint32_t from = b0;
        if (g == 1)   // the first new position needs keys back to its window's start
            from = std::max(b0, slidingFloor(s.length) / kKvBlockSize);
        for (uint32_t b = from; b < b1; ++b)
            need[g] += s.tables[g][b] < 0 ? 1 : 0;
        if (need[g] > m_pools[g]->availableCount())
            return Status::error("KV cache: no free blocks for " + std::to_string(end - s.length) + " more positions (" +
                                 std::to_string(m_pools[g]->availableCount()) + " of " +
                                 std::to_string(m_pools[g]->capacity()) + " blocks free)");
    }
    for (size_t g = 0; g < m_pools.size(); ++g)
        for (uint32_t b = b0; b < b1; ++b)
            if (s.tables[g][b] < 0 && (g == 0 || (b + 1) * kKvBlockSize > slidingFloor(s.length)))
                s.tables[g][b] = m_pools[g]->allocate();
    return Status::ok();
}

void KvCache::commit(uint32_t seq, uint32_t end, uint32_t keepFrom)
{
    Seq &s = m_seqs[seq];
    s.length = end;
    if (m_pools.size() > 1) {
        // Blocks wholly below what position `end` (or keepFrom) can see are done.
        const uint32_t floorBlock = slidingFloor(std::min(end, keepFrom)) / kKvBlockSize;
        std::vector<int32_t> &t = s.tables[1];
        for (uint32_t b = 0; b < floorBlock && b < t.size(); ++b)
            if (t[b] >= 0) {
                m_pools[1]->release(t[b]);
                t[b] = -1;
            }
    }
}

void KvCache::truncate(uint32_t seq, uint32_t n)
{
    Seq &s = m_seqs[seq];
    if (n > s.length)
        return;
    // The recurrent state goes back to n too (n reachable: a snapshot or
    // 0; otherwise the whole sequence is dropped).
    if (m_recurrent && n < s.length && !m_recurrent->rewind(seq, n))
        n = 0;
    const uint32_t keepBlocks = blocksFor(n);
    if (s.hashes.size() > n / kKvBlockSize)
        s.hashes.resize(n / kKvBlockSize);
    for (size_t g = 0; g < m_pools.size(); ++g) {
        std::vector<int32_t> &t = s.tables[g];
        for (uint32_t b = keepBlocks; b < t.size(); ++b)
            if (t[b] >= 0) {
                m_pools[g]->release(t[b]);
                t[b] = -1;
            }
    }
    s.length = n;
}

uint32_t KvCache::adoptPrefix(uint32_t seq, const int32_t *tokens, uint32_t n)
{
    Seq &s = m_seqs[seq];
    if (hasSlidingGroup() || m_recurrent || s.length != 0 || n == 0)
        return s.length;
    BlockPool &pool = *m_pools[0];
    const uint32_t maxBlocks = std::min<uint32_t>((n - 1) / kKvBlockSize, m_contextSize / kKvBlockSize);
    BlockHash parent = 0;
    uint32_t b = 0;
    for (; b < maxBlocks; ++b) {
        const BlockHash h = blockHash(parent, tokens + static_cast<size_t>(b) * kKvBlockSize, kKvBlockSize);
        const BlockId id = pool.find(h);
        if (id < 0)
            break;
        pool.retain(id);
        s.tables[0][b] = id;
        s.hashes.push_back(h);
        parent = h;
    }
    s.length = b * kKvBlockSize;
    return s.length;
}

void KvCache::publish(uint32_t seq, const int32_t *tokens)
{
    Seq &s = m_seqs[seq];
    if (hasSlidingGroup() || m_recurrent)
        return;
    BlockPool &pool = *m_pools[0];
    const uint32_t full = s.length / kKvBlockSize;
    for (uint32_t b = static_cast<uint32_t>(s.hashes.size()); b < full; ++b) {
        const BlockHash parent = b == 0 ? 0 : s.hashes[b - 1];
        const BlockHash h = blockHash(parent, tokens + static_cast<size_t>(b) * kKvBlockSize, kKvBlockSize);
        // Another block may hold the same tokens already (two sequences
        // computed the same prefix at once): keep ours, unregistered.
        pool.registerHash(s.tables[0][b], h);
        s.hashes.push_back(h);
    }
}

uint32_t KvCache::firstPresent(uint32_t seq, uint32_t layer) const
{
    const Seq &st = m_seqs[seq];
    if (m_layerGroup[layer] == 0 || st.length == 0)
        return 0;
    // A sliding layer's blocks form one run (released from the bottom,
    // truncated from the top): its first block is the lowest present one.
    const std::vector<int32_t> &t = st.tables[1];
    for (uint32_t b = 0; b < t.size(); ++b)
        if (t[b] >= 0)
            return b * kKvBlockSize;
    return st.length;
}

uint32_t KvCache::reusableLength(uint32_t seq, uint32_t n) const
{
    const Seq &s = m_seqs[seq];
    n = std::min(n, s.length);
    if (m_recurrent)
        n = m_recurrent->reachable(seq, s.length, n);
    if (m_pools.size() < 2 || n == 0)
        return n;
    // Position n (the next one computed) needs the sliding keys from its
    // window's start on. The present blocks are one run from the lowest up
    // to the length, so a shorter prefix needs even older keys: the prefix
    // is whole or nothing of it can be reused.
    uint32_t lowest = s.length;
    for (uint32_t b = 0; b < s.tables[1].size(); ++b)
        if (s.tables[1][b] >= 0) {
            lowest = b * kKvBlockSize;
            break;
        }
    return slidingFloor(n) >= lowest ? n : 0;
}

void KvCache::removeAndShift(uint32_t seq, uint32_t begin, uint32_t end, const float *ropeFactors, ThreadPool &pool)
{
    Seq &s = m_seqs[seq];
    end = std::min(end, s.length);
    if (begin >= end || m_recurrent)   // a recurrent state cannot drop its oldest tokens
        return;
    const uint32_t d = end - begin, oldLength = s.length, newLength = oldLength - d;
    const model::ModelConfig &c = m_config;
    // Rotation by -d positions for each kind of layer (unit magnitude).
    const RopeTables rope(c, ropeFactors);
    const size_t stride = static_cast<size_t>(rope.nRot());
    std::vector<float> cs(static_cast<size_t>(rope.kindCount()) * stride);
    for (int kind = 0; kind < rope.kindCount(); ++kind)
        rope.fill(-static_cast<float>(d), kind, cs.data() + static_cast<size_t>(kind) * stride, false);
    // kp: a position's K row of cells (readK), rotated in place.
    const auto rerope = [&](uint32_t layer, uint16_t *kp, std::vector<float> &row) {
        const model::LayerSpec &spec = c.layers[layer];
        const int kRot = kRotation(layer);
        const int64_t n = c.nEmbdKv(layer);
        fromCells(kp, row.data(), static_cast<size_t>(n));
        if (kRot > 0)   // turn back, rotate, turn again (the reference's build_rope_shift)
            hadamardBlocks(row.data(), n, kRot);
        ropeApply(row.data(), static_cast<int>(spec.nHeadKv), static_cast<int>(spec.headDimK), static_cast<int>(spec.nRot),
                  c.ropeType, cs.data() + static_cast<size_t>(rope.kindOf(layer)) * stride);
        if (kRot > 0)
            hadamardBlocks(row.data(), n, kRot);
        toCells(row.data(), kp, static_cast<size_t>(n));
    };

    // Full-attention layers: every position after `end` moves down by d
    // (ascending, so a cell is read before it is overwritten). Shared-KV
    // layers have nothing of their own to move.
    pool.run([&](int ith, int nth) {
        int64_t l0, l1;
        ThreadPool::split(static_cast<int64_t>(c.layers.size()), ith, nth, &l0, &l1);
        std::vector<float> row(c.maxEmbdKv());
        std::vector<uint16_t> cells(std::max(c.maxEmbdKv(), c.maxEmbdVKv()));   // a K or a V row
        for (int64_t l = l0; l < l1; ++l) {
            const uint32_t layer = static_cast<uint32_t>(l);
            if (m_layerGroup[layer] != 0 || !hasCells(layer))
                continue;
            for (uint32_t p = end; p < oldLength; ++p) {
                readK(layer, seq, p, cells.data());
                rerope(layer, cells.data(), row);
                storeK(layer, seq, p - d, cells.data());
                readV(layer, seq, p, cells.data());
                storeV(layer, seq, p - d, cells.data());
            }
        }
    });

    if (m_pools.size() > 1) {
        // Sliding layers hold only their last positions: copy out those that
        // stay ([first present, begin), in place) and those that move
        // ([end, oldLength) -> p - d), rebuild the table for their new
        // positions, copy them back.
        const uint32_t firstHeld = [&] {
            for (uint32_t b = 0; b < s.tables[1].size(); ++b)
                if (s.tables[1][b] >= 0)
                    return std::max(b * kKvBlockSize, slidingFloor(oldLength - 1));
            return oldLength;
        }();
        std::vector<uint32_t> from, to;   // old and new position of each copied row
        for (uint32_t p = firstHeld; p < oldLength; ++p) {
            if (s.tables[1][p / kKvBlockSize] < 0 || (p >= begin && p < end))
                continue;
            from.push_back(p);
            to.push_back(p >= end ? p - d : p);
        }
        const auto slidingOwn = [&](uint32_t layer) { return m_layerGroup[layer] == 1 && hasCells(layer); };
        size_t perPosition = 0;
        for (uint32_t layer = 0; layer < c.layers.size(); ++layer)
            perPosition += slidingOwn(layer) ? kStride(layer) + vStride(layer) : 0;
        std::vector<uint16_t> saved(from.size() * perPosition);
        size_t o = 0;
        for (uint32_t layer = 0; layer < c.layers.size(); ++layer) {
            if (!slidingOwn(layer))
                continue;
            for (uint32_t p : from) {
                readK(layer, seq, p, saved.data() + o);
                o += kStride(layer);
                readV(layer, seq, p, saved.data() + o);
                o += vStride(layer);
            }
        }
        std::vector<int32_t> &t = s.tables[1];
        for (int32_t &b : t)
            if (b >= 0) {
                m_pools[1]->release(b);
                b = -1;
            }
        for (uint32_t p : to) {
            int32_t &b = t[p / kKvBlockSize];
            if (b < 0)
                b = m_pools[1]->allocate();   // no more blocks than were released: never fails
        }
        o = 0;
        std::vector<float> row(c.maxEmbdKv());
        for (uint32_t layer = 0; layer < c.layers.size(); ++layer) {
            if (!slidingOwn(layer))
                continue;
            for (size_t i = 0; i < from.size(); ++i) {
                uint16_t *dk = saved.data() + o;
                if (from[i] != to[i])
                    rerope(layer, dk, row);
                storeK(layer, seq, to[i], dk);
                o += kStride(layer);
                storeV(layer, seq, to[i], saved.data() + o);
                o += vStride(layer);
            }
        }
    }
    // Full-attention blocks past the new end.
    s.length = oldLength;
    const uint32_t keep = blocksFor(newLength);
    for (uint32_t b = keep; b < s.tables[0].size(); ++b)
        if (s.tables[0][b] >= 0) {
            m_pools[0]->release(s.tables[0][b]);
            s.tables[0][b] = -1;
        }
    s.length = newLength;
}

std::string KvCache::checkInvariants() const
{
    for (size_t g = 0; g < m_pools.size(); ++g) {
        if (std::string e = m_pools[g]->checkInvariants(); !e.empty())
            return "group " + std::to_string(g) + ": " + e;
        // Every block a table holds is referenced; references add up.
        std::vector<int32_t> refs(m_pools[g]->capacity(), 0);
        for (const Seq &s : m_seqs)
            for (int32_t b : s.tables[g])
                if (b >= 0)
                    ++refs[static_cast<size_t>(b)];
        for (uint32_t b = 0; b < m_pools[g]->capacity(); ++b)
            if (refs[b] != m_pools[g]->refCount(static_cast<BlockId>(b)))
                return "group " + std::to_string(g) + ": block " + std::to_string(b) + " has ref " +
                       std::to_string(m_pools[g]->refCount(static_cast<BlockId>(b))) + " but " +
                       std::to_string(refs[b]) + " table entries";
    }
    return {};
}

} // namespace burrow::runtime
