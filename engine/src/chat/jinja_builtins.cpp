// Filters, tests, methods and globals (see jinja_builtins.h). Each follows
// the Jinja2 3.x / Python function of the same name; differences are noted.
#include "chat/jinja_builtins.h"

#include "chat/jinja_interpreter.h"
#include "chat/jinja_strings.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace burrow::jinja::builtins {

namespace {

using Filter = Result<Value> (*)(Interpreter &, const Value &, CallArgs &);
using Test = Result<bool> (*)(Interpreter &, const Value &, CallArgs &);

Value arg(const CallArgs &args, size_t pos, std::string_view name, Value dflt = Value())
{
    const Value *v = args.get(pos, name);
    return v ? *v : dflt;
}

Status typeError(const std::string &what) { return Status::error(what); }

// A Result<std::string> as a Result<Value>.
Result<Value> asValue(Result<std::string> r)
{
    if (!r)
        return r.status();
    return Value(std::move(*r));
}

Result<int64_t> length(const Value &v)
{
    switch (v.kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED: return int64_t(0);
    case ValueKind::VALUE_KIND_STRING: return int64_t(v.stringData().length());   // counted once, when made
    case ValueKind::VALUE_KIND_LIST: return int64_t(v.asList().size());
    case ValueKind::VALUE_KIND_DICT: return int64_t(v.asDict().entries.size());
    default: return typeError(std::string("object of type '") + typeName(v) + "' has no len()");
    }
}

// Jinja's attribute getter: "a.b.0" walks attributes / items. The path is
// split once (charged), then each get() costs one step per part.
class AttrPath {
public:
    static Result<AttrPath> make(Interpreter &in, const Value &attribute)
    {
        AttrPath p;
        if (!attribute.isString()) {
            p.m_keys.push_back(attribute);
            return p;
        }
        const std::string &path = attribute.asString();
        if (Status s = in.chargeBytes(path.size()); !s)
            return s;
        size_t pos = 0;
        while (true) {
            const size_t dot = path.find('.', pos);
            const std::string part = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
            const bool numeric = !part.empty() && part.size() < 18
                                 && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
            p.m_keys.push_back(numeric ? Value(int64_t(std::stoll(part))) : Value(part));
            if (dot == std::string::npos)
                break;
            pos = dot + 1;
        }
        return p;
    }

    Result<Value> get(Interpreter &in, const Value &v) const
    {
        if (Status s = in.charge(m_keys.size()); !s)
            return s;
        Value cur = v;
        for (const Value &key : m_keys) {
            if (cur.isUndefined())
                return cur;
            cur = in.getItem(cur, key);
        }
        return cur;
    }

private:
    std::vector<Value> m_keys;
};

Result<Value> textFilter(Interpreter &in, const Value &v, Result<std::string> (*fn)(Interpreter &, std::string_view))
{
    auto s = strings::text(in, v);
    if (!s)
        return s.status();
    return asValue(fn(in, *s));
}

// --- filters ----------------------------------------------------------------------

Result<Value> fTrim(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("trim", 1, {"chars"}); !s) return s;
    auto text = strings::text(in, v);
    if (!text) return text.status();
    return asValue(strings::strip(in, *text, arg(a, 0, "chars"), true, true));
}

Result<Value> fLength(Interpreter &, const Value &v, CallArgs &a)
{
    if (Status s = a.check("length", 0, {}); !s) return s;
    auto n = length(v);
    if (!n) return n.status();
    return Value(*n);
}

Result<std::string> upperText(Interpreter &in, std::string_view s) { return strings::mapCase(in, s, true); }
Result<std::string> lowerText(Interpreter &in, std::string_view s) { return strings::mapCase(in, s, false); }

Result<Value> fUpper(Interpreter &in, const Value &v, CallArgs &) { return textFilter(in, v, upperText); }
Result<Value> fLower(Interpreter &in, const Value &v, CallArgs &) { return textFilter(in, v, lowerText); }
Result<Value> fTitle(Interpreter &in, const Value &v, CallArgs &) { return textFilter(in, v, strings::jinjaTitle); }
Result<Value> fCapitalize(Interpreter &in, const Value &v, CallArgs &) { return textFilter(in, v, strings::capitalize); }
Result<Value> fEscape(Interpreter &in, const Value &v, CallArgs &) { return textFilter(in, v, strings::escapeHtml); }

Result<Value> fString(Interpreter &in, const Value &v, CallArgs &)
{
    if (v.isString())
        return v;
    return asValue(strings::text(in, v));
}
Result<Value> fSafe(Interpreter &in, const Value &v, CallArgs &a) { return fString(in, v, a); }

Result<Value> fTojson(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("tojson", 1, {"indent", "ensure_ascii", "separators", "sort_keys"}); !s) return s;
    JsonOptions o;
    const Value indent = arg(a, 0, "indent");
    if (indent.isInt()) {
        o.indent = std::string(size_t(std::clamp<int64_t>(indent.asInt(), 0, 64)), ' ');
        o.itemSeparator = ",";
    } else if (indent.isString()) {
        // Written once per level on every line: a long one would multiply the output.
        if (indent.asString().size() > 64)
            return typeError("tojson: an indent string may have at most 64 bytes");
        o.indent = indent.asString();
        o.itemSeparator = ",";
    } else if (!indent.isUndefined() && !indent.isNone()) {
        return typeError(std::string("tojson: indent must be an integer or a string, not ") + typeName(indent));
    }
    const Value sep = arg(a, 99, "separators");
    if (sep.isList() && sep.asList().size() == 2 && sep.asList()[0].isString() && sep.asList()[1].isString()) {
        o.itemSeparator = sep.asList()[0].asString();
        o.keySeparator = sep.asList()[1].asString();
    }
    o.ensureAscii = truthy(arg(a, 99, "ensure_ascii", Value(false)));
    o.maxBytes = in.limits().maxOutputBytes;
    o.sortKeys = truthy(arg(a, 99, "sort_keys", Value(false)));
    auto json = toJson(v, o);
    if (!json) return json.status();
    if (Status s = in.checkSize(json->size()); !s) return s;
    if (Status s = in.chargeBytes(json->size()); !s) return s;
    return Value(std::move(*json));
}

