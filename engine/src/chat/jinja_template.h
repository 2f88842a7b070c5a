// A parsed Jinja template, ready to render many times (thread-safe: renders
// share only the immutable tree).
//
// Defaults match Hugging Face's apply_chat_template environment:
// trim_blocks and lstrip_blocks on, keep_trailing_newline off, no
// autoescaping, loop controls (break/continue) enabled.
//
// Contract: parse() refuses templates that do not parse or use unknown
// filters or tests, and those that break a bound known before rendering
// (the message names it): more than maxSourceBytes, blocks nested deeper
// than PARSER_MAX_DEPTH, an expression deeper than EXPR_MAX_DEPTH (a chain
// `1 + 1 + ...`, `x|f|f|...`, `a.b.c...` counts one level per link).
// render() fails with "NAME:LINE:COL: message" (bounds: RenderLimits).
// Cost: parse O(template); render O(steps), bounded by RenderLimits.
#pragma once

#include "chat/jinja_ast.h"
#include "chat/jinja_interpreter.h"
#include "chat/jinja_value.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::jinja {

struct TemplateOptions {
    std::string name = "template";   // prefixes error messages
    bool trimBlocks = true;
    bool lstripBlocks = true;
    bool keepTrailingNewline = false;
    // Real chat templates have a few to a few tens of KiB; the syntax tree
    // takes up to ~200 bytes per byte of source.
    size_t maxSourceBytes = size_t(1) << 20;
};

class Template {
public:
    static Result<Template> parse(std::string_view source, const TemplateOptions &options = {});

    // A default-constructed Template renders nothing and says so.
    Result<std::string> render(const Dict &context, const RenderOptions &options = {}) const;
    const std::string &name() const { return m_name; }

    // Every variable name the template reads (a name expression anywhere:
    // `enable_thinking`, `messages`, a loop variable, a macro, ...), sorted
    // and unique. Found once by parse(); whether a branch using it can run
    // is not considered.
    const std::vector<std::string> &referencedNames() const { return *m_names; }
    bool readsName(std::string_view name) const;

private:
    static Result<Template> parseChecked(std::string_view source, const TemplateOptions &options);

    std::string m_name;
    std::shared_ptr<const Body> m_body;
    std::shared_ptr<const std::vector<std::string>> m_names = std::make_shared<const std::vector<std::string>>();
};

} // namespace burrow::jinja
