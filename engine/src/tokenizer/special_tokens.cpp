#include "tokenizer/special_tokens.h"

#include "tokenizer/vocab.h"

namespace burrow::tokenizer {

namespace {

// The C locale's isspace(), without its undefined behaviour for bytes >= 0x80.
bool isAsciiSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

} // namespace

std::vector<Fragment> partitionSpecialTokens(const Vocab &vocab, std::string_view text, bool parseSpecial)
{
    std::vector<Fragment> fragments;
    if (text.empty())
        return fragments;
    fragments.push_back({-1, 0, text.size()});

    std::vector<Fragment> next;
    for (const int32_t id : vocab.specialTokens) {
        const TokenInfo &token = vocab.tokens[id];
        if (!parseSpecial &&
            (token.type == TokenType::TOKEN_TYPE_CONTROL || token.type == TokenType::TOKEN_TYPE_UNKNOWN))
            continue;
        const std::string_view needle = token.text;
        if (text.find(needle) == std::string_view::npos)
            continue;  // cheap common case

        next.clear();
        next.reserve(fragments.size() + 4);
        for (const Fragment &fragment : fragments) {
            if (fragment.token >= 0) {
                next.push_back(fragment);
                continue;
            }
            size_t offset = fragment.offset;
            size_t length = fragment.length;
            while (length > 0) {
                const size_t match = text.find(needle, offset);
                if (match == std::string_view::npos || match + needle.size() > offset + length) {
                    next.push_back({-1, offset, length});
                    break;
                }
                if (match > offset) {
                    size_t leftLength = match - offset;
                    if (token.lstrip)
                        while (leftLength > 0 && isAsciiSpace(text[offset + leftLength - 1]))
                            --leftLength;
                    if (leftLength > 0)
                        next.push_back({-1, offset, leftLength});
                }
                next.push_back({id, 0, 0});
                const size_t end = offset + length;
                offset = match + needle.size();
                length = end - offset;
                if (token.rstrip)
                    while (length > 0 && isAsciiSpace(text[offset])) {
                        ++offset;
                        --length;
                    }
            }
        }
        fragments.swap(next);
    }
    return fragments;
}

} // namespace burrow::tokenizer
