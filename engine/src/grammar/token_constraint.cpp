// VocabIndex and TokenConstraint (see token_constraint.h).
#include "grammar/token_constraint.h"

#include <algorithm>
#include <mutex>

namespace burrow::grammar {

namespace {

// The matcher's rule for a string's body without bounds, from a character
// boundary (see JsonMatcher: FRAME_STRING, phase 0).
bool stringSafe(const std::string &bytes)
{
    size_t owed = 0;
    for (const char ch : bytes) {
        const auto c = static_cast<uint8_t>(ch);
        if (owed > 0) {
            if ((c & 0xC0) != 0x80)
                return false;
            --owed;
        } else if (c >= 0x20 && c < 0x80) {
            if (c == '"' || c == '\\')
                return false;
        } else if (c >= 0xC2 && c <= 0xDF) {
            owed = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            owed = 2;
        } else if (c >= 0xF0 && c <= 0xF4) {
            owed = 3;
        } else {
            return false;
        }
    }
    return true;
}

// The trie from the sorted tokens, breadth first per node: the tokens in
// sorted[lo, hi) share their first `depth` bytes and sit below `node`.
// Iterative (an explicit work list), so no recursion depth to bound.
void buildTrie(VocabIndex &v)
{
    struct Work {
        uint32_t node;
        size_t lo, hi, depth;
    };
    const auto byteAt = [&](size_t i, size_t depth) {
        return static_cast<uint8_t>(v.bytes[static_cast<size_t>(v.sorted[i])][depth]);
    };
    v.trie.assign(1, VocabIndex::TrieNode{});
    std::vector<Work> work{{0, 0, v.sorted.size(), 0}};
    while (!work.empty()) {
        const Work w = work.back();
        work.pop_back();
        size_t i = w.lo;
        while (i < w.hi && v.bytes[static_cast<size_t>(v.sorted[i])].size() == w.depth)
            ++i;
        v.trie[w.node].tokenBegin = static_cast<uint32_t>(w.lo);
        v.trie[w.node].tokenEnd = static_cast<uint32_t>(i);
        const uint32_t first = static_cast<uint32_t>(v.trie.size());
        uint32_t count = 0;
        while (i < w.hi) {
            const uint8_t c = byteAt(i, w.depth);
            size_t end = i + 1;
            while (end < w.hi && byteAt(end, w.depth) == c)
                ++end;
            VocabIndex::TrieNode child;
            child.byte = c;
            v.trie.push_back(child);
            work.push_back({first + count, i, end, w.depth + 1});
            ++count;
            i = end;
        }
        v.trie[w.node].firstChild = first;
        v.trie[w.node].childCount = count;
    }
    // Which tokens are string-safe, then (children come after their
    // parent) one pass from the end marks the subtrees holding an unsafe one.
    v.stringSafe.assign((v.vocabSize + 63) / 64, 0);
    std::vector<bool> safe(v.sorted.size(), false);
    for (size_t i = 0; i < v.sorted.size(); ++i) {
        const auto id = static_cast<size_t>(v.sorted[i]);
        if (stringSafe(v.bytes[id])) {
            safe[i] = true;
            v.stringSafe[id >> 6] |= uint64_t{1} << (id & 63);
        }
    }
    for (size_t k = v.trie.size(); k-- > 0;) {
        VocabIndex::TrieNode &n = v.trie[k];
        bool unsafe = false;
        for (uint32_t t = n.tokenBegin; t < n.tokenEnd && !unsafe; ++t)
            unsafe = !safe[t];
        for (uint32_t c = 0; c < n.childCount && !unsafe; ++c)
            unsafe = v.trie[n.firstChild + c].unsafeBelow;
        n.unsafeBelow = unsafe;
    }
}

} // namespace

std::shared_ptr<const VocabIndex> VocabIndex::build(std::vector<std::string> tokenBytes, std::vector<Token> endIds)
{
    auto index = std::make_shared<VocabIndex>();
    index->vocabSize = static_cast<uint32_t>(tokenBytes.size());
    index->bytes = std::move(tokenBytes);
    index->isEnd.assign(index->vocabSize, false);
    for (const Token t : endIds)
        if (t >= 0 && static_cast<uint32_t>(t) < index->vocabSize && !index->isEnd[static_cast<size_t>(t)]) {
            index->isEnd[static_cast<size_t>(t)] = true;
            index->endOfGeneration.push_back(t);
        }
    for (uint32_t i = 0; i < index->vocabSize; ++i)
        if (!index->bytes[i].empty() && !index->isEnd[i] && index->bytes[i].size() <= kMaxTokenBytes) {
            index->sorted.push_back(static_cast<Token>(i));
            index->maxTokenBytes = std::max(index->maxTokenBytes, index->bytes[i].size());
        }
    const auto &b = index->bytes;
    std::sort(index->sorted.begin(), index->sorted.end(),
              [&](Token x, Token y) { return b[static_cast<size_t>(x)] < b[static_cast<size_t>(y)]; });
    buildTrie(*index);
    return index;
}

std::shared_ptr<const VocabIndex> VocabIndex::forModel(const std::shared_ptr<const Model> &model)
{
    // One index per live model: building it costs a pass over the vocabulary
    // and a sort (tens of milliseconds for 150k tokens).
    static std::mutex mutex;
    static std::vector<std::pair<std::weak_ptr<const Model>, std::shared_ptr<const VocabIndex>>> cache;
    std::lock_guard lock(mutex);
    cache.erase(std::remove_if(cache.begin(), cache.end(), [](const auto &e) { return e.first.expired(); }),
                cache.end());
    for (const auto &[weak, index] : cache)
        if (weak.lock() == model)
            return index;
    std::vector<std::string> bytes(model->vocabSize());
    std::vector<Token> ends;
    for (uint32_t i = 0; i < model->vocabSize(); ++i) {
        bytes[i] = model->tokenBytes(static_cast<Token>(i));
        if (model->isEndOfGeneration(static_cast<Token>(i)))
            ends.push_back(static_cast<Token>(i));
    }
    auto index = build(std::move(bytes), std::move(ends));
    cache.emplace_back(model, index);
    return index;
}

TokenConstraint::TokenConstraint(std::shared_ptr<const CompiledGrammar> grammar)
    : m_grammar(std::move(grammar)), m_matcher(m_grammar->graph, m_grammar->prefixNode, m_grammar->suffixNode)
{
    reset();
}

void TokenConstraint::reset()
{
    m_state.copyFrom(m_matcher.initial());
}

bool TokenConstraint::advanceBytes(const StateSet &from, const std::string &bytes, StateSet &to)
{
    // Ping-pong between the two scratch sets; the result lands in `to`.
    const StateSet *cur = &from;
    for (size_t i = 0; i < bytes.size(); ++i) {
        StateSet &next = (i + 1 == bytes.size()) ? to : m_scratch[i & 1];
        m_matcher.advance(*cur, static_cast<uint8_t>(bytes[i]), next);
        if (next.empty()) {
            to.clear();
            return false;
        }
        cur = &next;
    }
    if (bytes.empty())
        to.clear();
    return !to.empty();
}

bool TokenConstraint::allows(Token token)
{
    const VocabIndex &v = *m_grammar->vocab;
    if (token < 0 || static_cast<uint32_t>(token) >= v.vocabSize)
        return false;
    if (v.isEnd[static_cast<size_t>(token)])
        return complete();
    return advanceBytes(m_state, v.bytes[static_cast<size_t>(token)], m_probe);
}

bool TokenConstraint::accept(Token token)
{
    const VocabIndex &v = *m_grammar->vocab;
    if (token < 0 || static_cast<uint32_t>(token) >= v.vocabSize)
        return false;
    if (v.isEnd[static_cast<size_t>(token)])
        return complete();
    if (!advanceBytes(m_state, v.bytes[static_cast<size_t>(token)], m_probe))
        return false;
    m_state.copyFrom(m_probe);
    return true;
}

// Below trie node `node` (reached with `state` after `depth` bytes): each
// child's byte advanced (or, inside a string's body, a plain byte kept as
// is), its tokens allowed when the state survives, its subtree walked;
// from a string's body, subtrees of string-safe tokens only are skipped
// (stringSafe is in the mask).
void TokenConstraint::walk(uint32_t node, size_t depth, const StateSet &state, bool fromString,
                           std::vector<uint64_t> &mask)
{
    const VocabIndex &v = *m_grammar->vocab;
    const bool stays = m_matcher.inPlainString(state);
    const VocabIndex::TrieNode &n = v.trie[node];
    for (uint32_t k = 0; k < n.childCount; ++k) {
        const uint32_t childIndex = n.firstChild + k;
        const VocabIndex::TrieNode &child = v.trie[childIndex];
        if (fromString && !child.unsafeBelow)
            continue;
        const bool same = stays && JsonMatcher::plainStringByte(child.byte);
        if (!same)
            m_matcher.advance(state, child.byte, m_levels[depth]);
        const StateSet &next = same ? state : m_levels[depth];
        if (next.empty())
            continue;
        for (uint32_t t = child.tokenBegin; t < child.tokenEnd; ++t) {
            const auto id = static_cast<size_t>(v.sorted[t]);
            mask[id >> 6] |= uint64_t{1} << (id & 63);
        }
        if (child.childCount > 0)
            walk(childIndex, depth + 1, next, fromString, mask);
    }
}

const std::vector<uint64_t> &TokenConstraint::mask()
{
    m_state.key(m_key);
    if (auto hit = m_cache.find(m_key); hit != m_cache.end()) {
        m_lru.splice(m_lru.begin(), m_lru, hit->second);
        return hit->second->second;
    }
    const VocabIndex &v = *m_grammar->vocab;
    std::vector<uint64_t> mask((v.vocabSize + 63) / 64, 0);
    if (m_levels.size() < v.maxTokenBytes + 1)
        m_levels.resize(v.maxTokenBytes + 1);   // sized before the walk: it holds references into it
    const bool fromString = m_matcher.inPlainString(m_state);
    if (fromString)
        for (size_t w = 0; w < mask.size(); ++w)
            mask[w] = v.stringSafe[w];
    walk(0, 0, m_state, fromString, mask);
    if (complete())
        for (const Token t : v.endOfGeneration)
            mask[static_cast<size_t>(t) >> 6] |= uint64_t{1} << (static_cast<size_t>(t) & 63);
    m_lru.emplace_front(m_key, std::move(mask));
    m_cache[m_key] = m_lru.begin();
    if (m_lru.size() > kCacheEntries) {
        m_cache.erase(m_lru.back().first);
        m_lru.pop_back();
    }
    return m_lru.front().second;
}

} // namespace burrow::grammar
