// Recursive-descent Jinja parser (see jinja_parser.h for the grammar).
#include "chat/jinja_parser.h"

#include <algorithm>
#include <initializer_list>

namespace burrow::jinja {

namespace {

class Parser {
public:
    Parser(const std::vector<Token> &tokens, const std::string &name) : m_tokens(tokens), m_name(name) {}

    Result<Body> run()
    {
        Body body;
        std::string endTag;
        if (!parseBody(body, {}, endTag))
            return *m_error;
        return body;
    }

private:
    // --- token helpers ---------------------------------------------------------
    const Token &cur() const { return m_tokens[std::min(m_pos, m_tokens.size() - 1)]; }
    const Token &peek(size_t n = 1) const { return m_tokens[std::min(m_pos + n, m_tokens.size() - 1)]; }
    void next() { if (m_pos < m_tokens.size() - 1) ++m_pos; }
    bool isOp(const char *op) const { return cur().type == TokenType::TOKEN_TYPE_OPERATOR && cur().text == op; }
    bool isName(const char *n) const { return cur().type == TokenType::TOKEN_TYPE_NAME && cur().text == n; }
    bool skipOp(const char *op) { if (isOp(op)) { next(); return true; } return false; }
    bool skipName(const char *n) { if (isName(n)) { next(); return true; } return false; }

    static std::string describe(const Token &t)
    {
        switch (t.type) {
        case TokenType::TOKEN_TYPE_TEXT: return "template text";
        case TokenType::TOKEN_TYPE_VARIABLE_BEGIN: return "'{{'";
        case TokenType::TOKEN_TYPE_VARIABLE_END: return "'}}'";
        case TokenType::TOKEN_TYPE_BLOCK_BEGIN: return "'{%'";
        case TokenType::TOKEN_TYPE_BLOCK_END: return "'%}'";
        case TokenType::TOKEN_TYPE_NAME: return "'" + t.text + "'";
        case TokenType::TOKEN_TYPE_STRING: return "a string";
        case TokenType::TOKEN_TYPE_INTEGER:
        case TokenType::TOKEN_TYPE_FLOAT: return "number " + t.text;
        case TokenType::TOKEN_TYPE_OPERATOR: return "'" + t.text + "'";
        case TokenType::TOKEN_TYPE_EOF: return "end of template";
        }
        return "?";
    }

    std::nullptr_t fail(const Token &at, const std::string &what)
    {
        if (!m_error)
            m_error = Status::error(m_name + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + what);
        return nullptr;
    }
    std::nullptr_t expected(const std::string &what) { return fail(cur(), "expected " + what + ", got " + describe(cur())); }

    bool expectOp(const char *op)
    {
        if (skipOp(op))
            return true;
        expected(std::string("'") + op + "'");
        return false;
    }
    bool expectBlockEnd()
    {
        if (cur().type == TokenType::TOKEN_TYPE_BLOCK_END) {
            next();
            return true;
        }
        expected("end of statement '%}'");
        return false;
    }

    static SourcePos posOf(const Token &t) { return {t.line, t.column}; }

    ExprPtr make(ExprKind kind, const Token &at)
    {
        auto e = std::make_unique<Expr>();
        e->kind = kind;
        e->pos = posOf(at);
        return e;
    }

    struct DepthGuard {
        Parser &p;
        explicit DepthGuard(Parser &parser) : p(parser) { ++p.m_depth; }
        ~DepthGuard() { --p.m_depth; }
    };
    bool tooDeep()
    {
        if (m_depth > PARSER_MAX_DEPTH) {
            fail(cur(), "nesting deeper than " + std::to_string(PARSER_MAX_DEPTH) + " levels");
            return true;
        }
        return false;
    }

    // --- statements ------------------------------------------------------------

