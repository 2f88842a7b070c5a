// StopStringFilter: the last stage of streaming. Text goes in as it is
// generated; what comes out is safe to show: text that could still become
// the start of a stop string is held back, and once a stop string appears,
// nothing from its first byte on is ever released.
//
// Contract: push() returns the text that can be shown now (possibly empty)
// and sets *matched when a stop string is complete (the text before it is in
// the return value; the filter then releases nothing more). finish() returns
// the held-back text at the end of generation (empty after a match).
// Cost: O(pending * stop strings) per push; pending is at most the longest
// stop string.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace burrow::api {

class StopStringFilter {
public:
    explicit StopStringFilter(std::vector<std::string> stopStrings = {});

    std::string push(std::string_view text, bool *matched);
    std::string finish();
    bool matched() const { return m_matched; }
    const std::string &matchedString() const { return m_matchedString; }

private:
    std::vector<std::string> m_stops;   // non-empty ones
    std::string m_pending;              // held back: a suffix that is a prefix of a stop string
    bool m_matched = false;
    std::string m_matchedString;
};

} // namespace burrow::api
