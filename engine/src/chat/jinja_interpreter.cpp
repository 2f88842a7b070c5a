// Tree-walking Jinja interpreter (see jinja_interpreter.h).
#include "chat/jinja_interpreter.h"

#include "chat/jinja_builtins.h"

#include <algorithm>
#include <cmath>

namespace burrow::jinja {

struct Frame {
    std::vector<std::pair<std::string, Value>> vars;
    std::shared_ptr<Frame> parent;

    Value *find(const std::string &name)
    {
        for (auto &[n, v] : vars)
            if (n == name)
                return &v;
        return nullptr;
    }
    void set(const std::string &name, Value value)
    {
        if (Value *v = find(name))
            *v = std::move(value);
        else
            vars.emplace_back(name, std::move(value));
    }
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

Result<Value> repeat(const Value &seq, int64_t times, size_t maxBytes, size_t maxItems)
{
    if (times < 0)
        times = 0;
    if (seq.isString()) {
        const size_t unit = seq.asString().size();
        if (unit != 0 && uint64_t(times) > maxBytes / unit)
            return Status::error("string repetition exceeds the output size limit");
        std::string out;
        out.reserve(unit * size_t(times));
        for (int64_t i = 0; i < times; ++i)
            out += seq.asString();
        return Value(std::move(out));
    }
    const size_t unit = seq.asList().size();
    if (unit != 0 && uint64_t(times) > maxItems / unit)
        return Status::error("list repetition exceeds the limit of " + std::to_string(maxItems) + " items");
    List out;
    for (int64_t i = 0; i < times; ++i)
        out.insert(out.end(), seq.asList().begin(), seq.asList().end());
    return Value::list(std::move(out));
}

Status unsupported(const char *op, const Value &a, const Value &b)
{
    return Status::error(std::string("unsupported operand type(s) for ") + op + ": '" + typeName(a) + "' and '"
                         + typeName(b) + "'");
}

Result<Value> arithmetic(BinaryOp op, const Value &a, const Value &b, size_t maxBytes, size_t maxItems)
{
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
            return Value(a.asString() + b.asString());
        }
        if (a.isList() && b.isList()) {
            if (a.asList().size() + b.asList().size() > maxItems)
                return Status::error("list exceeds the limit of " + std::to_string(maxItems) + " items");
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
            return repeat(a, b.asInt(), maxBytes, maxItems);
        if ((b.isString() || b.isList()) && (a.isInt() || a.isBool()))
            return repeat(b, a.asInt(), maxBytes, maxItems);
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
            int64_t result = 1, base = a.asInt();
            for (int64_t e = b.asInt(); e > 0; --e)
                if (__builtin_mul_overflow(result, base, &result))
                    return Status::error("integer overflow");
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

Result<bool> contains(const Value &container, const Value &item)
{
    switch (container.kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED: return false;
    case ValueKind::VALUE_KIND_STRING:
        if (item.isUndefined())
            return undefinedError(item);
        if (!item.isString())
            return Status::error(std::string("'in <string>' requires string as left operand, not ") + typeName(item));
        return container.asString().find(item.asString()) != std::string::npos;
    case ValueKind::VALUE_KIND_LIST:
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

} // namespace

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
    if (status.isOk())
        return status;
    const std::string &msg = status.message();
    // Errors from nested evaluation already carry a position.
    if (msg.size() > m_name.size() + 1 && msg.compare(0, m_name.size(), m_name) == 0 && msg[m_name.size()] == ':'
        && msg[m_name.size() + 1] >= '0' && msg[m_name.size() + 1] <= '9')
        return status;
    return fail(pos, msg);
}

Status Interpreter::step()
{
    if (++m_steps > m_options.limits.maxSteps)
        return Status::error("template exceeded the limit of " + std::to_string(m_options.limits.maxSteps)
                             + " evaluation steps (endless loop?)");
    return {};
}

Status Interpreter::checkSize(size_t bytes) const
{
    if (bytes > m_options.limits.maxOutputBytes)
        return Status::error("template output exceeded the limit of " + std::to_string(m_options.limits.maxOutputBytes)
                             + " bytes");
    return {};
}

std::time_t Interpreter::now() const
{
    return m_options.clock ? m_options.clock() : std::time(nullptr);
}

Value Interpreter::newNamespace(Dict entries)
{
    Value ns = Value::makeNamespace(std::move(entries));
    m_namespaces.push_back(ns.dictPtr());
    return ns;
}

Status Interpreter::append(const std::string &text)
{
    if (Status s = checkSize(m_out->size() + text.size()); !s)
        return s;
    *m_out += text;
    return {};
}

Result<std::string> Interpreter::render(const Body &body, const Dict &context)
{
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
        ScopeGuard guard(m_out, m_frame, &out, m_root);
        s = exec(body, flow);
    }
    clearNamespaces();
    m_root.reset();
    if (!s)
        return s;
    return out;
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
        ScopeGuard guard(m_out, m_frame, &out, frame);
        s = exec(body, flow);
    }
    if (!s)
        return s;
    return out;
}

Status Interpreter::execStmt(const Stmt &stmt, Flow &flow)
{
    if (Status s = step(); !s)
        return fail(stmt.pos, s.message());
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
        return positioned(stmt.pos, append(toStr(*filtered)));
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
        for (uint32_t cp : utf8Decode(value.asString())) {
            std::string ch;
            utf8Append(ch, cp);
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
    List items;
    switch (iterable->kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED: break;
    case ValueKind::VALUE_KIND_LIST: items = iterable->asList(); break;
    case ValueKind::VALUE_KIND_DICT:
        for (const auto &[k, v] : iterable->asDict().entries)
            items.push_back(k);
        break;
    case ValueKind::VALUE_KIND_STRING:
        for (uint32_t cp : utf8Decode(iterable->asString())) {
            std::string ch;
            utf8Append(ch, cp);
            items.emplace_back(std::move(ch));
        }
        break;
    default:
        return fail(stmt.expr->pos, std::string("'") + typeName(*iterable) + "' object is not iterable");
    }

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
        Dict loop;
        loop.set("index", Value(i + 1));
        loop.set("index0", Value(i));
        loop.set("revindex", Value(n - i));
        loop.set("revindex0", Value(n - i - 1));
        loop.set("first", Value(i == 0));
        loop.set("last", Value(i == n - 1));
        loop.set("length", Value(n));
        loop.set("depth", Value(int64_t(1)));
        loop.set("depth0", Value(int64_t(0)));
        loop.set("previtem", i > 0 ? items[size_t(i - 1)] : Value::undefined("there is no previous item"));
        loop.set("nextitem", i + 1 < n ? items[size_t(i + 1)] : Value::undefined("there is no next item"));
        loop.set("cycle", Value::callable("cycle", [i](Interpreter &, CallArgs &args) -> Result<Value> {
            if (args.positional.empty())
                return Status::error("no items for cycling given");
            return args.positional[size_t(i) % args.positional.size()];
        }));
        frame->set("loop", Value::makeNamespace(std::move(loop)));
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
            const auto cps = utf8Decode(object.asString());
            const int64_t n = int64_t(cps.size());
            if (i < 0)
                i += n;
            if (i >= 0 && i < n)
                return Value(utf8Encode(cps, size_t(i), size_t(i) + 1));
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
    return Value::undefined(objectTypeRepr(object) + " has no element " + repr(key));
}

Result<Value> Interpreter::eval(const Expr &expr)
{
    if (Status s = step(); !s)
        return fail(expr.pos, s.message());
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

Result<Value> Interpreter::applyFilterChain(const Expr &chain, const Value &input)
{
    Value current = input;
    if (chain.a) {
        auto inner = applyFilterChain(*chain.a, input);
        if (!inner)
            return inner;
        current = std::move(*inner);
    }
    CallArgs args;
    if (Status s = evalArgs(chain.args, args); !s)
        return s;
    auto r = applyFilter(chain.name, current, args);
    if (!r)
        return positioned(chain.pos, r.status());
    return r;
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
        if (expr.b->kind == ExprKind::EXPR_KIND_SLICE) {
            const Expr &sl = *expr.b;
            Value parts[3];
            const Expr *nodes[3] = {sl.a.get(), sl.b.get(), sl.c.get()};
            for (int k = 0; k < 3; ++k) {
                if (!nodes[k])
                    continue;
                auto v = eval(*nodes[k]);
                if (!v)
                    return v;
                parts[k] = std::move(*v);
            }
            if (object->isList()) {
                auto idx = sliceIndices(int64_t(object->asList().size()), parts[0], parts[1], parts[2]);
                if (!idx)
                    return idx.status();
                List out;
                for (size_t i : *idx)
                    out.push_back(object->asList()[i]);
                return object->isTuple() ? Value::tuple(std::move(out)) : Value::list(std::move(out));
            }
            if (object->isString()) {
                const auto cps = utf8Decode(object->asString());
                auto idx = sliceIndices(int64_t(cps.size()), parts[0], parts[1], parts[2]);
                if (!idx)
                    return idx.status();
                std::string out;
                for (size_t i : *idx)
                    utf8Append(out, cps[i]);
                return Value(std::move(out));
            }
            return Status::error(std::string("'") + typeName(*object) + "' object is not subscriptable");
        }
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
        return Value(s + r);
    }
    return arithmetic(expr.binaryOp, *left, *right, m_options.limits.maxOutputBytes, m_options.limits.maxListItems);
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
