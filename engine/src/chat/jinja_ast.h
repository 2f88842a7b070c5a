// The syntax tree of a parsed Jinja template. Expressions and statements are
// small structs tagged with a kind; every node records where it starts in the
// source (for error messages). Trees are immutable after parsing and may be
// shared by concurrent renders.
// Depth: a chain like `a ~ b ~ c` or `x|f|g` is a left-leaning tree as deep
// as the chain; an Expr is freed without recursion (~Expr), and the parser
// refuses trees deeper than its limits (jinja_template.h), so walking one
// recursively is bounded.
#pragma once

#include "chat/jinja_value.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace burrow::jinja {

struct SourcePos {
    int line = 1;
    int column = 1;
};

enum class ExprKind {
    EXPR_KIND_LITERAL, EXPR_KIND_NAME, EXPR_KIND_LIST, EXPR_KIND_DICT, EXPR_KIND_ATTRIBUTE,
    EXPR_KIND_SUBSCRIPT, EXPR_KIND_SLICE, EXPR_KIND_CALL, EXPR_KIND_FILTER, EXPR_KIND_TEST,
    EXPR_KIND_UNARY, EXPR_KIND_BINARY, EXPR_KIND_COMPARE, EXPR_KIND_CONDITIONAL,
};

enum class UnaryOp { UNARY_OP_NOT, UNARY_OP_NEG, UNARY_OP_POS };
enum class BinaryOp {
    BINARY_OP_ADD, BINARY_OP_SUB, BINARY_OP_MUL, BINARY_OP_DIV, BINARY_OP_FLOORDIV, BINARY_OP_MOD,
    BINARY_OP_POW, BINARY_OP_CONCAT, BINARY_OP_AND, BINARY_OP_OR,
};
enum class CompareOp {
    COMPARE_OP_EQ, COMPARE_OP_NE, COMPARE_OP_LT, COMPARE_OP_LE, COMPARE_OP_GT, COMPARE_OP_GE,
    COMPARE_OP_IN, COMPARE_OP_NOT_IN,
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Argument {
    std::string name;     // empty: positional
    ExprPtr value;
};

struct Expr {
    ExprKind kind = ExprKind::EXPR_KIND_LITERAL;
    SourcePos pos;
    Value literal;                       // LITERAL
    std::string name;                    // NAME, ATTRIBUTE (attribute), FILTER/TEST (filter or test name)
    ExprPtr a, b, c;                     // operands: ATTRIBUTE/SUBSCRIPT object=a index=b; SLICE a:b:c;
                                         // CALL callee=a; FILTER/TEST input=a (null in filter blocks);
                                         // UNARY a; BINARY a op b; CONDITIONAL then=a if=b else=c (c may be null)
    std::vector<ExprPtr> items;          // LIST items; DICT keys and values interleaved; COMPARE operands
    std::vector<Argument> args;          // CALL, FILTER, TEST arguments
    UnaryOp unaryOp = UnaryOp::UNARY_OP_NOT;
    BinaryOp binaryOp = BinaryOp::BINARY_OP_ADD;
    std::vector<CompareOp> compareOps;   // COMPARE: items[0] ops[0] items[1] ops[1] items[2] ...
    bool negated = false;                // TEST: `is not`
    bool tuple = false;                  // LIST: written as a tuple `(a, b)` or `a, b`

    Expr() = default;
    Expr(const Expr &) = delete;
    Expr &operator=(const Expr &) = delete;
    // Frees the subtree with a work list instead of recursion: a chain of
    // 100,000 links is freed in constant stack.
    ~Expr()
    {
        std::vector<ExprPtr> pending;
        const auto detach = [&pending](Expr &e) {
            for (ExprPtr *child : {&e.a, &e.b, &e.c})
                if (*child)
                    pending.push_back(std::move(*child));
            for (ExprPtr &item : e.items)
                if (item)
                    pending.push_back(std::move(item));
            for (Argument &arg : e.args)
                if (arg.value)
                    pending.push_back(std::move(arg.value));
        };
        detach(*this);
        while (!pending.empty()) {
            ExprPtr next = std::move(pending.back());
            pending.pop_back();
            detach(*next);
        }   // each node is freed here, childless
    }
};

enum class StmtKind {
    STMT_KIND_TEXT, STMT_KIND_OUTPUT, STMT_KIND_IF, STMT_KIND_FOR, STMT_KIND_SET, STMT_KIND_SET_BLOCK,
    STMT_KIND_MACRO, STMT_KIND_FILTER_BLOCK, STMT_KIND_BREAK, STMT_KIND_CONTINUE, STMT_KIND_BODY,
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

// An assignment target: a name, `ns.attr`, or a tuple of names.
struct Target {
    std::vector<std::string> names;      // one name, or several for unpacking
    std::string attribute;               // non-empty: names[0].attribute (namespace assignment)
    bool tuple = false;                  // `a, b` (unpack even when one name)
};

struct MacroParam {
    std::string name;
    ExprPtr defaultValue;                // may be null
};

struct Stmt {
    StmtKind kind = StmtKind::STMT_KIND_TEXT;
    SourcePos pos;
    std::string text;                    // TEXT; MACRO name
    ExprPtr expr;                        // OUTPUT, SET value, FOR iterable, FILTER_BLOCK/SET_BLOCK filter chain
    ExprPtr filter;                      // FOR: the `if` filter
    Target target;                       // SET, SET_BLOCK, FOR
    std::vector<std::pair<ExprPtr, Body>> branches;   // IF: condition + body, in order
    Body body;                           // FOR, SET_BLOCK, MACRO, FILTER_BLOCK, BODY
    Body elseBody;                       // IF, FOR
    std::vector<MacroParam> params;      // MACRO
    bool recursive = false;              // FOR ... recursive
};

} // namespace burrow::jinja
