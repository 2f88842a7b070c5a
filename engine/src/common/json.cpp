// JSON reader: recursive descent over a string_view with an explicit depth
// limit. See json.h for the contract.
#include "common/json.h"
#include "common/utf8.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace burrow::json {

JsonValue::JsonValue() = default;
JsonValue::~JsonValue() = default;
JsonValue::JsonValue(const JsonValue &) = default;
JsonValue::JsonValue(JsonValue &&) noexcept = default;
JsonValue &JsonValue::operator=(const JsonValue &) = default;
JsonValue &JsonValue::operator=(JsonValue &&) noexcept = default;

const JsonValue *JsonValue::find(std::string_view key) const
{
    if (type != JsonType::JSON_TYPE_OBJECT)
        return nullptr;
    for (const auto &[k, v] : object)
        if (k == key)
            return &v;
    return nullptr;
}

const char *jsonTypeName(JsonType type)
{
    switch (type) {
    case JsonType::JSON_TYPE_NULL: return "null";
    case JsonType::JSON_TYPE_BOOL: return "bool";
    case JsonType::JSON_TYPE_INT: return "integer";
    case JsonType::JSON_TYPE_DOUBLE: return "number";
    case JsonType::JSON_TYPE_STRING: return "string";
    case JsonType::JSON_TYPE_ARRAY: return "array";
    case JsonType::JSON_TYPE_OBJECT: return "object";
    }
    return "?";
}

namespace {

class Parser {
public:
    Parser(std::string_view text, const std::string &name) : m_text(text), m_name(name) {}

    Result<JsonValue> parseDocument()
    {
        JsonValue value;
        skipSpace();
        if (Status s = parseValue(value, 0); !s)
            return s;
        skipSpace();
        if (m_pos != m_text.size())
            return fail("unexpected text after the JSON value");
        return value;
    }

private:
    Status fail(const std::string &what) const
    {
        size_t line = 1, col = 1;
        for (size_t i = 0; i < m_pos && i < m_text.size(); ++i) {
            if (m_text[i] == '\n') {
                ++line;
                col = 1;
            } else if ((uint8_t(m_text[i]) & 0xC0) != 0x80) {
                ++col;
            }
        }
        return Status::error(m_name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what);
    }

    void skipSpace()
    {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                break;
            ++m_pos;
        }
    }

    bool consumeWord(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            return false;
        m_pos += word.size();
        return true;
    }

    Status parseValue(JsonValue &out, int depth)
    {
        if (depth > JSON_MAX_DEPTH)
            return fail("nesting deeper than " + std::to_string(JSON_MAX_DEPTH) + " levels");
        if (m_pos >= m_text.size())
            return fail("unexpected end of input, expected a value");
        const char c = m_text[m_pos];
        if (c == '{')
            return parseObject(out, depth);
        if (c == '[')
            return parseArray(out, depth);
        if (c == '"') {
            out.type = JsonType::JSON_TYPE_STRING;
            return parseString(out.string);
        }
        if (c == '-' || (c >= '0' && c <= '9'))
            return parseNumber(out);
        if (consumeWord("true")) {
            out.type = JsonType::JSON_TYPE_BOOL;
            out.boolean = true;
            return {};
        }
        if (consumeWord("false")) {
            out.type = JsonType::JSON_TYPE_BOOL;
            out.boolean = false;
            return {};
        }
        if (consumeWord("null")) {
            out.type = JsonType::JSON_TYPE_NULL;
            return {};
        }
        return fail(std::string("unexpected character '") + c + "', expected a value");
    }

