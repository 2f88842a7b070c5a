// The tokenizer side of ModelImpl: tokenizer/tokenizer.h behind the
// burrow::Model interface, and the streaming decoder used by generation.
#include "api/model_impl.h"

#include "tokenizer/stream_decoder.h"
#include "tokenizer/tokenizer.h"

namespace burrow::api {

namespace {

class DecoderStream final : public TokenTextStream {
public:
    DecoderStream(const tokenizer::Tokenizer &tok, std::vector<Token> rendered)
        : m_tok(tok), m_decoder(tok), m_rendered(std::move(rendered))
    {
    }
    std::string push(Token token) override
    {
        for (const Token r : m_rendered)
            if (r == token) {
                // A control token shown as its text: whole, after what is held.
                std::string out = m_decoder.finish();
                return out + m_tok.tokenBytes(token, true);
            }
        return m_decoder.push(token);
    }
    std::string finish() override { return m_decoder.finish(); }

private:
    const tokenizer::Tokenizer &m_tok;
    tokenizer::StreamDecoder m_decoder;
    std::vector<Token> m_rendered;   // a few ids: a linear scan is cheapest
};

// A model file without a vocabulary can still be evaluated on token ids.
class NoTextStream final : public TokenTextStream {
public:
    std::string push(Token) override { return {}; }
    std::string finish() override { return {}; }
};

} // namespace

ModelImpl::ModelImpl() = default;
ModelImpl::~ModelImpl() = default;

Status ModelImpl::loadTokenizer()
{
    if (!m_file->find("tokenizer.ggml.tokens"))
        return Status::ok();   // no vocabulary: token ids only
    auto tok = tokenizer::Tokenizer::fromGguf(*m_file);
    if (!tok)
        return tok.status();
    if (tok.value()->size() > 0 && static_cast<uint32_t>(tok.value()->size()) > m_config.nVocab)
        return Status::error("the vocabulary has " + std::to_string(tok.value()->size()) +
                             " tokens but token_embd.weight has only " + std::to_string(m_config.nVocab) + " rows");
    m_tokenizer = std::move(tok.value());
    return Status::ok();
}

std::vector<Token> ModelImpl::tokenize(std::string_view text, bool addSpecial, bool parseSpecial) const
{
    if (!m_tokenizer)
        return {};
    return m_tokenizer->tokenize(text, addSpecial, parseSpecial);
}

std::string ModelImpl::tokenBytes(Token token) const
{
    return m_tokenizer ? m_tokenizer->tokenBytes(token) : std::string();
}

std::string ModelImpl::detokenize(const std::vector<Token> &tokens) const
{
    return m_tokenizer ? m_tokenizer->detokenize(tokens) : std::string();
}

bool ModelImpl::isEndOfGeneration(Token token) const
{
    return m_tokenizer && m_tokenizer->isEndOfGeneration(token);
}

Token ModelImpl::addedBos() const
{
    return m_tokenizer && m_tokenizer->addBos() ? m_tokenizer->bos() : -1;
}

std::unique_ptr<TokenTextStream> ModelImpl::newTextStream(const std::vector<std::string> &renderedControlTokens) const
{
    if (!m_tokenizer)
        return std::make_unique<NoTextStream>();
    std::vector<Token> rendered;
    for (const std::string &text : renderedControlTokens) {
        const int32_t id = m_tokenizer->findToken(text);
        if (id >= 0 && m_tokenizer->isControl(id) && !m_tokenizer->isEndOfGeneration(id) && rendered.size() < 16)
            rendered.push_back(id);
    }
    return std::make_unique<DecoderStream>(*m_tokenizer, std::move(rendered));
}

} // namespace burrow::api
