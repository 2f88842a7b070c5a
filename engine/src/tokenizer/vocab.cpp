#include "tokenizer/vocab.h"

#include "common/log.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/pretokenizer.h"

#include <algorithm>
#include <climits>

namespace burrow::tokenizer {

const char *tokenTypeName(TokenType type)
{
    switch (type) {
    case TokenType::TOKEN_TYPE_UNDEFINED: return "undefined";
    case TokenType::TOKEN_TYPE_NORMAL: return "normal";
    case TokenType::TOKEN_TYPE_UNKNOWN: return "unknown";
    case TokenType::TOKEN_TYPE_CONTROL: return "control";
    case TokenType::TOKEN_TYPE_USER_DEFINED: return "user-defined";
    case TokenType::TOKEN_TYPE_UNUSED: return "unused";
    case TokenType::TOKEN_TYPE_BYTE: return "byte";
    }
    return "?";
}

namespace {

// Token text for messages: cut long texts, show control bytes as \xNN.
std::string quoted(std::string_view text)
{
    std::string out = "'";
    const size_t limit = 48;
    for (size_t i = 0; i < text.size() && i < limit; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7F) {
            static const char hex[] = "0123456789ABCDEF";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    if (text.size() > limit)
        out += "...";
    out += "'";
    return out;
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

// "<0xHH>" -> HH, or -1.
int parseByteToken(std::string_view text)
{
    if (text.size() != 6 || text.substr(0, 3) != "<0x" || text[5] != '>')
        return -1;
    const int hi = hexValue(text[3]), lo = hexValue(text[4]);
    if (hi < 0 || lo < 0)
        return -1;
    return hi * 16 + lo;
}

std::string toLower(std::string s)
{
    for (char &c : s)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return s;
}

// Token texts that end the generation wherever they are in a vocabulary (the
// reference's list, src/llama-vocab.cpp of August 2026); they are forced to
// CONTROL.
constexpr const char *END_OF_GENERATION_TEXTS[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
    "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
    "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>", "[e~["};

} // namespace

void TokenIndex::build(const std::vector<TokenInfo> &tokens)
{
    size_t capacity = 16;
    while (capacity < tokens.size() * 2)
        capacity *= 2;
    m_slots.assign(capacity, Slot{});
    m_mask = capacity - 1;
    for (size_t id = 0; id < tokens.size(); ++id) {
        const std::string_view text = tokens[id].text;
        const uint64_t h = std::hash<std::string_view>()(text);
        const uint32_t tag = uint32_t(h >> 32);
        for (size_t i = size_t(h) & m_mask;; i = (i + 1) & m_mask) {
            Slot &slot = m_slots[i];
            if (slot.id < 0) {
                slot = {tag, static_cast<int32_t>(id)};
                break;
            }
            if (slot.tag == tag && tokens[size_t(slot.id)].text == text) {
                slot.id = static_cast<int32_t>(id);   // duplicate text: the last id wins
                break;
            }
        }
    }
}

void MergeTable::reserve(size_t merges)
{
    size_t capacity = 16;
    while (capacity < merges * 2)
        capacity *= 2;
    m_slots.assign(capacity, Entry{});
    m_mask = capacity - 1;
    m_size = 0;
}

bool MergeTable::insert(int32_t left, int32_t right, int32_t rank, int32_t result)
{
    if (m_slots.empty() || (m_size + 1) * 2 > m_slots.size()) {
        // Grow (only when reserve() was too small): rehash into twice the room.
        std::vector<Entry> old = std::move(m_slots);
        reserve(std::max<size_t>(16, (m_size + 1) * 2));
        for (const Entry &e : old)
            if (e.key != EMPTY)
                insert(int32_t(e.key >> 32), int32_t(uint32_t(e.key)), e.rank, e.result);
    }
    const uint64_t key = makeKey(left, right);
    for (size_t i = slot(key);; i = (i + 1) & m_mask) {
        Entry &e = m_slots[i];
        if (e.key == key)
            return false;
        if (e.key == EMPTY) {
            e = {key, rank, result};
            ++m_size;
            return true;
        }
    }
}

Result<std::unique_ptr<Vocab>> buildVocab(VocabData data)
{
    const std::string where = data.source + ": tokenizer";
    auto fail = [&](const std::string &message) { return Status::error(where + ": " + message); };

    auto vocab = std::make_unique<Vocab>();
    Vocab &v = *vocab;
    v.modelName = data.model;
    v.preName = data.pre;

    // ---- model type and its defaults ----
    if (data.model == "llama") {
        v.type = VocabType::VOCAB_TYPE_SPM;
        v.bos = 1;
        v.eos = 2;
        v.unk = 0;
        v.addSpacePrefix = true;
        v.addBos = true;
        v.addEos = false;
        v.cleanSpaces = false;
    } else if (data.model == "gpt2") {
        v.type = VocabType::VOCAB_TYPE_BPE;
        auto pre = lookupPreTokenizer(data.pre);
        if (!pre)
            return fail(pre.message());
        v.regexSet = pre->regexSet;
        v.ignoreMerges = pre->ignoreMerges;
        v.addBos = pre->addBos;
        v.cleanSpaces = pre->cleanSpaces;
        v.addSpacePrefix = false;
        v.addEos = false;
        v.bos = pre->noBos ? -1 : 11;
        v.eos = 11;
    } else if (data.model == "gemma4") {
        // As the reference: BPE with the "gemma4" pre-tokenizer whatever
        // tokenizer.ggml.pre says, spaces escaped, BOS always added, the
        // special ids from the file.
        v.type = VocabType::VOCAB_TYPE_BPE;
        v.rawUtf8 = true;
        auto pre = lookupPreTokenizer("gemma4");
        if (!pre)
            return fail(pre.message());
        v.regexSet = pre->regexSet;
        v.cleanSpaces = pre->cleanSpaces;
        v.addSpacePrefix = false;
        v.addEos = false;
    } else if (data.model.empty()) {
        return fail("missing tokenizer.ggml.model");
    } else {
        return fail("tokenizer model '" + data.model +
                    "' (tokenizer.ggml.model) is not supported; Burrow supports 'llama' (SentencePiece), 'gpt2' (byte-level "
                    "BPE) and 'gemma4' (Gemma 4's BPE)");
    }
    if (data.addSpacePrefix)
        v.addSpacePrefix = *data.addSpacePrefix;
    if (data.addBos)
        v.addBos = *data.addBos;
    if (data.addEos)
        v.addEos = *data.addEos;
    if (v.rawUtf8 && !v.addBos) {
        // The reference's Gemma 4 workaround: BOS is added whatever the file says.
        logMessage(LogLevel::LOG_LEVEL_DEBUG, where + ": tokenizer.ggml.add_bos_token is false; Gemma 4 adds BOS anyway");
        v.addBos = true;
    }

    // ---- tokens, scores, types ----
    const size_t n = data.tokens.size();
    if (n == 0)
        return fail("tokenizer.ggml.tokens is empty");
    if (n > static_cast<size_t>(INT32_MAX))
        return fail("tokenizer.ggml.tokens has " + std::to_string(n) + " entries, more than token ids can address");
    if (!data.scores.empty() && data.scores.size() != n)
        return fail("tokenizer.ggml.scores has " + std::to_string(data.scores.size()) + " entries, expected " +
                    std::to_string(n) + " (one per token)");
    if (!data.tokenTypes.empty() && data.tokenTypes.size() != n)
        return fail("tokenizer.ggml.token_type has " + std::to_string(data.tokenTypes.size()) + " entries, expected " +
                    std::to_string(n) + " (one per token)");

    v.tokens.resize(n);
    for (size_t i = 0; i < n; ++i) {
        TokenInfo &t = v.tokens[i];
        t.text = std::move(data.tokens[i]);
        if (t.text.empty()) {
            // As the reference: an empty token could never be found in text.
            logMessage(LogLevel::LOG_LEVEL_WARN, where + ": empty token at index " + std::to_string(i));
            t.text = "[EMPTY_" + std::to_string(i) + "]";
        }
        t.score = data.scores.empty() ? 0.0f : data.scores[i];
        if (!data.tokenTypes.empty()) {
            const int32_t raw = data.tokenTypes[i];
            if (raw < 0 || raw > 6)
                return fail("token " + std::to_string(i) + " " + quoted(t.text) + " has token_type " +
                            std::to_string(raw) + ", expected 0..6");
            t.type = static_cast<TokenType>(raw);
        }
    }
    v.index.build(v.tokens);

    // ---- special ids ----
    const int64_t count = static_cast<int64_t>(n);
    struct IdKey {
        const char *key;
        const std::optional<int64_t> &value;
        int32_t &id;
        bool required;   // out of range: refuse (else: warn, keep the default)
    };
    const IdKey idKeys[] = {
        {"bos_token_id", data.bosId, v.bos, true},
        {"eos_token_id", data.eosId, v.eos, true},
        {"eot_token_id", data.eotId, v.eot, true},
        {"eom_token_id", data.eomId, v.eom, true},
        {"unknown_token_id", data.unkId, v.unk, true},
        {"padding_token_id", data.padId, v.pad, false},
        {"seperator_token_id", data.sepId, v.sep, false},
        {"mask_token_id", data.maskId, v.mask, false},
        {"fim_pre_token_id", data.fimPreId, v.fimPre, false},
        {"fim_suf_token_id", data.fimSufId, v.fimSuf, false},
        {"fim_mid_token_id", data.fimMidId, v.fimMid, false},
        {"fim_pad_token_id", data.fimPadId, v.fimPad, false},
        {"fim_rep_token_id", data.fimRepId, v.fimRep, false},
        {"fim_sep_token_id", data.fimSepId, v.fimSep, false},
    };
    for (const IdKey &k : idKeys) {
        // Built-in defaults that a small vocabulary cannot hold are dropped.
        if (k.id >= count)
            k.id = -1;
        if (!k.value)
            continue;
        const int64_t value = *k.value;
        // -1 written as u32 (0xFFFFFFFF) is how converters say "no such token".
        if (!k.required && (value == -1 || value == 0xFFFFFFFFll)) {
            k.id = -1;
            continue;
        }
        if (value < 0 || value >= count) {
            const std::string message = "tokenizer.ggml." + std::string(k.key) + " is " + std::to_string(value) +
                                        ", expected 0.." + std::to_string(count - 1) + " (the vocabulary has " +
                                        std::to_string(count) + " tokens)";
            if (k.required)
                return fail(message);
            logMessage(LogLevel::LOG_LEVEL_WARN, where + ": " + message + "; ignored");
            continue;
        }
        k.id = static_cast<int32_t>(value);
    }

    // ---- SPM (and Gemma 4) byte tokens ----
    std::fill(std::begin(v.byteTokens), std::end(v.byteTokens), -1);
    if (v.type == VocabType::VOCAB_TYPE_SPM || v.rawUtf8) {
        for (size_t i = 0; i < n; ++i) {
            TokenInfo &t = v.tokens[i];
            if (t.type != TokenType::TOKEN_TYPE_BYTE)
                continue;
            const int byte = parseByteToken(t.text);
            if (byte < 0)
                return fail("token " + std::to_string(i) + " " + quoted(t.text) +
                            " has type byte but is not spelled <0xHH> with two hex digits");
            t.byteValue = static_cast<int16_t>(byte);
        }
        static const char hex[] = "0123456789ABCDEF";
        for (int b = 0; b < 256; ++b) {
            const char spelled[6] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
            int32_t id = v.find(std::string_view(spelled, 6));
            if (id < 0 && !v.rawUtf8) {
                const char single = static_cast<char>(b);
                id = v.find(std::string_view(&single, 1));
            }
            v.byteTokens[b] = id;
        }
    }

    // ---- BPE merges ----
    std::fill(std::begin(v.byteLevelTokens), std::end(v.byteLevelTokens), -1);
    if (v.type == VocabType::VOCAB_TYPE_BPE) {
        for (int b = 0; b < 256 && !v.rawUtf8; ++b)
            v.byteLevelTokens[b] = v.find(byteLevelEncodeByte(static_cast<uint8_t>(b)));
        if (data.merges.empty())
            return fail("byte-level BPE vocabulary without tokenizer.ggml.merges");
        if (data.merges.size() > static_cast<size_t>(INT32_MAX))
            return fail("tokenizer.ggml.merges has too many entries");
        v.merges.reserve(data.merges.size());
        std::unordered_map<std::string, int32_t> synthetic;
        std::string joined;
        for (size_t i = 0; i < data.merges.size(); ++i) {
            const std::string_view merge = data.merges[i];
            const size_t space = merge.find(' ', 1);
            if (space == std::string_view::npos)
                return fail("merge " + std::to_string(i) + " " + quoted(merge) +
                            " has no space separating two tokens");
            const std::string_view left = merge.substr(0, space), right = merge.substr(space + 1);
            const int32_t leftId = v.find(left), rightId = v.find(right);
            if (leftId < 0 || rightId < 0)
                return fail("merge " + std::to_string(i) + " " + quoted(merge) + " names " +
                            quoted(leftId < 0 ? left : right) + ", which is not a token");
            joined.assign(left);
            joined.append(right);
            int32_t resultId = v.find(joined);
            if (resultId < 0) {
                // Unusual (Hugging Face refuses such files); kept for exactness.
                const auto [it, inserted] = synthetic.emplace(joined, static_cast<int32_t>(n + v.syntheticTexts.size()));
                if (inserted)
                    v.syntheticTexts.push_back(joined);
                resultId = it->second;
            }
            v.merges.insert(leftId, rightId, static_cast<int32_t>(i), resultId);   // first rank wins
        }
    }

    // ---- special tokens found by text (the reference's workaround) ----
    auto forceControl = [&](int32_t id, const char *why) {
        TokenInfo &t = v.tokens[id];
        if (t.type != TokenType::TOKEN_TYPE_CONTROL) {
            logMessage(LogLevel::LOG_LEVEL_DEBUG, where + ": token " + std::to_string(id) + " " + quoted(t.text) +
                                                      " looks like a control token (" + why + "); treated as control");
            t.type = TokenType::TOKEN_TYPE_CONTROL;
        }
    };
    auto detect = [&](int32_t &id, std::initializer_list<const char *> texts, const char *why) {
        if (id >= 0)
            return;
        for (const char *text : texts) {
            const int32_t found = v.find(text);
            if (found >= 0) {
                id = found;
                forceControl(found, why);
                return;
            }
        }
    };
    // The harmony vocabulary (gpt-oss) and solar-open end a message with
    // <|end|> and the reply with <|return|> / <|call|> (<|flush|> /
    // <|calls|>): there <|end|> ends a channel, not the generation.
    auto exists = [&](const char *text) { return v.find(text) >= 0; };
    const bool endIsChannelEnd = exists("<|end|>") && ((exists("<|return|>") && (exists("<|call|>") || exists("<|calls|>"))) ||
                                                       ((exists("<|call|>") || exists("<|calls|>")) && exists("<|flush|>")));
    // The reference takes the first match in its hash map's order; Burrow
    // takes them in this order (and never the channel end above).
    if (endIsChannelEnd)
        detect(v.eot, {"<|eot_id|>", "<|im_end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>", "_<EOT>",
                       "[EOT]", "<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>", "<end_of_utterance>"},
               "end of turn");
    else
        detect(v.eot, {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>",
                       "_<EOT>", "[EOT]", "<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>",
                       "<end_of_utterance>"},
               "end of turn");
    detect(v.eom, {"<|eom_id|>"}, "end of message");
    detect(v.fimPre, {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "begin\xef\xbd\x9c>", "<PRE>",
                      "\xe2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>"},
           "fill-in-the-middle");
    detect(v.fimSuf, {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "hole\xef\xbd\x9c>", "<SUF>",
                      "\xe2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>"},
           "fill-in-the-middle");
    detect(v.fimMid, {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "end\xef\xbd\x9c>", "<MID>",
                      "\xe2\x96\x81<MID>", "<|code_middle|>", "<|middle|>"},
           "fill-in-the-middle");
    detect(v.fimPad, {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}, "fill-in-the-middle");
    detect(v.fimRep, {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}, "fill-in-the-middle");
    detect(v.fimSep, {"<|file_sep|>"}, "fill-in-the-middle");

    // ---- end of generation ----
    std::vector<int32_t> eog;
    for (const int32_t id : {v.fimPad, v.fimRep, v.fimSep})
        if (id >= 0)
            eog.push_back(id);
    for (const char *text : END_OF_GENERATION_TEXTS) {
        const int32_t id = v.find(text);
        if (id >= 0) {
            eog.push_back(id);
            forceControl(id, "end of generation");
        }
    }
    for (const int32_t id : {v.eos, v.eot, v.eom})
        if (id >= 0)
            eog.push_back(id);
    // The harmony markup is rendered as text (USER_DEFINED), so that the
    // reasoning splitter sees the channel headers in the output; the
    // channel end <|end|> too, and it does not end the generation.
    for (const char *text : {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"})
        if (const int32_t id = v.find(text); id >= 0)
            v.tokens[id].type = TokenType::TOKEN_TYPE_USER_DEFINED;
    if (endIsChannelEnd) {
        const int32_t end = v.find("<|end|>");
        eog.erase(std::remove(eog.begin(), eog.end(), end), eog.end());
        v.tokens[end].type = TokenType::TOKEN_TYPE_USER_DEFINED;
    }
    // Gemma 4 (and paddleocr): </s> is not an end of generation where
    // <|tool_response> exists.
    if (const int32_t s = v.find("</s>"); s >= 0 && v.find("<|tool_response>") >= 0) {
        eog.erase(std::remove(eog.begin(), eog.end(), s), eog.end());
        v.tokens[s].type = TokenType::TOKEN_TYPE_NORMAL;
    }
    std::sort(eog.begin(), eog.end());
    eog.erase(std::unique(eog.begin(), eog.end()), eog.end());
    v.endOfGeneration = std::move(eog);

    // ---- the special-token cut order ----
    for (size_t i = 0; i < n; ++i) {
        const TokenType t = v.tokens[i].type;
        if (t == TokenType::TOKEN_TYPE_CONTROL || t == TokenType::TOKEN_TYPE_USER_DEFINED ||
            t == TokenType::TOKEN_TYPE_UNKNOWN)
            v.specialTokens.push_back(static_cast<int32_t>(i));
    }
    std::stable_sort(v.specialTokens.begin(), v.specialTokens.end(), [&](int32_t a, int32_t b) {
        return v.tokens[a].text.size() > v.tokens[b].text.size();
    });

    // ---- per-model strip attributes (the reference keys them on names) ----
    const std::string name = toLower(data.generalName);
    if (data.pre.find("jina-v2-de") != std::string::npos || data.pre.find("jina-v2-es") != std::string::npos ||
        data.pre.find("jina-v2-code") != std::string::npos) {
        const int32_t id = v.find("<mask>");
        if (id >= 0)
            v.tokens[id].lstrip = true;
    } else if (name.find("phi-3") != std::string::npos || name.find("phi3") != std::string::npos) {
        for (const int32_t id : v.specialTokens)
            v.tokens[id].rstrip = true;
        if (const int32_t id = v.find("</s>"); id >= 0)
            v.tokens[id].rstrip = true;
        for (const char *text : {"<unk>", "<s>", "<|endoftext|>"})
            if (const int32_t id = v.find(text); id >= 0)
                v.tokens[id].rstrip = false;
    }

    if (v.addBos && v.bos < 0) {
        logMessage(LogLevel::LOG_LEVEL_WARN, where + ": add_bos_token is set but the vocabulary has no BOS token; not adding one");
        v.addBos = false;
    }
    if (v.addEos && v.eos < 0) {
        logMessage(LogLevel::LOG_LEVEL_WARN, where + ": add_eos_token is set but the vocabulary has no EOS token; not adding one");
        v.addEos = false;
    }
    return vocab;
}

} // namespace burrow::tokenizer
