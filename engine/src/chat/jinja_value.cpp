// Python semantics for Jinja values: truthiness, str/repr, equality,
// ordering, json.dumps, slices, and the UTF-8 helpers strings need.
#include "chat/jinja_value.h"
#include "common/utf8.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace burrow::jinja {

Value Value::undefined(std::string message)
{
    Value v;
    v.m_string = std::move(message);
    return v;
}

Value Value::none()
{
    Value v;
    v.m_kind = ValueKind::VALUE_KIND_NONE;
    return v;
}

int Value::depth() const
{
    if (m_kind == ValueKind::VALUE_KIND_NAMESPACE)
        return m_dict->namespaceDepth;
    return m_depth;
}

static int childDepth(const Value &v) { return v.depth(); }

Value Value::list(List items)
{
    Value v;
    v.m_kind = ValueKind::VALUE_KIND_LIST;
    int d = 0;
    for (const Value &item : items)
        d = std::max(d, childDepth(item));
    v.m_depth = d + 1;
    v.m_list = std::make_shared<const List>(std::move(items));
    return v;
}

Value Value::tuple(List items)
{
    Value v = list(std::move(items));
    v.m_tuple = true;
    return v;
}

Value Value::dict(Dict entries)
{
    Value v;
    v.m_kind = ValueKind::VALUE_KIND_DICT;
    int d = 0;
    for (const auto &[k, val] : entries.entries)
        d = std::max({d, childDepth(k), childDepth(val)});
    v.m_depth = d + 1;
    v.m_dict = std::make_shared<Dict>(std::move(entries));
    return v;
}

Value Value::dict() { return dict(Dict{}); }

Value Value::makeNamespace(Dict entries)
{
    Value v = dict(std::move(entries));
    v.m_kind = ValueKind::VALUE_KIND_NAMESPACE;
    v.m_dict->namespaceDepth = v.m_depth;   // raised by later attribute assignments
    v.m_depth = 0;
    return v;
}

Value Value::callable(std::string name, std::function<Result<Value>(Interpreter &, CallArgs &)> fn)
{
    Value v;
    v.m_kind = ValueKind::VALUE_KIND_CALLABLE;
    v.m_callable = std::make_shared<const Callable>(Callable{std::move(name), std::move(fn)});
    return v;
}

const Value *Dict::find(const Value &key) const
{
    for (const auto &[k, v] : entries)
        if (equals(k, key))
            return &v;
    return nullptr;
}

const Value *Dict::findKey(std::string_view key) const
{
    for (const auto &[k, v] : entries)
        if (k.isString() && k.asString() == key)
            return &v;
    return nullptr;
}

void Dict::set(Value key, Value value)
{
    for (auto &[k, v] : entries) {
        if (equals(k, key)) {
            v = std::move(value);
            return;
        }
    }
    entries.emplace_back(std::move(key), std::move(value));
}

const Value *CallArgs::get(size_t position, std::string_view name) const
{
    if (position < positional.size())
        return &positional[position];
    for (const auto &[n, v] : named)
        if (n == name)
            return &v;
    return nullptr;
}

Status CallArgs::check(const char *function, size_t maxPositional, std::initializer_list<std::string_view> names) const
{
    if (positional.size() > maxPositional)
        return Status::error(std::string(function) + "() takes at most " + std::to_string(maxPositional)
                             + " positional argument" + (maxPositional == 1 ? "" : "s") + " ("
                             + std::to_string(positional.size()) + " given)");
    for (const auto &[n, v] : named) {
        if (std::find(names.begin(), names.end(), n) == names.end())
            return Status::error(std::string(function) + "() got an unexpected keyword argument '" + n + "'");
    }
    return {};
}

bool truthy(const Value &v)
{
    switch (v.kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED:
    case ValueKind::VALUE_KIND_NONE: return false;
    case ValueKind::VALUE_KIND_BOOL:
    case ValueKind::VALUE_KIND_INT: return v.asInt() != 0;
    case ValueKind::VALUE_KIND_FLOAT: return v.asFloat() != 0.0;
    case ValueKind::VALUE_KIND_STRING: return !v.asString().empty();
    case ValueKind::VALUE_KIND_LIST: return !v.asList().empty();
    case ValueKind::VALUE_KIND_DICT: return !v.asDict().entries.empty();
    case ValueKind::VALUE_KIND_NAMESPACE:
    case ValueKind::VALUE_KIND_CALLABLE: return true;
    }
    return false;
}