    // Parses statements until `{% <one of endTags>` (left unconsumed except the
    // `{%` and the name, which is stored in endTag) or the end of the template.
    bool parseBody(Body &body, std::initializer_list<const char *> endTags, std::string &endTag)
    {
        DepthGuard guard(*this);
        if (tooDeep())
            return false;
        while (true) {
            const Token &t = cur();
            switch (t.type) {
            case TokenType::TOKEN_TYPE_TEXT: {
                auto s = std::make_unique<Stmt>();
                s->kind = StmtKind::STMT_KIND_TEXT;
                s->pos = posOf(t);
                s->text = t.text;
                body.push_back(std::move(s));
                next();
                break;
            }
            case TokenType::TOKEN_TYPE_VARIABLE_BEGIN: {
                auto s = std::make_unique<Stmt>();
                s->kind = StmtKind::STMT_KIND_OUTPUT;
                s->pos = posOf(t);
                next();
                s->expr = parseTuple(true);
                if (!s->expr)
                    return false;
                if (cur().type != TokenType::TOKEN_TYPE_VARIABLE_END) {
                    expected("end of print statement '}}'");
                    return false;
                }
                next();
                body.push_back(std::move(s));
                break;
            }
            case TokenType::TOKEN_TYPE_BLOCK_BEGIN: {
                const Token &nameTok = peek();
                if (nameTok.type != TokenType::TOKEN_TYPE_NAME) {
                    next();
                    expected("a statement name after '{%'");
                    return false;
                }
                for (const char *end : endTags) {
                    if (nameTok.text == end) {
                        next();
                        next();
                        endTag = end;
                        return true;
                    }
                }
                next();
                StmtPtr s = parseStatement();
                if (!s)
                    return false;
                body.push_back(std::move(s));
                break;
            }
            case TokenType::TOKEN_TYPE_EOF:
                if (endTags.size() != 0) {
                    std::string list;
                    for (const char *end : endTags)
                        list += std::string(list.empty() ? "" : " or ") + "'" + end + "'";
                    fail(t, "unexpected end of template, expected " + list);
                    return false;
                }
                return true;
            default:
                fail(t, "unexpected " + describe(t));
                return false;
            }
        }
    }

    StmtPtr parseStatement()
    {
        const Token &t = cur();   // the statement name
        const std::string name = t.text;
        auto s = std::make_unique<Stmt>();
        s->pos = posOf(t);
        next();
        if (name == "if")
            return parseIf(s) ? std::move(s) : nullptr;
        if (name == "for")
            return parseFor(std::move(s));
        if (name == "set")
            return parseSet(std::move(s));
        if (name == "macro")
            return parseMacro(std::move(s));
        if (name == "filter")
            return parseFilterBlock(std::move(s));
        if (name == "generation") {   // Hugging Face's assistant-mask marker: renders its body
            s->kind = StmtKind::STMT_KIND_BODY;
            std::string end;
            if (!expectBlockEnd() || !parseBody(s->body, {"endgeneration"}, end) || !expectBlockEnd())
                return nullptr;
            return s;
        }
        if (name == "break" || name == "continue") {
            if (m_loopDepth == 0)
                return fail(t, "'" + name + "' outside of a loop");
            s->kind = name == "break" ? StmtKind::STMT_KIND_BREAK : StmtKind::STMT_KIND_CONTINUE;
            return expectBlockEnd() ? std::move(s) : nullptr;
        }
        return fail(t, "unknown or unsupported tag '" + name + "'");
    }

    bool parseIf(StmtPtr &s)
    {
        s->kind = StmtKind::STMT_KIND_IF;
        while (true) {
            ExprPtr cond = parseTuple(false);
            if (!cond || !expectBlockEnd())
                return false;
            Body body;
            std::string end;
            if (!parseBody(body, {"elif", "else", "endif"}, end))
                return false;
            s->branches.emplace_back(std::move(cond), std::move(body));
            if (end == "elif")
                continue;
            if (end == "else") {
                if (!expectBlockEnd())
                    return false;
                if (!parseBody(s->elseBody, {"endif"}, end))
                    return false;
            }
            return expectBlockEnd();
        }
    }

