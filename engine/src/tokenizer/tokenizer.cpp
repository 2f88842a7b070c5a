#include "tokenizer/tokenizer.h"

#include "gguf/gguf_reader.h"
#include "tokenizer/bpe.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/spm.h"
#include "tokenizer/utf8.h"

#include <algorithm>

namespace burrow::tokenizer {

namespace {

constexpr std::string_view SPM_SPACE = "\xe2\x96\x81";   // U+2581 '▁'

void appendEscapedSpaces(std::string_view text, std::string &out)
{
    for (const char c : text) {
        if (c == ' ')
            out.append(SPM_SPACE);
        else
            out.push_back(c);
    }
}

std::string unescapeSpaces(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) {
        if (text.compare(pos, SPM_SPACE.size(), SPM_SPACE) == 0) {
            out.push_back(' ');
            pos += SPM_SPACE.size();
        } else {
            out.push_back(text[pos++]);
        }
    }
    return out;
}

// Byte-level characters -> bytes. A character outside the map (an added
// token spelled in plain text) is kept as its UTF-8; invalid bytes as is.
std::string decodeByteLevel(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) {
        const Utf8Sequence seq = utf8Decode(text, pos);
        if (seq.status == Utf8Status::UTF8_STATUS_VALID) {
            const int byte = byteLevelDecodeCodepoint(seq.codepoint);
            if (byte >= 0)
                out.push_back(static_cast<char>(byte));
            else
                out.append(text.substr(pos, seq.length));
        } else {
            out.append(text.substr(pos, seq.length));
        }
        pos += seq.length;
    }
    return out;
}

// The reference detokenizer's clean-up for clean_spaces vocabularies, three
// passes over the text.
std::string cleanUpSpaces(const std::string &in)
{
    if (in.empty())
        return in;
    // 1: " ?", " !", " .", " ," lose the space.
    std::string a;
    a.reserve(in.size());
    a.push_back(in[0]);
    for (size_t i = 1; i < in.size(); ++i) {
        const char x = in[i];
        if (in[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ','))
            a.pop_back();
        a.push_back(x);
    }
    // 2: " ' " becomes "'".
    std::string b;
    b.reserve(a.size());
    b.push_back(a[0]);
    char previous = a[0];
    for (size_t i = 1; i < a.size(); ++i) {
        const char x = a[i];
        if (x == '\'' && i + 1 < a.size() && previous == ' ' && a[i + 1] == ' ') {
            b.pop_back();
            b.push_back(x);
            ++i;              // the space after is dropped
            previous = '\0';  // and no longer counts as a space before the next character
            continue;
        }
        b.push_back(x);
        previous = x;
    }
    // 3: " 's", " 'm", " 're", " 've" lose the space.
    std::string c;
    c.reserve(b.size());
    c.push_back(b[0]);
    for (size_t i = 1; i < b.size(); ++i) {
        const char x = b[i];
        if (b[i - 1] == ' ' && x == '\'' && i + 1 < b.size()) {
            const char x1 = b[i + 1];
            if (x1 == 't' || x1 == 'd') {
                // kept
            } else if (x1 == 's' || x1 == 'm') {
                c.pop_back();
            } else if (i + 2 < b.size()) {
                const char x2 = b[i + 2];
                if ((x1 == 'r' && x2 == 'e') || (x1 == 'v' && x2 == 'e'))
                    c.pop_back();
            }
        }
        c.push_back(x);
    }
    return c;
}

} // namespace

struct Tokenizer::Private {
    std::unique_ptr<Vocab> vocab;
    std::unique_ptr<PreTokenizer> pre;      // BPE only
    std::vector<std::string> pieces;        // tokenBytes with renderSpecial, per id
};

Tokenizer::Tokenizer() : d(std::make_unique<Private>()) {}
Tokenizer::~Tokenizer() = default;

Result<std::unique_ptr<Tokenizer>> Tokenizer::fromGguf(const gguf::GgufFile &file)
{
    VocabData data;
    if (Status s = readVocabData(file, data); !s)
        return s;
    return create(std::move(data));
}

Result<std::unique_ptr<Tokenizer>> Tokenizer::create(VocabData data)
{
    const std::string source = data.source;
    auto vocab = buildVocab(std::move(data));
    if (!vocab)
        return vocab.status();

    std::unique_ptr<Tokenizer> t(new Tokenizer());
    t->d->vocab = std::move(vocab.value());
    const Vocab &v = *t->d->vocab;
    if (v.type == VocabType::VOCAB_TYPE_BPE) {
        auto pre = PreTokenizer::create(v.regexSet);
        if (!pre)
            return pre.status().withContext(source);
        t->d->pre = std::move(pre.value());
    }

    // Pieces, as the reference's token-to-piece cache (special tokens rendered).
    auto &pieces = t->d->pieces;
    pieces.resize(v.tokens.size());
    for (size_t i = 0; i < v.tokens.size(); ++i) {
        const TokenInfo &token = v.tokens[i];
        switch (token.type) {
        case TokenType::TOKEN_TYPE_CONTROL:
        case TokenType::TOKEN_TYPE_UNKNOWN:
        case TokenType::TOKEN_TYPE_USER_DEFINED:
            pieces[i] = token.text;
            break;
        case TokenType::TOKEN_TYPE_NORMAL:
            pieces[i] = v.type == VocabType::VOCAB_TYPE_SPM || v.rawUtf8 ? unescapeSpaces(token.text) : decodeByteLevel(token.text);
            break;
        case TokenType::TOKEN_TYPE_BYTE:
            // The reference writes nothing for byte-typed tokens of byte-level
            // BPE vocabularies; SPM and Gemma 4 byte tokens are their byte.
            if ((v.type == VocabType::VOCAB_TYPE_SPM || v.rawUtf8) && token.byteValue >= 0)
                pieces[i] = std::string(1, static_cast<char>(token.byteValue));
            break;
        case TokenType::TOKEN_TYPE_UNUSED:
        case TokenType::TOKEN_TYPE_UNDEFINED:
            break;
        }
    }
    return t;
}

