// UTF-8 stepping, case tables and linear-time substring search (see jinja_text.h).
#include "chat/jinja_text.h"

#include "common/utf8.h"

#include <algorithm>
#include <cstring>

namespace burrow::jinja {

uint32_t utf8Next(std::string_view s, size_t &i)
{
    const uint8_t c = uint8_t(s[i]);
    if (c < 0x80) {
        ++i;
        return c;
    }
    size_t len = 1;
    if ((c & 0xE0) == 0xC0 && c >= 0xC2)
        len = 2;
    else if ((c & 0xF0) == 0xE0)
        len = 3;
    else if ((c & 0xF8) == 0xF0 && c <= 0xF4)
        len = 4;
    if (len == 1 || i + len > s.size()) {
        ++i;
        return 0xFFFD;
    }
    uint32_t v = c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
        const uint8_t cc = uint8_t(s[i + k]);
        if ((cc & 0xC0) != 0x80) {
            ++i;
            return 0xFFFD;
        }
        v = (v << 6) | (cc & 0x3F);
    }
    const uint32_t minimum = len == 2 ? 0x80 : (len == 3 ? 0x800 : 0x10000);
    if (v < minimum || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) {
        ++i;
        return 0xFFFD;
    }
    i += len;
    return v;
}

std::vector<uint32_t> utf8Decode(std::string_view s)
{
    std::vector<uint32_t> out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();)
        out.push_back(utf8Next(s, i));
    return out;
}

void utf8Append(std::string &out, uint32_t cp)
{
    appendUtf8(out, cp);
}

std::string utf8Encode(const std::vector<uint32_t> &cps, size_t begin, size_t end)
{
    std::string out;
    end = std::min(end, cps.size());
    for (size_t i = begin; i < end; ++i)
        utf8Append(out, cps[i]);
    return out;
}

size_t utf8Length(std::string_view s)
{
    size_t n = 0;
    for (size_t i = 0; i < s.size(); ++n) {
        if (uint8_t(s[i]) < 0x80)
            ++i;
        else
            utf8Next(s, i);
    }
    return n;
}

bool isPySpace(uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0
           || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029
           || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

uint32_t toUpperCp(uint32_t cp)
{
    if (cp >= 'a' && cp <= 'z') return cp - 32;
    if (cp == 0xB5) return 0x39C;
    if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 32;
    if (cp == 0xFF) return 0x178;
    if (cp >= 0x3B1 && cp <= 0x3C9 && cp != 0x3C2) return cp - 32;
    if (cp >= 0x430 && cp <= 0x44F) return cp - 32;
    if (cp >= 0x450 && cp <= 0x45F) return cp - 80;
    return cp;
}

uint32_t toLowerCp(uint32_t cp)
{
    if (cp >= 'A' && cp <= 'Z') return cp + 32;
    if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;
    if (cp == 0x178) return 0xFF;
    if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 32;
    if (cp >= 0x410 && cp <= 0x42F) return cp + 32;
    if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
    return cp;
}

bool isCased(uint32_t cp)
{
    return toUpperCp(cp) != cp || toLowerCp(cp) != cp || cp == 0xDF;
}

// --- substring search -----------------------------------------------------------

SubstringSearch::SubstringSearch(std::string_view needle) : m_needle(needle), m_fail(needle.size(), 0)
{
    uint32_t k = 0;
    for (size_t i = 1; i < m_needle.size(); ++i) {
        while (k > 0 && m_needle[i] != m_needle[k])
            k = m_fail[k - 1];
        if (m_needle[i] == m_needle[k])
            ++k;
        m_fail[i] = k;
    }
}

size_t SubstringSearch::find(std::string_view haystack, size_t from) const
{
    const size_t m = m_needle.size();
    if (from > haystack.size())
        return std::string_view::npos;
    if (m == 0)
        return from;
    if (m == 1) {
        const void *hit = std::memchr(haystack.data() + from, m_needle[0], haystack.size() - from);
        return hit ? size_t(static_cast<const char *>(hit) - haystack.data()) : std::string_view::npos;
    }
    uint32_t k = 0;   // needle bytes matched so far
    for (size_t i = from; i < haystack.size(); ++i) {
        if (k == 0) {
            // Skip to the next byte that can start a match.
            const void *hit = std::memchr(haystack.data() + i, m_needle[0], haystack.size() - i);
            if (!hit)
                return std::string_view::npos;
            i = size_t(static_cast<const char *>(hit) - haystack.data());
        }
        while (k > 0 && haystack[i] != m_needle[k])
            k = m_fail[k - 1];
        if (haystack[i] == m_needle[k])
            ++k;
        if (k == m)
            return i + 1 - m;
    }
    return std::string_view::npos;
}

size_t SubstringSearch::findLast(std::string_view haystack) const
{
    const size_t m = m_needle.size();
    if (m == 0)
        return haystack.size();
    size_t last = std::string_view::npos;
    uint32_t k = 0;
    for (size_t i = 0; i < haystack.size(); ++i) {
        while (k > 0 && haystack[i] != m_needle[k])
            k = m_fail[k - 1];
        if (haystack[i] == m_needle[k])
            ++k;
        if (k == m) {
            last = i + 1 - m;
            k = m_fail[k - 1];   // overlapping matches
        }
    }
    return last;
}

} // namespace burrow::jinja
