// The vocabulary: token texts, scores, types, merges and special ids, as read
// from GGUF metadata (`tokenizer.ggml.*`) and validated once.
//
// Contract: buildVocab() either returns a vocabulary whose every id, array and
// merge has been checked, or a Status naming the key/index and what was
// expected. After that, lookups cannot fail or read out of bounds.
// Behaviour follows the reference engine (llama.cpp src/llama-vocab.cpp of
// August 2026): defaults per model type, end-of-generation detection by token
// text (such tokens are forced to CONTROL), the harmony exceptions (gpt-oss:
// <|channel|>, <|message|>, <|start|>, <|constrain|> are USER_DEFINED so that
// they are rendered; where <|return|> and <|call|> exist, <|end|> ends a
// channel, not the generation, and is USER_DEFINED too), per-model strip
// attributes.
// Where the reference only warns about a broken file, Burrow refuses it:
// scores/token_type arrays whose length is not the token count, token types
// outside 0..6, merges without a separator or naming unknown tokens, SPM
// byte tokens not spelled <0xHH>, and bos/eos/eot/eom/unk ids out of range.
//
// Cost: buildVocab is O(tokens + merges) time and memory (two hash maps).
#pragma once

#include "burrow/status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace burrow::gguf {
class GgufFile;
}

namespace burrow::tokenizer {

enum class VocabType {
    VOCAB_TYPE_SPM,  // tokenizer.ggml.model = "llama": SentencePiece, merge by score
    VOCAB_TYPE_BPE,  // tokenizer.ggml.model = "gpt2": byte-level BPE, merge by rank;
                     // "gemma4": BPE over raw UTF-8 (Vocab::rawUtf8), merge by rank
};

// tokenizer.ggml.token_type values.
enum class TokenType : int32_t {
    TOKEN_TYPE_UNDEFINED = 0,
    TOKEN_TYPE_NORMAL = 1,
    TOKEN_TYPE_UNKNOWN = 2,
    TOKEN_TYPE_CONTROL = 3,
    TOKEN_TYPE_USER_DEFINED = 4,
    TOKEN_TYPE_UNUSED = 5,
    TOKEN_TYPE_BYTE = 6,
};
const char *tokenTypeName(TokenType type);

// The tokenizer's metadata as plain data (what the GGUF keys hold). Optional
// fields are absent when the key is. Ids are wide so that hostile values
// (negative, too large) can be reported instead of wrapping.
struct VocabData {
    std::string source = "vocabulary";      // file name for messages
    std::string model;                      // tokenizer.ggml.model
    std::string pre;                        // tokenizer.ggml.pre ("" when absent)
    std::string generalName;                // general.name (selects per-model quirks)
    std::vector<std::string> tokens;        // tokenizer.ggml.tokens
    std::vector<float> scores;              // tokenizer.ggml.scores (empty: all 0)
    std::vector<int32_t> tokenTypes;        // tokenizer.ggml.token_type (empty: all NORMAL)
    std::vector<std::string> merges;        // tokenizer.ggml.merges ("left right"; rank = index)
    std::optional<int64_t> bosId, eosId, eotId, eomId, unkId;
    std::optional<int64_t> padId, sepId, maskId;
    std::optional<int64_t> fimPreId, fimSufId, fimMidId, fimPadId, fimRepId, fimSepId;
    std::optional<bool> addBos, addEos, addSpacePrefix;
};

// Reads VocabData from a GGUF file's metadata, checking every key's type.
Status readVocabData(const gguf::GgufFile &file, VocabData &out);

struct TokenInfo {
    std::string text;           // as in the vocabulary (SPM: '▁' for space; BPE: byte-level characters)
    float score = 0.0f;
    TokenType type = TokenType::TOKEN_TYPE_NORMAL;
    bool lstrip = false;        // special-token partition eats white space before it
    bool rstrip = false;        // ... and after it
    int16_t byteValue = -1;     // SPM BYTE tokens: the byte <0xHH> stands for
};

// BPE merges keyed by token ids: (left, right) -> rank and the id of the
// merged text. Open addressing with linear probing; O(1) expected lookups
// without hashing strings. Filled once by buildVocab().
class MergeTable {
public:
    struct Entry {
        uint64_t key = EMPTY;
        int32_t rank = -1;
        int32_t result = -1;    // id of left+right (may be a synthetic id, see Vocab)
    };
    void reserve(size_t merges);
    // False when the pair is already there (the first rank is kept).
    bool insert(int32_t left, int32_t right, int32_t rank, int32_t result);
    const Entry *find(int32_t left, int32_t right) const
    {
        if (m_slots.empty())
            return nullptr;
        const uint64_t key = makeKey(left, right);
        for (size_t i = slot(key);; i = (i + 1) & m_mask) {
            const Entry &e = m_slots[i];
            if (e.key == key)
                return &e;
            if (e.key == EMPTY)
                return nullptr;
        }
    }
    size_t size() const { return m_size; }

private:
    static constexpr uint64_t EMPTY = ~uint64_t(0);
    static uint64_t makeKey(int32_t left, int32_t right)
    {
        return (uint64_t(uint32_t(left)) << 32) | uint32_t(right);
    }
    size_t slot(uint64_t key) const { return size_t((key * 0x9E3779B97F4A7C15ull) >> 20) & m_mask; }
    std::vector<Entry> m_slots;
    size_t m_mask = 0;
    size_t m_size = 0;
};

// Token text -> id: open addressing over (hash tag, id) slots, the texts
// themselves stay in the token list. Duplicate texts: the last id wins (as
// the reference's map). O(1) expected per lookup, one probe run of 8-byte
// slots plus one string compare on a tag match.
class TokenIndex {
public:
    void build(const std::vector<TokenInfo> &tokens);
    int32_t find(std::string_view text, const std::vector<TokenInfo> &tokens) const
    {
        if (m_slots.empty())
            return -1;
        const uint64_t h = std::hash<std::string_view>()(text);
        const uint32_t tag = uint32_t(h >> 32);
        for (size_t i = size_t(h) & m_mask;; i = (i + 1) & m_mask) {
            const Slot &slot = m_slots[i];
            if (slot.id < 0)
                return -1;
            if (slot.tag == tag && tokens[size_t(slot.id)].text == text)
                return slot.id;
        }
    }

private:
    struct Slot {
        uint32_t tag = 0;
        int32_t id = -1;
    };
    std::vector<Slot> m_slots;
    size_t m_mask = 0;
};

struct Vocab {
    VocabType type = VocabType::VOCAB_TYPE_SPM;
    std::string modelName;       // "llama" / "gpt2" / "gemma4"
    std::string preName;         // tokenizer.ggml.pre as found ("" when absent)
    std::string regexSet;        // BPE: pre-tokenizer expression set
    std::vector<TokenInfo> tokens;
    TokenIndex index;            // text -> id
    // BPE merges. A merge whose result is not a token gets a synthetic id
    // size() + k with its text in syntheticTexts[k]; such a symbol can merge no
    // further and is written through the single-byte fallback.
    MergeTable merges;
    std::vector<std::string> syntheticTexts;
    int32_t byteLevelTokens[256];   // BPE: id of the byte-level character of each byte, -1 if none
    int32_t byteTokens[256];     // SPM, gemma4: id of <0xHH> (SPM: or of the single byte), -1 if none

