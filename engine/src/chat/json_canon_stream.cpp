// JsonCanonStream (see json_canon_stream.h): a byte-at-a-time JSON state
// machine; escapes and scalars are decoded by json.cpp's own reader and
// written by its writer, so the two never disagree on a form.
#include "chat/json_canon_stream.h"

#include "common/json.h"

namespace burrow::chat {

namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isScalarByte(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' || c == '.' || c == 'E';
}

bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

} // namespace

JsonCanonStream JsonCanonStream::afterObjectMember()
{
    JsonCanonStream s;
    s.m_stack.push_back('{');
    s.m_expect = Expect::EXPECT_COMMA_OR_CLOSE;
    return s;
}

size_t JsonCanonStream::feed(std::string_view bytes, std::string &out)
{
    size_t read = 0;
    while (read < bytes.size() && !m_done && !m_failed) {
        if (!step(bytes[read], out)) {
            m_failed = true;
            break;
        }
        ++read;
    }
    m_consumed += read;
    return read;
}

void JsonCanonStream::valueEnded()
{
    if (m_stack.empty())
        m_done = true;
    else
        m_expect = Expect::EXPECT_COMMA_OR_CLOSE;
}

bool JsonCanonStream::flushScalar(std::string &out)
{
    auto v = json::parseJson(m_scalar, "value");
    m_scalar.clear();
    if (!v || v->isArray() || v->isObject() || v->isString())
        return false;
    out += json::toJsonString(*v);
    valueEnded();
    return true;
}

// A byte inside a string (after its opening quote).
bool JsonCanonStream::stringByte(char c, std::string &out)
{
    if (!m_escape.empty()) {
        m_escape += c;
        const size_t n = m_escape.size();
        if (n == 2 && c != 'u') {
            // fall through to decoding a two-byte escape
        } else if (n >= 3 && n <= 6) {
            if (!isHex(c))
                return false;
            if (n < 6)
                return true;
            const unsigned long cp = std::stoul(m_escape.substr(2, 4), nullptr, 16);
            if (cp >= 0xD800 && cp < 0xDC00)
                return true;   // a high surrogate: its low half follows
        } else if (n == 7 || n == 8) {
            return n == 7 ? c == '\\' : c == 'u';
        } else if (n > 8) {
            if (!isHex(c))
                return false;
            if (n < 12)
                return true;
        } else {
            return true;   // n == 2, 'u'
        }
        std::string literal(1, '"');
        literal += m_escape;
        literal += '"';
        auto decoded = json::parseJson(literal, "escape");
        m_escape.clear();
        if (!decoded)
            return false;
        std::string written;
        json::appendJsonString(written, decoded->string);
        out.append(written, 1, written.size() - 2);
        return true;
    }
    if (c == '\\') {
        m_escape.assign(1, c);
        return true;
    }
    if (c == '"') {
        out += '"';
        m_inString = false;
        if (m_expect == Expect::EXPECT_COLON)
            return true;   // a key ended
        valueEnded();
        return true;
    }
    if (static_cast<unsigned char>(c) < 0x20)
        return false;
    out += c;   // appendJsonString writes every other byte as it is
    return true;
}

bool JsonCanonStream::step(char c, std::string &out)
{
    if (m_inString)
        return stringByte(c, out);
    if (!m_scalar.empty()) {
        if (isScalarByte(c)) {
            if (m_scalar.size() > 4096)
                return false;
            m_scalar += c;
            return true;
        }
        if (!flushScalar(out))
            return false;
        if (m_done)
            return true;   // a top-level scalar; the byte after it is not ours (never reached: feed stops)
    }
    if (isBlank(c))
        return true;
    switch (m_expect) {
    case Expect::EXPECT_KEY_OR_CLOSE:
    case Expect::EXPECT_KEY:
        if (c == '}' && m_expect == Expect::EXPECT_KEY_OR_CLOSE)
            break;
        if (c != '"')
            return false;
        out += '"';
        m_inString = true;
        m_expect = Expect::EXPECT_COLON;
        return true;
    case Expect::EXPECT_COLON:
        if (c != ':')
            return false;
        out += ':';
        m_expect = Expect::EXPECT_VALUE;
        return true;
    case Expect::EXPECT_COMMA_OR_CLOSE:
        if (c == ',') {
            out += ',';
            m_expect = m_stack.back() == '{' ? Expect::EXPECT_KEY : Expect::EXPECT_VALUE;
            return true;
        }
        break;
    case Expect::EXPECT_VALUE_OR_CLOSE:
        if (c == ']')
            break;
        [[fallthrough]];
    case Expect::EXPECT_VALUE:
        if (m_stack.size() > static_cast<size_t>(json::JSON_MAX_DEPTH))
            return false;
        if (c == '{' || c == '[') {
            out += c;
            m_stack.push_back(c);
            m_expect = c == '{' ? Expect::EXPECT_KEY_OR_CLOSE : Expect::EXPECT_VALUE_OR_CLOSE;
            return true;
        }
        if (c == '"') {
            out += '"';
            m_inString = true;
            return true;
        }
        if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
            m_scalar += c;
            return true;
        }
        return false;
    }
    // A closing bracket where one may stand.
    if (m_stack.empty() || c != (m_stack.back() == '{' ? '}' : ']'))
        return false;
    out += c;
    m_stack.pop_back();
    valueEnded();
    return true;
}

} // namespace burrow::chat