std::string pyFloatRepr(double d)
{
    if (std::isnan(d))
        return "nan";
    if (std::isinf(d))
        return d < 0 ? "-inf" : "inf";
    if (d == 0.0)
        return std::signbit(d) ? "-0.0" : "0.0";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string sci(buf, ec == std::errc() ? end : buf);
    std::string out;
    size_t i = 0;
    if (!sci.empty() && sci[0] == '-') {
        out += '-';
        i = 1;
    }
    const size_t ePos = sci.find('e');
    std::string digits;
    for (size_t j = i; j < ePos; ++j)
        if (sci[j] != '.')
            digits += sci[j];
    const int exp10 = std::atoi(sci.c_str() + ePos + 1);
    const int decpt = exp10 + 1;
    const int n = int(digits.size());
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out += "0.";
            out.append(size_t(-decpt), '0');
            out += digits;
        } else if (decpt >= n) {
            out += digits;
            out.append(size_t(decpt - n), '0');
            out += ".0";
        } else {
            out += digits.substr(0, size_t(decpt));
            out += '.';
            out += digits.substr(size_t(decpt));
        }
    } else {
        out += digits[0];
        if (n > 1) {
            out += '.';
            out += digits.substr(1);
        }
        const int e = decpt - 1;
        char eb[16];
        std::snprintf(eb, sizeof eb, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
        out += eb;
    }
    return out;
}

static std::string reprString(const std::string &s)
{
    const bool hasSingle = s.find('\'') != std::string::npos;
    const bool hasDouble = s.find('"') != std::string::npos;
    const char quote = (hasSingle && !hasDouble) ? '"' : '\'';
    std::string out(1, quote);
    for (const uint32_t cp : utf8Decode(s)) {
        if (cp == '\\') out += "\\\\";
        else if (cp == uint32_t(quote)) { out += '\\'; out += quote; }
        else if (cp == '\n') out += "\\n";
        else if (cp == '\r') out += "\\r";
        else if (cp == '\t') out += "\\t";
        else if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0) || cp == 0xAD) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(cp));
            out += buf;
        } else {
            utf8Append(out, cp);
        }
    }
    out += quote;
    return out;
}

namespace {

// repr() writes into one buffer: it stops once `maxBytes` are written, and a
// namespace already being printed prints as "<Namespace ...>" (cycles).
struct ReprWriter {
    std::string out;
    size_t maxBytes;
    std::vector<const Dict *> active;

    bool full() const { return out.size() > maxBytes; }

    void write(const Value &v)
    {
        if (full())
            return;
        switch (v.kind()) {
        case ValueKind::VALUE_KIND_UNDEFINED: out += "Undefined"; return;
        case ValueKind::VALUE_KIND_STRING: out += reprString(v.asString()); return;
        case ValueKind::VALUE_KIND_LIST: {
            out += v.isTuple() ? "(" : "[";
            bool first = true;
            for (const Value &item : v.asList()) {
                if (full())
                    return;
                if (!first)
                    out += ", ";
                first = false;
                write(item);
            }
            if (v.isTuple() && v.asList().size() == 1)
                out += ",";
            out += v.isTuple() ? ")" : "]";
            return;
        }
        case ValueKind::VALUE_KIND_DICT:
        case ValueKind::VALUE_KIND_NAMESPACE: {
            const Dict *d = &v.asDict();
            if (v.isNamespace() && std::find(active.begin(), active.end(), d) != active.end()) {
                out += "<Namespace ...>";
                return;
            }
            active.push_back(d);
            out += v.isNamespace() ? "<Namespace {" : "{";
            bool first = true;
            for (const auto &[k, val] : d->entries) {
                if (full())
                    break;
                if (!first)
                    out += ", ";
                first = false;
                write(k);
                out += ": ";
                write(val);
            }
            out += v.isNamespace() ? "}>" : "}";
            active.pop_back();
            return;
        }
        default: out += toStr(v); return;
        }
    }
};

} // namespace

std::string repr(const Value &v, size_t maxBytes)
{
    ReprWriter w{{}, maxBytes, {}};
    w.write(v);
    return std::move(w.out);
}

