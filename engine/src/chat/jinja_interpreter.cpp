// Tree-walking Jinja interpreter (see jinja_interpreter.h).
#include "chat/jinja_interpreter.h"

#include "chat/jinja_builtins.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <new>
#include <unordered_map>

#if defined(__linux__)
#include <pthread.h>
#endif

namespace burrow::jinja {

// One scope's variables (a hash map: a template setting many names costs
// O(1) per lookup, not O(names)).
struct Frame {
    std::unordered_map<std::string, Value> vars;
    std::shared_ptr<Frame> parent;

    Value *find(const std::string &name)
    {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : &it->second;
    }
    void set(const std::string &name, Value value) { vars.insert_or_assign(name, std::move(value)); }
};

namespace {

// Swaps the output target and the innermost frame for the lifetime of the guard.
struct ScopeGuard {
    std::string *&out;
    std::shared_ptr<Frame> &frame;
    std::string *savedOut;
    std::shared_ptr<Frame> savedFrame;
    ScopeGuard(std::string *&o, std::shared_ptr<Frame> &f, std::string *newOut, std::shared_ptr<Frame> newFrame)
        : out(o), frame(f), savedOut(o), savedFrame(f)
    {
        out = newOut;
        frame = std::move(newFrame);
    }
    ~ScopeGuard()
    {
        out = savedOut;
        frame = std::move(savedFrame);
    }
};

// Counts a frame of eval() / execStmt() for its lifetime.
struct NestingGuard {
    int &depth;
    explicit NestingGuard(int &d) : depth(d) { ++depth; }
    ~NestingGuard() { --depth; }
};

std::string nestingMessage(int limit)
{
    return "template evaluation nested deeper than " + std::to_string(limit)
           + " levels (expressions, blocks and macro calls inside each other)";
}

// The lowest stack address a render on this thread may reach: the thread's
// stack less a margin for the builtins and the library below the deepest
// evaluation (an eighth of the stack, at least 128 KiB). Null when unknown.
// Frames are much larger under sanitizers; this keeps any build off the
// guard page whatever maxNesting allows.
const char *stackFloor()
{
#if defined(__linux__)
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return nullptr;
    void *low = nullptr;
    size_t size = 0;
    const bool known = pthread_attr_getstack(&attr, &low, &size) == 0;
    pthread_attr_destroy(&attr);
    if (!known || !low || size == 0)
        return nullptr;
    return static_cast<const char *>(low) + std::max<size_t>(size / 8, 128u << 10);
#else
    return nullptr;
#endif
}

// The real stack position of the caller (not a sanitizer's fake stack).
inline const char *stackHere()
{
    return static_cast<const char *>(__builtin_frame_address(0));
}

Status unsupported(const char *op, const Value &a, const Value &b)
{
    return Status::error(std::string("unsupported operand type(s) for ") + op + ": '" + typeName(a) + "' and '"
                         + typeName(b) + "'");
}

} // namespace

// seq * times: a string is charged and bounded by the bytes it would have, a
// list by its items (which share their values: [s] * n holds one s).
Result<Value> Interpreter::repeat(const Value &seq, int64_t times)
{
    if (times < 0)
        times = 0;
    if (seq.isString()) {
        const size_t unit = seq.asString().size();
        if (unit != 0 && uint64_t(times) > m_options.limits.maxOutputBytes / unit)
            return Status::error("string repetition exceeds the output size limit");
        if (Status s = chargeBytes(unit * size_t(times)); !s)
            return s;
        std::string out;
        out.reserve(unit * size_t(times));
        for (int64_t i = 0; i < times; ++i)
            out += seq.asString();
        return Value(std::move(out));
    }
    const size_t unit = seq.asList().size();
    if (unit != 0 && uint64_t(times) > m_options.limits.maxListItems / unit)
        return Status::error("list repetition exceeds the limit of " + std::to_string(m_options.limits.maxListItems) + " items");
    if (Status s = charge(unit * size_t(times)); !s)
        return s;
    List out;
    out.reserve(unit * size_t(times));
    for (int64_t i = 0; i < times; ++i)
        out.insert(out.end(), seq.asList().begin(), seq.asList().end());
    return seq.isTuple() ? Value::tuple(std::move(out)) : Value::list(std::move(out));
}

Result<Value> Interpreter::arithmetic(BinaryOp op, const Value &a, const Value &b)
{
    const size_t maxBytes = m_options.limits.maxOutputBytes;
    const size_t maxItems = m_options.limits.maxListItems;
    if (a.isUndefined())
        return undefinedError(a);
    if (b.isUndefined())
        return undefinedError(b);
    const bool numbers = a.isNumber() && b.isNumber();
    const bool anyFloat = a.isFloat() || b.isFloat();
    switch (op) {
    case BinaryOp::BINARY_OP_ADD:
        if (numbers) {
            if (anyFloat)
                return Value(a.asFloat() + b.asFloat());
            int64_t r = 0;
            if (__builtin_add_overflow(a.asInt(), b.asInt(), &r))
                return Status::error("integer overflow");
            return Value(r);
        }
        if (a.isString() && b.isString()) {
            if (a.asString().size() + b.asString().size() > maxBytes)
                return Status::error("string exceeds the output size limit");
            if (Status s = chargeBytes(a.asString().size() + b.asString().size()); !s)
                return s;
            return Value(a.asString() + b.asString());
        }
        if (a.isList() && b.isList()) {
            if (a.asList().size() + b.asList().size() > maxItems)
                return Status::error("list exceeds the limit of " + std::to_string(maxItems) + " items");
            if (Status s = charge(a.asList().size() + b.asList().size()); !s)
                return s;
            if (a.isTuple() != b.isTuple())
                return Status::error(std::string("can only concatenate ") + (a.isTuple() ? "tuple" : "list") + " (not \""
                                     + (b.isTuple() ? "tuple" : "list") + "\") to " + (a.isTuple() ? "tuple" : "list"));
            List out = a.asList();
            out.insert(out.end(), b.asList().begin(), b.asList().end());
            return a.isTuple() ? Value::tuple(std::move(out)) : Value::list(std::move(out));
        }
        if (a.isString())
            return Status::error(std::string("can only concatenate str (not \"") + typeName(b) + "\") to str");
        if (a.isList())
            return Status::error(std::string("can only concatenate list (not \"") + typeName(b) + "\") to list");
        return unsupported("+", a, b);
    case BinaryOp::BINARY_OP_SUB:
        if (!numbers)
            return unsupported("-", a, b);
        if (anyFloat)
            return Value(a.asFloat() - b.asFloat());
        {
            int64_t r = 0;
            if (__builtin_sub_overflow(a.asInt(), b.asInt(), &r))
                return Status::error("integer overflow");
            return Value(r);
        }
    case BinaryOp::BINARY_OP_MUL:
        if (numbers) {
            if (anyFloat)
                return Value(a.asFloat() * b.asFloat());
            int64_t r = 0;
            if (__builtin_mul_overflow(a.asInt(), b.asInt(), &r))
                return Status::error("integer overflow");
            return Value(r);
        }
        if ((a.isString() || a.isList()) && (b.isInt() || b.isBool()))
            return repeat(a, b.asInt());
        if ((b.isString() || b.isList()) && (a.isInt() || a.isBool()))
            return repeat(b, a.asInt());
        return unsupported("*", a, b);
    case BinaryOp::BINARY_OP_DIV:
        if (!numbers)
            return unsupported("/", a, b);
        if (b.asFloat() == 0.0)
            return Status::error("division by zero");
        return Value(a.asFloat() / b.asFloat());
    case BinaryOp::BINARY_OP_FLOORDIV:
    case BinaryOp::BINARY_OP_MOD: {
        const bool div = op == BinaryOp::BINARY_OP_FLOORDIV;
        if (!numbers)
            return unsupported(div ? "//" : "%", a, b);
        if (b.asFloat() == 0.0)
            return Status::error(div ? "integer division or modulo by zero" : "modulo by zero");
        if (anyFloat) {
            const double x = a.asFloat(), y = b.asFloat();
            double m = std::fmod(x, y);
            if (m != 0.0 && ((m < 0) != (y < 0)))
                m += y;
            if (!div)
                return Value(m);
            return Value(std::floor((x - m) / y + 0.5));
        }
        const int64_t x = a.asInt(), y = b.asInt();
        if (x == INT64_MIN && y == -1)
            return div ? Result<Value>(Status::error("integer overflow")) : Result<Value>(Value(int64_t(0)));
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
            q -= 1;
            m += y;
        }
        return div ? Value(q) : Value(m);
    }
    case BinaryOp::BINARY_OP_POW: {
        if (!numbers)
            return unsupported("** or pow()", a, b);
        if (!anyFloat && b.asInt() >= 0) {
            // By squaring: O(log exponent) multiplications (1 ** 10**18 is quick).
            int64_t result = 1, base = a.asInt();
            for (int64_t e = b.asInt(); e > 0; e >>= 1) {
                if ((e & 1) && __builtin_mul_overflow(result, base, &result))
                    return Status::error("integer overflow");
                if (e > 1 && __builtin_mul_overflow(base, base, &base))
                    return Status::error("integer overflow");
            }
            return Value(result);
        }
        if (a.asFloat() == 0.0 && b.asFloat() < 0)
            return Status::error("0.0 cannot be raised to a negative power");
        return Value(std::pow(a.asFloat(), b.asFloat()));
    }
    default:
        break;
    }
    return Status::error("internal: bad arithmetic operator");
}

