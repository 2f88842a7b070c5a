// Jinja parser: token stream -> syntax tree, following Jinja2's grammar and
// operator precedence (lowest first): `x if c else y`, or, and, not,
// comparisons (== != < <= > >= in, not in), + -, ~, * / // %, **, unary - +,
// then primaries with postfix `.attr`, `[index or slice]`, `(call)`, filters
// `|f(...)` and tests `is [not] t(...)`.
//
// Contract: errors are "NAME:LINE:COL: what was expected"; nesting deeper
// than PARSER_MAX_DEPTH is refused (no stack exhaustion on hostile input).
// Cost: O(tokens).
#pragma once

#include "chat/jinja_ast.h"
#include "chat/jinja_lexer.h"

#include <string>
#include <vector>

namespace burrow::jinja {

inline constexpr int PARSER_MAX_DEPTH = 200;
// Deepest expression tree a template may hold (Template::parse checks it).
inline constexpr int EXPR_MAX_DEPTH = 256;

Result<Body> parseTemplate(const std::vector<Token> &tokens, const std::string &name);

} // namespace burrow::jinja
