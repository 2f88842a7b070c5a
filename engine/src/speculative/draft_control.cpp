#include "speculative/draft_control.h"

#include <algorithm>

namespace burrow::speculative {

namespace {
constexpr int kFirstBackoff = 8;
constexpr int kLastBackoff = 64;
} // namespace

DraftControl::DraftControl(int maxDraft) : m_max(std::max(0, maxDraft)), m_len(std::min(std::max(0, maxDraft), 4)) {}

int DraftControl::allowance()
{
    if (m_max == 0)
        return 0;
    if (m_wait > 0) {
        --m_wait;
        return 0;
    }
    return std::max(1, m_len);
}

void DraftControl::record(int drafted, int accepted)
{
    if (drafted <= 0)
        return;
    m_streak = accepted >= drafted;
    if (accepted > 0)
        m_hit = true;
    if (accepted >= drafted) {
        m_len = std::min(m_max, std::max(1, drafted) * 2);
        m_misses = 0;
        m_backoff = kFirstBackoff;
    } else if (accepted > 0) {
        m_len = std::min(m_max, accepted + 1);
        m_misses = 0;
        m_backoff = kFirstBackoff;
    } else if (++m_misses >= 2 || (!m_hit && drafted > 1)) {
        m_len = 1;
        m_wait = m_backoff;
        m_backoff = std::min(kLastBackoff, m_backoff * 2);
    } else {
        m_len = 1;
    }
}

} // namespace burrow::speculative
