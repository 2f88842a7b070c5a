#include "tokenizer/bpe.h"

#include "tokenizer/byte_level.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/utf8.h"
#include "tokenizer/vocab.h"

#include <algorithm>
#include <string>

namespace burrow::tokenizer {

namespace {

// A symbol covers raw bytes [offset, offset + length) of the word; `id` is
// the token its byte-level spelling is (-1: none, or a synthetic merge id).
struct Symbol {
    int prev;
    int next;
    int32_t id;
    uint32_t offset;
    uint32_t length;   // 0 once merged into its left neighbour
};

struct Bigram {
    int left;
    int right;
    int32_t rank;
    int32_t result;
    uint32_t leftLength;    // lengths when queued (staleness check)
    uint32_t rightLength;
};

// std::push_heap order: the top is the lowest rank, then the leftmost pair.
struct BigramOrder {
    bool operator()(const Bigram &l, const Bigram &r) const
    {
        return l.rank > r.rank || (l.rank == r.rank && l.left > r.left);
    }
};

// Scratch buffers reused across the words of one call.
struct Scratch {
    std::string encoded;
    std::vector<Symbol> symbols;
    std::vector<Bigram> heap;
};

// Writes a symbol that is not a token: the tokens of the single bytes of its
// byte-level spelling, where such tokens exist (the reference's fallback).
void writeFallback(const Vocab &vocab, std::string_view raw, Scratch &s, std::vector<int32_t> &out)
{
    s.encoded.clear();
    byteLevelEncode(raw, s.encoded);
    for (const char c : s.encoded) {
        const int32_t id = vocab.find(std::string_view(&c, 1));
        if (id >= 0)
            out.push_back(id);
    }
}

// Gemma 4's fallback for a piece that is not a token: its bytes as <0xHH>
// tokens, where those exist.
void writeRawFallback(const Vocab &vocab, std::string_view raw, std::vector<int32_t> &out)
{
    for (const char c : raw) {
        const int32_t id = vocab.byteTokens[static_cast<uint8_t>(c)];
        if (id >= 0)
            out.push_back(id);
    }
}

// The first symbols of a word: one per byte (byte-level BPE: each byte is one
// byte-level character) or, for Gemma 4, one per UTF-8 character as its
// lead byte announces it (an invalid byte is a character of its own).
void initialSymbols(const Vocab &vocab, std::string_view word, std::vector<Symbol> &symbols)
{
    symbols.clear();
    const uint32_t size = static_cast<uint32_t>(word.size());
    uint32_t offset = 0;
    while (offset < size) {
        uint32_t length = 1;
        int32_t id = -1;
        if (vocab.rawUtf8) {
            length = std::min<uint32_t>(size - offset, static_cast<uint32_t>(utf8LengthFromLeadByte(static_cast<uint8_t>(word[offset]))));
            id = vocab.find(word.substr(offset, length));
        } else {
            id = vocab.byteLevelTokens[static_cast<uint8_t>(word[offset])];
        }
        const int index = static_cast<int>(symbols.size());
        symbols.push_back({index - 1, offset + length == size ? -1 : index + 1, id, offset, length});
        offset += length;
    }
}

// One pre-tokenized word (raw bytes) -> ids.
void mergeWord(const Vocab &vocab, std::string_view word, Scratch &s, std::vector<int32_t> &out)
{
    if (word.empty())
        return;
    if (vocab.rawUtf8 && word.find_first_not_of('\n') == std::string_view::npos) {
        // A run of line breaks is looked up whole (the reference's Gemma 4 rule).
        if (const int32_t id = vocab.find(word); id >= 0) {
            out.push_back(id);
            return;
        }
    }
    if (vocab.ignoreMerges) {
        s.encoded.clear();
        byteLevelEncode(word, s.encoded);
        const int32_t id = vocab.find(s.encoded);
        if (id >= 0) {
            out.push_back(id);
            return;
        }
    }
    if (word.size() == 1 && !vocab.rawUtf8) {
        const int32_t id = vocab.byteLevelTokens[static_cast<uint8_t>(word[0])];
        if (id >= 0)
            out.push_back(id);
        else
            writeFallback(vocab, word, s, out);
        return;
    }

    auto &symbols = s.symbols;
    initialSymbols(vocab, word, symbols);
    const int count = static_cast<int>(symbols.size());

    auto &heap = s.heap;
    heap.clear();
    auto tryAdd = [&](int left, int right) {
        if (left < 0 || right < 0)
            return;
        const Symbol &l = symbols[left];
        const Symbol &r = symbols[right];
        if (l.id < 0 || r.id < 0)
            return;
        const MergeTable::Entry *merge = vocab.merges.find(l.id, r.id);
        if (!merge)
            return;
        heap.push_back({left, right, merge->rank, merge->result, l.length, r.length});
        std::push_heap(heap.begin(), heap.end(), BigramOrder{});
    };
    for (int i = 1; i < count; ++i)
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
        left.id = bigram.result;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0)
            symbols[right.next].prev = bigram.left;
        tryAdd(left.prev, bigram.left);
        tryAdd(bigram.left, left.next);
    }

    const int32_t tokenCount = vocab.size();
    for (const Symbol &symbol : symbols) {
        if (symbol.length == 0)
            continue;
        if (symbol.id >= 0 && symbol.id < tokenCount)
            out.push_back(symbol.id);
        else if (vocab.rawUtf8)
            writeRawFallback(vocab, word.substr(symbol.offset, symbol.length), out);
        else
            writeFallback(vocab, word.substr(symbol.offset, symbol.length), s, out);
    }
}

} // namespace

void bpeTokenize(const Vocab &vocab, const PreTokenizer &pre, std::string_view text, std::vector<int32_t> &out)
{
    std::vector<std::string_view> words;
    pre.split(text, words);
    Scratch scratch;
    // Symbol offsets are 32-bit: a (pathological) word longer than this is
    // merged in parts.
    constexpr size_t maxPart = size_t(1) << 30;
    for (std::string_view word : words) {
        while (word.size() > maxPart) {
            mergeWord(vocab, word.substr(0, maxPart), scratch, out);
            word.remove_prefix(maxPart);
        }
        mergeWord(vocab, word, scratch, out);
    }
}

} // namespace burrow::tokenizer
