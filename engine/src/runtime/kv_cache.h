// KvCache: the keys and values of every layer, F16 or Q8_0 (the cell type,
// chosen at creation), in cells addressed through per-sequence block tables
// (paged: see kv_blocks.h). Allocated once.
//
// Layer groups: the full-attention layers share one block pool (group 0),
// the sliding-window layers another (group 1), because a sliding layer keeps
// only the positions its window can still see: its blocks are released as a
// sequence moves past them, so its pool holds about window + one prompt
// chunk per sequence (ModelInfo::kSlidingCacheSlack), however long the
// context.
//
// Layout per layer: one plane per KV head, K [kv heads][cells of its
// group][kCellStride(layer)] halves and V likewise, kHeadPlane(layer) halves
// from one head's plane to the next; a head's cell holds its head size in
// F16 (layers may differ: gemma4's sliding and global heads) or, for Q8_0,
// as quant::BlockQ8_0 blocks of 32 elements (17 halves per 32; head sizes
// must be multiples of 32). One head's keys are thus contiguous along the
// positions of a block (16 cells): attention reads each head's keys as one
// stream (one generated token over a 16k cache: 45 -> 28 ms per token of
// attention on the Xeon guest where rows of all heads made each head's
// reads a quarter of every line pair it touched). A position's row (all
// heads, kStride(layer) halves: nEmbdKv for F16) is what readK/storeK copy;
// writers quantize with writeK/writeV. Shared-KV layers (gemma4: LayerSpec::kvLayer
// another layer) have no cells; they read their kvLayer's, so the cache
// holds kvLayerCount() layers' rows.
//
// Rotation (Q8_0 only, the reference's attn_rot since 2026): the forward
// pass stores keys and values turned by an orthonormal Walsh-Hadamard
// transform (ops::hadamardBlocks), which spreads an outlier over its block
// so it costs the block's other codes less precision; the query gets the
// same turn as the keys (q . k is unchanged) and the attention output the
// values' turn back (the transform is its own inverse). Keys: blocks of
// kRotation(layer) = the largest power of 2 >= 64 dividing the head size, when
// the head size is a multiple of 64; values: blocks of vRotation(layer) = 64 when
// the value head size is a multiple of 64; 0: none (F16, other sizes). Position j of sequence s is cell
// table(s, group)[j / 16] * 16 + j % 16.
//
// Use: reserve(s, end) before a forward pass writes positions
// [length(s), end) (blocks are allocated; an error when the pool is
// exhausted, nothing changed), commit(s, end) after it (length = end; sliding
// blocks the next position can no longer see are released). truncate(s, n)
// drops positions >= n (prefix reuse); reusableLength(s, n) says how much of
// a prefix of length n is still whole (a sliding layer may have released
// keys that position n would need).
//
// Recurrent layers (LayerSpec::recurrent, qwen35) have no cells; their
// state lives in recurrent() (runtime/recurrent_state.h), one per sequence,
// and moves with the length: truncate(s, n) restores the state at n (a
// snapshot; reusableLength says which n can be had), and neither context
// shift nor prefix sharing is possible (removeAndShift, adoptPrefix and
// publish do nothing for such a model).
//
// Context shift: removeAndShift(s, begin, end) drops positions [begin, end),
// moves the later ones down by end - begin and re-rotates their keys (RoPE of
// a key depends only on its position), so the cache equals one computed at
// the new positions up to F16 rounding (Q8_0: each moved key is
// dequantized, rotated and quantized again, as the reference does).
#pragma once

#include "common/streamed_memory.h"
#include "common/ggml_types.h"
#include "model/model_config.h"
#include "runtime/kv_blocks.h"
#include "burrow/status.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace burrow::runtime {

class RecurrentState;
class ThreadPool;

class KvCache {
public:
    // contextSize positions per sequence, `sequences` sequences, prompt
    // chunks of up to maxBatch positions. Full-attention blocks: enough for
    // every sequence's whole context (fullBlocks > 0 sets fewer, for a shared
    // pool); sliding blocks: window + chunk per sequence. Fails with a message
    // when the cache would not fit in memory.
    // type: GGML_TYPE_F16 or GGML_TYPE_Q8_0 (else an error; Q8_0 also when a
    // head size is not a multiple of 32). snapshots: recurrent-state
    // snapshots kept per sequence (models with recurrent layers).
    static Result<std::unique_ptr<KvCache>> create(const model::ModelConfig &config, uint32_t contextSize,
                                                   uint32_t maxBatch, uint32_t sequences = 1, uint32_t fullBlocks = 0,
                                                   GgmlType type = GgmlType::GGML_TYPE_F16, uint32_t snapshots = 2);

    ~KvCache();

    uint32_t capacity() const { return m_contextSize; }   // positions per sequence
    uint32_t sequenceCount() const { return static_cast<uint32_t>(m_seqs.size()); }
    uint64_t bytes() const;

