// RecurrentState: what the Gated DeltaNet layers (LayerSpec::recurrent)
// remember of a sequence instead of keys and values: per layer the last
// ssmConvKernel - 1 inputs of the causal convolution and the value heads'
// S x S delta-rule matrices. Owned by the KvCache, one slot per sequence;
// its position is the sequence's length.
//
// Layout of one sequence's state (floats): layer after layer in model
// order (recurrent layers only), each ModelConfig::ssmStateFloats():
//   conv  [channels][K - 1]   channel c's last K - 1 inputs, oldest first
//   delta [value heads][S][S] head h's matrix stored transposed:
//                             element (i, j) of the state at [h][j][i]
// All zeros is the state before the first token.
//
// Snapshots: a state cannot be rolled back token by token, so copies are
// kept at positions the caller chooses (a Session: before the last token
// of each prompt, so a regenerated reply or an edited last message starts
// from there), the most recent maxSnapshots of them; prefix reuse restores
// one (KvCache::truncate / reusableLength). Backups: a prompt chunk that is cancelled halfway through
// the layers is undone from a copy taken before it (backup / restore).
//
// Memory: sequences x (1 + maxSnapshots + 1 backup, the last two allocated
// when first used) x stateFloats() x 4 bytes, plus for a sequence that has
// verified k draft tokens in one pass k more (allocated when first used).
#pragma once

#include "common/streamed_memory.h"

#include "model/model_config.h"
#include "burrow/status.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace burrow::runtime {

class RecurrentState {
public:
    static Result<std::unique_ptr<RecurrentState>> create(const model::ModelConfig &config, uint32_t sequences,
                                                          uint32_t maxSnapshots);

    // Floats of one sequence's whole state, of one layer's.
    uint64_t stateFloats() const { return m_seqFloats; }
    uint64_t layerFloats() const { return m_layerFloats; }
    uint64_t bytes() const;   // what is allocated now

    // Layer `layer`'s state of `seq` (layer must be recurrent).
    float *conv(uint32_t layer, uint32_t seq);
    float *delta(uint32_t layer, uint32_t seq);

    // Keeps a copy of the current state as the state at `position` (the
    // sequence's length), replacing the oldest when maxSnapshots are kept
    // (none kept when maxSnapshots is 0 or memory is short).
    void snapshot(uint32_t seq, uint32_t position);
    uint32_t snapshotCount(uint32_t seq) const { return static_cast<uint32_t>(m_seqs[seq].snapshots.size()); }
    // The highest position <= n whose state can be had: `current` (the
    // sequence's length) itself, a snapshot, or 0.
    uint32_t reachable(uint32_t seq, uint32_t current, uint32_t n) const;
    // Sets the state to position n (0, or a snapshot's; snapshots past n are
    // dropped). Returns false (and resets to 0) when n is not reachable.
    bool rewind(uint32_t seq, uint32_t n);

    // Copy of the current state, and back (a cancelled prompt chunk).
    // backup() returns false when the copy cannot be allocated.
    bool backup(uint32_t seq);
    void restore(uint32_t seq);

    // Verification passes (speculative decoding): the states after each of
    // the first `count` rows of a span that starts at `position`, so a
    // rewind to any position position + 1 .. position + count resumes
    // exactly where a partial acceptance stops. beginSteps() makes room
    // (false when it cannot be allocated: nothing kept); the forward pass
    // fills stepConv / stepDelta of step i (the state at position + i + 1);
    // clearSteps() forgets them (any pass that keeps none). rewind() and
    // reachable() take them like snapshots.
    bool beginSteps(uint32_t seq, uint32_t position, uint32_t count);
    void clearSteps(uint32_t seq) { m_seqs[seq].stepsCount = 0; }
    uint32_t stepsCount(uint32_t seq) const { return m_seqs[seq].stepsCount; }
    float *stepConv(uint32_t layer, uint32_t seq, uint32_t i);
    float *stepDelta(uint32_t layer, uint32_t seq, uint32_t i) { return stepConv(layer, seq, i) + m_convFloats; }

private:
    RecurrentState() = default;
    float *current(uint32_t seq) { return m_current.get() + static_cast<size_t>(seq) * m_seqFloats; }

    struct Snapshot {
        uint32_t position = 0;
        std::unique_ptr<float[]> data;
    };
    struct Seq {
        std::vector<Snapshot> snapshots;   // oldest first, at most m_maxSnapshots
        StreamedArray<float> backup;
        StreamedArray<float> steps;    // [stepsCapacity][m_seqFloats]
        uint32_t stepsCapacity = 0, stepsFrom = 0, stepsCount = 0;
    };

    std::vector<int32_t> m_slot;        // per layer: its index among the recurrent layers, -1 for attention
    uint64_t m_layerFloats = 0, m_convFloats = 0, m_seqFloats = 0;
    uint32_t m_maxSnapshots = 0;
    StreamedArray<float> m_current; // [sequences][m_seqFloats]
    std::vector<Seq> m_seqs;
};

} // namespace burrow::runtime