Result<bool> Interpreter::contains(const Value &container, const Value &item)
{
    switch (container.kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED: return false;
    case ValueKind::VALUE_KIND_STRING:
        if (item.isUndefined())
            return undefinedError(item);
        if (!item.isString())
            return Status::error(std::string("'in <string>' requires string as left operand, not ") + typeName(item));
        if (Status s = chargeBytes(container.asString().size() + item.asString().size()); !s)
            return s;
        return SubstringSearch(item.asString()).find(container.asString()) != std::string::npos;
    case ValueKind::VALUE_KIND_LIST:
        if (Status s = charge(container.asList().size()); !s)
            return s;
        for (const Value &v : container.asList())
            if (equals(v, item))
                return true;
        return false;
    case ValueKind::VALUE_KIND_DICT:
    case ValueKind::VALUE_KIND_NAMESPACE:
        return container.asDict().find(item) != nullptr;
    default:
        return Status::error(std::string("argument of type '") + typeName(container) + "' is not iterable");
    }
}

Interpreter::Interpreter(std::string templateName, RenderOptions options)
    : m_name(std::move(templateName)), m_options(std::move(options))
{
}

Interpreter::~Interpreter()
{
    clearNamespaces();
}

// Namespaces may reference themselves (ns.x = ns) or form long chains
// (ns.x = namespace(x=ns.x) in a loop). Emptying them oldest first breaks the
// cycles and frees the chains one link at a time instead of recursively.
void Interpreter::clearNamespaces()
{
    // Keep every namespace alive while emptying them, so no release cascades
    // through a chain; then each is freed empty.
    std::vector<std::shared_ptr<Dict>> alive;
    for (auto &weak : m_namespaces)
        if (auto ns = weak.lock())
            alive.push_back(std::move(ns));
    m_namespaces.clear();
    for (auto &ns : alive)
        ns->entries.clear();
}

