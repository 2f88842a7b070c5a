// The tokenizer side of ModelImpl.
// INTERIM: until tokenizer/tokenizer.h lands this reads the token texts only
// (SPM spelling: U+2581 for space, <0xHH> bytes); tokenize() returns nothing.
#include "runtime/model_impl.h"

#include <algorithm>

namespace burrow::tokenizer {
class Tokenizer {
public:
    std::vector<std::string> pieces;
    Token eos = -1, bos = -1, eot = -1;
    bool addBos = true;
};
} // namespace burrow::tokenizer

namespace burrow::runtime {

namespace {

std::string spmPiece(const std::string &text)
{
    if (text.size() == 6 && text.compare(0, 3, "<0x") == 0 && text[5] == '>') {
        const int v = std::stoi(text.substr(3, 2), nullptr, 16);
        return std::string(1, static_cast<char>(v));
    }
    std::string out;
    for (size_t i = 0; i < text.size();) {
        if (text.compare(i, 3, "\xE2\x96\x81") == 0) {
            out += ' ';
            i += 3;
        } else {
            out += text[i++];
        }
    }
    return out;
}

// Length of the longest prefix of s made of complete UTF-8 sequences.
size_t completeUtf8Prefix(const std::string &s)
{
    size_t i = s.size();
    // Look back at most 3 bytes for an unfinished lead byte.
    for (size_t back = 1; back <= 4 && back <= s.size(); ++back) {
        const unsigned char c = static_cast<unsigned char>(s[s.size() - back]);
        if ((c & 0xC0) == 0x80)
            continue;                     // continuation byte
        size_t need = 1;
        if ((c & 0xE0) == 0xC0) need = 2;
        else if ((c & 0xF0) == 0xE0) need = 3;
        else if ((c & 0xF8) == 0xF0) need = 4;
        if (need > back)
            i = s.size() - back;
        break;
    }
    return i;
}

class SimpleTextStream final : public TokenTextStream {
public:
    explicit SimpleTextStream(const ModelImpl &model) : m_model(model) {}
    std::string push(Token token) override
    {
        m_pending += m_model.tokenBytes(token);
        const size_t n = completeUtf8Prefix(m_pending);
        std::string out = m_pending.substr(0, n);
        m_pending.erase(0, n);
        return out;
    }
    std::string finish() override
    {
        std::string out = m_pending.empty() ? "" : "\xEF\xBF\xBD";
        m_pending.clear();
        return out;
    }

private:
    const ModelImpl &m_model;
    std::string m_pending;
};

} // namespace

ModelImpl::ModelImpl() = default;
ModelImpl::~ModelImpl() = default;

Status ModelImpl::loadTokenizer()
{
    auto tok = std::make_unique<tokenizer::Tokenizer>();
    if (Status s = m_file->getStringArray("tokenizer.ggml.tokens", tok->pieces); !s)
        return s;
    for (std::string &p : tok->pieces)
        p = spmPiece(p);
    uint32_t v = 0;
    if (m_file->find("tokenizer.ggml.eos_token_id") && m_file->getU32("tokenizer.ggml.eos_token_id", v))
        tok->eos = static_cast<Token>(v);
    if (m_file->find("tokenizer.ggml.bos_token_id") && m_file->getU32("tokenizer.ggml.bos_token_id", v))
        tok->bos = static_cast<Token>(v);
    m_tokenizer = std::move(tok);
    return Status::ok();
}

std::vector<Token> ModelImpl::tokenize(std::string_view, bool addSpecial, bool) const
{
    std::vector<Token> out;
    if (addSpecial && m_tokenizer && m_tokenizer->bos >= 0)
        out.push_back(m_tokenizer->bos);
    return out;
}

std::string ModelImpl::tokenBytes(Token token) const
{
    if (!m_tokenizer || token < 0 || static_cast<size_t>(token) >= m_tokenizer->pieces.size())
        return {};
    if (token == m_tokenizer->bos || token == m_tokenizer->eos)
        return {};
    return m_tokenizer->pieces[static_cast<size_t>(token)];
}

std::string ModelImpl::detokenize(const std::vector<Token> &tokens) const
{
    std::string out;
    for (Token t : tokens)
        out += tokenBytes(t);
    return out;
}

bool ModelImpl::isEndOfGeneration(Token token) const
{
    return m_tokenizer && token == m_tokenizer->eos;
}

Token ModelImpl::addedBos() const
{
    return m_tokenizer && m_tokenizer->addBos ? m_tokenizer->bos : -1;
}

std::unique_ptr<TokenTextStream> ModelImpl::newTextStream() const
{
    return std::make_unique<SimpleTextStream>(*this);
}

} // namespace burrow::runtime
