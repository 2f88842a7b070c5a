// Text helpers of the Jinja interpreter: UTF-8 stepping (strings are indexed
// by code point, like Python), the case and space tables the string methods
// use, and substring search in linear time.
//
// Contract: invalid UTF-8 decodes as U+FFFD, one byte at a time, everywhere
// (utf8Next, utf8Decode, utf8Length and StringData agree on what a code point
// is). Cost: every function here is O(bytes read); SubstringSearch::find and
// findLast are O(haystack + needle) whatever the text (no quadratic worst
// case, unlike std::string::find).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::jinja {

// Decodes the code point at byte `i` and advances `i` past it (1 to 4 bytes).
uint32_t utf8Next(std::string_view s, size_t &i);
// Byte offset of the next code point after the one at `i` (without decoding it).
inline size_t utf8Skip(std::string_view s, size_t i)
{
    utf8Next(s, i);
    return i;
}

std::vector<uint32_t> utf8Decode(std::string_view s);
std::string utf8Encode(const std::vector<uint32_t> &cps, size_t begin = 0, size_t end = SIZE_MAX);
void utf8Append(std::string &out, uint32_t cp);
size_t utf8Length(std::string_view s);                  // code points, as utf8Next counts them
bool isPySpace(uint32_t cp);                            // str.isspace()
uint32_t toUpperCp(uint32_t cp);                       // ASCII, Latin-1, Greek, Cyrillic
uint32_t toLowerCp(uint32_t cp);
bool isCased(uint32_t cp);

// Finds one needle in any number of haystacks (Knuth-Morris-Pratt: a table
// of needle.size() entries built once). An empty needle matches at `from`.
class SubstringSearch {
public:
    explicit SubstringSearch(std::string_view needle);

    // The first occurrence starting at or after `from`; npos when none.
    size_t find(std::string_view haystack, size_t from = 0) const;
    // The last occurrence (occurrences may overlap, as Python's rfind); npos when none.
    size_t findLast(std::string_view haystack) const;
    size_t size() const { return m_needle.size(); }

private:
    std::string m_needle;
    std::vector<uint32_t> m_fail;   // m_fail[k]: length of the longest proper border of needle[0..k]
};

} // namespace burrow::jinja