Status Interpreter::fail(const SourcePos &pos, const std::string &message) const
{
    return Status::error(m_name + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + message);
}

Status Interpreter::positioned(const SourcePos &pos, const Status &status) const
{
    if (status.isOk() || status.isCancelled())
        return status;
    const std::string &msg = status.message();
    // Errors from nested evaluation already carry a position.
    if (msg.size() > m_name.size() + 1 && msg.compare(0, m_name.size(), m_name) == 0 && msg[m_name.size()] == ':'
        && msg[m_name.size() + 1] >= '0' && msg[m_name.size() + 1] <= '9')
        return status;
    return fail(pos, msg);
}

Status Interpreter::charge(uint64_t steps)
{
    m_steps += steps;
    if (m_steps > m_options.limits.maxSteps)
        return Status::error("template exceeded the limit of " + std::to_string(m_options.limits.maxSteps)
                             + " evaluation steps (endless loop?)");
    if (m_steps >= m_nextCheck) {
        m_nextCheck = m_steps + CHECK_EVERY;
        return checkpoint();
    }
    return {};
}

Status Interpreter::checkpoint()
{
    if (m_options.cancelled && m_options.cancelled())
        return Status::cancelled("template rendering was cancelled");
    if (m_hasDeadline && std::chrono::steady_clock::now() > m_deadline) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", m_options.limits.maxSeconds);
        return Status::error(std::string("template exceeded the time limit of ") + limit + " s");
    }
    if (m_meter->live() > int64_t(m_options.limits.maxLiveBytes))
        return Status::error("template values exceeded the memory limit of "
                             + std::to_string(m_options.limits.maxLiveBytes >> 20) + " MiB");
    return {};
}

Status Interpreter::checkSize(size_t bytes) const
{
    if (bytes > m_options.limits.maxOutputBytes)
        return Status::error("template output exceeded the limit of " + std::to_string(m_options.limits.maxOutputBytes)
                             + " bytes");
    return {};
}

Status Interpreter::checkItems(size_t items) const
{
    if (items > m_options.limits.maxListItems)
        return Status::error("list exceeds the limit of " + std::to_string(m_options.limits.maxListItems) + " items");
    return {};
}

std::time_t Interpreter::now() const
{
    return m_options.clock ? m_options.clock() : std::time(nullptr);
}

Value Interpreter::newNamespace(Dict entries)
{
    Value ns = Value::makeNamespace(std::move(entries));
    // Forget the namespaces already freed once the list has doubled, so a
    // long loop (each iteration has its `loop`) keeps O(live) entries.
    if (m_namespaces.size() >= 2 * m_namespacesKept + 64) {
        std::erase_if(m_namespaces, [](const std::weak_ptr<Dict> &w) { return w.expired(); });
        m_namespacesKept = m_namespaces.size();
    }
    m_namespaces.push_back(ns.dictPtr());
    return ns;
}

Status Interpreter::append(const std::string &text)
{
    if (Status s = checkSize(m_out->size() + text.size()); !s)
        return s;
    if (Status s = chargeBytes(text.size()); !s)
        return s;
    *m_out += text;
    m_meter->add(text.size());   // released when the buffer is done (OutputCharge)
    return {};
}

namespace {

// Releases what append() charged for an output buffer once it is done with.
struct OutputCharge {
    MemoryMeter &meter;
    const std::string &out;
    ~OutputCharge() { meter.release(out.size()); }
};

} // namespace

Result<std::string> Interpreter::render(const Body &body, const Dict &context)
{
    // Whatever a builtin or the standard library throws (bad_alloc above
    // all) ends the render with an error, never the program.
    try {
        MeterScope meter(m_meter);
        return renderBody(body, context);
    } catch (const std::bad_alloc &) {
        clearNamespaces();
        return Status::error(m_name + ": the template ran out of memory");
    } catch (const std::exception &e) {
        clearNamespaces();
        return Status::error(m_name + ": " + e.what());
    }
}

Result<std::string> Interpreter::renderBody(const Body &body, const Dict &context)
{
    m_stackFloor = stackFloor();
    if (m_options.limits.maxSeconds > 0) {
        m_hasDeadline = true;
        m_deadline = std::chrono::steady_clock::now()
                     + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(m_options.limits.maxSeconds));
    }
    auto globals = std::make_shared<Frame>();
    for (auto &[k, v] : builtins::globals().entries)
        globals->set(k.asString(), v);
    m_root = std::make_shared<Frame>();
    m_root->parent = globals;
    for (const auto &[k, v] : context.entries)
        if (k.isString())
            m_root->set(k.asString(), v);
    std::string out;
    Flow flow = Flow::FLOW_NORMAL;
    Status s;
    {
        OutputCharge charged{*m_meter, out};
        ScopeGuard guard(m_out, m_frame, &out, m_root);
        s = exec(body, flow);
    }
    clearNamespaces();
    m_root.reset();
    if (!s)
        return s;
    return out;
}