    // The recurrent layers' state (null for a model without them).
    RecurrentState *recurrent() { return m_recurrent.get(); }
    const RecurrentState *recurrent() const { return m_recurrent.get(); }

    // Storage of a layer: KV head h's key in cell c is kCells(layer) +
    // h * kHeadPlane(layer) + c * kCellStride(layer) (null for a recurrent
    // layer). A layer that shares another's keys and values
    // (LayerSpec::kvLayer) has no cells of its own: it reads those of its
    // kvLayer.
    int groupOf(uint32_t layer) const { return m_layerGroup[layer]; }
    uint16_t *kCells(uint32_t layer) { return m_k[m_config.layers[layer].kvLayer].get(); }
    uint16_t *vCells(uint32_t layer) { return m_v[m_config.layers[layer].kvLayer].get(); }
    const uint16_t *kCells(uint32_t layer) const { return m_k[m_config.layers[layer].kvLayer].get(); }
    const uint16_t *vCells(uint32_t layer) const { return m_v[m_config.layers[layer].kvLayer].get(); }
    // Halves of a position's K / V row over all its KV heads (readK, storeK).
    size_t kStride(uint32_t layer = 0) const { return m_rows[layer].kRow; }
    size_t vStride(uint32_t layer = 0) const { return m_rows[layer].vRow; }
    // Halves between consecutive cells of one head (its head size in cells)
    // and between the planes of two consecutive heads.
    size_t kCellStride(uint32_t layer = 0) const { return m_rows[layer].kHead; }
    size_t vCellStride(uint32_t layer = 0) const { return m_rows[layer].vHead; }
    size_t kHeadPlane(uint32_t layer = 0) const { return m_rows[layer].kPlane; }
    size_t vHeadPlane(uint32_t layer = 0) const { return m_rows[layer].vPlane; }
    // KV head h's plane: its key (value) in cell c at + c * kCellStride (vCellStride).
    uint16_t *kHeadCells(uint32_t layer, uint32_t h) { return kCells(layer) + h * kHeadPlane(layer); }
    uint16_t *vHeadCells(uint32_t layer, uint32_t h) { return vCells(layer) + h * vHeadPlane(layer); }
    const uint16_t *kHeadCells(uint32_t layer, uint32_t h) const { return kCells(layer) + h * kHeadPlane(layer); }
    const uint16_t *vHeadCells(uint32_t layer, uint32_t h) const { return vCells(layer) + h * vHeadPlane(layer); }
    GgmlType type() const { return m_type; }
    bool quantized() const { return m_type == GgmlType::GGML_TYPE_Q8_0; }
    int kRotation(uint32_t layer = 0) const { return m_rows[layer].kRot; }
    int vRotation(uint32_t layer = 0) const { return m_rows[layer].vRot; }
    // Bytes of K plus V of one position in one layer.
    size_t rowBytes(uint32_t layer = 0) const { return (m_rows[layer].kRow + m_rows[layer].vRow) * sizeof(uint16_t); }
    // Store a key / value row (nEmbdKv(layer) / nEmbdVKv(layer) floats) at
    // position pos of seq, converted to the cell type.
    void writeK(uint32_t layer, uint32_t seq, uint32_t pos, const float *row);
    void writeV(uint32_t layer, uint32_t seq, uint32_t pos, const float *row);
    BlockPool &pool(int group) { return *m_pools[static_cast<size_t>(group)]; }
    const BlockPool &pool(int group) const { return *m_pools[static_cast<size_t>(group)]; }
    bool hasSlidingGroup() const { return m_pools.size() > 1; }

    // Sequences.
    uint32_t length(uint32_t seq) const { return m_seqs[seq].length; }
    const int32_t *table(uint32_t seq, int group) const { return m_seqs[seq].tables[static_cast<size_t>(group)].data(); }
    size_t cell(uint32_t seq, int group, uint32_t pos) const
    {
        return static_cast<size_t>(m_seqs[seq].tables[static_cast<size_t>(group)][pos / kKvBlockSize]) * kKvBlockSize +
               pos % kKvBlockSize;
    }
    // KV head h's cells at position pos of seq.
    uint16_t *k(uint32_t layer, uint32_t seq, uint32_t pos, uint32_t h)
    {
        return kHeadCells(layer, h) + cell(seq, groupOf(layer), pos) * kCellStride(layer);
    }
    uint16_t *v(uint32_t layer, uint32_t seq, uint32_t pos, uint32_t h)
    {
        return vHeadCells(layer, h) + cell(seq, groupOf(layer), pos) * vCellStride(layer);
    }
    const uint16_t *k(uint32_t layer, uint32_t seq, uint32_t pos, uint32_t h) const
    {
        return kHeadCells(layer, h) + cell(seq, groupOf(layer), pos) * kCellStride(layer);
    }
    const uint16_t *v(uint32_t layer, uint32_t seq, uint32_t pos, uint32_t h) const
    {
        return vHeadCells(layer, h) + cell(seq, groupOf(layer), pos) * vCellStride(layer);
    }
    // A position's row of cells over all its KV heads (kStride / vStride
    // halves, head 0 first) copied out of or into the planes.
    void readK(uint32_t layer, uint32_t seq, uint32_t pos, uint16_t *row) const;
    void readV(uint32_t layer, uint32_t seq, uint32_t pos, uint16_t *row) const;
    void storeK(uint32_t layer, uint32_t seq, uint32_t pos, const uint16_t *row);
    void storeV(uint32_t layer, uint32_t seq, uint32_t pos, const uint16_t *row);