    bool parseTarget(Target &target, bool allowAttribute)
    {
        bool paren = skipOp("(");
        while (true) {
            if (cur().type != TokenType::TOKEN_TYPE_NAME) {
                expected("a variable name");
                return false;
            }
            target.names.push_back(cur().text);
            next();
            if (allowAttribute && target.names.size() == 1 && !paren && isOp(".")) {
                next();
                if (cur().type != TokenType::TOKEN_TYPE_NAME) {
                    expected("an attribute name");
                    return false;
                }
                target.attribute = cur().text;
                next();
                return true;
            }
            if (!skipOp(","))
                break;
            target.tuple = true;
            if (paren && isOp(")"))
                break;
        }
        if (paren && !expectOp(")"))
            return false;
        return true;
    }

    StmtPtr parseFor(StmtPtr s)
    {
        s->kind = StmtKind::STMT_KIND_FOR;
        if (!parseTarget(s->target, false))
            return nullptr;
        if (!skipName("in"))
            return expected("'in'");
        s->expr = parseTuple(false, /*forIterable=*/true);
        if (!s->expr)
            return nullptr;
        if (skipName("if")) {
            s->filter = parseExpression(true);
            if (!s->filter)
                return nullptr;
        }
        if (skipName("recursive"))
            s->recursive = true;
        if (!expectBlockEnd())
            return nullptr;
        ++m_loopDepth;
        std::string end;
        const bool ok = parseBody(s->body, {"else", "endfor"}, end);
        --m_loopDepth;
        if (!ok)
            return nullptr;
        if (end == "else") {
            if (!expectBlockEnd() || !parseBody(s->elseBody, {"endfor"}, end))
                return nullptr;
        }
        return expectBlockEnd() ? std::move(s) : nullptr;
    }

    StmtPtr parseSet(StmtPtr s)
    {
        if (!parseTarget(s->target, true))
            return nullptr;
        if (skipOp("=")) {
            s->kind = StmtKind::STMT_KIND_SET;
            s->expr = parseTuple(true);
            if (!s->expr)
                return nullptr;
            return expectBlockEnd() ? std::move(s) : nullptr;
        }
        s->kind = StmtKind::STMT_KIND_SET_BLOCK;
        if (isOp("|")) {
            s->expr = parseFilterChain(nullptr);
            if (!s->expr)
                return nullptr;
        }
        std::string end;
        if (!expectBlockEnd() || !parseBody(s->body, {"endset"}, end) || !expectBlockEnd())
            return nullptr;
        return s;
    }

    StmtPtr parseMacro(StmtPtr s)
    {
        s->kind = StmtKind::STMT_KIND_MACRO;
        if (cur().type != TokenType::TOKEN_TYPE_NAME)
            return expected("a macro name");
        s->text = cur().text;
        next();
        if (!expectOp("("))
            return nullptr;
        while (!isOp(")")) {
            if (!s->params.empty() && !expectOp(","))
                return nullptr;
            if (isOp(")"))
                break;
            if (cur().type != TokenType::TOKEN_TYPE_NAME)
                return expected("a parameter name");
            MacroParam p;
            p.name = cur().text;
            next();
            if (skipOp("=")) {
                p.defaultValue = parseExpression(true);
                if (!p.defaultValue)
                    return nullptr;
            }
            s->params.push_back(std::move(p));
        }
        next();   // )
        if (!expectBlockEnd())
            return nullptr;
        const int savedLoops = m_loopDepth;
        m_loopDepth = 0;
        std::string end;
        const bool ok = parseBody(s->body, {"endmacro"}, end);
        m_loopDepth = savedLoops;
        if (!ok)
            return nullptr;
        if (cur().type == TokenType::TOKEN_TYPE_NAME)
            next();   // {% endmacro name %}
        return expectBlockEnd() ? std::move(s) : nullptr;
    }

    StmtPtr parseFilterBlock(StmtPtr s)
    {
        s->kind = StmtKind::STMT_KIND_FILTER_BLOCK;
        s->expr = parseFilterChain(nullptr, /*leadingPipe=*/false);
        if (!s->expr)
            return nullptr;
        std::string end;
        if (!expectBlockEnd() || !parseBody(s->body, {"endfilter"}, end) || !expectBlockEnd())
            return nullptr;
        return s;
    }

    // --- expressions -------------------------------------------------------------