Result<List> Interpreter::iterate(const Value &v)
{
    switch (v.kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED: return List{};
    case ValueKind::VALUE_KIND_LIST:
        if (Status s = charge(v.asList().size()); !s)
            return s;
        return v.asList();
    case ValueKind::VALUE_KIND_DICT: {
        if (Status s = charge(v.asDict().entries.size()); !s)
            return s;
        List keys;
        keys.reserve(v.asDict().entries.size());
        for (const auto &[k, val] : v.asDict().entries)
            keys.push_back(k);
        return keys;
    }
    case ValueKind::VALUE_KIND_STRING: {
        const std::string &text = v.asString();
        if (Status s = checkItems(v.stringData().length()); !s)
            return Status::error("a string of " + std::to_string(v.stringData().length())
                                 + " characters cannot be listed: " + s.message());
        if (Status s = charge(v.stringData().length()); !s)
            return s;
        List chars;
        chars.reserve(v.stringData().length());
        for (size_t i = 0; i < text.size();) {
            std::string ch;
            utf8Append(ch, utf8Next(text, i));
            chars.emplace_back(std::move(ch));
        }
        return chars;
    }
    default:
        return Status::error(std::string("'") + typeName(v) + "' object is not iterable");
    }
}

Value Interpreter::lookup(const std::string &name) const
{
    for (Frame *f = m_frame.get(); f; f = f->parent.get())
        if (Value *v = f->find(name))
            return *v;
    return Value::undefined("'" + name + "' is undefined");
}

Status Interpreter::exec(const Body &body, Flow &flow)
{
    for (const StmtPtr &stmt : body) {
        if (Status s = execStmt(*stmt, flow); !s)
            return s;
        if (flow != Flow::FLOW_NORMAL)
            return {};
    }
    return {};
}

Result<std::string> Interpreter::renderToString(const Body &body, const std::shared_ptr<Frame> &frame)
{
    std::string out;
    Flow flow = Flow::FLOW_NORMAL;
    Status s;
    {
        OutputCharge charged{*m_meter, out};
        ScopeGuard guard(m_out, m_frame, &out, frame);
        s = exec(body, flow);
    }
    if (!s)
        return s;
    return out;
}

Status Interpreter::execStmt(const Stmt &stmt, Flow &flow)
{
    NestingGuard nested(m_nesting);
    if (m_nesting > m_options.limits.maxNesting)
        return fail(stmt.pos, nestingMessage(m_options.limits.maxNesting));
    if (m_stackFloor && stackHere() < m_stackFloor)
        return fail(stmt.pos, "template evaluation nested too deeply for this thread's stack (" + std::to_string(m_nesting)
                                 + " levels)");
    if (Status s = step(); !s)
        return positioned(stmt.pos, s);
    switch (stmt.kind) {
    case StmtKind::STMT_KIND_TEXT:
        return positioned(stmt.pos, append(stmt.text));
    case StmtKind::STMT_KIND_OUTPUT: {
        auto v = eval(*stmt.expr);
        if (!v)
            return v.status();
        return positioned(stmt.pos, append(toStr(*v, m_options.limits.maxOutputBytes)));
    }
    case StmtKind::STMT_KIND_IF:
        for (const auto &[cond, body] : stmt.branches) {
            auto c = eval(*cond);
            if (!c)
                return c.status();
            if (truthy(*c))
                return exec(body, flow);
        }
        return exec(stmt.elseBody, flow);
    case StmtKind::STMT_KIND_FOR:
        return execFor(stmt);
    case StmtKind::STMT_KIND_SET: {
        auto v = eval(*stmt.expr);
        if (!v)
            return v.status();
        return assign(stmt.target, *v, stmt.pos);
    }
    case StmtKind::STMT_KIND_SET_BLOCK: {
        auto text = renderToString(stmt.body, m_frame);
        if (!text)
            return text.status();
        Value v(std::move(*text));
        if (stmt.expr) {
            auto filtered = applyFilterChain(*stmt.expr, v);
            if (!filtered)
                return filtered.status();
            v = std::move(*filtered);
        }
        return assign(stmt.target, v, stmt.pos);
    }
    case StmtKind::STMT_KIND_MACRO: {
        const Stmt *macro = &stmt;
        std::weak_ptr<Frame> definition = m_frame;
        m_frame->set(stmt.text, Value::callable(stmt.text, [macro, definition](Interpreter &in, CallArgs &args) {
            return in.callMacro(*macro, definition, args);
        }));
        return {};
    }
    case StmtKind::STMT_KIND_FILTER_BLOCK: {
        auto text = renderToString(stmt.body, m_frame);
        if (!text)
            return text.status();
        auto filtered = applyFilterChain(*stmt.expr, Value(std::move(*text)));
        if (!filtered)
            return filtered.status();
        return positioned(stmt.pos, append(toStr(*filtered, m_options.limits.maxOutputBytes)));
    }
    case StmtKind::STMT_KIND_BREAK:
        flow = Flow::FLOW_BREAK;
        return {};
    case StmtKind::STMT_KIND_CONTINUE:
        flow = Flow::FLOW_CONTINUE;
        return {};
    case StmtKind::STMT_KIND_BODY:
        return exec(stmt.body, flow);
    }
    return {};
}