Result<Value> fJoin(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("join", 2, {"d", "attribute"}); !s) return s;
    auto sep = strings::text(in, arg(a, 0, "d", Value("")));
    if (!sep) return sep.status();
    const Value attribute = arg(a, 1, "attribute");
    std::optional<AttrPath> path;
    if (!attribute.isUndefined()) {
        auto made = AttrPath::make(in, attribute);
        if (!made) return made.status();
        path = std::move(*made);
    }
    auto items = in.iterate(v);
    if (!items) return items.status();
    std::string out;
    for (size_t i = 0; i < items->size(); ++i) {
        Value item = (*items)[i];
        if (path) {
            auto got = path->get(in, item);
            if (!got) return got.status();
            item = std::move(*got);
        }
        const std::string piece = toStr(item, in.limits().maxOutputBytes);
        const size_t add = (i ? sep->size() : 0) + piece.size();
        if (Status s = in.checkSize(out.size() + add); !s) return s;
        if (Status s = in.chargeBytes(add); !s) return s;
        if (i)
            out += *sep;
        out += piece;
    }
    return Value(std::move(out));
}

Result<Value> fDefault(Interpreter &, const Value &v, CallArgs &a)
{
    if (Status s = a.check("default", 2, {"default_value", "boolean"}); !s) return s;
    const Value dflt = arg(a, 0, "default_value", Value(""));
    const bool boolean = truthy(arg(a, 1, "boolean", Value(false)));
    if (v.isUndefined() || (boolean && !truthy(v)))
        return dflt;
    return v;
}

Result<Value> fReplace(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("replace", 3, {"old", "new", "count"}); !s) return s;
    const Value fromV = arg(a, 0, "old"), toV = arg(a, 1, "new"), count = arg(a, 2, "count");
    if (fromV.isUndefined() || toV.isUndefined())
        return typeError("replace() needs the old and new strings");
    auto text = strings::text(in, v);
    if (!text) return text.status();
    auto from = strings::text(in, fromV);
    if (!from) return from.status();
    auto to = strings::text(in, toV);
    if (!to) return to.status();
    return asValue(strings::replace(in, *text, *from, *to, count.isInt() ? count.asInt() : -1));
}

// first / last without listing: a list's end item, a string's end character,
// a dict's end key.
Result<Value> endItem(Interpreter &in, const Value &v, bool first)
{
    const char *empty = first ? "No first item, sequence was empty." : "No last item, sequence was empty.";
    if (v.isList() || v.isDict()) {
        const size_t n = v.isList() ? v.asList().size() : v.asDict().entries.size();
        if (n == 0)
            return Value::undefined(empty);
        const size_t at = first ? 0 : n - 1;
        return v.isList() ? v.asList()[at] : v.asDict().entries[at].first;
    }
    if (v.isString()) {
        const StringData &text = v.stringData();
        if (text.length() == 0)
            return Value::undefined(empty);
        size_t at = text.offsetOf(first ? 0 : text.length() - 1);
        std::string ch;
        utf8Append(ch, utf8Next(text.text(), at));
        return Value(std::move(ch));
    }
    auto items = in.iterate(v);
    if (!items) return items.status();
    if (items->empty())
        return Value::undefined(empty);
    return first ? items->front() : items->back();
}

Result<Value> fFirst(Interpreter &in, const Value &v, CallArgs &) { return endItem(in, v, true); }
Result<Value> fLast(Interpreter &in, const Value &v, CallArgs &) { return endItem(in, v, false); }

Result<Value> fList(Interpreter &in, const Value &v, CallArgs &)
{
    if (v.isList())
        return v.isTuple() ? Value::list(v.asList()) : v;
    auto items = in.iterate(v);
    if (!items) return items.status();
    return Value::list(std::move(*items));
}

// `text` without leading and trailing whitespace (Python's str.strip()).
std::string trimmed(std::string_view text)
{
    size_t begin = std::string_view::npos, end = 0;
    for (size_t i = 0; i < text.size();) {
        const size_t at = i;
        if (!isPySpace(utf8Next(text, i))) {
            if (begin == std::string_view::npos)
                begin = at;
            end = i;
        }
    }
    return begin == std::string_view::npos ? std::string() : std::string(text.substr(begin, end - begin));
}

std::optional<int64_t> parseInt(const std::string &text, int base)
{
    std::string s = trimmed(text);
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    if (s.empty())
        return std::nullopt;
    errno = 0;
    char *end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, base);
    if (errno != 0 || !end || *end != '\0')
        return std::nullopt;
    return int64_t(v);
}

std::optional<double> parseFloat(const std::string &text)
{
    const std::string s = trimmed(text);
    if (s.empty())
        return std::nullopt;
    char *end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (!end || *end != '\0')
        return std::nullopt;
    return d;
}

Result<Value> fInt(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("int", 2, {"default", "base"}); !s) return s;
    if (Status s = in.chargeBytes(v.asString().size()); !s) return s;
    const Value dflt = arg(a, 0, "default", Value(int64_t(0)));
    const Value base = arg(a, 1, "base", Value(int64_t(10)));
    if (v.isInt() || v.isBool())
        return Value(v.asInt());
    if (v.isFloat()) {
        const double d = v.asFloat();
        if (!std::isfinite(d) || std::fabs(d) >= 9.2e18)
            return dflt;
        return Value(int64_t(d));
    }
    if (v.isString()) {
        if (auto i = parseInt(v.asString(), base.isInt() ? int(base.asInt()) : 10))
            return Value(*i);
        if (auto d = parseFloat(v.asString()); d && std::isfinite(*d) && std::fabs(*d) < 9.2e18)
            return Value(int64_t(*d));
    }
    return dflt;
}