    // A comma-separated tuple or a single expression.
    ExprPtr parseTuple(bool withCondExpr, bool forIterable = false)
    {
        const Token &start = cur();
        ExprPtr first = parseExpression(withCondExpr);
        if (!first)
            return nullptr;
        if (!isOp(","))
            return first;
        auto list = make(ExprKind::EXPR_KIND_LIST, start);
        list->tuple = true;
        list->items.push_back(std::move(first));
        while (skipOp(",")) {
            if (cur().type == TokenType::TOKEN_TYPE_BLOCK_END || cur().type == TokenType::TOKEN_TYPE_VARIABLE_END
                || (forIterable && (isName("if") || isName("recursive"))))
                break;
            ExprPtr item = parseExpression(withCondExpr);
            if (!item)
                return nullptr;
            list->items.push_back(std::move(item));
        }
        return list;
    }

    ExprPtr parseExpression(bool withCondExpr)
    {
        DepthGuard guard(*this);
        if (tooDeep())
            return nullptr;
        if (!withCondExpr)
            return parseOr();
        const Token &start = cur();
        ExprPtr expr = parseOr();
        if (!expr)
            return nullptr;
        while (isName("if")) {
            next();
            auto cond = make(ExprKind::EXPR_KIND_CONDITIONAL, start);
            cond->a = std::move(expr);
            cond->b = parseOr();
            if (!cond->b)
                return nullptr;
            if (skipName("else")) {
                cond->c = parseExpression(true);
                if (!cond->c)
                    return nullptr;
            }
            expr = std::move(cond);
        }
        return expr;
    }

    ExprPtr binary(BinaryOp op, ExprPtr left, ExprPtr right, const Token &at)
    {
        auto e = make(ExprKind::EXPR_KIND_BINARY, at);
        e->binaryOp = op;
        e->a = std::move(left);
        e->b = std::move(right);
        return e;
    }

    ExprPtr parseOr()
    {
        ExprPtr left = parseAnd();
        while (left && isName("or")) {
            const Token at = cur();
            next();
            ExprPtr right = parseAnd();
            if (!right)
                return nullptr;
            left = binary(BinaryOp::BINARY_OP_OR, std::move(left), std::move(right), at);
        }
        return left;
    }

    ExprPtr parseAnd()
    {
        ExprPtr left = parseNot();
        while (left && isName("and")) {
            const Token at = cur();
            next();
            ExprPtr right = parseNot();
            if (!right)
                return nullptr;
            left = binary(BinaryOp::BINARY_OP_AND, std::move(left), std::move(right), at);
        }
        return left;
    }

    ExprPtr parseNot()
    {
        if (isName("not")) {
            DepthGuard guard(*this);
            if (tooDeep())
                return nullptr;
            auto e = make(ExprKind::EXPR_KIND_UNARY, cur());
            next();
            e->unaryOp = UnaryOp::UNARY_OP_NOT;
            e->a = parseNot();
            return e->a ? std::move(e) : nullptr;
        }
        return parseCompare();
    }

    ExprPtr parseCompare()
    {
        const Token &start = cur();
        ExprPtr left = parseMath1();
        if (!left)
            return nullptr;
        ExprPtr cmp;
        while (true) {
            CompareOp op;
            if (isOp("==")) op = CompareOp::COMPARE_OP_EQ;
            else if (isOp("!=")) op = CompareOp::COMPARE_OP_NE;
            else if (isOp("<")) op = CompareOp::COMPARE_OP_LT;
            else if (isOp("<=")) op = CompareOp::COMPARE_OP_LE;
            else if (isOp(">")) op = CompareOp::COMPARE_OP_GT;
            else if (isOp(">=")) op = CompareOp::COMPARE_OP_GE;
            else if (isName("in")) op = CompareOp::COMPARE_OP_IN;
            else if (isName("not") && peek().type == TokenType::TOKEN_TYPE_NAME && peek().text == "in") {
                next();
                op = CompareOp::COMPARE_OP_NOT_IN;
            } else {
                break;
            }
            next();
            ExprPtr right = parseMath1();
            if (!right)
                return nullptr;
            if (!cmp) {
                cmp = make(ExprKind::EXPR_KIND_COMPARE, start);
                cmp->items.push_back(std::move(left));
            }
            cmp->compareOps.push_back(op);
            cmp->items.push_back(std::move(right));
        }
        return cmp ? std::move(cmp) : std::move(left);
    }

