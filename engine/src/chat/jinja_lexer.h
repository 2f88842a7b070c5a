// Jinja lexer: template source -> flat token stream (text, tag delimiters,
// expression tokens), applying whitespace control the way Jinja2 does:
// `{%-`/`-%}` strip whitespace, `+` disables lstrip, trim_blocks removes the
// first newline after a block or comment tag, lstrip_blocks removes spaces and
// tabs before a block or comment tag that starts a line. Comments vanish;
// `{% raw %}...{% endraw %}` becomes text.
//
// Contract: positions are 1-based line and column (in code points) of the
// original source after newline normalization (\r\n and \r become \n, and one
// trailing newline is dropped unless keepTrailingNewline). Errors name the
// position ("3:14: unterminated string").
// Cost: O(source).
#pragma once

#include "burrow/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::jinja {

enum class TokenType {
    TOKEN_TYPE_TEXT,
    TOKEN_TYPE_VARIABLE_BEGIN,   // {{
    TOKEN_TYPE_VARIABLE_END,     // }}
    TOKEN_TYPE_BLOCK_BEGIN,      // {%
    TOKEN_TYPE_BLOCK_END,        // %}
    TOKEN_TYPE_NAME,
    TOKEN_TYPE_STRING,           // text holds the decoded value
    TOKEN_TYPE_INTEGER,
    TOKEN_TYPE_FLOAT,
    TOKEN_TYPE_OPERATOR,         // text holds the operator: "+", "//", "==", "(", ...
    TOKEN_TYPE_EOF,
};

struct Token {
    TokenType type = TokenType::TOKEN_TYPE_EOF;
    std::string text;
    int64_t integer = 0;
    double number = 0.0;
    int line = 1;
    int column = 1;
};

struct LexerOptions {
    bool trimBlocks = true;
    bool lstripBlocks = true;
    bool keepTrailingNewline = false;
};

// `name` prefixes error messages.
Result<std::vector<Token>> tokenize(std::string_view source, const LexerOptions &options, const std::string &name);

} // namespace burrow::jinja