Result<Value> fFloat(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("float", 1, {"default"}); !s) return s;
    if (Status s = in.chargeBytes(v.asString().size()); !s) return s;
    const Value dflt = arg(a, 0, "default", Value(0.0));
    if (v.isNumber())
        return Value(v.asFloat());
    if (v.isString())
        if (auto d = parseFloat(v.asString()))
            return Value(*d);
    return dflt;
}

Result<Value> fAbs(Interpreter &, const Value &v, CallArgs &)
{
    if (v.isFloat())
        return Value(std::fabs(v.asFloat()));
    if (v.isInt() || v.isBool()) {
        if (v.asInt() == INT64_MIN)
            return typeError("integer overflow");
        return Value(v.asInt() < 0 ? -v.asInt() : v.asInt());
    }
    if (v.isUndefined())
        return undefinedError(v);
    return typeError(std::string("bad operand type for abs(): '") + typeName(v) + "'");
}

Result<Value> fRound(Interpreter &, const Value &v, CallArgs &a)
{
    if (Status s = a.check("round", 2, {"precision", "method"}); !s) return s;
    if (v.isUndefined())
        return undefinedError(v);
    if (!v.isNumber())
        return typeError(std::string("round() needs a number, not ") + typeName(v));
    const Value precisionV = arg(a, 0, "precision", Value(int64_t(0)));
    const std::string method = toStr(arg(a, 1, "method", Value("common")), 16);
    const int64_t precision = precisionV.isInt() ? std::clamp<int64_t>(precisionV.asInt(), -300, 300) : 0;
    if (method != "common" && method != "ceil" && method != "floor")
        return typeError("method must be 'common', 'ceil' or 'floor'");
    if (method == "common") {
        // Python round(): an int stays an int; a float rounds its exact
        // decimal value half to even (what printf does with the binary value).
        if ((v.isInt() || v.isBool()) && precision >= 0)
            return Value(v.asInt());
        const double x = v.asFloat();
        if (v.isInt() || v.isBool()) {   // round(1234, -2) == 1200, still an int
            const double scale = std::pow(10.0, double(-precision));
            const double r = std::nearbyint(x / scale) * scale;
            return std::fabs(r) < 9.2e18 ? Value(int64_t(r)) : Value(r);
        }
        if (!std::isfinite(x))
            return Value(x);
        if (precision >= 0) {
            char buf[512];
            std::snprintf(buf, sizeof buf, "%.*f", int(std::min<int64_t>(precision, 300)), x);
            return Value(std::strtod(buf, nullptr));
        }
        const double scale = std::pow(10.0, double(-precision));
        return Value(std::nearbyint(x / scale) * scale);
    }
    const double scale = std::pow(10.0, double(precision));
    const double x = v.asFloat() * scale;
    return Value((method == "ceil" ? std::ceil(x) : std::floor(x)) / scale);
}

// select/reject/selectattr/rejectattr share this.
// An optional attribute path argument (Undefined: none).
Result<std::optional<AttrPath>> optionalPath(Interpreter &in, const Value &attribute)
{
    if (attribute.isUndefined())
        return std::optional<AttrPath>();
    auto made = AttrPath::make(in, attribute);
    if (!made)
        return made.status();
    return std::optional<AttrPath>(std::move(*made));
}

// The item itself, or the attribute `path` names.
Result<Value> keyOf(Interpreter &in, const std::optional<AttrPath> &path, const Value &item)
{
    if (!path)
        return item;
    return path->get(in, item);
}

Result<Value> selectImpl(Interpreter &in, const Value &v, CallArgs &a, bool byAttribute, bool select)
{
    List out;
    if (!truthy(v))   // Jinja: `if value:` guards the loop, so None selects nothing
        return Value::list();
    auto items = in.iterate(v);
    if (!items) return items.status();
    size_t next = 0;
    std::optional<AttrPath> path;
    if (byAttribute) {
        if (a.positional.empty())
            return typeError("selectattr/rejectattr needs an attribute name");
        auto made = AttrPath::make(in, a.positional[next++]);
        if (!made) return made.status();
        path = std::move(*made);
    }
    std::string testName;
    if (next < a.positional.size()) {
        if (!a.positional[next].isString())
            return typeError("the test name must be a string");
        testName = a.positional[next++].asString();
    }
    CallArgs testArgs;
    testArgs.positional.assign(a.positional.begin() + long(next), a.positional.end());
    testArgs.named = a.named;
    for (const Value &item : *items) {
        if (Status s = in.step(); !s) return s;
        auto subject = keyOf(in, path, item);
        if (!subject) return subject.status();
        bool ok;
        if (testName.empty()) {
            ok = truthy(*subject);
        } else {
            CallArgs copy = testArgs;
            auto r = in.applyTest(testName, *subject, copy);
            if (!r) return r.status();
            ok = *r;
        }
        if (ok == select)
            out.push_back(item);
    }
    return Value::list(std::move(out));
}

Result<Value> fSelect(Interpreter &in, const Value &v, CallArgs &a) { return selectImpl(in, v, a, false, true); }
Result<Value> fReject(Interpreter &in, const Value &v, CallArgs &a) { return selectImpl(in, v, a, false, false); }
Result<Value> fSelectattr(Interpreter &in, const Value &v, CallArgs &a) { return selectImpl(in, v, a, true, true); }
Result<Value> fRejectattr(Interpreter &in, const Value &v, CallArgs &a) { return selectImpl(in, v, a, true, false); }