Status Interpreter::assign(const Target &target, const Value &value, const SourcePos &pos)
{
    if (!target.attribute.empty()) {
        Value object = lookup(target.names[0]);
        if (!object.isNamespace())
            return fail(pos, "cannot assign attribute on non-namespace object");
        Dict &ns = object.mutableDict();
        const int depth = std::max(ns.namespaceDepth, value.depth() + 1);
        if (depth > m_options.limits.maxValueDepth)
            return fail(pos, "value nested deeper than " + std::to_string(m_options.limits.maxValueDepth) + " levels");
        ns.namespaceDepth = depth;
        ns.set(Value(target.attribute), value);
        ns.charge.resize(ns.footprint());
        return {};
    }
    if (!target.tuple && target.names.size() == 1) {
        m_frame->set(target.names[0], value);
        return {};
    }
    if (value.isUndefined())
        return fail(pos, undefinedError(value).message());
    List items;
    if (value.isList()) {
        items = value.asList();
    } else if (value.isString()) {
        // Only as many characters as there are names are ever listed.
        const std::string &text = value.asString();
        for (size_t i = 0; i < text.size() && items.size() <= target.names.size();) {
            std::string ch;
            utf8Append(ch, utf8Next(text, i));
            items.emplace_back(std::move(ch));
        }
    } else if (value.isDict()) {
        for (const auto &[k, v] : value.asDict().entries)
            items.push_back(k);
    } else {
        return fail(pos, std::string("cannot unpack non-iterable ") + typeName(value) + " object");
    }
    if (items.size() != target.names.size())
        return fail(pos, items.size() > target.names.size()
                             ? "too many values to unpack (expected " + std::to_string(target.names.size()) + ")"
                             : "not enough values to unpack (expected " + std::to_string(target.names.size())
                                   + ", got " + std::to_string(items.size()) + ")");
    for (size_t i = 0; i < items.size(); ++i)
        m_frame->set(target.names[i], items[i]);
    return {};
}

Status Interpreter::execFor(const Stmt &stmt)
{
    if (stmt.recursive)
        return fail(stmt.pos, "recursive for loops are not supported");
    auto iterable = eval(*stmt.expr);
    if (!iterable)
        return iterable.status();
    if (!iterable->isUndefined() && !iterable->isList() && !iterable->isDict() && !iterable->isString())
        return fail(stmt.expr->pos, std::string("'") + typeName(*iterable) + "' object is not iterable");
    auto listed = iterate(*iterable);
    if (!listed)
        return positioned(stmt.expr->pos, listed.status());
    List items = std::move(*listed);

    if (stmt.filter) {
        List kept;
        for (const Value &item : items) {
            auto frame = std::make_shared<Frame>();
            frame->parent = m_frame;
            ScopeGuard guard(m_out, m_frame, m_out, frame);
            if (Status s = assign(stmt.target, item, stmt.pos); !s)
                return s;
            auto keep = eval(*stmt.filter);
            if (!keep)
                return keep.status();
            if (truthy(*keep))
                kept.push_back(item);
        }
        items = std::move(kept);
    }

    if (items.empty()) {
        Flow flow = Flow::FLOW_NORMAL;
        return exec(stmt.elseBody, flow);
    }

    const int64_t n = int64_t(items.size());
    auto parentFrame = m_frame;
    for (int64_t i = 0; i < n; ++i) {
        auto frame = std::make_shared<Frame>();
        frame->parent = parentFrame;
        // An iteration is charged what making its `loop` costs (a frame and a
        // namespace of 12 entries: about four steps' time), body or not.
        if (Status s = charge(4); !s)
            return positioned(stmt.pos, s);
        // The keys are made once for all renders (immutable, shared);
        // distinct, so they are appended without lookups.
        enum { INDEX, INDEX0, REVINDEX, REVINDEX0, FIRST, LAST, LENGTH, DEPTH, DEPTH0, PREVITEM, NEXTITEM, CYCLE, KEYS };
        static const std::array<Value, KEYS> keys = [] {
            MeterScope uncharged(nullptr);   // made once, kept for the program: no render's meter
            return std::array<Value, KEYS>{"index", "index0", "revindex", "revindex0", "first", "last",
                                           "length", "depth", "depth0", "previtem", "nextitem", "cycle"};
        }();
        Dict loop;
        loop.entries.reserve(KEYS);
        const auto put = [&loop](int key, Value v) { loop.entries.emplace_back(keys[size_t(key)], std::move(v)); };
        put(INDEX, Value(i + 1));
        put(INDEX0, Value(i));
        put(REVINDEX, Value(n - i));
        put(REVINDEX0, Value(n - i - 1));
        put(FIRST, Value(i == 0));
        put(LAST, Value(i == n - 1));
        put(LENGTH, Value(n));
        put(DEPTH, Value(int64_t(1)));
        put(DEPTH0, Value(int64_t(0)));
        put(PREVITEM, i > 0 ? items[size_t(i - 1)] : Value::undefined("there is no previous item"));
        put(NEXTITEM, i + 1 < n ? items[size_t(i + 1)] : Value::undefined("there is no next item"));
        put(CYCLE, Value::callable("cycle", [i](Interpreter &, CallArgs &args) -> Result<Value> {
            if (args.positional.empty())
                return Status::error("no items for cycling given");
            return args.positional[size_t(i) % args.positional.size()];
        }));
        frame->set("loop", newNamespace(std::move(loop)));
        ScopeGuard guard(m_out, m_frame, m_out, frame);
        if (Status s = assign(stmt.target, items[size_t(i)], stmt.pos); !s)
            return s;
        Flow flow = Flow::FLOW_NORMAL;
        if (Status s = exec(stmt.body, flow); !s)
            return s;
        if (flow == Flow::FLOW_BREAK)
            break;
    }
    return {};
}

