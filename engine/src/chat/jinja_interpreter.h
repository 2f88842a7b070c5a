// Jinja interpreter: renders a parsed template against a context, with
// Jinja2/Python semantics (scoping: `for` bodies and macros get their own
// frame, `if` does not; `set` writes the innermost frame; namespaces are
// shared objects changed in place).
//
// Contract: render() never throws; every failure (undefined values used in
// operations, type errors, raise_exception(), limits) is a Status
// "NAME:LINE:COL: message" naming the template position.
// Limits: a step counter (every statement and expression evaluation is a
// step), the size of the output (and of every string built on the way), the
// length of lists built on the way, and the depth of nested macro calls, so
// no template can run forever, exhaust memory or the stack.
#pragma once

#include "chat/jinja_ast.h"
#include "chat/jinja_value.h"

#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace burrow::jinja {

struct RenderLimits {
    uint64_t maxSteps = 20'000'000;
    size_t maxOutputBytes = size_t(32) << 20;
    int maxCallDepth = 100;
    size_t maxListItems = 1'000'000;   // any list built by the template (+, *, range)
    int maxValueDepth = 1000;          // nesting of lists and dicts built or received
};

struct RenderOptions {
    RenderLimits limits;
    // strftime_now() formats this instant (local time); null: the real clock.
    std::function<std::time_t()> clock;
    // When set, strftime_now(format) returns this text whatever the format:
    // the stub Hugging Face's fixtures were rendered with (their
    // strftime_now() returns "26 Jul 2024" for "%Y-%m-%d" too).
    std::optional<std::string> fixedStrftime;
};

struct Frame;

class Interpreter {
public:
    Interpreter(std::string templateName, RenderOptions options);
    ~Interpreter();

    // Renders `body` with `context` as the template's variables.
    Result<std::string> render(const Body &body, const Dict &context);

    // --- services for builtins (filters, tests, methods, globals) -------------
    Status step();                                     // counts one step; error past the limit
    Status checkSize(size_t bytes) const;              // error when a string would exceed the output limit
    Result<Value> call(const Value &callee, CallArgs &args);
    Result<Value> applyFilter(const std::string &name, const Value &input, CallArgs &args);
    Result<bool> applyTest(const std::string &name, const Value &input, CallArgs &args);
    Value getAttribute(const Value &object, const std::string &name);   // Jinja getattr: attribute, then item
    Value getItem(const Value &object, const Value &key);               // Jinja getitem: item, then attribute
    std::time_t now() const;
    const std::optional<std::string> &fixedStrftime() const { return m_options.fixedStrftime; }
    const RenderLimits &limits() const { return m_options.limits; }
    Value newNamespace(Dict entries);                  // tracked so cycles are broken after rendering

private:
    enum class Flow { FLOW_NORMAL, FLOW_BREAK, FLOW_CONTINUE };

    Status exec(const Body &body, Flow &flow);
    Status execStmt(const Stmt &stmt, Flow &flow);
    Status execFor(const Stmt &stmt);
    Status assign(const Target &target, const Value &value, const SourcePos &pos);
    Result<Value> eval(const Expr &expr);
    Result<Value> evalInner(const Expr &expr);
    Result<Value> evalBinary(const Expr &expr);
    Result<Value> evalCompare(const Expr &expr);
    Result<Value> evalCall(const Expr &expr);
    Status evalArgs(const std::vector<Argument> &args, CallArgs &out);
    Result<Value> applyFilterChain(const Expr &chain, const Value &input);
    Result<Value> callMacro(const Stmt &macro, const std::weak_ptr<Frame> &definition, CallArgs &args);
    Result<std::string> renderToString(const Body &body, const std::shared_ptr<Frame> &frame);
    Value lookup(const std::string &name) const;
    Status append(const std::string &text);
    Status fail(const SourcePos &pos, const std::string &message) const;
    Status positioned(const SourcePos &pos, const Status &status) const;

    std::string m_name;
    RenderOptions m_options;
    uint64_t m_steps = 0;
    int m_callDepth = 0;
    std::string *m_out = nullptr;
    std::shared_ptr<Frame> m_frame;      // innermost
    std::shared_ptr<Frame> m_root;       // template-level variables
    std::vector<std::weak_ptr<Dict>> m_namespaces;
    void clearNamespaces();
};

} // namespace burrow::jinja