    Status reserve(uint32_t seq, uint32_t end);
    // keepFrom < end: the sliding layers keep what position keepFrom can
    // see (a verification pass that may be rolled back to keepFrom).
    void commit(uint32_t seq, uint32_t end, uint32_t keepFrom = UINT32_MAX);
    // Drops positions >= n (n <= length) and the blocks reserved past them.
    void truncate(uint32_t seq, uint32_t n);
    uint32_t reusableLength(uint32_t seq, uint32_t n) const;
    // The lowest position whose key `layer` still holds for `seq` (0 for a
    // full-attention layer): attention never reads below it.
    uint32_t firstPresent(uint32_t seq, uint32_t layer) const;
    void clear(uint32_t seq) { truncate(seq, 0); }
    void removeAndShift(uint32_t seq, uint32_t begin, uint32_t end, const float *ropeFactors, ThreadPool &pool);

    // Sequence 0 (a Session's one sequence).
    uint32_t size() const { return length(0); }
    void setSize(uint32_t n) { truncate(0, n); }   // n <= size()
    void removeAndShift(uint32_t begin, uint32_t end, const float *ropeFactors, ThreadPool &pool)
    {
        removeAndShift(0, begin, end, ropeFactors, pool);
    }

    // Prefix sharing (full-attention layers only: hasSlidingGroup() false
    // and no recurrent layers, else both do nothing). Blocks that hold 16 known tokens are registered
    // under blockHash(parent, tokens); a sequence whose prompt starts with
    // the same tokens takes them instead of computing them again.
    // adoptPrefix(seq, tokens, n): `seq` is empty; it takes the registered
    // blocks holding tokens[0, 16k) for the largest k with 16k < n (at
    // least one position is left to compute, for the logits). Returns 16k,
    // the new length. publish(seq, tokens): registers seq's full blocks not
    // registered yet; tokens[0, length(seq)) are what seq holds. A
    // sequence never writes into a shared block: adopted blocks are full,
    // and new positions go to blocks of their own. removeAndShift() is for
    // sequences that never adopt nor publish (a Session's).
    uint32_t adoptPrefix(uint32_t seq, const int32_t *tokens, uint32_t n);
    void publish(uint32_t seq, const int32_t *tokens);

    // "" when the block accounting is consistent (tests).
    std::string checkInvariants() const;

private:
    KvCache(const model::ModelConfig &config, uint32_t contextSize, GgmlType type);
    bool hasCells(uint32_t layer) const { return m_config.ownsKv(layer); }
    void toCells(const float *src, uint16_t *dst, size_t n) const;     // n elements
    void fromCells(const uint16_t *src, float *dst, size_t n) const;
    // The first position a sliding layer still needs when the next position is `end`.
    uint32_t slidingFloor(uint32_t end) const;

    struct Seq {
        uint32_t length = 0;
        std::vector<std::vector<int32_t>> tables;   // per group: block per 16 positions (-1: none)
        std::vector<BlockHash> hashes;              // of the first blocks of group 0, registered (publish/adopt)
    };

    model::ModelConfig m_config;
    uint32_t m_contextSize = 0;
    GgmlType m_type = GgmlType::GGML_TYPE_F16;
    struct LayerRows {
        size_t kRow = 0, vRow = 0;     // halves per cell
        size_t kHead = 0, vHead = 0;   // halves per KV head and cell
        size_t kPlane = 0, vPlane = 0; // halves per KV head's plane (cells x kHead)
        int kRot = 0, vRot = 0;        // Hadamard block sizes (0: none)
    };
    std::vector<LayerRows> m_rows;                  // per layer (a shared layer: its kvLayer's)
    std::vector<int> m_layerGroup;                  // per layer
    std::vector<uint32_t> m_groupCells;             // cells per group
    std::vector<std::unique_ptr<BlockPool>> m_pools;
    std::vector<StreamedArray<uint16_t>> m_k, m_v;   // per layer (null for a recurrent one), on huge pages
    std::vector<Seq> m_seqs;
    std::unique_ptr<RecurrentState> m_recurrent;
};

} // namespace burrow::runtime
