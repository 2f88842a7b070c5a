// Python semantics for Jinja values: truthiness, str/repr, equality,
// ordering, json.dumps, slices, and the UTF-8 helpers strings need.
#include "chat/jinja_value.h"
#include "common/utf8.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace burrow::jinja {

StringData::StringData(std::string text) : m_text(std::move(text))
{
    const std::string_view s = m_text;
    size_t i = 0;
    for (uint64_t word; i + 8 <= s.size(); i += 8) {   // eight bytes at a time while all ASCII
        std::memcpy(&word, s.data() + i, 8);
        if (word & 0x8080808080808080ull)
            break;
    }
    while (i < s.size() && uint8_t(s[i]) < 0x80)
        ++i;
    if (i == s.size()) {
        m_length = s.size();   // ASCII: a code point is a byte
    } else {
        // Count the code points, marking the byte offset of every MARK_EVERY-th.
        m_marks.reserve(s.size() / MARK_EVERY + 1);
        size_t n = 0;
        for (i = 0; i < s.size(); ++n) {
            if (n % MARK_EVERY == 0)
                m_marks.push_back(i);
            if (uint8_t(s[i]) < 0x80)
                ++i;
            else
                utf8Next(s, i);
        }
        m_length = n;
    }
    m_charge.resize(sizeof(StringData) + m_text.capacity() + m_marks.capacity() * sizeof(size_t));
}

size_t StringData::offsetOf(size_t index) const
{
    if (m_marks.empty() || index >= m_length)
        return index >= m_length ? m_text.size() : index;
    size_t i = m_marks[index / MARK_EVERY];
    for (size_t k = index % MARK_EVERY; k > 0; --k)
        i = utf8Skip(m_text, i);
    return i;
}

ListData::ListData(List values) : items(std::move(values))
{
    charge.resize(sizeof(ListData) + items.capacity() * sizeof(Value));
}

namespace {
const std::string &emptyString()
{
    static const std::string empty;
    return empty;
}
} // namespace

Value::Value(std::string s)
    : m_kind(ValueKind::VALUE_KIND_STRING), m_data(std::make_shared<StringData>(std::move(s)))
{
}

Value Value::string(std::shared_ptr<const StringData> data)
{
    Value v;
    v.m_kind = ValueKind::VALUE_KIND_STRING;
    v.m_data = std::const_pointer_cast<StringData>(std::move(data));
    return v;
}

const std::string &Value::asString() const
{
    if ((m_kind == ValueKind::VALUE_KIND_STRING || m_kind == ValueKind::VALUE_KIND_UNDEFINED) && m_data)
        return static_cast<const StringData *>(m_data.get())->text();
    return emptyString();
}

Value Value::undefined(std::string message)
{
    Value v;
    if (!message.empty())
        v.m_data = std::make_shared<StringData>(std::move(message));
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
        return asDict().namespaceDepth;
    return m_depth;
}

Value Value::list(List items)
{
    Value v;
    v.m_kind = ValueKind::VALUE_KIND_LIST;
    int d = 0;
    for (const Value &item : items)
        d = std::max(d, item.depth());
    v.m_depth = d + 1;
    v.m_data = std::make_shared<ListData>(std::move(items));
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
        d = std::max({d, k.depth(), val.depth()});
    v.m_depth = d + 1;
    auto data = std::make_shared<Dict>(std::move(entries));
    data->charge.resize(data->footprint());
    v.m_data = std::move(data);
    return v;
}

Value Value::dict() { return dict(Dict{}); }

Value Value::makeNamespace(Dict entries)
{
    Value v = dict(std::move(entries));
    v.m_kind = ValueKind::VALUE_KIND_NAMESPACE;
    v.mutableDict().namespaceDepth = v.m_depth;   // raised by later attribute assignments
    v.m_depth = 0;
    return v;
}

Value Value::callable(std::string name, std::function<Result<Value>(Interpreter &, CallArgs &)> fn)
{
    Value v;
    v.m_kind = ValueKind::VALUE_KIND_CALLABLE;
    v.m_data = std::make_shared<Callable>(Callable{std::move(name), std::move(fn)});
    return v;
}