Result<Value> fMap(Interpreter &in, const Value &v, CallArgs &a)
{
    auto items = in.iterate(v);
    if (!items) return items.status();
    List out;
    out.reserve(items->size());
    if (const Value *attribute = a.get(SIZE_MAX, "attribute")) {
        auto path = AttrPath::make(in, *attribute);
        if (!path) return path.status();
        const Value *dflt = a.get(SIZE_MAX, "default");
        for (const Value &item : *items) {
            auto r = path->get(in, item);
            if (!r) return r.status();
            if (r->isUndefined() && dflt)
                *r = *dflt;
            out.push_back(std::move(*r));
        }
        return Value::list(std::move(out));
    }
    if (a.positional.empty() || !a.positional[0].isString())
        return typeError("map() needs a filter name or attribute=");
    const std::string name = a.positional[0].asString();
    CallArgs rest;
    rest.positional.assign(a.positional.begin() + 1, a.positional.end());
    rest.named = a.named;
    for (const Value &item : *items) {
        if (Status s = in.step(); !s) return s;
        CallArgs copy = rest;
        auto r = in.applyFilter(name, item, copy);
        if (!r) return r.status();
        out.push_back(std::move(*r));
    }
    return Value::list(std::move(out));
}

Result<Value> fItems(Interpreter &in, const Value &v, CallArgs &)
{
    if (v.isUndefined())
        return Value::list();
    if (!v.isMapping())
        return typeError("Can only get item pairs from a mapping.");
    if (Status s = in.charge(v.asDict().entries.size()); !s) return s;
    List out;
    out.reserve(v.asDict().entries.size());
    for (const auto &[k, val] : v.asDict().entries)
        out.push_back(Value::tuple({k, val}));
    return Value::list(std::move(out));
}

// Sorts `items` by their keys (computed once each, case-folded unless
// caseSensitive), stably. Every comparison is charged (one step, plus the
// items of two lists compared), so a sort costs O(n log n) steps.
Result<List> sortByKeys(Interpreter &in, const List &items, const std::optional<AttrPath> &path, bool caseSensitive,
                        bool reverse)
{
    std::vector<std::pair<Value, size_t>> keyed;   // key, position in items
    keyed.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
        auto key = keyOf(in, path, items[i]);
        if (!key) return key.status();
        if (!caseSensitive && key->isString()) {
            auto folded = strings::mapCase(in, key->asString(), false);
            if (!folded) return folded.status();
            *key = Value(std::move(*folded));
        }
        keyed.emplace_back(std::move(*key), i);
    }
    std::optional<Status> error;
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto &p, const auto &q) {
        if (error)
            return false;
        const size_t work = p.first.isList() && q.first.isList()
                                ? std::min(p.first.asList().size(), q.first.asList().size()) : 0;
        if (Status s = in.charge(1 + work); !s) {
            error = s;
            return false;
        }
        auto c = compare(p.first, q.first, "<");
        if (!c) {
            error = c.status();
            return false;
        }
        return reverse ? *c > 0 : *c < 0;
    });
    if (error)
        return *error;
    List out;
    out.reserve(items.size());
    for (const auto &[key, i] : keyed)
        out.push_back(items[i]);
    return out;
}

Result<Value> fDictsort(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("dictsort", 3, {"case_sensitive", "by", "reverse"}); !s) return s;
    if (!v.isMapping())
        return typeError("dictsort needs a mapping");
    const bool caseSensitive = truthy(arg(a, 0, "case_sensitive", Value(false)));
    const std::string by = toStr(arg(a, 1, "by", Value("key")), 16);
    const bool reverse = truthy(arg(a, 2, "reverse", Value(false)));
    if (by != "key" && by != "value")
        return typeError("You can only sort by either 'key' or 'value'");
    if (Status s = in.charge(v.asDict().entries.size()); !s) return s;
    List pairs;
    pairs.reserve(v.asDict().entries.size());
    for (const auto &[k, val] : v.asDict().entries)
        pairs.push_back(Value::tuple({k, val}));
    auto path = AttrPath::make(in, Value(int64_t(by == "key" ? 0 : 1)));
    if (!path) return path.status();
    auto sorted = sortByKeys(in, pairs, std::move(*path), caseSensitive, reverse);
    if (!sorted) return sorted.status();
    return Value::list(std::move(*sorted));
}

Result<Value> fSort(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("sort", 3, {"reverse", "case_sensitive", "attribute"}); !s) return s;
    auto items = in.iterate(v);
    if (!items) return items.status();
    const bool reverse = truthy(arg(a, 0, "reverse", Value(false)));
    const bool caseSensitive = truthy(arg(a, 1, "case_sensitive", Value(false)));
    auto path = optionalPath(in, arg(a, 2, "attribute"));
    if (!path) return path.status();
    auto sorted = sortByKeys(in, *items, *path, caseSensitive, reverse);
    if (!sorted) return sorted.status();
    return Value::list(std::move(*sorted));
}

Result<Value> fReverse(Interpreter &in, const Value &v, CallArgs &)
{
    if (v.isString())
        return asValue(strings::reversed(in, v.asString()));
    auto items = in.iterate(v);
    if (!items) return items.status();
    std::reverse(items->begin(), items->end());
    return Value::list(std::move(*items));
}

Result<Value> fUnique(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("unique", 2, {"case_sensitive", "attribute"}); !s) return s;
    auto items = in.iterate(v);
    if (!items) return items.status();
    const bool caseSensitive = truthy(arg(a, 0, "case_sensitive", Value(false)));
    auto path = optionalPath(in, arg(a, 1, "attribute"));
    if (!path) return path.status();
    List out;
    Dict seen;   // the keys met so far (hashed: O(1) per item)
    for (const Value &item : *items) {
        auto key = keyOf(in, *path, item);
        if (!key) return key.status();
        if (!caseSensitive && key->isString()) {
            auto folded = strings::mapCase(in, key->asString(), false);
            if (!folded) return folded.status();
            *key = Value(std::move(*folded));
        }
        if (seen.find(*key))
            continue;
        seen.set(std::move(*key), Value());
        out.push_back(item);
    }
    return Value::list(std::move(out));
}