    ExprPtr parseMath1()
    {
        ExprPtr left = parseConcat();
        while (left && (isOp("+") || isOp("-"))) {
            const Token at = cur();
            const BinaryOp op = at.text == "+" ? BinaryOp::BINARY_OP_ADD : BinaryOp::BINARY_OP_SUB;
            next();
            ExprPtr right = parseConcat();
            if (!right)
                return nullptr;
            left = binary(op, std::move(left), std::move(right), at);
        }
        return left;
    }

    ExprPtr parseConcat()
    {
        ExprPtr left = parseMath2();
        while (left && isOp("~")) {
            const Token at = cur();
            next();
            ExprPtr right = parseMath2();
            if (!right)
                return nullptr;
            left = binary(BinaryOp::BINARY_OP_CONCAT, std::move(left), std::move(right), at);
        }
        return left;
    }

    ExprPtr parseMath2()
    {
        ExprPtr left = parsePow();
        while (left && (isOp("*") || isOp("/") || isOp("//") || isOp("%"))) {
            const Token at = cur();
            BinaryOp op = BinaryOp::BINARY_OP_MUL;
            if (at.text == "/") op = BinaryOp::BINARY_OP_DIV;
            else if (at.text == "//") op = BinaryOp::BINARY_OP_FLOORDIV;
            else if (at.text == "%") op = BinaryOp::BINARY_OP_MOD;
            next();
            ExprPtr right = parsePow();
            if (!right)
                return nullptr;
            left = binary(op, std::move(left), std::move(right), at);
        }
        return left;
    }

    ExprPtr parsePow()
    {
        ExprPtr left = parseUnary(true);
        while (left && isOp("**")) {
            const Token at = cur();
            next();
            ExprPtr right = parseUnary(true);
            if (!right)
                return nullptr;
            left = binary(BinaryOp::BINARY_OP_POW, std::move(left), std::move(right), at);
        }
        return left;
    }

    ExprPtr parseUnary(bool withFilter)
    {
        DepthGuard guard(*this);
        if (tooDeep())
            return nullptr;
        ExprPtr node;
        if (isOp("-") || isOp("+")) {
            node = make(ExprKind::EXPR_KIND_UNARY, cur());
            node->unaryOp = cur().text == "-" ? UnaryOp::UNARY_OP_NEG : UnaryOp::UNARY_OP_POS;
            next();
            node->a = parseUnary(false);
            if (!node->a)
                return nullptr;
        } else {
            node = parsePrimary();
            if (!node)
                return nullptr;
        }
        node = parsePostfix(std::move(node));
        if (node && withFilter)
            node = parseFilterTests(std::move(node));
        return node;
    }