std::string toStr(const Value &v, size_t maxBytes)
{
    switch (v.kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED: return "";
    case ValueKind::VALUE_KIND_NONE: return "None";
    case ValueKind::VALUE_KIND_BOOL: return v.asBool() ? "True" : "False";
    case ValueKind::VALUE_KIND_INT: return std::to_string(v.asInt());
    case ValueKind::VALUE_KIND_FLOAT: return pyFloatRepr(v.asFloat());
    case ValueKind::VALUE_KIND_STRING: return v.asString();
    case ValueKind::VALUE_KIND_CALLABLE: return "<function " + v.asCallable().name + ">";
    default: return repr(v, maxBytes);
    }
}

const char *typeName(const Value &v)
{
    switch (v.kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED: return "Undefined";
    case ValueKind::VALUE_KIND_NONE: return "NoneType";
    case ValueKind::VALUE_KIND_BOOL: return "bool";
    case ValueKind::VALUE_KIND_INT: return "int";
    case ValueKind::VALUE_KIND_FLOAT: return "float";
    case ValueKind::VALUE_KIND_STRING: return "str";
    case ValueKind::VALUE_KIND_LIST: return v.isTuple() ? "tuple" : "list";
    case ValueKind::VALUE_KIND_DICT: return "dict";
    case ValueKind::VALUE_KIND_NAMESPACE: return "Namespace";
    case ValueKind::VALUE_KIND_CALLABLE: return "function";
    }
    return "object";
}

std::string objectTypeRepr(const Value &v)
{
    if (v.isNone())
        return "None";
    return std::string(typeName(v)) + " object";
}

static bool equalsBudget(const Value &a, const Value &b, size_t &budget);

bool equals(const Value &a, const Value &b)
{
    size_t budget = 10'000'000;   // nodes visited; shared sub-lists could make this exponential
    return equalsBudget(a, b, budget);
}

static bool equalsBudget(const Value &a, const Value &b, size_t &budget)
{
    if (budget == 0)
        return false;
    --budget;
    if (a.isNumber() && b.isNumber()) {
        if (a.isFloat() || b.isFloat())
            return a.asFloat() == b.asFloat();
        return a.asInt() == b.asInt();
    }
    if (a.kind() != b.kind())
        return false;
    switch (a.kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED:
    case ValueKind::VALUE_KIND_NONE: return true;
    case ValueKind::VALUE_KIND_STRING: return a.asString() == b.asString();
    case ValueKind::VALUE_KIND_LIST: {
        const List &x = a.asList(), &y = b.asList();
        if (x.size() != y.size() || a.isTuple() != b.isTuple())
            return false;
        if (&x == &y)
            return true;
        for (size_t i = 0; i < x.size(); ++i)
            if (!equalsBudget(x[i], y[i], budget))
                return false;
        return true;
    }
    case ValueKind::VALUE_KIND_DICT: {
        const Dict &x = a.asDict(), &y = b.asDict();
        if (x.entries.size() != y.entries.size())
            return false;
        if (&x == &y)
            return true;
        for (const auto &[k, v] : x.entries) {
            const Value *other = y.find(k);
            if (!other || !equalsBudget(v, *other, budget))
                return false;
        }
        return true;
    }
    case ValueKind::VALUE_KIND_NAMESPACE: return a.dictPtr() == b.dictPtr();
    case ValueKind::VALUE_KIND_CALLABLE: return &a.asCallable() == &b.asCallable();
    default: return false;
    }
}

Result<int> compare(const Value &a, const Value &b, const char *op)
{
    if (a.isUndefined())
        return undefinedError(a);
    if (b.isUndefined())
        return undefinedError(b);
    if (a.isNumber() && b.isNumber()) {
        if (a.isFloat() || b.isFloat()) {
            const double x = a.asFloat(), y = b.asFloat();
            return x < y ? -1 : (x > y ? 1 : 0);
        }
        return a.asInt() < b.asInt() ? -1 : (a.asInt() > b.asInt() ? 1 : 0);
    }
    if (a.isString() && b.isString()) {
        const int c = a.asString().compare(b.asString());   // UTF-8 byte order = code point order
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    if (a.isList() && b.isList()) {
        const List &x = a.asList(), &y = b.asList();
        for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
            if (equals(x[i], y[i]))
                continue;
            return compare(x[i], y[i], op);
        }
        return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
    }
    return Status::error(std::string("'") + op + "' not supported between instances of '" + typeName(a)
                         + "' and '" + typeName(b) + "'");
}