Result<Value> Interpreter::callMacro(const Stmt &macro, const std::weak_ptr<Frame> &definition, CallArgs &args)
{
    if (m_callDepth >= m_options.limits.maxCallDepth)
        return Status::error("macro calls nested deeper than " + std::to_string(m_options.limits.maxCallDepth)
                             + " levels (endless recursion?)");
    auto frame = std::make_shared<Frame>();
    frame->parent = definition.lock();
    if (!frame->parent)
        frame->parent = m_root;
    List varargs;
    for (size_t i = 0; i < args.positional.size(); ++i) {
        if (i < macro.params.size())
            frame->set(macro.params[i].name, args.positional[i]);
        else
            varargs.push_back(args.positional[i]);
    }
    Dict kwargs;
    for (auto &[name, value] : args.named) {
        bool isParam = false;
        for (size_t i = 0; i < macro.params.size(); ++i) {
            if (macro.params[i].name == name) {
                if (i < args.positional.size())
                    return Status::error("macro '" + macro.text + "' got multiple values for argument '" + name + "'");
                frame->set(name, value);
                isParam = true;
            }
        }
        if (!isParam)
            kwargs.set(Value(name), value);
    }
    frame->set("varargs", Value::tuple(std::move(varargs)));
    frame->set("kwargs", Value::dict(std::move(kwargs)));
    ++m_callDepth;
    struct DepthRestore {
        int &d;
        ~DepthRestore() { --d; }
    } restore{m_callDepth};
    for (size_t i = 0; i < macro.params.size(); ++i) {
        if (frame->find(macro.params[i].name))
            continue;
        if (macro.params[i].defaultValue) {
            ScopeGuard guard(m_out, m_frame, m_out, frame);
            auto v = eval(*macro.params[i].defaultValue);
            if (!v)
                return v.status();
            frame->set(macro.params[i].name, *v);
        } else {
            frame->set(macro.params[i].name,
                       Value::undefined("parameter '" + macro.params[i].name + "' was not provided"));
        }
    }
    auto text = renderToString(macro.body, frame);
    if (!text)
        return text.status();
    return Value(std::move(*text));
}

Result<Value> Interpreter::call(const Value &callee, CallArgs &args)
{
    if (callee.isUndefined())
        return undefinedError(callee);
    if (!callee.isCallable())
        return Status::error(std::string("'") + typeName(callee) + "' object is not callable");
    return callee.asCallable().call(*this, args);
}

Result<Value> Interpreter::applyFilter(const std::string &name, const Value &input, CallArgs &args)
{
    return builtins::applyFilter(*this, name, input, args);
}

Result<bool> Interpreter::applyTest(const std::string &name, const Value &input, CallArgs &args)
{
    return builtins::applyTest(*this, name, input, args);
}

Value Interpreter::getAttribute(const Value &object, const std::string &name)
{
    if (object.isNamespace()) {
        if (const Value *v = object.asDict().findKey(name))
            return *v;
        return Value::undefined("'" + objectTypeRepr(object) + "' has no attribute '" + name + "'");
    }
    if (auto method = builtins::boundMethod(object, name))
        return *method;
    if (object.isDict()) {
        if (const Value *v = object.asDict().findKey(name))
            return *v;
    }
    return Value::undefined("'" + objectTypeRepr(object) + "' has no attribute '" + name + "'");
}

Value Interpreter::getItem(const Value &object, const Value &key)
{
    if (object.isMapping()) {
        if (const Value *v = object.asDict().find(key))
            return *v;
    } else if ((object.isList() || object.isString()) && (key.isInt() || key.isBool())) {
        int64_t i = key.asInt();
        if (object.isList()) {
            const int64_t n = int64_t(object.asList().size());
            if (i < 0)
                i += n;
            if (i >= 0 && i < n)
                return object.asList()[size_t(i)];
        } else {
            // O(1): the string keeps the offset of every 64th code point.
            const StringData &text = object.stringData();
            const int64_t n = int64_t(text.length());
            if (i < 0)
                i += n;
            if (i >= 0 && i < n) {
                size_t at = text.offsetOf(size_t(i));
                std::string ch;
                utf8Append(ch, utf8Next(text.text(), at));
                return Value(std::move(ch));
            }
        }
        return Value::undefined(objectTypeRepr(object) + " has no element " + std::to_string(key.asInt()));
    }
    if (key.isString() && !object.isMapping())
        return getAttribute(object, key.asString());
    if (key.isString()) {
        if (auto method = builtins::boundMethod(object, key.asString()))
            return *method;
        return Value::undefined("'" + objectTypeRepr(object) + "' has no attribute '" + key.asString() + "'");
    }
    return Value::undefined(objectTypeRepr(object) + " has no element " + repr(key, 200));
}