size_t hashKey(const Value &key)
{
    switch (key.kind()) {
    case ValueKind::VALUE_KIND_BOOL:
    case ValueKind::VALUE_KIND_INT: return std::hash<int64_t>()(key.asInt());
    case ValueKind::VALUE_KIND_FLOAT: {
        const double d = key.asFloat();
        // An integral float equals the int of its value: hash it as that int.
        if (d == std::floor(d) && d >= -9.2e18 && d <= 9.2e18)
            return std::hash<int64_t>()(int64_t(d));
        return std::isnan(d) ? 0x7ff8 : std::hash<double>()(d);
    }
    case ValueKind::VALUE_KIND_STRING: return std::hash<std::string_view>()(key.asString());
    case ValueKind::VALUE_KIND_LIST: {
        // Equal lists have equal sizes and first items.
        size_t h = key.asList().size() * 0x9E3779B97F4A7C15ull;
        if (!key.asList().empty())
            h ^= hashKey(key.asList().front()) + 0x7F4A7C15;
        return h;
    }
    case ValueKind::VALUE_KIND_DICT: return 0xD1C7 + key.asDict().entries.size();
    default: return size_t(key.kind()) * 0x10001;
    }
}

size_t Dict::footprint() const
{
    return sizeof(Dict) + entries.capacity() * sizeof(entries[0]) + m_index.size() * 40
           + m_index.bucket_count() * sizeof(void *);
}

const Value *Dict::indexedFind(const Value &key, size_t hash) const
{
    if (m_indexed > entries.size()) {   // cleared since: start again
        m_index.clear();
        m_indexed = 0;
    }
    for (; m_indexed < entries.size(); ++m_indexed)
        m_index.emplace(hashKey(entries[m_indexed].first), m_indexed);
    // The first entry with an equal key (duplicates appended from JSON: the first wins, as before).
    const Value *found = nullptr;
    size_t best = SIZE_MAX;
    const auto [b, e] = m_index.equal_range(hash);
    for (auto it = b; it != e; ++it)
        if (it->second < best && equals(entries[it->second].first, key)) {
            best = it->second;
            found = &entries[it->second].second;
        }
    return found;
}

const Value *Dict::find(const Value &key) const
{
    if (entries.size() >= INDEX_FROM)
        return indexedFind(key, hashKey(key));
    for (const auto &[k, v] : entries)
        if (equals(k, key))
            return &v;
    return nullptr;
}

const Value *Dict::findKey(std::string_view key) const
{
    if (entries.size() >= INDEX_FROM)
        return indexedFind(Value(key), std::hash<std::string_view>()(key));
    for (const auto &[k, v] : entries)
        if (k.isString() && k.asString() == key)
            return &v;
    return nullptr;
}

void Dict::set(Value key, Value value)
{
    if (const Value *existing = find(key)) {
        *const_cast<Value *>(existing) = std::move(value);
        return;
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

// Appends repr(s); stops early once `out` holds more than maxBytes.
static void reprString(std::string &out, const std::string &s, size_t maxBytes)
{
    const bool hasSingle = s.find('\'') != std::string::npos;
    const bool hasDouble = s.find('"') != std::string::npos;
    const char quote = (hasSingle && !hasDouble) ? '"' : '\'';
    out += quote;
    for (size_t i = 0; i < s.size();) {
        if ((i & 1023) == 0 && out.size() > maxBytes)
            return;
        const uint32_t cp = utf8Next(s, i);
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
        case ValueKind::VALUE_KIND_STRING: reprString(out, v.asString(), maxBytes); return;
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

// Appends the JSON text of `s`; stops early once `out` holds more than maxBytes.
static void jsonString(std::string &out, const std::string &s, bool ensureAscii, size_t maxBytes)
{
    out += '"';
    for (size_t i = 0; i < s.size();) {
        if ((i & 1023) == 0 && out.size() > maxBytes)
            return;
        const uint32_t cp = utf8Next(s, i);
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
    case ValueKind::VALUE_KIND_STRING: jsonString(out, v.asString(), o.ensureAscii, o.maxBytes); return {};
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
            jsonString(out, items[i].first, o.ensureAscii, o.maxBytes);
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

Result<Slice> sliceOf(int64_t length, const Value &startV, const Value &stopV, const Value &stepV)
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
    Slice out;
    out.step = step;
    if (step > 0) {
        const int64_t b = adjust(start, 0, 0, length);
        const int64_t e = adjust(stop, length, 0, length);
        out.start = b;
        out.count = b < e ? size_t(uint64_t(e - b - 1) / uint64_t(step) + 1) : 0;
    } else {
        const int64_t b = adjust(start, length - 1, -1, length - 1);
        const int64_t e = adjust(stop, -1, -1, length - 1);
        const uint64_t stride = uint64_t(-(step + 1)) + 1;   // |step|, also for INT64_MIN
        out.start = b;
        out.count = b > e ? size_t(uint64_t(b - e - 1) / stride + 1) : 0;
    }
    return out;
}

} // namespace burrow::jinja
