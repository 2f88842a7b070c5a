// The per-thread meter of the render running now (see jinja_memory.h).
#include "chat/jinja_memory.h"

namespace burrow::jinja {

namespace {
thread_local std::shared_ptr<MemoryMeter> t_current;
}

MeterScope::MeterScope(std::shared_ptr<MemoryMeter> meter) : m_previous(std::move(t_current))
{
    t_current = std::move(meter);
}

MeterScope::~MeterScope()
{
    t_current = std::move(m_previous);
}

const std::shared_ptr<MemoryMeter> &MeterScope::current()
{
    return t_current;
}

void Charge::resize(size_t bytes)
{
    if (!m_meter) {
        m_meter = MeterScope::current();
        if (!m_meter)
            return;
        m_bytes = 0;
    }
    if (bytes >= m_bytes)
        m_meter->add(bytes - m_bytes);
    else
        m_meter->release(m_bytes - bytes);
    m_bytes = bytes;
}

} // namespace burrow::jinja