VocabType Tokenizer::type() const { return d->vocab->type; }
const std::string &Tokenizer::modelName() const { return d->vocab->modelName; }
const std::string &Tokenizer::preName() const { return d->vocab->preName; }
int32_t Tokenizer::size() const { return d->vocab->size(); }
const Vocab &Tokenizer::vocab() const { return *d->vocab; }

std::vector<int32_t> Tokenizer::tokenize(std::string_view text, bool addSpecial, bool parseSpecial) const
{
    const Vocab &v = *d->vocab;
    std::vector<int32_t> out;
    out.reserve(text.size() / 3 + 4);
    if (addSpecial && v.addBos)
        out.push_back(v.bos);

    const std::vector<Fragment> fragments = partitionSpecialTokens(v, text, parseSpecial);
    if (v.type == VocabType::VOCAB_TYPE_SPM) {
        bool previousSpecial = true;   // the text start counts: it gets the space prefix
        std::string escaped;
        for (const Fragment &f : fragments) {
            if (f.token >= 0) {
                out.push_back(f.token);
                previousSpecial = true;
                continue;
            }
            escaped.clear();
            if (v.addSpacePrefix && previousSpecial)
                escaped.append(SPM_SPACE);
            appendEscapedSpaces(text.substr(f.offset, f.length), escaped);
            spmTokenize(v, escaped, out);
            previousSpecial = false;
        }
    } else {
        std::string escaped;
        for (const Fragment &f : fragments) {
            if (f.token >= 0) {
                out.push_back(f.token);
            } else if (v.rawUtf8) {   // Gemma 4: spaces are '▁' before the split and the merges
                escaped.clear();
                appendEscapedSpaces(text.substr(f.offset, f.length), escaped);
                bpeTokenize(v, *d->pre, escaped, out);
            } else {
                bpeTokenize(v, *d->pre, text.substr(f.offset, f.length), out);
            }
        }
    }

    if (addSpecial && v.addEos)
        out.push_back(v.eos);
    return out;
}

std::string Tokenizer::tokenBytes(int32_t id, bool renderSpecial) const
{
    const Vocab &v = *d->vocab;
    if (!v.valid(id))
        return {};
    const TokenType type = v.tokens[id].type;
    if (!renderSpecial && (type == TokenType::TOKEN_TYPE_CONTROL || type == TokenType::TOKEN_TYPE_UNKNOWN))
        return {};
    return d->pieces[id];
}

std::string Tokenizer::detokenize(std::span<const int32_t> ids, const DetokenizeOptions &options) const
{
    const Vocab &v = *d->vocab;
    std::string text;
    bool removeSpace = options.removeLeadingSpace && v.addSpacePrefix;
    for (const int32_t id : ids) {
        std::string piece = tokenBytes(id, options.renderSpecial);
        if (removeSpace && !piece.empty() && piece[0] == ' ')
            piece.erase(0, 1);
        removeSpace = false;
        text += piece;
    }
    if (options.cleanSpaces && v.cleanSpaces)
        text = cleanUpSpaces(text);
    return text;
}

int32_t Tokenizer::bos() const { return d->vocab->bos; }
int32_t Tokenizer::eos() const { return d->vocab->eos; }
int32_t Tokenizer::eot() const { return d->vocab->eot; }
int32_t Tokenizer::eom() const { return d->vocab->eom; }
int32_t Tokenizer::unk() const { return d->vocab->unk; }
int32_t Tokenizer::pad() const { return d->vocab->pad; }
bool Tokenizer::addBos() const { return d->vocab->addBos; }
bool Tokenizer::addEos() const { return d->vocab->addEos; }
bool Tokenizer::addSpacePrefix() const { return d->vocab->addSpacePrefix; }

bool Tokenizer::isEndOfGeneration(int32_t id) const
{
    const auto &eog = d->vocab->endOfGeneration;
    return id >= 0 && std::binary_search(eog.begin(), eog.end(), id);
}

const std::vector<int32_t> &Tokenizer::endOfGenerationIds() const { return d->vocab->endOfGeneration; }

const std::string &Tokenizer::tokenText(int32_t id) const
{
    static const std::string empty;
    return d->vocab->valid(id) ? d->vocab->tokens[id].text : empty;
}

TokenType Tokenizer::tokenType(int32_t id) const
{
    return d->vocab->valid(id) ? d->vocab->tokens[id].type : TokenType::TOKEN_TYPE_UNDEFINED;
}

float Tokenizer::tokenScore(int32_t id) const
{
    return d->vocab->valid(id) ? d->vocab->tokens[id].score : 0.0f;
}

bool Tokenizer::isControl(int32_t id) const { return tokenType(id) == TokenType::TOKEN_TYPE_CONTROL; }

int32_t Tokenizer::findToken(std::string_view text) const { return d->vocab->find(text); }

} // namespace burrow::tokenizer