Status undefinedError(const Value &v)
{
    return Status::error(v.undefinedMessage().empty() ? std::string("value is undefined") : v.undefinedMessage());
}

// --- json.dumps ---------------------------------------------------------------

static void jsonString(std::string &out, const std::string &s, bool ensureAscii)
{
    out += '"';
    for (const uint32_t cp : utf8Decode(s)) {
        switch (cp) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default: {
            char buf[16];
            if (cp < 0x20 || (ensureAscii && cp >= 0x7F)) {
                if (cp >= 0x10000) {
                    const uint32_t v = cp - 0x10000;
                    std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", unsigned(0xD800 + (v >> 10)),
                                  unsigned(0xDC00 + (v & 0x3FF)));
                } else {
                    std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(cp));
                }
                out += buf;
            } else {
                utf8Append(out, cp);
            }
        }
        }
    }
    out += '"';
}

static Status jsonWrite(std::string &out, const Value &v, const JsonOptions &o, int level)
{
    if (level > 1000)
        return Status::error("tojson: nesting deeper than 1000 levels");
    if (out.size() > o.maxBytes)
        return Status::error("tojson: result exceeds the output size limit");
    auto newline = [&](int lvl) {
        out += '\n';
        for (int i = 0; i < lvl; ++i)
            out += *o.indent;
    };
    switch (v.kind()) {
    case ValueKind::VALUE_KIND_NONE: out += "null"; return {};
    case ValueKind::VALUE_KIND_BOOL: out += v.asBool() ? "true" : "false"; return {};
    case ValueKind::VALUE_KIND_INT: out += std::to_string(v.asInt()); return {};
    case ValueKind::VALUE_KIND_FLOAT: {
        const double d = v.asFloat();
        if (std::isnan(d)) out += "NaN";
        else if (std::isinf(d)) out += d < 0 ? "-Infinity" : "Infinity";
        else out += pyFloatRepr(d);
        return {};
    }
    case ValueKind::VALUE_KIND_STRING: jsonString(out, v.asString(), o.ensureAscii); return {};
    case ValueKind::VALUE_KIND_LIST: {
        const List &items = v.asList();
        if (items.empty()) {
            out += "[]";
            return {};
        }
        out += '[';
        for (size_t i = 0; i < items.size(); ++i) {
            if (i)
                out += o.itemSeparator;
            if (o.indent)
                newline(level + 1);
            if (Status s = jsonWrite(out, items[i], o, level + 1); !s)
                return s;
        }
        if (o.indent)
            newline(level);
        out += ']';
        return {};
    }
    case ValueKind::VALUE_KIND_DICT: {
        std::vector<const std::pair<Value, Value> *> entries;
        for (const auto &e : v.asDict().entries)
            entries.push_back(&e);
        std::vector<std::pair<std::string, const Value *>> items;
        for (const auto *e : entries) {
            const Value &k = e->first;
            std::string key;
            if (k.isString()) key = k.asString();
            else if (k.isBool()) key = k.asBool() ? "true" : "false";
            else if (k.isInt() || k.isFloat()) key = toStr(k);
            else if (k.isNone()) key = "null";
            else return Status::error(std::string("keys must be str, int, float, bool or None, not ") + typeName(k));
            items.emplace_back(std::move(key), &e->second);
        }
        if (o.sortKeys)
            std::stable_sort(items.begin(), items.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        if (items.empty()) {
            out += "{}";
            return {};
        }
        out += '{';
        for (size_t i = 0; i < items.size(); ++i) {
            if (i)
                out += o.itemSeparator;
            if (o.indent)
                newline(level + 1);
            jsonString(out, items[i].first, o.ensureAscii);
            out += o.keySeparator;
            if (Status s = jsonWrite(out, *items[i].second, o, level + 1); !s)
                return s;
        }
        if (o.indent)
            newline(level);
        out += '}';
        return {};
    }
    default:
        return Status::error(std::string("Object of type ") + typeName(v) + " is not JSON serializable");
    }
}

Result<std::string> toJson(const Value &v, const JsonOptions &options)
{
    std::string out;
    if (Status s = jsonWrite(out, v, options, 0); !s)
        return s;
    return out;
}

// --- UTF-8 --------------------------------------------------------------------

std::vector<uint32_t> utf8Decode(std::string_view s)
{
    std::vector<uint32_t> out;
    out.reserve(s.size());
    size_t i = 0;
    while (i < s.size()) {
        const uint8_t c = uint8_t(s[i]);
        uint32_t cp = 0xFFFD;
        size_t len = 1;
        if (c < 0x80) {
            cp = c;
        } else if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
            len = 2;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
        } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
            len = 4;
        }
        if (len > 1) {
            bool ok = i + len <= s.size();
            uint32_t v = c & (0x7F >> len);
            for (size_t k = 1; ok && k < len; ++k) {
                const uint8_t cc = uint8_t(s[i + k]);
                if ((cc & 0xC0) != 0x80)
                    ok = false;
                else
                    v = (v << 6) | (cc & 0x3F);
            }
            const uint32_t minimum = len == 2 ? 0x80 : (len == 3 ? 0x800 : 0x10000);
            if (ok && v >= minimum && v <= 0x10FFFF && !(v >= 0xD800 && v < 0xE000)) {
                cp = v;
            } else {
                len = 1;
                cp = 0xFFFD;
            }
        }
        out.push_back(cp);
        i += len;
    }
    return out;
}

