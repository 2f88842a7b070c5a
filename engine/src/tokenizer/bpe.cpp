#include "tokenizer/bpe.h"

#include "tokenizer/byte_level.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/utf8.h"
#include "tokenizer/vocab.h"

#include <algorithm>
#include <string>

namespace burrow::tokenizer {

namespace {

struct Symbol {
    int prev;
    int next;
    size_t offset;   // into the encoded word
    size_t length;   // 0 once merged into its left neighbour
};

struct Bigram {
    int left;
    int right;
    int32_t rank;
    size_t leftLength;    // lengths when queued (staleness check)
    size_t rightLength;
};

// Lowest rank first; equal ranks: leftmost first.
struct BigramOrder {
    bool operator()(const Bigram &l, const Bigram &r) const
    {
        return l.rank > r.rank || (l.rank == r.rank && l.left > r.left);
    }
};

// Scratch buffers reused across the words of one call.
struct Scratch {
    std::string word;
    std::vector<Symbol> symbols;
    std::vector<Bigram> heap;
};

void mergeWord(const Vocab &vocab, Scratch &s, std::vector<int32_t> &out)
{
    const std::string_view word = s.word;
    if (vocab.ignoreMerges) {
        const int32_t id = vocab.find(word);
        if (id >= 0) {
            out.push_back(id);
            return;
        }
    }

    auto &symbols = s.symbols;
    symbols.clear();
    for (size_t offset = 0; offset < word.size();) {
        const size_t length = std::min(utf8LengthFromLeadByte(static_cast<uint8_t>(word[offset])), word.size() - offset);
        const int index = static_cast<int>(symbols.size());
        symbols.push_back({index - 1, offset + length == word.size() ? -1 : index + 1, offset, length});
        offset += length;
    }

    auto &heap = s.heap;   // a max-heap under BigramOrder: top = lowest rank
    heap.clear();
    auto tryAdd = [&](int left, int right) {
        if (left < 0 || right < 0)
            return;
        const Symbol &l = symbols[left];
        const Symbol &r = symbols[right];
        const int32_t rank = vocab.mergeRank(word.substr(l.offset, l.length), word.substr(r.offset, r.length));
        if (rank < 0)
            return;
        heap.push_back({left, right, rank, l.length, r.length});
        std::push_heap(heap.begin(), heap.end(), BigramOrder{});
    };
    for (int i = 1; i < static_cast<int>(symbols.size()); ++i)
        tryAdd(i - 1, i);

    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), BigramOrder{});
        const Bigram bigram = heap.back();
        heap.pop_back();
        Symbol &left = symbols[bigram.left];
        Symbol &right = symbols[bigram.right];
        // A side changed since this pair was queued: the pair is stale.
        if (left.length == 0 || right.length == 0 || left.length != bigram.leftLength ||
            right.length != bigram.rightLength)
            continue;
        left.length += right.length;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0)
            symbols[right.next].prev = bigram.left;
        tryAdd(left.prev, bigram.left);
        tryAdd(bigram.left, left.next);
    }
    for (const Symbol &symbol : symbols) {
        if (symbol.length == 0)
            continue;
        const std::string_view piece = word.substr(symbol.offset, symbol.length);
        const int32_t id = vocab.find(piece);
        if (id >= 0) {
            out.push_back(id);
            continue;
        }
        for (const char c : piece) {
            const int32_t byteId = vocab.find(std::string_view(&c, 1));
            if (byteId >= 0)
                out.push_back(byteId);
        }
    }
}

} // namespace

void bpeTokenize(const Vocab &vocab, const PreTokenizer &pre, std::string_view text, std::vector<int32_t> &out)
{
    std::vector<std::string_view> words;
    pre.split(text, words);
    Scratch scratch;
    for (const std::string_view word : words) {
        scratch.word.clear();
        byteLevelEncode(word, scratch.word);
        mergeWord(vocab, scratch, out);
    }
}

} // namespace burrow::tokenizer
