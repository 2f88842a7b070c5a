#include "api/stop_strings.h"

#include <algorithm>

namespace burrow::api {

StopStringFilter::StopStringFilter(std::vector<std::string> stopStrings)
{
    for (std::string &s : stopStrings)
        if (!s.empty())
            m_stops.push_back(std::move(s));
}

std::string StopStringFilter::push(std::string_view text, bool *matched)
{
    if (matched)
        *matched = m_matched;
    if (m_matched)
        return {};
    m_pending.append(text);
    if (m_stops.empty()) {
        std::string out;
        out.swap(m_pending);
        return out;
    }
    // The earliest complete stop string wins.
    size_t best = std::string::npos;
    for (const std::string &stop : m_stops) {
        const size_t at = m_pending.find(stop);
        if (at != std::string::npos && at < best) {
            best = at;
            m_matchedString = stop;
        }
    }
    if (best != std::string::npos) {
        m_matched = true;
        if (matched)
            *matched = true;
        std::string out = m_pending.substr(0, best);
        m_pending.clear();
        return out;
    }
    // Hold back the longest suffix that is a proper prefix of some stop string.
    size_t hold = 0;
    for (const std::string &stop : m_stops) {
        const size_t maxLen = std::min(stop.size() - 1, m_pending.size());
        for (size_t len = maxLen; len > hold; --len) {
            if (std::string_view(m_pending).substr(m_pending.size() - len) == std::string_view(stop).substr(0, len)) {
                hold = len;
                break;
            }
        }
    }
    std::string out = m_pending.substr(0, m_pending.size() - hold);
    m_pending.erase(0, m_pending.size() - hold);
    return out;
}

std::string StopStringFilter::finish()
{
    if (m_matched)
        return {};
    std::string out;
    out.swap(m_pending);
    return out;
}

} // namespace burrow::api
