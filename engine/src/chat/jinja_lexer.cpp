// Jinja lexer, following jinja2/lexer.py's rules for delimiters and
// whitespace control (see jinja_lexer.h).
#include "chat/jinja_lexer.h"

#include "chat/jinja_value.h"

#include <charconv>

namespace burrow::jinja {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
public:
    Lexer(std::string source, const LexerOptions &options, const std::string &name)
        : m_src(std::move(source)), m_opt(options), m_name(name)
    {
        m_lineStarts.push_back(0);
        for (size_t i = 0; i < m_src.size(); ++i)
            if (m_src[i] == '\n')
                m_lineStarts.push_back(i + 1);
    }

    Result<std::vector<Token>> run()
    {
        size_t pos = 0;
        bool lineStarting = true;
        while (pos < m_src.size()) {
            size_t open = findOpener(pos);
            if (open == std::string::npos) {
                emitText(pos, m_src.size());
                break;
            }
            const char kind = m_src[open + 1];   // '{', '%' or '#'
            const size_t afterOpen = open + 2;
            const char sign = afterOpen < m_src.size() && (m_src[afterOpen] == '-' || m_src[afterOpen] == '+')
                                  ? m_src[afterOpen] : 0;
            size_t textEnd = open;
            if (sign == '-') {
                while (textEnd > pos && isSpace(m_src[textEnd - 1]))
                    --textEnd;
            } else if (sign != '+' && m_opt.lstripBlocks && kind != '{') {
                size_t lineStart = open;
                while (lineStart > pos && (m_src[lineStart - 1] == ' ' || m_src[lineStart - 1] == '\t'))
                    --lineStart;
                const bool atLineStart = lineStart > pos ? m_src[lineStart - 1] == '\n' : lineStarting;
                if (atLineStart)
                    textEnd = lineStart;
            }
            emitText(pos, textEnd);
            size_t p = afterOpen + (sign ? 1 : 0);
            if (kind == '#') {
                Status s = lexComment(open, p, pos);
                if (!s)
                    return s;
            } else if (kind == '%' && isRawBegin(p)) {
                Status s = lexRaw(open, p, pos);
                if (!s)
                    return s;
            } else {
                Status s = lexTag(kind, open, p, pos);
                if (!s)
                    return s;
            }
            lineStarting = pos > 0 && m_src[pos - 1] == '\n';
        }
        Token eof;
        eof.type = TokenType::TOKEN_TYPE_EOF;
        position(m_src.size(), eof.line, eof.column);
        m_tokens.push_back(eof);
        return std::move(m_tokens);
    }

private:
    size_t findOpener(size_t from) const
    {
        for (size_t i = from; i + 1 < m_src.size(); ++i)
            if (m_src[i] == '{' && (m_src[i + 1] == '{' || m_src[i + 1] == '%' || m_src[i + 1] == '#'))
                return i;
        return std::string::npos;
    }

    // Line and column (code points) of `offset`. Offsets mostly grow, so the
    // column is counted on from the previous query on the same line: O(1)
    // amortized, not O(line length) per token.
    void position(size_t offset, int &line, int &column) const
    {
        size_t lo = 0, hi = m_lineStarts.size();
        while (hi - lo > 1) {
            const size_t mid = (lo + hi) / 2;
            if (m_lineStarts[mid] <= offset)
                lo = mid;
            else
                hi = mid;
        }
        line = int(lo + 1);
        size_t from = m_lineStarts[lo];
        size_t col = 1;
        if (m_lastLine == lo && m_lastOffset <= offset) {
            from = m_lastOffset;
            col = m_lastColumn;
        }
        col += utf8Length(std::string_view(m_src).substr(from, offset - from));
        m_lastLine = lo;
        m_lastOffset = offset;
        m_lastColumn = col;
        column = int(col);
    }