Result<Value> Interpreter::eval(const Expr &expr)
{
    NestingGuard nested(m_nesting);
    if (m_nesting > m_options.limits.maxNesting)
        return fail(expr.pos, nestingMessage(m_options.limits.maxNesting));
    if (m_stackFloor && stackHere() < m_stackFloor)
        return fail(expr.pos, "template evaluation nested too deeply for this thread's stack (" + std::to_string(m_nesting)
                                 + " levels)");
    if (Status s = step(); !s)
        return positioned(expr.pos, s);
    auto v = evalInner(expr);
    if (!v)
        return positioned(expr.pos, v.status());
    if (v->depth() > m_options.limits.maxValueDepth)
        return fail(expr.pos, "value nested deeper than " + std::to_string(m_options.limits.maxValueDepth) + " levels");
    return v;
}

Status Interpreter::evalArgs(const std::vector<Argument> &args, CallArgs &out)
{
    for (const Argument &arg : args) {
        auto v = eval(*arg.value);
        if (!v)
            return v.status();
        if (arg.name.empty())
            out.positional.push_back(std::move(*v));
        else
            out.named.emplace_back(arg.name, std::move(*v));
    }
    return {};
}

// A filter block's chain `f|g|h` is h(input=g(input=f)): applied innermost
// first, iteratively.
Result<Value> Interpreter::applyFilterChain(const Expr &chain, const Value &input)
{
    std::vector<const Expr *> filters;
    for (const Expr *f = &chain; f; f = f->a.get())
        filters.push_back(f);
    Value current = input;
    for (auto it = filters.rbegin(); it != filters.rend(); ++it) {
        CallArgs args;
        if (Status s = evalArgs((*it)->args, args); !s)
            return s;
        auto r = applyFilter((*it)->name, current, args);
        if (!r)
            return positioned((*it)->pos, r.status());
        current = std::move(*r);
    }
    return current;
}

// object[a:b:c]: a list or a string; charged per item taken.
Result<Value> Interpreter::evalSubscript(const Expr &slice, const Value &object)
{
    Value parts[3];
    const Expr *nodes[3] = {slice.a.get(), slice.b.get(), slice.c.get()};
    for (int k = 0; k < 3; ++k) {
        if (!nodes[k])
            continue;
        auto v = eval(*nodes[k]);
        if (!v)
            return v;
        parts[k] = std::move(*v);
    }
    if (object.isList()) {
        auto range = sliceOf(int64_t(object.asList().size()), parts[0], parts[1], parts[2]);
        if (!range)
            return range.status();
        if (Status s = charge(range->count); !s)
            return s;
        List out;
        out.reserve(range->count);
        for (size_t k = 0; k < range->count; ++k)
            out.push_back(object.asList()[range->at(k)]);
        return object.isTuple() ? Value::tuple(std::move(out)) : Value::list(std::move(out));
    }
    if (object.isString()) {
        const StringData &text = object.stringData();
        auto range = sliceOf(int64_t(text.length()), parts[0], parts[1], parts[2]);
        if (!range)
            return range.status();
        if (Status s = charge(range->count); !s)
            return s;
        std::string out;
        size_t at = range->count > 0 ? text.offsetOf(range->at(0)) : 0;
        for (size_t k = 0; k < range->count; ++k) {
            if (k > 0 && range->step != 1)
                at = text.offsetOf(range->at(k));
            utf8Append(out, utf8Next(text.text(), at));
        }
        return Value(std::move(out));
    }
    return Status::error(std::string("'") + typeName(object) + "' object is not subscriptable");
}