    ExprPtr parsePrimary()
    {
        const Token &t = cur();
        switch (t.type) {
        case TokenType::TOKEN_TYPE_NAME: {
            auto e = make(ExprKind::EXPR_KIND_LITERAL, t);
            if (t.text == "true" || t.text == "True") e->literal = Value(true);
            else if (t.text == "false" || t.text == "False") e->literal = Value(false);
            else if (t.text == "none" || t.text == "None") e->literal = Value::none();
            else {
                e->kind = ExprKind::EXPR_KIND_NAME;
                e->name = t.text;
            }
            next();
            return e;
        }
        case TokenType::TOKEN_TYPE_STRING: {
            auto e = make(ExprKind::EXPR_KIND_LITERAL, t);
            std::string s;
            while (cur().type == TokenType::TOKEN_TYPE_STRING) {   // adjacent literals concatenate
                s += cur().text;
                next();
            }
            e->literal = Value(std::move(s));
            return e;
        }
        case TokenType::TOKEN_TYPE_INTEGER: {
            auto e = make(ExprKind::EXPR_KIND_LITERAL, t);
            e->literal = Value(t.integer);
            next();
            return e;
        }
        case TokenType::TOKEN_TYPE_FLOAT: {
            auto e = make(ExprKind::EXPR_KIND_LITERAL, t);
            e->literal = Value(t.number);
            next();
            return e;
        }
        case TokenType::TOKEN_TYPE_OPERATOR:
            if (t.text == "(") {
                next();
                if (skipOp(")")) {
                    auto e = make(ExprKind::EXPR_KIND_LIST, t);   // empty tuple
                    e->tuple = true;
                    return e;
                }
                ExprPtr inner = parseExpression(true);
                if (!inner)
                    return nullptr;
                if (isOp(",")) {
                    auto list = make(ExprKind::EXPR_KIND_LIST, t);
                    list->tuple = true;
                    list->items.push_back(std::move(inner));
                    while (skipOp(",")) {
                        if (isOp(")"))
                            break;
                        ExprPtr item = parseExpression(true);
                        if (!item)
                            return nullptr;
                        list->items.push_back(std::move(item));
                    }
                    inner = std::move(list);
                }
                if (!expectOp(")"))
                    return nullptr;
                return inner;
            }
            if (t.text == "[") {
                auto e = make(ExprKind::EXPR_KIND_LIST, t);
                next();
                while (!isOp("]")) {
                    if (!e->items.empty() && !expectOp(","))
                        return nullptr;
                    if (isOp("]"))
                        break;
                    ExprPtr item = parseExpression(true);
                    if (!item)
                        return nullptr;
                    e->items.push_back(std::move(item));
                }
                next();
                return e;
            }
            if (t.text == "{") {
                auto e = make(ExprKind::EXPR_KIND_DICT, t);
                next();
                while (!isOp("}")) {
                    if (!e->items.empty() && !expectOp(","))
                        return nullptr;
                    if (isOp("}"))
                        break;
                    ExprPtr key = parseExpression(true);
                    if (!key || !expectOp(":"))
                        return nullptr;
                    ExprPtr value = parseExpression(true);
                    if (!value)
                        return nullptr;
                    e->items.push_back(std::move(key));
                    e->items.push_back(std::move(value));
                }
                next();
                return e;
            }
            break;
        default:
            break;
        }
        return expected("an expression");
    }

    bool parseCallArgs(std::vector<Argument> &args)
    {
        // cur() is just past '('
        while (!isOp(")")) {
            if (!args.empty() && !expectOp(","))
                return false;
            if (isOp(")"))
                break;
            Argument arg;
            if (cur().type == TokenType::TOKEN_TYPE_NAME && peek().type == TokenType::TOKEN_TYPE_OPERATOR
                && peek().text == "=") {
                arg.name = cur().text;
                next();
                next();
            } else if (!args.empty() && !args.back().name.empty()) {
                fail(cur(), "positional argument after keyword argument");
                return false;
            }
            arg.value = parseExpression(true);
            if (!arg.value)
                return false;
            args.push_back(std::move(arg));
        }
        next();   // )
        return true;
    }

    ExprPtr parsePostfix(ExprPtr node)
    {
        while (node) {
            const Token &t = cur();
            if (isOp(".")) {
                next();
                if (cur().type == TokenType::TOKEN_TYPE_NAME) {
                    auto e = make(ExprKind::EXPR_KIND_ATTRIBUTE, t);
                    e->a = std::move(node);
                    e->name = cur().text;
                    next();
                    node = std::move(e);
                } else if (cur().type == TokenType::TOKEN_TYPE_INTEGER) {
                    auto e = make(ExprKind::EXPR_KIND_SUBSCRIPT, t);
                    e->a = std::move(node);
                    e->b = make(ExprKind::EXPR_KIND_LITERAL, cur());
                    e->b->literal = Value(cur().integer);
                    next();
                    node = std::move(e);
                } else {
                    return expected("an attribute name after '.'");
                }
            } else if (isOp("[")) {
                next();
                auto e = make(ExprKind::EXPR_KIND_SUBSCRIPT, t);
                e->a = std::move(node);
                e->b = parseSubscript();
                if (!e->b || !expectOp("]"))
                    return nullptr;
                node = std::move(e);
            } else if (isOp("(")) {
                next();
                auto e = make(ExprKind::EXPR_KIND_CALL, t);
                e->pos = node->pos;   // errors of a call point at the callee
                e->a = std::move(node);
                if (!parseCallArgs(e->args))
                    return nullptr;
                node = std::move(e);
            } else {
                break;
            }
        }
        return node;
    }

