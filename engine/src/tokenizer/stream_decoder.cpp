#include "tokenizer/stream_decoder.h"

#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace burrow::tokenizer {

std::string Utf8StreamDecoder::push(std::string_view bytes)
{
    std::string buffer;
    std::string_view text = bytes;
    if (!m_pending.empty()) {
        buffer = m_pending;
        buffer.append(bytes);
        text = buffer;
        m_pending.clear();
    }
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) {
        if (static_cast<uint8_t>(text[pos]) < 0x80) {
            out.push_back(text[pos++]);
            continue;
        }
        const Utf8Sequence seq = utf8Decode(text, pos);
        switch (seq.status) {
        case Utf8Status::UTF8_STATUS_VALID:
            out.append(text.substr(pos, seq.length));
            break;
        case Utf8Status::UTF8_STATUS_INVALID:
            utf8Append(out, UTF8_REPLACEMENT_CHARACTER);
            break;
        case Utf8Status::UTF8_STATUS_INCOMPLETE:
            m_pending.assign(text.substr(pos));   // only at the very end
            break;
        }
        pos += seq.length;
    }
    return out;
}

std::string Utf8StreamDecoder::finish()
{
    std::string out;
    if (!m_pending.empty())
        utf8Append(out, UTF8_REPLACEMENT_CHARACTER);   // one unfinished sequence
    m_pending.clear();
    return out;
}

StreamDecoder::StreamDecoder(const Tokenizer &tokenizer, bool renderSpecial)
    : m_tokenizer(&tokenizer), m_renderSpecial(renderSpecial)
{
}

std::string StreamDecoder::push(int32_t id)
{
    return m_utf8.push(m_tokenizer->tokenBytes(id, m_renderSpecial));
}

} // namespace burrow::tokenizer
