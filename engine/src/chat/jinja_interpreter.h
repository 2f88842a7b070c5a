// Jinja interpreter: renders a parsed template against a context, with
// Jinja2/Python semantics (scoping: `for` bodies and macros get their own
// frame, `if` does not; `set` writes the innermost frame; namespaces are
// shared objects changed in place).
//
// Contract: render() never throws; every failure (undefined values used in
// operations, type errors, raise_exception(), limits) is a Status
// "NAME:LINE:COL: message" naming the template position; a render stopped
// by RenderOptions::cancelled is Status::cancelled().
// Limits (RenderLimits; each error names the limit it hit):
//   steps: every statement and expression evaluated is one step, and an
//     operator or builtin is charged one step per element and per 32 bytes
//     it reads or writes (find, in, replace, join, tojson, +, *, ...), so the
//     step count follows the work done, whatever the template;
//   time: a wall-clock deadline and the cancel check, looked at every few
//     thousand steps and inside long builtins;
//   memory: the output and every string built on the way, the items of every
//     list built (every list-producing builtin too), the nesting of values,
//     and the bytes of all values alive at once (jinja_memory.h);
//   stack: the depth of nested evaluation (expressions, statements, macro
//     calls), so no template can exhaust the stack.
// Out of memory (std::bad_alloc) anyway: an error, never a crash.
#pragma once

#include "chat/jinja_ast.h"
#include "chat/jinja_value.h"

#include <chrono>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace burrow::jinja {

struct RenderLimits {
    uint64_t maxSteps = 10'000'000;   // about a second of the slowest steps
    size_t maxOutputBytes = size_t(32) << 20;
    int maxCallDepth = 100;
    size_t maxListItems = 1'000'000;   // any list built by the template (+, *, range, split, ...)
    int maxValueDepth = 1000;          // nesting of lists and dicts built or received
    size_t maxLiveBytes = size_t(256) << 20;   // strings, lists and dicts alive at once
    double maxSeconds = 10;            // wall-clock time of one render (<= 0: none)
    int maxNesting = 1500;             // nested evaluation: expressions, statements, macro calls
};

struct RenderOptions {
    RenderLimits limits;
    // strftime_now() formats this instant (local time); null: the real clock.
    std::function<std::time_t()> clock;
    // When set, strftime_now(format) returns this text whatever the format:
    // the stub Hugging Face's fixtures were rendered with (their
    // strftime_now() returns "26 Jul 2024" for "%Y-%m-%d" too).
    std::optional<std::string> fixedStrftime;
    // Asked every few thousand steps (from the rendering thread): true stops
    // the render with Status::cancelled() (a client left, the user pressed
    // Esc, the server stops). Null: never.
    std::function<bool()> cancelled;
};

struct Frame;

class Interpreter {
public:
    Interpreter(std::string templateName, RenderOptions options);
    ~Interpreter();

    // Renders `body` with `context` as the template's variables.
    Result<std::string> render(const Body &body, const Dict &context);

    // --- services for builtins (filters, tests, methods, globals) -------------
    Status step() { return charge(1); }                // counts one step; error past the limit
    // Counts `steps` more; past the limit, the deadline, a cancel or the
    // memory limit: the error. Builtins charge before the work they count.
    Status charge(uint64_t steps);
    Status chargeBytes(size_t bytes) { return charge(bytes / 32 + 1); }
    Status checkSize(size_t bytes) const;              // error when a string would exceed the output limit
    Status checkItems(size_t items) const;             // error when a list would exceed the item limit
    Result<Value> call(const Value &callee, CallArgs &args);
    Result<Value> applyFilter(const std::string &name, const Value &input, CallArgs &args);
    Result<bool> applyTest(const std::string &name, const Value &input, CallArgs &args);
    Value getAttribute(const Value &object, const std::string &name);   // Jinja getattr: attribute, then item
    Value getItem(const Value &object, const Value &key);               // Jinja getitem: item, then attribute
    // The items of an iterable (Python iter()): a list's items, a dict's
    // keys, a string's characters, none for Undefined; charged per item. A
    // string of more characters than the item limit is refused.
    Result<List> iterate(const Value &v);
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

    Status checkpoint();                 // deadline, cancel and memory, every CHECK_EVERY steps
    Result<std::string> renderBody(const Body &body, const Dict &context);
    Result<Value> evalSubscript(const Expr &expr, const Value &object);
    Result<Value> arithmetic(BinaryOp op, const Value &a, const Value &b);
    Result<Value> repeat(const Value &seq, int64_t times);
    Result<bool> contains(const Value &container, const Value &item);

    static constexpr uint64_t CHECK_EVERY = 4096;

    std::string m_name;
    RenderOptions m_options;
    uint64_t m_steps = 0;
    uint64_t m_nextCheck = CHECK_EVERY;
    std::chrono::steady_clock::time_point m_deadline;
    bool m_hasDeadline = false;
    std::shared_ptr<MemoryMeter> m_meter = std::make_shared<MemoryMeter>();
    int m_callDepth = 0;
    int m_nesting = 0;                   // eval() and execStmt() frames now on the stack
    const char *m_stackFloor = nullptr;  // lowest stack address evaluation may reach (null: unknown)
    std::string *m_out = nullptr;
    std::shared_ptr<Frame> m_frame;      // innermost
    std::shared_ptr<Frame> m_root;       // template-level variables
    std::vector<std::weak_ptr<Dict>> m_namespaces;
    size_t m_namespacesKept = 0;
    void clearNamespaces();
};

} // namespace burrow::jinja
