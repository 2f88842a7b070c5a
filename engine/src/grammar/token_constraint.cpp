// VocabIndex and TokenConstraint (see token_constraint.h).
#include "grammar/token_constraint.h"

#include <algorithm>
#include <mutex>

namespace burrow::grammar {

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
        if (!index->bytes[i].empty() && !index->isEnd[i]) {
            index->sorted.push_back(static_cast<Token>(i));
            index->maxTokenBytes = std::max(index->maxTokenBytes, index->bytes[i].size());
        }
    const auto &b = index->bytes;
    std::sort(index->sorted.begin(), index->sorted.end(),
              [&](Token x, Token y) { return b[static_cast<size_t>(x)] < b[static_cast<size_t>(y)]; });
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

// The tokens in sorted[lo, hi) share their first `depth` bytes, which led to
// `state`: group them by the next byte, advance, prune or descend.
void TokenConstraint::walk(size_t lo, size_t hi, size_t depth, const StateSet &state, std::vector<uint64_t> &mask)
{
    const VocabIndex &v = *m_grammar->vocab;
    // Inside a string's body a plain byte changes nothing: no step, the same state.
    const bool stays = m_matcher.inPlainString(state);
    size_t i = lo;
    // Tokens exactly `depth` bytes long sort first and end here (handled by the caller).
    while (i < hi && v.bytes[static_cast<size_t>(v.sorted[i])].size() == depth)
        ++i;
    while (i < hi) {
        const uint8_t c = static_cast<uint8_t>(v.bytes[static_cast<size_t>(v.sorted[i])][depth]);
        size_t end = i + 1;
        while (end < hi && static_cast<uint8_t>(v.bytes[static_cast<size_t>(v.sorted[end])][depth]) == c)
            ++end;
        const bool same = stays && JsonMatcher::plainStringByte(c);
        if (!same)
            m_matcher.advance(state, c, m_levels[depth]);
        const StateSet &next = same ? state : m_levels[depth];
        if (!next.empty()) {
            size_t k = i;
            for (; k < end && v.bytes[static_cast<size_t>(v.sorted[k])].size() == depth + 1; ++k) {
                const auto t = static_cast<size_t>(v.sorted[k]);
                mask[t >> 6] |= uint64_t{1} << (t & 63);
            }
            if (k < end)
                walk(k, end, depth + 1, next, mask);
        }
        i = end;
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
    walk(0, v.sorted.size(), 0, m_state, mask);
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
