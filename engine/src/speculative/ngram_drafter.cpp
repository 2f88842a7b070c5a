#include "speculative/ngram_drafter.h"

#include <algorithm>

namespace burrow::speculative {

int draftNgram(const Token *history, size_t len, int maxTokens, Token *out)
{
    if (maxTokens <= 0 || len < static_cast<size_t>(kNgramMin) + 1)
        return 0;
    for (int n = std::min<int>(kNgramMax, static_cast<int>(len) - 1); n >= kNgramMin; --n) {
        const Token *tail = history + len - static_cast<size_t>(n);
        // Occurrences ending before the tail's own start + n - 1: start s
        // with s + n < len (something follows it), latest first.
        for (size_t s = len - static_cast<size_t>(n); s-- > 0;) {
            if (!std::equal(tail, tail + n, history + s))
                continue;
            const size_t from = s + static_cast<size_t>(n);
            const int count = static_cast<int>(std::min<size_t>(static_cast<size_t>(maxTokens), len - from));
            std::copy(history + from, history + from + count, out);
            return count;
        }
    }
    return 0;
}

} // namespace burrow::speculative