Result<Value> Interpreter::evalInner(const Expr &expr)
{
    switch (expr.kind) {
    case ExprKind::EXPR_KIND_LITERAL:
        return expr.literal;
    case ExprKind::EXPR_KIND_NAME:
        return lookup(expr.name);
    case ExprKind::EXPR_KIND_LIST: {
        List items;
        for (const ExprPtr &item : expr.items) {
            auto v = eval(*item);
            if (!v)
                return v;
            items.push_back(std::move(*v));
        }
        return expr.tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
    }
    case ExprKind::EXPR_KIND_DICT: {
        Dict d;
        for (size_t i = 0; i + 1 < expr.items.size(); i += 2) {
            auto k = eval(*expr.items[i]);
            if (!k)
                return k;
            auto v = eval(*expr.items[i + 1]);
            if (!v)
                return v;
            d.set(std::move(*k), std::move(*v));
        }
        return Value::dict(std::move(d));
    }
    case ExprKind::EXPR_KIND_ATTRIBUTE: {
        auto object = eval(*expr.a);
        if (!object)
            return object;
        if (object->isUndefined())
            return undefinedError(*object);
        return getAttribute(*object, expr.name);
    }
    case ExprKind::EXPR_KIND_SUBSCRIPT: {
        auto object = eval(*expr.a);
        if (!object)
            return object;
        if (object->isUndefined())
            return undefinedError(*object);
        if (expr.b->kind == ExprKind::EXPR_KIND_SLICE)
            return evalSubscript(*expr.b, *object);
        auto key = eval(*expr.b);
        if (!key)
            return key;
        return getItem(*object, *key);
    }
    case ExprKind::EXPR_KIND_SLICE:
        return Status::error("a slice is only allowed inside [ ]");
    case ExprKind::EXPR_KIND_CALL:
        return evalCall(expr);
    case ExprKind::EXPR_KIND_FILTER: {
        Value input;
        if (expr.a) {
            auto v = eval(*expr.a);
            if (!v)
                return v;
            input = std::move(*v);
        }
        CallArgs args;
        if (Status s = evalArgs(expr.args, args); !s)
            return s;
        return applyFilter(expr.name, input, args);
    }
    case ExprKind::EXPR_KIND_TEST: {
        auto input = eval(*expr.a);
        if (!input)
            return input;
        CallArgs args;
        if (Status s = evalArgs(expr.args, args); !s)
            return s;
        auto r = applyTest(expr.name, *input, args);
        if (!r)
            return r.status();
        return Value(*r != expr.negated);
    }
    case ExprKind::EXPR_KIND_UNARY: {
        auto v = eval(*expr.a);
        if (!v)
            return v;
        if (expr.unaryOp == UnaryOp::UNARY_OP_NOT)
            return Value(!truthy(*v));
        if (v->isUndefined())
            return undefinedError(*v);
        if (!v->isNumber())
            return Status::error(std::string("bad operand type for unary ")
                                 + (expr.unaryOp == UnaryOp::UNARY_OP_NEG ? "-" : "+") + ": '" + typeName(*v) + "'");
        if (expr.unaryOp == UnaryOp::UNARY_OP_POS)
            return v->isBool() ? Value(v->asInt()) : *v;
        if (v->isFloat())
            return Value(-v->asFloat());
        if (v->asInt() == INT64_MIN)
            return Status::error("integer overflow");
        return Value(-v->asInt());
    }
    case ExprKind::EXPR_KIND_BINARY:
        return evalBinary(expr);
    case ExprKind::EXPR_KIND_COMPARE:
        return evalCompare(expr);
    case ExprKind::EXPR_KIND_CONDITIONAL: {
        auto cond = eval(*expr.b);
        if (!cond)
            return cond;
        if (truthy(*cond))
            return eval(*expr.a);
        if (expr.c)
            return eval(*expr.c);
        return Value::undefined("the inline if-expression on line " + std::to_string(expr.pos.line)
                                + " evaluated to false and no else section was defined.");
    }
    }
    return Status::error("internal: unknown expression");
}

Result<Value> Interpreter::evalBinary(const Expr &expr)
{
    auto left = eval(*expr.a);
    if (!left)
        return left;
    if (expr.binaryOp == BinaryOp::BINARY_OP_AND) {
        if (!truthy(*left))
            return left;
        return eval(*expr.b);
    }
    if (expr.binaryOp == BinaryOp::BINARY_OP_OR) {
        if (truthy(*left))
            return left;
        return eval(*expr.b);
    }
    auto right = eval(*expr.b);
    if (!right)
        return right;
    if (expr.binaryOp == BinaryOp::BINARY_OP_CONCAT) {
        std::string s = toStr(*left, m_options.limits.maxOutputBytes);
        const std::string r = toStr(*right, m_options.limits.maxOutputBytes);
        if (Status st = checkSize(s.size() + r.size()); !st)
            return st;
        if (Status st = chargeBytes(s.size() + r.size()); !st)
            return st;
        s += r;
        return Value(std::move(s));
    }
    return arithmetic(expr.binaryOp, *left, *right);
}

Result<Value> Interpreter::evalCompare(const Expr &expr)
{
    auto left = eval(*expr.items[0]);
    if (!left)
        return left;
    Value current = std::move(*left);
    for (size_t i = 0; i < expr.compareOps.size(); ++i) {
        auto right = eval(*expr.items[i + 1]);
        if (!right)
            return right;
        if (current.isList() && right->isList())   // element by element
            if (Status s = charge(std::min(current.asList().size(), right->asList().size())); !s)
                return s;
        bool result = false;
        switch (expr.compareOps[i]) {
        case CompareOp::COMPARE_OP_EQ: result = equals(current, *right); break;
        case CompareOp::COMPARE_OP_NE: result = !equals(current, *right); break;
        case CompareOp::COMPARE_OP_IN:
        case CompareOp::COMPARE_OP_NOT_IN: {
            auto c = contains(*right, current);
            if (!c)
                return c.status();
            result = *c == (expr.compareOps[i] == CompareOp::COMPARE_OP_IN);
            break;
        }
        default: {
            const char *op = "<";
            switch (expr.compareOps[i]) {
            case CompareOp::COMPARE_OP_LE: op = "<="; break;
            case CompareOp::COMPARE_OP_GT: op = ">"; break;
            case CompareOp::COMPARE_OP_GE: op = ">="; break;
            default: break;
            }
            auto c = compare(current, *right, op);
            if (!c)
                return c.status();
            switch (expr.compareOps[i]) {
            case CompareOp::COMPARE_OP_LT: result = *c < 0; break;
            case CompareOp::COMPARE_OP_LE: result = *c <= 0; break;
            case CompareOp::COMPARE_OP_GT: result = *c > 0; break;
            default: result = *c >= 0; break;
            }
        }
        }
        if (!result)
            return Value(false);
        current = std::move(*right);
    }
    return Value(true);
}

Result<Value> Interpreter::evalCall(const Expr &expr)
{
    auto callee = eval(*expr.a);
    if (!callee)
        return callee;
    CallArgs args;
    if (Status s = evalArgs(expr.args, args); !s)
        return s;
    return call(*callee, args);
}

} // namespace burrow::jinja