    Status parseObject(JsonValue &out, int depth)
    {
        out.type = JsonType::JSON_TYPE_OBJECT;
        ++m_pos; // {
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == '}') {
            ++m_pos;
            return {};
        }
        while (true) {
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '"')
                return fail("expected a string key in object");
            std::string key;
            if (Status s = parseString(key); !s)
                return s;
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != ':')
                return fail("expected ':' after object key");
            ++m_pos;
            skipSpace();
            JsonValue value;
            if (Status s = parseValue(value, depth + 1); !s)
                return s;
            bool replaced = false;
            for (auto &[k, v] : out.object) {
                if (k == key) {
                    v = std::move(value);
                    replaced = true;
                    break;
                }
            }
            if (!replaced)
                out.object.emplace_back(std::move(key), std::move(value));
            skipSpace();
            if (m_pos >= m_text.size())
                return fail("unexpected end of input in object, expected ',' or '}'");
            if (m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_text[m_pos] == '}') {
                ++m_pos;
                return {};
            }
            return fail("expected ',' or '}' in object");
        }
    }

    Status parseArray(JsonValue &out, int depth)
    {
        out.type = JsonType::JSON_TYPE_ARRAY;
        ++m_pos; // [
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ']') {
            ++m_pos;
            return {};
        }
        while (true) {
            skipSpace();
            JsonValue value;
            if (Status s = parseValue(value, depth + 1); !s)
                return s;
            out.array.push_back(std::move(value));
            skipSpace();
            if (m_pos >= m_text.size())
                return fail("unexpected end of input in array, expected ',' or ']'");
            if (m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_text[m_pos] == ']') {
                ++m_pos;
                return {};
            }
            return fail("expected ',' or ']' in array");
        }
    }

    bool readHex4(uint32_t &out)
    {
        if (m_text.size() - m_pos < 4)
            return false;
        out = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = m_text[m_pos + i];
            out <<= 4;
            if (c >= '0' && c <= '9') out |= uint32_t(c - '0');
            else if (c >= 'a' && c <= 'f') out |= uint32_t(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') out |= uint32_t(c - 'A' + 10);
            else return false;
        }
        m_pos += 4;
        return true;
    }

    Status parseString(std::string &out)
    {
        ++m_pos; // opening quote
        while (true) {
            if (m_pos >= m_text.size())
                return fail("unterminated string");
            const char c = m_text[m_pos];
            if (c == '"') {
                ++m_pos;
                return {};
            }
            if (uint8_t(c) < 0x20)
                return fail("control character in string (must be escaped)");
            if (c != '\\') {
                out += c;
                ++m_pos;
                continue;
            }
            ++m_pos;
            if (m_pos >= m_text.size())
                return fail("unterminated escape in string");
            const char e = m_text[m_pos++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                uint32_t cp = 0;
                if (!readHex4(cp))
                    return fail("expected 4 hex digits after \\u");
                if (cp >= 0xD800 && cp < 0xDC00) {
                    uint32_t low = 0;
                    if (m_text.substr(m_pos, 2) != "\\u")
                        return fail("unpaired high surrogate in \\u escape");
                    m_pos += 2;
                    if (!readHex4(low) || low < 0xDC00 || low >= 0xE000)
                        return fail("expected a low surrogate \\u escape");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xDC00 && cp < 0xE000) {
                    return fail("unpaired low surrogate in \\u escape");
                }
                appendUtf8(out, cp);
                break;
            }
            default:
                --m_pos;
                return fail(std::string("invalid escape '\\") + e + "' in string");
            }
        }
    }

    Status parseNumber(JsonValue &out)
    {
        const size_t start = m_pos;
        bool isInteger = true;
        if (m_text[m_pos] == '-')
            ++m_pos;
        auto digits = [&] {
            size_t n = 0;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') {
                ++m_pos;
                ++n;
            }
            return n;
        };
        if (m_pos < m_text.size() && m_text[m_pos] == '0') {
            ++m_pos;
        } else if (digits() == 0) {
            return fail("expected digits in number");
        }
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            ++m_pos;
            isInteger = false;
            if (digits() == 0)
                return fail("expected digits after '.' in number");
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            ++m_pos;
            isInteger = false;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
                ++m_pos;
            if (digits() == 0)
                return fail("expected digits in exponent");
        }
        const char *first = m_text.data() + start;
        const char *last = m_text.data() + m_pos;
        if (isInteger) {
            int64_t v = 0;
            auto [ptr, ec] = std::from_chars(first, last, v);
            if (ec == std::errc() && ptr == last) {
                out.type = JsonType::JSON_TYPE_INT;
                out.integer = v;
                out.number = double(v);
                return {};
            }
        }
        double d = 0.0;
        auto [ptr, ec] = std::from_chars(first, last, d);
        if (ptr != last || (ec != std::errc() && ec != std::errc::result_out_of_range))
            return fail("invalid number");
        if (!std::isfinite(d))
            return fail("number out of range");
        out.type = JsonType::JSON_TYPE_DOUBLE;
        out.number = d;
        return {};
    }

    std::string_view m_text;
    const std::string &m_name;
    size_t m_pos = 0;
};

void write(std::string &out, const JsonValue &v)
{
    switch (v.type) {
    case JsonType::JSON_TYPE_NULL: out += "null"; break;
    case JsonType::JSON_TYPE_BOOL: out += v.boolean ? "true" : "false"; break;
    case JsonType::JSON_TYPE_INT: out += std::to_string(v.integer); break;
    case JsonType::JSON_TYPE_DOUBLE: {
        char buf[64];
        auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v.number);
        out.append(buf, ec == std::errc() ? ptr : buf);
        break;
    }
    case JsonType::JSON_TYPE_STRING: appendJsonString(out, v.string); break;
    case JsonType::JSON_TYPE_ARRAY:
        out += '[';
        for (size_t i = 0; i < v.array.size(); ++i) {
            if (i)
                out += ',';
            write(out, v.array[i]);
        }
        out += ']';
        break;
    case JsonType::JSON_TYPE_OBJECT:
        out += '{';
        for (size_t i = 0; i < v.object.size(); ++i) {
            if (i)
                out += ',';
            appendJsonString(out, v.object[i].first);
            out += ':';
            write(out, v.object[i].second);
        }
        out += '}';
        break;
    }
}

} // namespace

Result<JsonValue> parseJson(std::string_view text, const std::string &sourceName)
{
    return Parser(text, sourceName).parseDocument();
}

std::string toJsonString(const JsonValue &value)
{
    std::string out;
    write(out, value);
    return out;
}

void appendJsonString(std::string &out, std::string_view text)
{
    out += '"';
    for (const char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (uint8_t(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(uint8_t(c)));
                out += buf;
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

std::string jsonString(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 2);
    appendJsonString(out, text);
    return out;
}

} // namespace burrow::json