    int32_t bos = -1, eos = -1, eot = -1, eom = -1, unk = -1, pad = -1, sep = -1, mask = -1;
    int32_t fimPre = -1, fimSuf = -1, fimMid = -1, fimPad = -1, fimRep = -1, fimSep = -1;
    bool addBos = false, addEos = false, addSpacePrefix = false;
    bool ignoreMerges = false, cleanSpaces = false;
    // Gemma 4's BPE ("gemma4"): spaces become '▁' before merging, symbols
    // start as the text's UTF-8 characters (no byte-level map), a run of
    // line breaks that is a token is taken whole, and a piece that is no
    // token falls back to the <0xHH> byte tokens (byteTokens).
    bool rawUtf8 = false;

    std::vector<int32_t> endOfGeneration;   // sorted ids
    // CONTROL, USER_DEFINED and UNKNOWN tokens, longest text first (ties by id):
    // the order in which they are cut out of text.
    std::vector<int32_t> specialTokens;

    int32_t size() const { return static_cast<int32_t>(tokens.size()); }
    bool valid(int32_t id) const { return id >= 0 && id < size(); }
    int32_t find(std::string_view text) const
    {
        return index.find(text, tokens);
    }
};

Result<std::unique_ptr<Vocab>> buildVocab(VocabData data);

} // namespace burrow::tokenizer
