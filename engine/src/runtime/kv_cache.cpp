#include "runtime/kv_cache.h"

#include "ops/f16.h"
#include "ops/ops.h"
#include "runtime/thread_pool.h"
#include "common/checked.h"

#include <cstring>
#include <new>
#include <unistd.h>
#include <vector>

namespace burrow::runtime {

using namespace burrow::ops;   // the kernels (ops/)

KvCache::KvCache(const model::ModelConfig &config, uint32_t capacity)
    : m_config(config), m_capacity(capacity), m_kRow(config.nEmbdKv()), m_vRow(config.nEmbdVKv())
{
}

uint64_t KvCache::bytes() const
{
    return static_cast<uint64_t>(m_config.nLayer) * m_capacity * (m_kRow + m_vRow) * sizeof(uint16_t);
}

Result<std::unique_ptr<KvCache>> KvCache::create(const model::ModelConfig &config, uint32_t capacity)
{
    if (capacity == 0)
        return Status::error("KV cache: the context size must be at least 1");
    uint64_t perPos = 0, elemsK = 0, elemsV = 0, total = 0;
    const bool ok = checkedMul<uint64_t>(config.nLayer, capacity, &perPos) &&
                    checkedMul<uint64_t>(perPos, config.nEmbdKv(), &elemsK) &&
                    checkedMul<uint64_t>(perPos, config.nEmbdVKv(), &elemsV) &&
                    checkedAdd<uint64_t>(elemsK, elemsV, &total) && checkedMul<uint64_t>(total, 2, &total);
    if (!ok)
        return Status::error("KV cache: size for " + std::to_string(capacity) + " positions overflows");
    const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && pageSize > 0) {
        const uint64_t physical = static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
        if (total > physical)
            return Status::error("KV cache: " + std::to_string(capacity) + " positions need " +
                                 std::to_string(total >> 20) + " MiB, more than the " + std::to_string(physical >> 20) +
                                 " MiB of memory in this computer; use a smaller context size");
    }
    std::unique_ptr<KvCache> cache(new (std::nothrow) KvCache(config, capacity));
    if (!cache)
        return Status::error("KV cache: out of memory");
    cache->m_k.reset(new (std::nothrow) uint16_t[elemsK]);
    cache->m_v.reset(new (std::nothrow) uint16_t[elemsV]);
    if (!cache->m_k || !cache->m_v)
        return Status::error("KV cache: out of memory allocating " + std::to_string(total >> 20) + " MiB for " +
                             std::to_string(capacity) + " positions; use a smaller context size");
    return cache;
}

void KvCache::removeAndShift(uint32_t begin, uint32_t end, const float *ropeFactors, ThreadPool &pool)
{
    if (end > m_size)
        end = m_size;
    if (begin >= end)
        return;
    const uint32_t nDiscard = end - begin;
    const uint32_t nMove = m_size - end;
    const model::ModelConfig &c = m_config;
    // Rotation by -nDiscard positions, the same for every moved cell.
    std::vector<float> cs(c.nRot);
    ropeCache(-static_cast<float>(nDiscard), static_cast<int>(c.nRot), c.ropeFreqBase, c.ropeFreqScale,
              ropeFactors, cs.data());
    pool.run([&](int ith, int nth) {
        int64_t l0, l1;
        ThreadPool::split(c.nLayer, ith, nth, &l0, &l1);
        std::vector<float> row(m_kRow);
        for (int64_t l = l0; l < l1; ++l) {
            const uint32_t layer = static_cast<uint32_t>(l);
            std::memmove(k(layer, begin), k(layer, end), static_cast<size_t>(nMove) * m_kRow * sizeof(uint16_t));
            std::memmove(v(layer, begin), v(layer, end), static_cast<size_t>(nMove) * m_vRow * sizeof(uint16_t));
            for (uint32_t p = begin; p < begin + nMove; ++p) {
                uint16_t *kp = k(layer, p);
                f16ToF32Row(kp, row.data(), static_cast<int64_t>(m_kRow));
                ropeApply(row.data(), static_cast<int>(c.nHeadKv), static_cast<int>(c.headDimK),
                          static_cast<int>(c.nRot), c.ropeType, cs.data());
                f32ToF16Row(row.data(), kp, static_cast<int64_t>(m_kRow));
            }
        }
    });
    m_size -= nDiscard;
}

} // namespace burrow::runtime
