#include "tokenizer/spm.h"

#include "tokenizer/utf8.h"
#include "tokenizer/vocab.h"

#include <algorithm>
#include <queue>

namespace burrow::tokenizer {

namespace {

struct Symbol {
    int prev;
    int next;
    size_t offset;   // into the text
    size_t length;   // 0 once merged into its left neighbour
};

// 16 bytes: the heap of a long text is large, and its memory traffic is
// what SentencePiece tokenization costs.
struct Bigram {
    int left;
    int right;
    float score;
    uint32_t size;   // bytes of left + right when queued (staleness check; parts are < 2^30 bytes)
};

// Highest score first; equal scores: leftmost first.
struct BigramOrder {
    bool operator()(const Bigram &l, const Bigram &r) const
    {
        return l.score < r.score || (l.score == r.score && l.left > r.left);
    }
};

// Symbol indices are int: texts longer than this are cut (at a character
// boundary) into parts merged separately. Far beyond any real prompt.
constexpr size_t SPM_MAX_PART = size_t(1) << 30;

void spmTokenizePart(const Vocab &vocab, std::string_view text, std::vector<int32_t> &out);

} // namespace

void spmTokenize(const Vocab &vocab, std::string_view text, std::vector<int32_t> &out)
{
    while (text.size() > SPM_MAX_PART) {
        size_t cut = SPM_MAX_PART;
        while (cut > 0 && (static_cast<uint8_t>(text[cut]) & 0xC0) == 0x80)
            --cut;
        if (cut == 0)
            cut = SPM_MAX_PART;
        spmTokenizePart(vocab, text.substr(0, cut), out);
        text.remove_prefix(cut);
    }
    spmTokenizePart(vocab, text, out);
}

namespace {

void spmTokenizePart(const Vocab &vocab, std::string_view text, std::vector<int32_t> &out)
{
    if (text.empty())
        return;

    std::vector<Symbol> symbols;
    symbols.reserve(text.size());
    for (size_t offset = 0; offset < text.size();) {
        const size_t length = std::min(utf8LengthFromLeadByte(static_cast<uint8_t>(text[offset])), text.size() - offset);
        const int index = static_cast<int>(symbols.size());
        symbols.push_back({index - 1, offset + length == text.size() ? -1 : index + 1, offset, length});
        offset += length;
    }

    std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> queue;
    auto tryAdd = [&](int left, int right) {
        if (left < 0 || right < 0)
            return;
        const Symbol &l = symbols[left];
        const Symbol &r = symbols[right];
        const std::string_view joined = text.substr(l.offset, l.length + r.length);
        const int32_t id = vocab.find(joined);
        if (id < 0)
            return;
        queue.push({left, right, vocab.tokens[id].score, static_cast<uint32_t>(joined.size())});
    };

    for (int i = 1; i < static_cast<int>(symbols.size()); ++i)
        tryAdd(i - 1, i);

    while (!queue.empty()) {
        const Bigram bigram = queue.top();
        queue.pop();
        Symbol &left = symbols[bigram.left];
        Symbol &right = symbols[bigram.right];
        if (left.length == 0 || right.length == 0 || left.length + right.length != bigram.size)
            continue;  // one side was merged since this pair was queued
        left.length += right.length;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0)
            symbols[right.next].prev = bigram.left;
        tryAdd(left.prev, bigram.left);
        tryAdd(bigram.left, left.next);
    }

    for (int i = 0; i != -1; i = symbols[i].next) {
        const Symbol &symbol = symbols[i];
        const std::string_view piece = text.substr(symbol.offset, symbol.length);
        const int32_t id = vocab.find(piece);
        if (id >= 0) {
            out.push_back(id);
            continue;
        }
        // Byte fallback.
        for (const char c : piece) {
            const int32_t byteId = vocab.byteTokens[static_cast<uint8_t>(c)];
            if (byteId >= 0)
                out.push_back(byteId);
            else if (vocab.unk >= 0)
                out.push_back(vocab.unk);
        }
    }
}

} // namespace

} // namespace burrow::tokenizer