    Status fail(size_t offset, const std::string &what) const
    {
        int line = 0, column = 0;
        position(offset, line, column);
        return Status::error(m_name + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
    }

    void push(TokenType type, size_t offset, std::string text = {})
    {
        Token t;
        t.type = type;
        t.text = std::move(text);
        position(offset, t.line, t.column);
        m_tokens.push_back(std::move(t));
    }

    void emitText(size_t begin, size_t end)
    {
        if (end > begin)
            push(TokenType::TOKEN_TYPE_TEXT, begin, m_src.substr(begin, end - begin));
    }

    // After a closing delimiter at `p` (just past it): whitespace control.
    size_t afterClose(size_t p, char sign, bool isBlockLike) const
    {
        if (sign == '-') {
            while (p < m_src.size() && isSpace(m_src[p]))
                ++p;
        } else if (sign != '+' && isBlockLike && m_opt.trimBlocks && p < m_src.size() && m_src[p] == '\n') {
            ++p;
        }
        return p;
    }

    Status lexComment(size_t open, size_t p, size_t &pos)
    {
        const size_t close = m_src.find("#}", p);
        if (close == std::string::npos)
            return fail(open, "missing end of comment tag '#}'");
        char sign = 0;
        if (close > p && (m_src[close - 1] == '-' || m_src[close - 1] == '+'))
            sign = m_src[close - 1];
        pos = afterClose(close + 2, sign, true);
        return {};
    }

    bool isRawBegin(size_t p) const
    {
        size_t q = p;
        while (q < m_src.size() && isSpace(m_src[q]))
            ++q;
        if (m_src.compare(q, 3, "raw") != 0)
            return false;
        q += 3;
        while (q < m_src.size() && isSpace(m_src[q]))
            ++q;
        return m_src.compare(q, 2, "%}") == 0 || m_src.compare(q, 3, "-%}") == 0 || m_src.compare(q, 3, "+%}") == 0;
    }

    Status lexRaw(size_t open, size_t p, size_t &pos)
    {
        size_t q = m_src.find("%}", p);
        const char beginSign = m_src[q - 1] == '-' || m_src[q - 1] == '+' ? m_src[q - 1] : 0;
        // As in Jinja: only '-' strips after `{% raw %}`; trim_blocks does not apply.
        size_t bodyStart = q + 2;
        if (beginSign == '-')
            while (bodyStart < m_src.size() && isSpace(m_src[bodyStart]))
                ++bodyStart;
        // Find {% endraw %} (with optional whitespace control).
        size_t search = bodyStart;
        while (true) {
            const size_t tag = m_src.find("{%", search);
            if (tag == std::string::npos)
                return fail(open, "missing '{% endraw %}' for this raw block");
            size_t r = tag + 2;
            char sign = 0;
            if (r < m_src.size() && (m_src[r] == '-' || m_src[r] == '+'))
                sign = m_src[r++];
            while (r < m_src.size() && isSpace(m_src[r]))
                ++r;
            if (m_src.compare(r, 6, "endraw") == 0) {
                r += 6;
                while (r < m_src.size() && isSpace(m_src[r]))
                    ++r;
                char endSign = 0;
                if (r < m_src.size() && (m_src[r] == '-' || m_src[r] == '+'))
                    endSign = m_src[r++];
                if (m_src.compare(r, 2, "%}") == 0) {
                    size_t textEnd = tag;
                    if (sign == '-') {
                        while (textEnd > bodyStart && isSpace(m_src[textEnd - 1]))
                            --textEnd;
                    } else if (sign != '+' && m_opt.lstripBlocks) {
                        size_t lineStart = tag;
                        while (lineStart > bodyStart && (m_src[lineStart - 1] == ' ' || m_src[lineStart - 1] == '\t'))
                            --lineStart;
                        const bool atLineStart = lineStart > bodyStart ? m_src[lineStart - 1] == '\n'
                                                                       : bodyStart > 0 && m_src[bodyStart - 1] == '\n';
                        if (atLineStart)
                            textEnd = lineStart;
                    }
                    emitText(bodyStart, textEnd);
                    pos = afterClose(r + 2, endSign, true);
                    return {};
                }
            }
            search = tag + 2;
        }
    }

    Status lexTag(char kind, size_t open, size_t p, size_t &pos)
    {
        const bool isBlock = kind == '%';
        push(isBlock ? TokenType::TOKEN_TYPE_BLOCK_BEGIN : TokenType::TOKEN_TYPE_VARIABLE_BEGIN, open);
        const char closeChar = isBlock ? '%' : '}';
        int depth = 0;   // open brackets: end delimiters inside them do not count
        while (true) {
            while (p < m_src.size() && isSpace(m_src[p]))
                ++p;
            if (p >= m_src.size())
                return fail(open, std::string("unexpected end of template, expected '") + closeChar + "}' to close this tag");
            if (depth == 0) {
                char sign = 0;
                size_t q = p;
                if ((m_src[q] == '-' || (isBlock && m_src[q] == '+')) && q + 2 < m_src.size() + 0
                    && m_src[q + 1] == closeChar && m_src[q + 2] == '}') {
                    sign = m_src[q];
                    ++q;
                }
                if (q + 1 < m_src.size() && m_src[q] == closeChar && m_src[q + 1] == '}') {
                    push(isBlock ? TokenType::TOKEN_TYPE_BLOCK_END : TokenType::TOKEN_TYPE_VARIABLE_END, p);
                    pos = afterClose(q + 2, sign, isBlock);
                    return {};
                }
            }
            const char c = m_src[p];
            if (isNameStart(c)) {
                size_t e = p;
                while (e < m_src.size() && (isNameStart(m_src[e]) || isDigit(m_src[e])))
                    ++e;
                push(TokenType::TOKEN_TYPE_NAME, p, m_src.substr(p, e - p));
                p = e;
            } else if (isDigit(c)) {
                Status s = lexNumber(p);
                if (!s)
                    return s;
            } else if (c == '\'' || c == '"') {
                Status s = lexString(p);
                if (!s)
                    return s;
            } else {
                static const char *const ops[] = {"**", "//", "==", "!=", ">=", "<=", "+", "-", "*", "/", "%", "~",
                                                  "[", "]", "(", ")", "{", "}", ".", ":", ",", "|", "=", "<", ">", ";"};
                std::string op;
                for (const char *candidate : ops) {
                    if (m_src.compare(p, std::char_traits<char>::length(candidate), candidate) == 0) {
                        op = candidate;
                        break;
                    }
                }
                if (op.empty())
                    return fail(p, std::string("unexpected character '") + c + "' in expression");
                if (op == "(" || op == "[" || op == "{")
                    ++depth;
                else if ((op == ")" || op == "]" || op == "}") && depth > 0)
                    --depth;
                push(TokenType::TOKEN_TYPE_OPERATOR, p, op);
                p += op.size();
            }
        }
    }

    Status lexNumber(size_t &p)
    {
        const size_t start = p;
        std::string digits;
        auto readDigits = [&] {
            size_t n = 0;
            while (p < m_src.size() && (isDigit(m_src[p]) || (m_src[p] == '_' && p + 1 < m_src.size() && isDigit(m_src[p + 1]) && n > 0))) {
                if (m_src[p] != '_')
                    digits += m_src[p];
                ++p;
                ++n;
            }
            return n;
        };
        readDigits();
        bool isFloat = false;
        if (p + 1 < m_src.size() && m_src[p] == '.' && isDigit(m_src[p + 1])) {
            isFloat = true;
            digits += '.';
            ++p;
            readDigits();
        }
        if (p < m_src.size() && (m_src[p] == 'e' || m_src[p] == 'E')) {
            size_t q = p + 1;
            if (q < m_src.size() && (m_src[q] == '+' || m_src[q] == '-'))
                ++q;
            if (q < m_src.size() && isDigit(m_src[q])) {
                isFloat = true;
                digits += 'e';
                if (m_src[p + 1] == '-')
                    digits += '-';
                p = q;
                readDigits();
            }
        }
        Token t;
        position(start, t.line, t.column);
        if (isFloat) {
            t.type = TokenType::TOKEN_TYPE_FLOAT;
            std::from_chars(digits.data(), digits.data() + digits.size(), t.number);
        } else {
            t.type = TokenType::TOKEN_TYPE_INTEGER;
            auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), t.integer);
            if (ec != std::errc())
                return fail(start, "integer literal too large");
        }
        t.text = m_src.substr(start, p - start);
        m_tokens.push_back(std::move(t));
        return {};
    }

    static int hexValue(char c)
    {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    // Python string literal with unicode-escape decoding (as Jinja does).
    Status lexString(size_t &p)
    {
        const size_t start = p;
        const char quote = m_src[p++];
        std::string value;
        while (true) {
            if (p >= m_src.size())
                return fail(start, "unterminated string literal");
            const char c = m_src[p];
            if (c == quote) {
                ++p;
                break;
            }
            if (c != '\\') {
                value += c;
                ++p;
                continue;
            }
            if (p + 1 >= m_src.size())
                return fail(start, "unterminated string literal");
            const char e = m_src[p + 1];
            p += 2;
            switch (e) {
            case '\n': break;   // line continuation
            case '\\': value += '\\'; break;
            case '\'': value += '\''; break;
            case '"': value += '"'; break;
            case 'a': value += '\a'; break;
            case 'b': value += '\b'; break;
            case 'f': value += '\f'; break;
            case 'n': value += '\n'; break;
            case 'r': value += '\r'; break;
            case 't': value += '\t'; break;
            case 'v': value += '\v'; break;
            case 'x': case 'u': case 'U': {
                const int n = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
                uint32_t cp = 0;
                for (int k = 0; k < n; ++k) {
                    const int h = p + size_t(k) < m_src.size() ? hexValue(m_src[p + size_t(k)]) : -1;
                    if (h < 0)
                        return fail(p - 2, std::string("truncated \\") + e + " escape in string literal");
                    cp = cp * 16 + uint32_t(h);
                }
                if (cp > 0x10FFFF)
                    return fail(p - 2, "escape is not a valid code point");
                p += size_t(n);
                utf8Append(value, cp);
                break;
            }
            default:
                if (e >= '0' && e <= '7') {
                    uint32_t cp = uint32_t(e - '0');
                    for (int k = 0; k < 2 && p < m_src.size() && m_src[p] >= '0' && m_src[p] <= '7'; ++k)
                        cp = cp * 8 + uint32_t(m_src[p++] - '0');
                    utf8Append(value, cp);
                } else {
                    value += '\\';   // unknown escapes stay as written
                    value += e;
                }
            }
        }
        Token t;
        t.type = TokenType::TOKEN_TYPE_STRING;
        t.text = std::move(value);
        position(start, t.line, t.column);
        m_tokens.push_back(std::move(t));
        return {};
    }

    std::string m_src;
    LexerOptions m_opt;
    const std::string &m_name;
    std::vector<size_t> m_lineStarts;
    std::vector<Token> m_tokens;
    mutable size_t m_lastLine = SIZE_MAX, m_lastOffset = 0, m_lastColumn = 1;   // position() cache
};

std::string normalizeNewlines(std::string_view source, bool keepTrailingNewline)
{
    std::string out;
    out.reserve(source.size());
    for (size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\r') {
            out += '\n';
            if (i + 1 < source.size() && source[i + 1] == '\n')
                ++i;
        } else {
            out += source[i];
        }
    }
    if (!keepTrailingNewline && !out.empty() && out.back() == '\n')
        out.pop_back();
    return out;
}

} // namespace

Result<std::vector<Token>> tokenize(std::string_view source, const LexerOptions &options, const std::string &name)
{
    return Lexer(normalizeNewlines(source, options.keepTrailingNewline), options, name).run();
}

} // namespace burrow::jinja
