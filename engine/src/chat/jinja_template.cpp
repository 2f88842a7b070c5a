// Template: lexer + parser + a check that every filter and test exists.
#include "chat/jinja_template.h"

#include "chat/jinja_builtins.h"
#include "chat/jinja_lexer.h"
#include "chat/jinja_parser.h"

#include <algorithm>
#include <new>

namespace burrow::jinja {

namespace {

// Walks the tree once: every filter and test must exist; collects the
// variable names read.
class NameChecker {
public:
    explicit NameChecker(const std::string &name) : m_name(name) {}

    // The names read, sorted and unique (after body()).
    std::vector<std::string> takeNames()
    {
        std::sort(m_names.begin(), m_names.end());
        m_names.erase(std::unique(m_names.begin(), m_names.end()), m_names.end());
        return std::move(m_names);
    }

    Status body(const Body &b)
    {
        for (const StmtPtr &s : b)
            if (Status st = stmt(*s); !st)
                return st;
        return {};
    }

private:
    Status stmt(const Stmt &s)
    {
        for (const Expr *e : {s.expr.get(), s.filter.get()})
            if (e)
                if (Status st = expr(*e); !st)
                    return st;
        for (const auto &[cond, b] : s.branches) {
            if (Status st = expr(*cond); !st)
                return st;
            if (Status st = body(b); !st)
                return st;
        }
        for (const MacroParam &p : s.params)
            if (p.defaultValue)
                if (Status st = expr(*p.defaultValue); !st)
                    return st;
        if (Status st = body(s.body); !st)
            return st;
        return body(s.elseBody);
    }

    // Walks one expression tree with a work list (a chain may be as deep as
    // it is long): checks each node and refuses a tree deeper than
    // EXPR_MAX_DEPTH, which rendering it would recurse through.
    Status expr(const Expr &root)
    {
        std::vector<std::pair<const Expr *, int>> pending{{&root, 1}};
        while (!pending.empty()) {
            const auto [e, depth] = pending.back();
            pending.pop_back();
            if (depth > EXPR_MAX_DEPTH)
                return fail(*e, "expression nested deeper than " + std::to_string(EXPR_MAX_DEPTH)
                                    + " levels (each operator, filter, test, attribute, subscript or call of a chain "
                                      "is a level)");
            if (e->kind == ExprKind::EXPR_KIND_NAME)
                m_names.push_back(e->name);
            if (e->kind == ExprKind::EXPR_KIND_FILTER && !builtins::hasFilter(e->name))
                return fail(*e, "no filter named '" + e->name + "'");
            if (e->kind == ExprKind::EXPR_KIND_TEST && !builtins::hasTest(e->name))
                return fail(*e, "no test named '" + e->name + "'");
            for (const Expr *c : {e->a.get(), e->b.get(), e->c.get()})
                if (c)
                    pending.emplace_back(c, depth + 1);
            for (const ExprPtr &c : e->items)
                pending.emplace_back(c.get(), depth + 1);
            for (const Argument &a : e->args)
                pending.emplace_back(a.value.get(), depth + 1);
        }
        return {};
    }

    Status fail(const Expr &e, const std::string &what) const
    {
        return Status::error(m_name + ":" + std::to_string(e.pos.line) + ":" + std::to_string(e.pos.column) + ": " + what);
    }

    const std::string &m_name;
    std::vector<std::string> m_names;
};

} // namespace

Result<Template> Template::parse(std::string_view source, const TemplateOptions &options)
{
    try {
        return parseChecked(source, options);
    } catch (const std::bad_alloc &) {
        return Status::error(options.name + ": out of memory while parsing the template");
    }
}

Result<Template> Template::parseChecked(std::string_view source, const TemplateOptions &options)
{
    if (source.size() > options.maxSourceBytes)
        return Status::error(options.name + ": the template has " + std::to_string(source.size())
                             + " bytes, more than the limit of " + std::to_string(options.maxSourceBytes));
    LexerOptions lex;
    lex.trimBlocks = options.trimBlocks;
    lex.lstripBlocks = options.lstripBlocks;
    lex.keepTrailingNewline = options.keepTrailingNewline;
    auto tokens = tokenize(source, lex, options.name);
    if (!tokens)
        return tokens.status();
    auto body = parseTemplate(*tokens, options.name);
    if (!body)
        return body.status();
    NameChecker checker(options.name);
    if (Status s = checker.body(*body); !s)
        return s;
    Template t;
    t.m_name = options.name;
    t.m_body = std::make_shared<const Body>(std::move(*body));
    t.m_names = std::make_shared<const std::vector<std::string>>(checker.takeNames());
    return t;
}

bool Template::readsName(std::string_view name) const
{
    return std::binary_search(m_names->begin(), m_names->end(), name);
}

Result<std::string> Template::render(const Dict &context, const RenderOptions &options) const
{
    if (!m_body)
        return Status::error(m_name + ": the template was not parsed (default-constructed)");
    try {
        Interpreter interpreter(m_name, options);
        return interpreter.render(*m_body, context);
    } catch (const std::bad_alloc &) {   // render() catches its own; this is for what surrounds it
        return Status::error(m_name + ": the template ran out of memory");
    }
}

} // namespace burrow::jinja
