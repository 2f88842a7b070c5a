#include "runtime/recurrent_state.h"

#include "common/checked.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace burrow::runtime {

Result<std::unique_ptr<RecurrentState>> RecurrentState::create(const model::ModelConfig &c, uint32_t sequences,
                                                               uint32_t maxSnapshots)
{
    std::unique_ptr<RecurrentState> r(new (std::nothrow) RecurrentState());
    if (!r)
        return Status::error("recurrent state: out of memory");
    r->m_slot.assign(c.nLayer, -1);
    int32_t n = 0;
    for (uint32_t il = 0; il < c.nLayer; ++il)
        if (c.layers[il].recurrent)
            r->m_slot[il] = n++;
    r->m_convFloats = static_cast<uint64_t>(c.ssmConvKernel - 1) * c.ssmConvChannels();
    r->m_layerFloats = c.ssmStateFloats();
    uint64_t total = 0;
    if (!checkedMul<uint64_t>(r->m_layerFloats, static_cast<uint64_t>(n), &r->m_seqFloats) ||
        !checkedMul<uint64_t>(r->m_seqFloats, sequences, &total) || total > (uint64_t{1} << 36))
        return Status::error("recurrent state: " + std::to_string(sequences) + " sequences are too large");
    r->m_maxSnapshots = maxSnapshots;
    r->m_current = allocateStreamedArray<float>(std::max<uint64_t>(total, 1));   // huge pages: every token walks it
    if (r->m_current)
        std::fill_n(r->m_current.get(), std::max<uint64_t>(total, 1), 0.0f);
    if (!r->m_current)
        return Status::error("recurrent state: out of memory allocating " + std::to_string(total * 4 >> 20) + " MiB");
    r->m_seqs.resize(sequences);
    return r;
}

uint64_t RecurrentState::bytes() const
{
    uint64_t copies = m_seqs.size();
    for (const Seq &s : m_seqs)
        copies += s.snapshots.size() + (s.backup ? 1 : 0) + s.stepsCapacity;
    return copies * m_seqFloats * sizeof(float);
}

float *RecurrentState::conv(uint32_t layer, uint32_t seq)
{
    return current(seq) + static_cast<uint64_t>(m_slot[layer]) * m_layerFloats;
}

float *RecurrentState::delta(uint32_t layer, uint32_t seq)
{
    return conv(layer, seq) + m_convFloats;
}

void RecurrentState::snapshot(uint32_t seq, uint32_t position)
{
    if (m_maxSnapshots == 0 || m_seqFloats == 0)
        return;
    Seq &s = m_seqs[seq];
    // One per position; later ones replace the oldest.
    s.snapshots.erase(std::remove_if(s.snapshots.begin(), s.snapshots.end(),
                                     [&](const Snapshot &x) { return x.position == position; }),
                      s.snapshots.end());
    Snapshot snap;
    if (s.snapshots.size() >= m_maxSnapshots) {
        snap = std::move(s.snapshots.front());
        s.snapshots.erase(s.snapshots.begin());
    } else {
        snap.data.reset(new (std::nothrow) float[m_seqFloats]);
        if (!snap.data)
            return;   // no copy: a later rewind recomputes more
    }
    snap.position = position;
    std::memcpy(snap.data.get(), current(seq), m_seqFloats * sizeof(float));
    s.snapshots.push_back(std::move(snap));
}

uint32_t RecurrentState::reachable(uint32_t seq, uint32_t current, uint32_t n) const
{
    if (n >= current)
        return current;
    const Seq &s = m_seqs[seq];
    if (s.stepsCount > 0 && n > s.stepsFrom && n <= s.stepsFrom + s.stepsCount)
        return n;
    uint32_t best = 0;
    for (const Snapshot &x : m_seqs[seq].snapshots)
        if (x.position <= n)
            best = std::max(best, x.position);
    return best;
}

bool RecurrentState::rewind(uint32_t seq, uint32_t n)
{
    Seq &s = m_seqs[seq];
    float *cur = current(seq);
    if (s.stepsCount > 0 && n > s.stepsFrom && n <= s.stepsFrom + s.stepsCount) {
        std::memcpy(cur, s.steps.get() + static_cast<size_t>(n - s.stepsFrom - 1) * m_seqFloats,
                    m_seqFloats * sizeof(float));
        s.stepsCount = 0;
        s.snapshots.erase(std::remove_if(s.snapshots.begin(), s.snapshots.end(),
                                         [&](const Snapshot &x) { return x.position > n; }),
                          s.snapshots.end());
        return true;
    }
    s.stepsCount = 0;
    const Snapshot *from = nullptr;
    for (const Snapshot &x : s.snapshots)
        if (x.position == n)
            from = &x;
    if (from)
        std::memcpy(cur, from->data.get(), m_seqFloats * sizeof(float));
    else
        std::fill(cur, cur + m_seqFloats, 0.0f);
    const bool ok = from != nullptr || n == 0;
    const uint32_t keepUpTo = ok ? n : 0;
    s.snapshots.erase(std::remove_if(s.snapshots.begin(), s.snapshots.end(),
                                     [&](const Snapshot &x) { return x.position > keepUpTo; }),
                      s.snapshots.end());
    return ok;
}

bool RecurrentState::backup(uint32_t seq)
{
    Seq &s = m_seqs[seq];
    if (!s.backup) {
        s.backup = allocateStreamedArray<float>(std::max<uint64_t>(m_seqFloats, 1));
        if (!s.backup)
            return false;
    }
    std::memcpy(s.backup.get(), current(seq), m_seqFloats * sizeof(float));
    return true;
}

bool RecurrentState::beginSteps(uint32_t seq, uint32_t position, uint32_t count)
{
    Seq &s = m_seqs[seq];
    s.stepsCount = 0;
    if (count == 0 || m_seqFloats == 0)
        return count == 0;
    if (count > s.stepsCapacity) {
        s.steps = allocateStreamedArray<float>(static_cast<size_t>(count) * m_seqFloats);
        s.stepsCapacity = s.steps ? count : 0;
        if (!s.steps)
            return false;
    }
    s.stepsFrom = position;
    s.stepsCount = count;
    return true;
}

float *RecurrentState::stepConv(uint32_t layer, uint32_t seq, uint32_t i)
{
    return m_seqs[seq].steps.get() + static_cast<size_t>(i) * m_seqFloats +
           static_cast<uint64_t>(m_slot[layer]) * m_layerFloats;
}

void RecurrentState::restore(uint32_t seq)
{
    if (m_seqs[seq].backup)
        std::memcpy(current(seq), m_seqs[seq].backup.get(), m_seqFloats * sizeof(float));
}

} // namespace burrow::runtime
