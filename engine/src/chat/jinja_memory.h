// What the values of one render weigh. Every string, list and dict made
// while a render runs on this thread is charged to that render's meter (its
// heap bytes: capacity times element size plus the block) and released when
// it is freed, so the interpreter can refuse a template whose live values
// grow past RenderLimits::maxLiveBytes. Values made outside a render (the
// context, the literals of a parsed template) are not charged.
//
// Threads: the current meter is per thread (MeterScope installs it for a
// render's duration); a payload keeps the meter it was charged to, so it
// may be freed anywhere, even after the render.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace burrow::jinja {

class MemoryMeter {
public:
    void add(size_t bytes) { m_live.fetch_add(int64_t(bytes), std::memory_order_relaxed); }
    void release(size_t bytes) { m_live.fetch_sub(int64_t(bytes), std::memory_order_relaxed); }
    // Bytes charged and not yet released.
    int64_t live() const { return m_live.load(std::memory_order_relaxed); }

private:
    std::atomic<int64_t> m_live{0};
};

// Makes `meter` the current thread's for the scope's lifetime (the one
// before comes back after).
class MeterScope {
public:
    explicit MeterScope(std::shared_ptr<MemoryMeter> meter);
    ~MeterScope();
    MeterScope(const MeterScope &) = delete;
    MeterScope &operator=(const MeterScope &) = delete;

    static const std::shared_ptr<MemoryMeter> &current();

private:
    std::shared_ptr<MemoryMeter> m_previous;
};

// One payload's charge on the meter current when it was made. A copy is
// not charged (whoever owns the copy charges it), a move takes the charge.
class Charge {
public:
    Charge() = default;
    explicit Charge(size_t bytes) { resize(bytes); }
    Charge(const Charge &) {}
    Charge &operator=(const Charge &) { return *this; }
    Charge(Charge &&other) noexcept : m_meter(std::move(other.m_meter)), m_bytes(other.m_bytes) { other.m_bytes = 0; }
    Charge &operator=(Charge &&other) noexcept
    {
        if (this != &other) {
            clear();
            m_meter = std::move(other.m_meter);
            m_bytes = other.m_bytes;
            other.m_bytes = 0;
        }
        return *this;
    }
    ~Charge() { clear(); }

    // Charges `bytes` in place of what was charged (on the meter current
    // now when there was none).
    void resize(size_t bytes);

private:
    void clear()
    {
        if (m_meter)
            m_meter->release(m_bytes);
        m_bytes = 0;
    }

    std::shared_ptr<MemoryMeter> m_meter;
    size_t m_bytes = 0;
};

} // namespace burrow::jinja
