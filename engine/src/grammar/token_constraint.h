// Grammar-constrained sampling: which tokens of a vocabulary may come next
// in a reply that must match a compiled schema (json_matcher.h).
//
// VocabIndex: every token's bytes (as the reply shows them) in a trie laid
// out flat (a node's children contiguous, built from the tokens sorted by
// their bytes): walking it depth first, a prefix the grammar refuses prunes
// every token below it. Built once per model (cached while the model
// lives; about 20 bytes per trie node, a few hundred thousand nodes for a
// 150k vocabulary). Tokens without bytes (control tokens) are never allowed;
// end-of-generation tokens are allowed exactly when the output is complete.
//
// TokenConstraint (one per request, one thread): the matcher's state after
// the tokens accepted so far, and
//   allows(t)   one token checked (its bytes advanced on a copy): O(bytes)
//   mask()      a bit per token, computed by the trie walk and cached per
//               state (a bounded cache: a string's body, a repeated shape,
//               comes back to the same state): O(trie nodes the grammar
//               lets through) on a miss, O(1) on a hit
//   accept(t)   advances the state; false when t is not allowed (the state
//               is then unchanged)
#pragma once

#include "burrow/engine.h"
#include "grammar/json_matcher.h"

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace burrow::grammar {

struct VocabIndex {
    // Tokens longer than this are left out (never allowed under a grammar):
    // bounds the trie's depth, and so the walk's recursion, whatever a file holds.
    static constexpr size_t kMaxTokenBytes = 1024;

    // The trie: node 0 is the root; a node's children are contiguous
    // (firstChild .. firstChild + childCount), one per next byte, in byte
    // order; the tokens whose bytes end at a node are sorted[tokenBegin, tokenEnd).
    struct TrieNode {
        uint32_t firstChild = 0;
        uint32_t childCount = 0;
        uint32_t tokenBegin = 0;
        uint32_t tokenEnd = 0;
        uint8_t byte = 0;
        // Some token at or below this node is not string-safe (stringSafe):
        // from a string's body, only such subtrees need a walk.
        bool unsafeBelow = false;
    };

    uint32_t vocabSize = 0;
    std::vector<std::string> bytes;       // per token id
    std::vector<Token> sorted;            // ids with bytes, sorted by their bytes
    std::vector<TrieNode> trie;
    // Bit per token: its bytes continue the body of a string without bounds
    // from a character boundary (printable ASCII but '"' and '\\', UTF-8
    // lead bytes followed by their continuation bytes, the last character
    // possibly unfinished): what such a string state allows, without a walk.
    std::vector<uint64_t> stringSafe;
    std::vector<Token> endOfGeneration;
    std::vector<bool> isEnd;              // per token id
    size_t maxTokenBytes = 0;

    static std::shared_ptr<const VocabIndex> forModel(const std::shared_ptr<const Model> &model);
    static std::shared_ptr<const VocabIndex> build(std::vector<std::string> tokenBytes, std::vector<Token> endIds);
};

// What a burrow::Grammar holds (engine.h): the graph, its affixes, the vocabulary.
struct CompiledGrammar {
    SchemaGraph graph;
    uint32_t prefixNode = UINT32_MAX;
    uint32_t suffixNode = UINT32_MAX;
    std::shared_ptr<const VocabIndex> vocab;
};

class TokenConstraint {
public:
    explicit TokenConstraint(std::shared_ptr<const CompiledGrammar> grammar);

    bool allows(Token token);
    const std::vector<uint64_t> &mask();
    bool accept(Token token);
    // The output so far is complete (an end-of-generation token is allowed).
    bool complete() const { return m_matcher.canFinish(m_state); }
    // Any end-of-generation token, or -1 (what a dead state ends with).
    Token endToken() const { return m_grammar->vocab->endOfGeneration.empty() ? -1 : m_grammar->vocab->endOfGeneration[0]; }
    void reset();

    static bool allowed(const std::vector<uint64_t> &mask, Token t)
    {
        return (mask[static_cast<size_t>(t) >> 6] >> (static_cast<size_t>(t) & 63)) & 1u;
    }

private:
    bool advanceBytes(const StateSet &from, const std::string &bytes, StateSet &to);
    // fromString: the walk began at the root in an unbounded string's body
    // (the string-safe tokens are in the mask already).
    void walk(uint32_t node, size_t depth, const StateSet &state, bool fromString, std::vector<uint64_t> &mask);

    std::shared_ptr<const CompiledGrammar> m_grammar;
    JsonMatcher m_matcher;
    StateSet m_state;
    StateSet m_scratch[2];
    StateSet m_probe;                 // allows() / accept(): the state after the token
    std::vector<StateSet> m_levels;   // the trie walk's state per depth
    // Masks by state key, least recently used dropped past kCacheEntries.
    static constexpr size_t kCacheEntries = 128;
    std::list<std::pair<std::string, std::vector<uint64_t>>> m_lru;
    std::unordered_map<std::string, decltype(m_lru)::iterator> m_cache;
    std::string m_key;
};

} // namespace burrow::grammar

namespace burrow {

// The public handle (engine.h) is the compiled grammar itself.
class Grammar : public grammar::CompiledGrammar {};

} // namespace burrow