Result<Value> fIndent(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("indent", 3, {"width", "first", "blank"}); !s) return s;
    const Value width = arg(a, 0, "width", Value(int64_t(4)));
    std::string indention;
    if (width.isString())
        indention = width.asString();
    else if (width.isInt())
        indention.assign(size_t(std::clamp<int64_t>(width.asInt(), 0, 1024)), ' ');
    else
        return typeError("indent width must be an integer or a string");
    const bool first = truthy(arg(a, 1, "first", Value(false)));
    const bool blank = truthy(arg(a, 2, "blank", Value(false)));
    auto text = strings::text(in, v);
    if (!text) return text.status();
    auto lines = strings::splitLines(in, *text + "\n", false);
    if (!lines) return lines.status();
    const List &l = lines->asList();
    std::string rv = first ? indention : std::string();
    for (size_t i = 0; i < l.size(); ++i) {
        const std::string &line = l[i].asString();
        const bool indented = i > 0 && (blank || !line.empty());
        const size_t add = (i ? 1 : 0) + (indented ? indention.size() : 0) + line.size();
        if (Status s = in.checkSize(rv.size() + add); !s) return s;
        if (Status s = in.chargeBytes(add); !s) return s;
        if (i)
            rv += '\n';
        if (indented)
            rv += indention;
        rv += line;
    }
    return Value(std::move(rv));
}

Result<Value> fSum(Interpreter &in, const Value &v, CallArgs &a)
{
    auto items = in.iterate(v);
    if (!items) return items.status();
    auto path = optionalPath(in, arg(a, 0, "attribute"));
    if (!path) return path.status();
    Value total = arg(a, 1, "start", Value(int64_t(0)));
    for (const Value &item : *items) {
        auto x = keyOf(in, *path, item);
        if (!x) return x.status();
        if (!x->isNumber() || !total.isNumber())
            return typeError(std::string("unsupported operand type(s) for +: '") + typeName(total) + "' and '" + typeName(*x) + "'");
        if (x->isFloat() || total.isFloat())
            total = Value(total.asFloat() + x->asFloat());
        else {
            int64_t r = 0;
            if (__builtin_add_overflow(total.asInt(), x->asInt(), &r))
                return typeError("integer overflow");
            total = Value(r);
        }
    }
    return total;
}

Result<Value> minMax(Interpreter &in, const Value &v, CallArgs &a, bool wantMax)
{
    auto items = in.iterate(v);
    if (!items) return items.status();
    if (items->empty())
        return Value::undefined(std::string("No ") + (wantMax ? "largest" : "smallest") + " item, sequence was empty.");
    const bool caseSensitive = truthy(arg(a, 0, "case_sensitive", Value(false)));
    auto path = optionalPath(in, arg(a, 1, "attribute"));
    if (!path) return path.status();
    size_t best = 0;
    Value bestKey;
    for (size_t i = 0; i < items->size(); ++i) {
        auto key = keyOf(in, *path, (*items)[i]);
        if (!key) return key.status();
        if (!caseSensitive && key->isString()) {
            auto folded = strings::mapCase(in, key->asString(), false);
            if (!folded) return folded.status();
            *key = Value(std::move(*folded));
        }
        if (i > 0) {
            const size_t work = key->isList() && bestKey.isList() ? std::min(key->asList().size(), bestKey.asList().size()) : 0;
            if (Status s = in.charge(1 + work); !s) return s;
            auto c = compare(*key, bestKey, "<");
            if (!c) return c.status();
            if (!(wantMax ? *c > 0 : *c < 0))
                continue;
        }
        best = i;
        bestKey = std::move(*key);
    }
    return (*items)[best];
}

Result<Value> fMin(Interpreter &in, const Value &v, CallArgs &a) { return minMax(in, v, a, false); }
Result<Value> fMax(Interpreter &in, const Value &v, CallArgs &a) { return minMax(in, v, a, true); }

Result<Value> fAttr(Interpreter &in, const Value &v, CallArgs &a)
{
    if (a.positional.size() != 1 || !a.positional[0].isString())
        return typeError("attr() needs one attribute name");
    // Attributes only, never items: a dict's keys are not attributes.
    const std::string &name = a.positional[0].asString();
    if (v.isNamespace())
        return in.getAttribute(v, name);
    if (auto method = boundMethod(v, name))
        return *method;
    return Value::undefined("'" + objectTypeRepr(v) + "' has no attribute '" + name + "'");
}

Result<Value> fWordcount(Interpreter &in, const Value &v, CallArgs &)
{
    auto text = strings::text(in, v);
    if (!text) return text.status();
    int64_t words = 0;
    bool inWord = false;
    for (size_t i = 0; i < text->size();) {
        const bool space = isPySpace(utf8Next(*text, i));
        words += !space && !inWord;
        inWord = !space;
    }
    return Value(words);
}

const std::map<std::string, Filter, std::less<>> &filterTable()
{
    static const std::map<std::string, Filter, std::less<>> table = {
        {"abs", fAbs}, {"attr", fAttr}, {"capitalize", fCapitalize}, {"count", fLength}, {"d", fDefault},
        {"default", fDefault}, {"dictsort", fDictsort}, {"e", fEscape}, {"escape", fEscape}, {"first", fFirst},
        {"float", fFloat}, {"indent", fIndent}, {"int", fInt}, {"items", fItems}, {"join", fJoin}, {"last", fLast},
        {"length", fLength}, {"list", fList}, {"lower", fLower}, {"map", fMap}, {"max", fMax}, {"min", fMin},
        {"reject", fReject}, {"rejectattr", fRejectattr}, {"replace", fReplace}, {"reverse", fReverse},
        {"round", fRound}, {"safe", fSafe}, {"select", fSelect}, {"selectattr", fSelectattr}, {"sort", fSort},
        {"string", fString}, {"sum", fSum}, {"title", fTitle}, {"tojson", fTojson}, {"trim", fTrim},
        {"unique", fUnique}, {"upper", fUpper}, {"wordcount", fWordcount},
    };
    return table;
}

// --- tests ------------------------------------------------------------------------