    ExprPtr parseSubscript()
    {
        const Token &start = cur();
        ExprPtr first;
        if (!isOp(":")) {
            first = parseExpression(true);
            if (!first)
                return nullptr;
            if (!isOp(":"))
                return first;
        }
        auto slice = make(ExprKind::EXPR_KIND_SLICE, start);
        slice->a = std::move(first);
        next();   // first ':'
        if (!isOp("]") && !isOp(":")) {
            slice->b = parseExpression(true);
            if (!slice->b)
                return nullptr;
        }
        if (skipOp(":")) {
            if (!isOp("]")) {
                slice->c = parseExpression(true);
                if (!slice->c)
                    return nullptr;
            }
        }
        return slice;
    }

    // `| name(args)` repeated; `input` may be null (filter blocks).
    ExprPtr parseFilterChain(ExprPtr input, bool leadingPipe = true)
    {
        bool first = true;
        while ((first && !leadingPipe) || isOp("|")) {
            if (!(first && !leadingPipe))
                next();   // |
            first = false;
            if (cur().type != TokenType::TOKEN_TYPE_NAME)
                return expected("a filter name");
            auto e = make(ExprKind::EXPR_KIND_FILTER, cur());
            e->name = cur().text;
            next();
            while (isOp(".") && peek().type == TokenType::TOKEN_TYPE_NAME) {   // dotted filter names
                next();
                e->name += "." + cur().text;
                next();
            }
            e->a = std::move(input);
            if (skipOp("(") && !parseCallArgs(e->args))
                return nullptr;
            input = std::move(e);
        }
        return input;
    }

    ExprPtr parseFilterTests(ExprPtr node)
    {
        while (node) {
            if (isOp("|")) {
                node = parseFilterChain(std::move(node));
            } else if (isName("is")) {
                next();
                auto e = make(ExprKind::EXPR_KIND_TEST, cur());
                e->negated = skipName("not");
                if (cur().type != TokenType::TOKEN_TYPE_NAME)
                    return expected("a test name after 'is'");
                e->name = cur().text;
                next();
                while (isOp(".") && peek().type == TokenType::TOKEN_TYPE_NAME) {
                    next();
                    e->name += "." + cur().text;
                    next();
                }
                e->a = std::move(node);
                if (skipOp("(")) {
                    if (!parseCallArgs(e->args))
                        return nullptr;
                } else if ((cur().type == TokenType::TOKEN_TYPE_NAME || cur().type == TokenType::TOKEN_TYPE_STRING
                            || cur().type == TokenType::TOKEN_TYPE_INTEGER || cur().type == TokenType::TOKEN_TYPE_FLOAT
                            || isOp("[") || isOp("{"))
                           && !isName("else") && !isName("or") && !isName("and")) {
                    if (isName("is"))
                        return fail(cur(), "tests cannot be chained with 'is'");
                    Argument arg;
                    arg.value = parsePostfix(parsePrimary());
                    if (!arg.value)
                        return nullptr;
                    e->args.push_back(std::move(arg));
                }
                node = std::move(e);
            } else if (isOp("(")) {
                const Token &t = cur();
                next();
                auto e = make(ExprKind::EXPR_KIND_CALL, t);
                e->pos = node->pos;
                e->a = std::move(node);
                if (!parseCallArgs(e->args))
                    return nullptr;
                node = std::move(e);
            } else {
                break;
            }
        }
        return node;
    }

    const std::vector<Token> &m_tokens;
    const std::string &m_name;
    size_t m_pos = 0;
    int m_depth = 0;
    int m_loopDepth = 0;
    std::optional<Status> m_error;
};

} // namespace

Result<Body> parseTemplate(const std::vector<Token> &tokens, const std::string &name)
{
    if (tokens.empty())
        return Body{};
    return Parser(tokens, name).run();
}

} // namespace burrow::jinja
