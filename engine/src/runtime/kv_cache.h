// KvCache: the keys and values of every layer for up to `capacity` positions,
// stored as F16 and allocated once. Cell i holds position i: the cache is
// always compact, positions 0..size()-1.
//
// Layout per layer: K [capacity][nEmbdKv] and V [capacity][nEmbdVKv], halves.
//
// Context shift: removeAndShift(begin, end) drops cells [begin, end), moves the
// later cells down and re-rotates their keys by -(end - begin) positions (the
// RoPE of a key depends only on its position), so the cache equals one
// computed at the new positions up to F16 rounding.
#pragma once

#include "model/model_config.h"
#include "burrow/status.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace burrow::runtime {

class ThreadPool;

class KvCache {
public:
    // Fails with a message when the cache would not fit in memory.
    static Result<std::unique_ptr<KvCache>> create(const model::ModelConfig &config, uint32_t capacity);

    uint32_t capacity() const { return m_capacity; }
    uint32_t size() const { return m_size; }
    void setSize(uint32_t n) { m_size = n; }     // n <= capacity; drops cells >= n
    uint64_t bytes() const;

    uint16_t *k(uint32_t layer, uint32_t pos) { return m_k.get() + (static_cast<size_t>(layer) * m_capacity + pos) * m_kRow; }
    uint16_t *v(uint32_t layer, uint32_t pos) { return m_v.get() + (static_cast<size_t>(layer) * m_capacity + pos) * m_vRow; }
    const uint16_t *k(uint32_t layer, uint32_t pos) const { return m_k.get() + (static_cast<size_t>(layer) * m_capacity + pos) * m_kRow; }
    const uint16_t *v(uint32_t layer, uint32_t pos) const { return m_v.get() + (static_cast<size_t>(layer) * m_capacity + pos) * m_vRow; }

    // Removes cells [begin, end) (begin <= end <= size()) and shifts the rest
    // down, re-roping their keys. ropeFactors: the model's rope_freqs (or null).
    void removeAndShift(uint32_t begin, uint32_t end, const float *ropeFactors, ThreadPool &pool);

private:
    KvCache(const model::ModelConfig &config, uint32_t capacity);

    model::ModelConfig m_config;
    uint32_t m_capacity = 0;
    uint32_t m_size = 0;
    size_t m_kRow = 0, m_vRow = 0;
    std::unique_ptr<uint16_t[]> m_k, m_v;
};

} // namespace burrow::runtime