Result<bool> argCompare(Interpreter &in, const Value &v, CallArgs &a, const char *op)
{
    if (a.positional.size() != 1)
        return typeError(std::string("test '") + op + "' needs one argument");
    const Value &other = a.positional[0];
    if (v.isList() && other.isList())
        if (Status s = in.charge(std::min(v.asList().size(), other.asList().size())); !s)
            return s;
    const std::string o = op;
    if (o == "==") return equals(v, other);
    if (o == "!=") return !equals(v, other);
    auto c = compare(v, other, op);
    if (!c) return c.status();
    if (o == "<") return *c < 0;
    if (o == "<=") return *c <= 0;
    if (o == ">") return *c > 0;
    return *c >= 0;
}

Result<bool> tDefined(Interpreter &, const Value &v, CallArgs &) { return !v.isUndefined(); }
Result<bool> tUndefined(Interpreter &, const Value &v, CallArgs &) { return v.isUndefined(); }
Result<bool> tNone(Interpreter &, const Value &v, CallArgs &) { return v.isNone(); }
Result<bool> tString(Interpreter &, const Value &v, CallArgs &) { return v.isString(); }
Result<bool> tNumber(Interpreter &, const Value &v, CallArgs &) { return v.isNumber(); }
Result<bool> tInteger(Interpreter &, const Value &v, CallArgs &) { return v.isInt(); }
Result<bool> tFloat(Interpreter &, const Value &v, CallArgs &) { return v.isFloat(); }
Result<bool> tMapping(Interpreter &, const Value &v, CallArgs &) { return v.isDict(); }
Result<bool> tIterable(Interpreter &, const Value &v, CallArgs &)
{
    return v.isUndefined() || v.isString() || v.isList() || v.isDict();
}
Result<bool> tSequence(Interpreter &, const Value &v, CallArgs &)
{
    return v.isUndefined() || v.isString() || v.isList() || v.isDict();
}
Result<bool> tBoolean(Interpreter &, const Value &v, CallArgs &) { return v.isBool(); }
Result<bool> tTrue(Interpreter &, const Value &v, CallArgs &) { return v.isBool() && v.asBool(); }
Result<bool> tFalse(Interpreter &, const Value &v, CallArgs &) { return v.isBool() && !v.asBool(); }
Result<bool> tCallable(Interpreter &, const Value &v, CallArgs &) { return v.isCallable(); }
Result<bool> tEscaped(Interpreter &, const Value &, CallArgs &) { return false; }

Result<bool> intTest(const Value &v, const char *name)
{
    if (v.isUndefined())
        return undefinedError(v);
    if (!v.isInt() && !v.isBool() && !v.isFloat())
        return typeError(std::string("test '") + name + "' needs a number, not " + typeName(v));
    return true;
}
Result<bool> tEven(Interpreter &, const Value &v, CallArgs &)
{
    if (auto ok = intTest(v, "even"); !ok) return ok;
    return v.isFloat() ? std::fmod(v.asFloat(), 2.0) == 0.0 : v.asInt() % 2 == 0;
}
Result<bool> tOdd(Interpreter &, const Value &v, CallArgs &)
{
    if (auto ok = intTest(v, "odd"); !ok) return ok;
    return v.isFloat() ? std::fabs(std::fmod(v.asFloat(), 2.0)) == 1.0 : v.asInt() % 2 != 0;
}
Result<bool> tDivisibleby(Interpreter &, const Value &v, CallArgs &a)
{
    if (auto ok = intTest(v, "divisibleby"); !ok) return ok;
    if (a.positional.size() != 1 || !a.positional[0].isNumber() || a.positional[0].asFloat() == 0.0)
        return typeError("divisibleby needs a non-zero number");
    if (v.isFloat() || a.positional[0].isFloat())
        return std::fmod(v.asFloat(), a.positional[0].asFloat()) == 0.0;
    return v.asInt() % a.positional[0].asInt() == 0;
}
Result<bool> tEq(Interpreter &in, const Value &v, CallArgs &a) { return argCompare(in, v, a, "=="); }
Result<bool> tNe(Interpreter &in, const Value &v, CallArgs &a) { return argCompare(in, v, a, "!="); }
Result<bool> tLt(Interpreter &in, const Value &v, CallArgs &a) { return argCompare(in, v, a, "<"); }
Result<bool> tLe(Interpreter &in, const Value &v, CallArgs &a) { return argCompare(in, v, a, "<="); }
Result<bool> tGt(Interpreter &in, const Value &v, CallArgs &a) { return argCompare(in, v, a, ">"); }
Result<bool> tGe(Interpreter &in, const Value &v, CallArgs &a) { return argCompare(in, v, a, ">="); }
Result<bool> tIn(Interpreter &in, const Value &v, CallArgs &a)
{
    if (a.positional.size() != 1)
        return typeError("test 'in' needs one argument");
    const Value &c = a.positional[0];
    if (c.isString()) {
        if (!v.isString())
            return typeError(std::string("'in <string>' requires string as left operand, not ") + typeName(v));
        if (Status s = in.chargeBytes(c.asString().size() + v.asString().size()); !s) return s;
        return SubstringSearch(v.asString()).find(c.asString()) != std::string::npos;
    }
    if (c.isMapping())
        return c.asDict().find(v) != nullptr;
    if (c.isList()) {
        if (Status s = in.charge(c.asList().size()); !s) return s;
        for (const Value &x : c.asList())
            if (equals(x, v))
                return true;
        return false;
    }
    auto items = in.iterate(c);
    if (!items) return items.status();
    for (const Value &x : *items)
        if (equals(x, v))
            return true;
    return false;
}
Result<bool> tSameas(Interpreter &, const Value &v, CallArgs &a)
{
    if (a.positional.size() != 1)
        return typeError("test 'sameas' needs one argument");
    const Value &o = a.positional[0];
    if (v.kind() != o.kind())
        return false;
    if (v.isList() || v.isMapping()) return v.sameObject(o);
    return equals(v, o);
}
Result<bool> tLower(Interpreter &in, const Value &v, CallArgs &)
{
    auto text = strings::text(in, v);
    if (!text) return text.status();
    return strings::isAllCase(*text, false);
}
Result<bool> tUpper(Interpreter &in, const Value &v, CallArgs &)
{
    auto text = strings::text(in, v);
    if (!text) return text.status();
    return strings::isAllCase(*text, true);
}