void utf8Append(std::string &out, uint32_t cp)
{
    appendUtf8(out, cp);
}

std::string utf8Encode(const std::vector<uint32_t> &cps, size_t begin, size_t end)
{
    std::string out;
    end = std::min(end, cps.size());
    for (size_t i = begin; i < end; ++i)
        utf8Append(out, cps[i]);
    return out;
}

size_t utf8Length(std::string_view s)
{
    size_t n = 0;
    for (const char c : s)
        if ((uint8_t(c) & 0xC0) != 0x80)
            ++n;
    return n;
}

bool isPySpace(uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0
           || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029
           || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

uint32_t toUpperCp(uint32_t cp)
{
    if (cp >= 'a' && cp <= 'z') return cp - 32;
    if (cp == 0xB5) return 0x39C;
    if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 32;
    if (cp == 0xFF) return 0x178;
    if (cp >= 0x3B1 && cp <= 0x3C9 && cp != 0x3C2) return cp - 32;
    if (cp >= 0x430 && cp <= 0x44F) return cp - 32;
    if (cp >= 0x450 && cp <= 0x45F) return cp - 80;
    return cp;
}

uint32_t toLowerCp(uint32_t cp)
{
    if (cp >= 'A' && cp <= 'Z') return cp + 32;
    if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;
    if (cp == 0x178) return 0xFF;
    if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 32;
    if (cp >= 0x410 && cp <= 0x42F) return cp + 32;
    if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
    return cp;
}

bool isCased(uint32_t cp)
{
    return toUpperCp(cp) != cp || toLowerCp(cp) != cp || cp == 0xDF;
}

Result<std::vector<size_t>> sliceIndices(int64_t length, const Value &startV, const Value &stopV, const Value &stepV)
{
    auto asIndex = [](const Value &v, const char *what, std::optional<int64_t> &out) -> Status {
        if (v.isUndefined() || v.isNone())
            return {};
        if (!v.isInt() && !v.isBool())
            return Status::error(std::string("slice ") + what + " must be an integer or None, not " + typeName(v));
        out = v.asInt();
        return {};
    };
    std::optional<int64_t> start, stop, stepOpt;
    if (Status s = asIndex(startV, "start", start); !s) return s;
    if (Status s = asIndex(stopV, "stop", stop); !s) return s;
    if (Status s = asIndex(stepV, "step", stepOpt); !s) return s;
    const int64_t step = stepOpt.value_or(1);
    if (step == 0)
        return Status::error("slice step cannot be zero");
    auto adjust = [&](std::optional<int64_t> v, int64_t dflt, int64_t lo, int64_t hi) {
        if (!v)
            return dflt;
        int64_t x = *v;
        if (x < 0) {
            x += length;
            if (x < lo)
                x = lo;
        } else if (x > hi) {
            x = hi;
        }
        return x;
    };
    std::vector<size_t> out;
    if (step > 0) {
        const int64_t b = adjust(start, 0, 0, length);
        const int64_t e = adjust(stop, length, 0, length);
        for (int64_t i = b; i < e; i += step)
            out.push_back(size_t(i));
    } else {
        const int64_t b = adjust(start, length - 1, -1, length - 1);
        const int64_t e = adjust(stop, -1, -1, length - 1);
        for (int64_t i = b; i > e; i += step)
            out.push_back(size_t(i));
    }
    return out;
}

} // namespace burrow::jinja
