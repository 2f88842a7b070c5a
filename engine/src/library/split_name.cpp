#include "library/split_name.h"

#include <cstdio>

namespace burrow::library {

namespace {

bool fiveDigits(std::string_view s, uint32_t &out)
{
    if (s.size() != 5)
        return false;
    out = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return false;
        out = out * 10 + uint32_t(c - '0');
    }
    return true;
}

} // namespace

std::optional<SplitName> parseSplitName(std::string_view name)
{
    // PREFIX "-" 5 digits "-of-" 5 digits ".gguf"
    constexpr std::string_view suffix = ".gguf";
    constexpr size_t tail = 1 + 5 + 4 + 5 + 5;   // "-00001-of-00003.gguf"
    if (name.size() <= tail || !name.ends_with(suffix))
        return std::nullopt;
    const std::string_view t = name.substr(name.size() - tail);
    if (t[0] != '-' || t.substr(6, 4) != "-of-")
        return std::nullopt;
    SplitName split;
    if (!fiveDigits(t.substr(1, 5), split.index) || !fiveDigits(t.substr(10, 5), split.count))
        return std::nullopt;
    if (split.index == 0 || split.count == 0 || split.index > split.count)
        return std::nullopt;
    split.prefix = std::string(name.substr(0, name.size() - tail));
    return split;
}

std::string splitPartName(const std::string &prefix, uint32_t index, uint32_t count)
{
    char tail[32];
    std::snprintf(tail, sizeof tail, "-%05u-of-%05u.gguf", index, count);
    return prefix + tail;
}

} // namespace burrow::library