const std::map<std::string, Test, std::less<>> &testTable()
{
    static const std::map<std::string, Test, std::less<>> table = {
        {"!=", tNe}, {"<", tLt}, {"<=", tLe}, {"==", tEq}, {">", tGt}, {">=", tGe}, {"boolean", tBoolean},
        {"callable", tCallable}, {"defined", tDefined}, {"divisibleby", tDivisibleby}, {"eq", tEq},
        {"equalto", tEq}, {"escaped", tEscaped}, {"even", tEven}, {"false", tFalse}, {"float", tFloat},
        {"ge", tGe}, {"greaterthan", tGt}, {"gt", tGt}, {"in", tIn}, {"integer", tInteger}, {"iterable", tIterable},
        {"le", tLe}, {"lessthan", tLt}, {"lower", tLower}, {"lt", tLt}, {"mapping", tMapping}, {"ne", tNe},
        {"none", tNone}, {"number", tNumber}, {"odd", tOdd}, {"sameas", tSameas}, {"sequence", tSequence},
        {"string", tString}, {"true", tTrue}, {"undefined", tUndefined}, {"upper", tUpper},
    };
    return table;
}

// --- methods ----------------------------------------------------------------------

Result<Value> dictMethod(Interpreter &in, const Value &d, const std::string &name, CallArgs &a)
{
    const auto &entries = d.asDict().entries;
    if (name == "items" || name == "keys" || name == "values") {
        if (Status s = in.charge(entries.size()); !s) return s;
        List out;
        out.reserve(entries.size());
        for (const auto &[k, v] : entries)
            out.push_back(name == "items" ? Value::tuple({k, v}) : name == "keys" ? k : v);
        return Value::list(std::move(out));
    }
    if (name == "get") {
        if (a.positional.empty() || a.positional.size() > 2)
            return typeError("get() takes 1 or 2 arguments");
        if (const Value *v = d.asDict().find(a.positional[0]))
            return *v;
        return a.positional.size() > 1 ? a.positional[1] : Value::none();
    }
    return typeError("'dict' object has no attribute '" + name + "'");
}

Result<Value> listMethod(Interpreter &in, const Value &l, const std::string &name, CallArgs &a)
{
    if (a.positional.size() != 1)
        return typeError(name + "() takes exactly one argument");
    if (Status s = in.charge(l.asList().size()); !s) return s;
    int64_t n = 0;
    for (size_t i = 0; i < l.asList().size(); ++i) {
        if (equals(l.asList()[i], a.positional[0])) {
            if (name == "index")
                return Value(int64_t(i));
            ++n;
        }
    }
    if (name == "index")
        return typeError(repr(a.positional[0], 200) + " is not in list");
    return Value(n);
}

// --- globals ----------------------------------------------------------------------

Result<Value> gRange(Interpreter &in, CallArgs &a)
{
    int64_t start = 0, stop = 0, step = 1;
    for (const Value &v : a.positional)
        if (!v.isInt() && !v.isBool())
            return typeError(std::string("range() needs integers, not ") + typeName(v));
    if (a.positional.size() == 1) {
        stop = a.positional[0].asInt();
    } else if (a.positional.size() == 2 || a.positional.size() == 3) {
        start = a.positional[0].asInt();
        stop = a.positional[1].asInt();
        if (a.positional.size() == 3)
            step = a.positional[2].asInt();
    } else {
        return typeError("range() takes 1 to 3 arguments");
    }
    if (step == 0)
        return typeError("range() arg 3 must not be zero");
    // The length first (in unsigned arithmetic: no overflow), so a huge range is refused before it is built.
    uint64_t count = 0;
    if (step > 0 && start < stop)
        count = (uint64_t(stop) - uint64_t(start) - 1) / uint64_t(step) + 1;
    else if (step < 0 && start > stop)
        count = (uint64_t(start) - uint64_t(stop) - 1) / (uint64_t(-(step + 1)) + 1) + 1;
    if (count > in.limits().maxListItems)
        return typeError("range() exceeds the limit of " + std::to_string(in.limits().maxListItems) + " items");
    if (Status s = in.charge(count); !s) return s;
    List out;
    out.reserve(size_t(count));
    for (uint64_t k = 0; k < count; ++k)
        out.push_back(Value(int64_t(uint64_t(start) + k * uint64_t(step))));
    return Value::list(std::move(out));
}

Result<Value> gNamespace(Interpreter &in, CallArgs &a)
{
    Dict d;
    for (const Value &v : a.positional) {
        if (!v.isMapping())
            return typeError("namespace() positional arguments must be mappings");
        if (Status s = in.charge(v.asDict().entries.size()); !s) return s;
        for (const auto &[k, val] : v.asDict().entries)
            d.set(k, val);
    }
    for (const auto &[k, v] : a.named)
        d.set(Value(k), v);
    return in.newNamespace(std::move(d));
}

Result<Value> gDict(Interpreter &in, CallArgs &a)
{
    Dict d;
    for (const Value &v : a.positional) {
        if (!v.isMapping())
            return typeError("dict() positional arguments must be mappings");
        if (Status s = in.charge(v.asDict().entries.size()); !s) return s;
        for (const auto &[k, val] : v.asDict().entries)
            d.set(k, val);
    }
    for (const auto &[k, v] : a.named)
        d.set(Value(k), v);
    return Value::dict(std::move(d));
}

Result<Value> gRaise(Interpreter &, CallArgs &a)
{
    // The template's own message, cut to a readable length.
    constexpr size_t MAX_MESSAGE = 4096;
    std::string msg = toStr(arg(a, 0, "message"), MAX_MESSAGE);
    if (msg.size() > MAX_MESSAGE) {
        size_t cut = MAX_MESSAGE;
        while (cut > 0 && (uint8_t(msg[cut]) & 0xC0) == 0x80)
            --cut;
        msg.resize(cut);
        msg += "...";
    }
    return Status::error(msg);
}

// strftime with English names, independent of the process locale.
std::string formatTime(const std::string &fmt, const std::tm &t)
{
    static const char *const months[] = {"January", "February", "March", "April", "May", "June", "July",
                                         "August", "September", "October", "November", "December"};
    static const char *const days[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
    std::string out;
    char buf[32];
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] != '%' || i + 1 >= fmt.size()) {
            out += fmt[i];
            continue;
        }
        char c = fmt[++i];
        // glibc's '-' flag: no padding (%-d -> "6").
        const bool noPad = c == '-' && i + 1 < fmt.size();
        if (noPad)
            c = fmt[++i];
        const int mon = std::clamp(t.tm_mon, 0, 11), wday = std::clamp(t.tm_wday, 0, 6);
        const size_t before = out.size();
        switch (c) {
        case 'd': std::snprintf(buf, sizeof buf, "%02d", t.tm_mday); out += buf; break;
        case 'e': std::snprintf(buf, sizeof buf, "%2d", t.tm_mday); out += buf; break;
        case 'm': std::snprintf(buf, sizeof buf, "%02d", t.tm_mon + 1); out += buf; break;
        case 'Y': std::snprintf(buf, sizeof buf, "%d", t.tm_year + 1900); out += buf; break;
        case 'y': std::snprintf(buf, sizeof buf, "%02d", (t.tm_year + 1900) % 100); out += buf; break;
        case 'B': out += months[mon]; break;
        case 'b': case 'h': out += std::string(months[mon], 3); break;
        case 'A': out += days[wday]; break;
        case 'a': out += std::string(days[wday], 3); break;
        case 'H': std::snprintf(buf, sizeof buf, "%02d", t.tm_hour); out += buf; break;
        case 'I': std::snprintf(buf, sizeof buf, "%02d", t.tm_hour % 12 == 0 ? 12 : t.tm_hour % 12); out += buf; break;
        case 'M': std::snprintf(buf, sizeof buf, "%02d", t.tm_min); out += buf; break;
        case 'S': std::snprintf(buf, sizeof buf, "%02d", t.tm_sec); out += buf; break;
        case 'p': out += t.tm_hour < 12 ? "AM" : "PM"; break;
        case 'j': std::snprintf(buf, sizeof buf, "%03d", t.tm_yday + 1); out += buf; break;
        case 'F': std::snprintf(buf, sizeof buf, "%d-%02d-%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday); out += buf; break;
        case '%': out += '%'; break;
        default: out += '%'; if (noPad) out += '-'; out += c;
        }
        if (noPad && std::string_view("dmHIMSjey").find(c) != std::string_view::npos) {
            size_t p = before;
            while (p + 1 < out.size() && (out[p] == '0' || out[p] == ' '))
                out.erase(p, 1);
        }
    }
    return out;
}

Result<Value> gStrftimeNow(Interpreter &in, CallArgs &a)
{
    const Value fmt = arg(a, 0, "format");
    if (!fmt.isString())
        return typeError("strftime_now() needs a format string");
    if (in.fixedStrftime())
        return Value(*in.fixedStrftime());
    // Each directive writes at most 10 bytes for its 2 or 3.
    if (Status s = in.checkSize(fmt.asString().size() * 5); !s) return s;
    if (Status s = in.chargeBytes(fmt.asString().size() * 5); !s) return s;
    const std::time_t now = in.now();
    std::tm t{};
    localtime_r(&now, &t);
    return Value(formatTime(fmt.asString(), t));
}

} // namespace

bool hasFilter(std::string_view name) { return filterTable().count(name) != 0; }
bool hasTest(std::string_view name) { return testTable().count(name) != 0; }

Result<Value> applyFilter(Interpreter &in, const std::string &name, const Value &input, CallArgs &args)
{
    const auto &table = filterTable();
    const auto it = table.find(name);
    if (it == table.end())
        return Status::error("no filter named '" + name + "'");
    return it->second(in, input, args);
}

Result<bool> applyTest(Interpreter &in, const std::string &name, const Value &input, CallArgs &args)
{
    const auto &table = testTable();
    const auto it = table.find(name);
    if (it == table.end())
        return Status::error("no test named '" + name + "'");
    return it->second(in, input, args);
}

std::optional<Value> boundMethod(const Value &receiver, const std::string &name)
{
    // The bound method holds the receiver (shared, never a copy of its text).
    if (receiver.isString() && strings::isStringMethod(name)) {
        return Value::callable(name, [receiver, name](Interpreter &in, CallArgs &a) {
            return strings::callMethod(in, receiver, name, a);
        });
    }
    if (receiver.isDict() && (name == "items" || name == "keys" || name == "values" || name == "get")) {
        return Value::callable(name, [receiver, name](Interpreter &in, CallArgs &a) { return dictMethod(in, receiver, name, a); });
    }
    if (receiver.isList() && (name == "index" || name == "count")) {
        return Value::callable(name, [receiver, name](Interpreter &in, CallArgs &a) { return listMethod(in, receiver, name, a); });
    }
    return std::nullopt;
}

Dict globals()
{
    Dict d;
    d.set(Value("range"), Value::callable("range", gRange));
    d.set(Value("namespace"), Value::callable("namespace", gNamespace));
    d.set(Value("dict"), Value::callable("dict", gDict));
    d.set(Value("raise_exception"), Value::callable("raise_exception", gRaise));
    d.set(Value("strftime_now"), Value::callable("strftime_now", gStrftimeNow));
    return d;
}

} // namespace burrow::jinja::builtins
