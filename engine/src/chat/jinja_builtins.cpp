// Filters, tests, methods and globals (see jinja_builtins.h). Each follows
// the Jinja2 3.x / Python function of the same name; differences are noted.
#include "chat/jinja_builtins.h"

#include "chat/jinja_interpreter.h"

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

// --- string helpers -------------------------------------------------------------

std::string strip(const std::string &s, const Value &chars, bool left, bool right)
{
    const auto cps = utf8Decode(s);
    std::vector<uint32_t> set;
    const bool custom = chars.isString();
    if (custom)
        set = utf8Decode(chars.asString());
    auto strippable = [&](uint32_t cp) {
        return custom ? std::find(set.begin(), set.end(), cp) != set.end() : isPySpace(cp);
    };
    size_t b = 0, e = cps.size();
    if (left)
        while (b < e && strippable(cps[b]))
            ++b;
    if (right)
        while (e > b && strippable(cps[e - 1]))
            --e;
    return utf8Encode(cps, b, e);
}

std::string mapCase(const std::string &s, bool upper)
{
    std::string out;
    for (uint32_t cp : utf8Decode(s))
        utf8Append(out, upper ? toUpperCp(cp) : toLowerCp(cp));
    return out;
}

std::string capitalize(const std::string &s)
{
    const auto cps = utf8Decode(s);
    std::string out;
    for (size_t i = 0; i < cps.size(); ++i)
        utf8Append(out, i == 0 ? toUpperCp(cps[i]) : toLowerCp(cps[i]));
    return out;
}

// Python str.title(): a cased character following an uncased one starts a word.
std::string pyTitle(const std::string &s)
{
    std::string out;
    bool prevCased = false;
    for (uint32_t cp : utf8Decode(s)) {
        utf8Append(out, prevCased ? toLowerCp(cp) : toUpperCp(cp));
        prevCased = isCased(cp);
    }
    return out;
}

// Jinja's title filter: words start after whitespace, '-', '(', '{', '[', '<'.
std::string jinjaTitle(const std::string &s)
{
    std::string out;
    bool atStart = true;
    for (uint32_t cp : utf8Decode(s)) {
        const bool sep = isPySpace(cp) || cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<';
        utf8Append(out, sep ? cp : (atStart ? toUpperCp(cp) : toLowerCp(cp)));
        atStart = sep;
    }
    return out;
}

Result<std::string> replace(const std::string &s, const std::string &from, const std::string &to, int64_t count,
                            size_t maxBytes)
{
    std::string out;
    if (from.empty()) {
        // Python inserts `to` between every character (and at both ends).
        const auto cps = utf8Decode(s);
        int64_t done = 0;
        for (size_t i = 0; i <= cps.size(); ++i) {
            if (count < 0 || done < count) {
                out += to;
                ++done;
            }
            if (i < cps.size())
                utf8Append(out, cps[i]);
            if (out.size() > maxBytes)
                return Status::error("replace() result exceeds the output size limit");
        }
        return out;
    }
    size_t pos = 0;
    int64_t done = 0;
    while (count < 0 || done < count) {
        const size_t hit = s.find(from, pos);
        if (hit == std::string::npos)
            break;
        out.append(s, pos, hit - pos);
        out += to;
        pos = hit + from.size();
        ++done;
        if (out.size() > maxBytes)
            return Status::error("replace() result exceeds the output size limit");
    }
    out.append(s, pos, std::string::npos);
    return out;
}

Result<Value> split(const std::string &s, const Value &sepV, int64_t maxsplit, bool fromRight)
{
    List parts;
    if (sepV.isUndefined() || sepV.isNone()) {
        const auto cps = utf8Decode(s);
        std::vector<std::pair<size_t, size_t>> words;
        size_t i = 0;
        while (i < cps.size()) {
            while (i < cps.size() && isPySpace(cps[i]))
                ++i;
            if (i >= cps.size())
                break;
            size_t j = i;
            while (j < cps.size() && !isPySpace(cps[j]))
                ++j;
            words.emplace_back(i, j);
            i = j;
        }
        if (maxsplit >= 0 && int64_t(words.size()) > maxsplit) {
            if (!fromRight) {
                // The remainder runs from word maxsplit to the very end (trailing whitespace kept).
                words[size_t(maxsplit)].second = cps.size();
                words.resize(size_t(maxsplit) + 1);
            } else {
                // The remainder runs from the very start (leading whitespace kept).
                const size_t firstKept = words.size() - size_t(maxsplit);
                std::vector<std::pair<size_t, size_t>> w{{0, words[firstKept - 1].second}};
                w.insert(w.end(), words.begin() + long(firstKept), words.end());
                words = std::move(w);
            }
        }
        for (auto [b, e] : words)
            parts.emplace_back(utf8Encode(cps, b, e));
        return Value::list(std::move(parts));
    }
    if (!sepV.isString())
        return typeError(std::string("must be str or None, not ") + typeName(sepV));
    const std::string &sep = sepV.asString();
    if (sep.empty())
        return typeError("empty separator");
    std::vector<std::string> pieces;
    size_t pos = 0;
    while (true) {
        const size_t hit = s.find(sep, pos);
        if (hit == std::string::npos)
            break;
        pieces.push_back(s.substr(pos, hit - pos));
        pos = hit + sep.size();
    }
    pieces.push_back(s.substr(pos));
    if (maxsplit >= 0 && int64_t(pieces.size()) > maxsplit + 1) {
        std::vector<std::string> merged;
        if (!fromRight) {
            merged.assign(pieces.begin(), pieces.begin() + long(maxsplit));
            std::string rest;
            for (size_t i = size_t(maxsplit); i < pieces.size(); ++i)
                rest += (i > size_t(maxsplit) ? sep : "") + pieces[i];
            merged.push_back(rest);
        } else {
            const size_t head = pieces.size() - size_t(maxsplit);
            std::string first;
            for (size_t i = 0; i < head; ++i)
                first += (i ? sep : "") + pieces[i];
            merged.push_back(first);
            merged.insert(merged.end(), pieces.begin() + long(head), pieces.end());
        }
        pieces = std::move(merged);
    }
    for (auto &p : pieces)
        parts.emplace_back(std::move(p));
    return Value::list(std::move(parts));
}

std::vector<std::string> splitLines(const std::string &s, bool keepEnds)
{
    std::vector<std::string> lines;
    const auto cps = utf8Decode(s);
    size_t start = 0, i = 0;
    while (i < cps.size()) {
        const uint32_t c = cps[i];
        const bool brk = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E
                         || c == 0x85 || c == 0x2028 || c == 0x2029;
        if (!brk) {
            ++i;
            continue;
        }
        size_t end = i;
        ++i;
        if (c == '\r' && i < cps.size() && cps[i] == '\n')
            ++i;
        lines.push_back(utf8Encode(cps, start, keepEnds ? i : end));
        start = i;
    }
    if (start < cps.size())
        lines.push_back(utf8Encode(cps, start, cps.size()));
    return lines;
}

Result<bool> affixMatch(const std::string &s, const Value &affix, bool prefix, const char *fn)
{
    auto one = [&](const std::string &a) {
        if (a.size() > s.size())
            return false;
        return prefix ? s.compare(0, a.size(), a) == 0 : s.compare(s.size() - a.size(), a.size(), a) == 0;
    };
    if (affix.isString())
        return one(affix.asString());
    if (affix.isList()) {
        for (const Value &a : affix.asList()) {
            if (!a.isString())
                return typeError(std::string("tuple for ") + fn + " must only contain str, not " + typeName(a));
            if (one(a.asString()))
                return true;
        }
        return false;
    }
    return typeError(std::string(fn) + " first arg must be str or a tuple of str, not " + typeName(affix));
}

// Items of an iterable value as a list (Python iter()).
Result<List> iterate(const Value &v)
{
    switch (v.kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED: return List{};
    case ValueKind::VALUE_KIND_LIST: return v.asList();
    case ValueKind::VALUE_KIND_DICT: {
        List keys;
        for (const auto &[k, val] : v.asDict().entries)
            keys.push_back(k);
        return keys;
    }
    case ValueKind::VALUE_KIND_STRING: {
        List chars;
        for (uint32_t cp : utf8Decode(v.asString())) {
            std::string ch;
            utf8Append(ch, cp);
            chars.emplace_back(std::move(ch));
        }
        return chars;
    }
    default:
        return typeError(std::string("'") + typeName(v) + "' object is not iterable");
    }
}

Result<int64_t> length(const Value &v)
{
    switch (v.kind()) {
    case ValueKind::VALUE_KIND_UNDEFINED: return int64_t(0);
    case ValueKind::VALUE_KIND_STRING: return int64_t(utf8Length(v.asString()));
    case ValueKind::VALUE_KIND_LIST: return int64_t(v.asList().size());
    case ValueKind::VALUE_KIND_DICT: return int64_t(v.asDict().entries.size());
    default: return typeError(std::string("object of type '") + typeName(v) + "' has no len()");
    }
}

// Jinja's attribute getter: "a.b.0" walks attributes / items.
Value attrPath(Interpreter &in, const Value &v, const Value &attribute)
{
    if (!attribute.isString())
        return in.getItem(v, attribute);
    Value cur = v;
    const std::string &path = attribute.asString();
    size_t pos = 0;
    while (true) {
        const size_t dot = path.find('.', pos);
        const std::string part = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
        if (cur.isUndefined())
            return cur;
        bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
        cur = numeric && part.size() < 18 ? in.getItem(cur, Value(int64_t(std::stoll(part)))) : in.getItem(cur, Value(part));
        if (dot == std::string::npos)
            break;
        pos = dot + 1;
    }
    return cur;
}

Status checkStringSize(Interpreter &in, const std::string &s) { return in.checkSize(s.size()); }

// --- filters ----------------------------------------------------------------------

Result<Value> fTrim(Interpreter &, const Value &v, CallArgs &a)
{
    if (Status s = a.check("trim", 1, {"chars"}); !s) return s;
    return Value(strip(toStr(v), arg(a, 0, "chars"), true, true));
}

Result<Value> fLength(Interpreter &, const Value &v, CallArgs &a)
{
    if (Status s = a.check("length", 0, {}); !s) return s;
    auto n = length(v);
    if (!n) return n.status();
    return Value(*n);
}

Result<Value> fUpper(Interpreter &, const Value &v, CallArgs &) { return Value(mapCase(toStr(v), true)); }
Result<Value> fLower(Interpreter &, const Value &v, CallArgs &) { return Value(mapCase(toStr(v), false)); }
Result<Value> fTitle(Interpreter &, const Value &v, CallArgs &) { return Value(jinjaTitle(toStr(v))); }
Result<Value> fCapitalize(Interpreter &, const Value &v, CallArgs &) { return Value(capitalize(toStr(v))); }
Result<Value> fSafe(Interpreter &, const Value &v, CallArgs &) { return v.isString() ? v : Value(toStr(v)); }

Result<Value> fString(Interpreter &in, const Value &v, CallArgs &)
{
    if (v.isString())
        return v;
    std::string s = toStr(v, in.limits().maxOutputBytes);
    if (Status st = in.checkSize(s.size()); !st)
        return st;
    return Value(std::move(s));
}

Result<Value> fEscape(Interpreter &, const Value &v, CallArgs &)
{
    std::string out;
    for (char c : toStr(v)) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&#34;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return Value(std::move(out));
}

Result<Value> fTojson(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("tojson", 1, {"indent", "ensure_ascii", "separators", "sort_keys"}); !s) return s;
    JsonOptions o;
    const Value indent = arg(a, 0, "indent");
    if (indent.isInt()) {
        o.indent = std::string(size_t(std::clamp<int64_t>(indent.asInt(), 0, 64)), ' ');
        o.itemSeparator = ",";
    } else if (indent.isString()) {
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
    if (Status s = checkStringSize(in, *json); !s) return s;
    return Value(std::move(*json));
}

Result<Value> fJoin(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("join", 2, {"d", "attribute"}); !s) return s;
    const std::string sep = toStr(arg(a, 0, "d", Value("")));
    const Value attribute = arg(a, 1, "attribute");
    auto items = iterate(v);
    if (!items) return items.status();
    std::string out;
    for (size_t i = 0; i < items->size(); ++i) {
        if (i)
            out += sep;
        out += toStr(attribute.isUndefined() ? (*items)[i] : attrPath(in, (*items)[i], attribute));
        if (Status s = checkStringSize(in, out); !s) return s;
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
    const Value from = arg(a, 0, "old"), to = arg(a, 1, "new"), count = arg(a, 2, "count");
    if (from.isUndefined() || to.isUndefined())
        return typeError("replace() needs the old and new strings");
    auto r = replace(toStr(v), toStr(from), toStr(to), count.isInt() ? count.asInt() : -1, in.limits().maxOutputBytes);
    if (!r) return r.status();
    return Value(std::move(*r));
}

Result<Value> fFirst(Interpreter &, const Value &v, CallArgs &)
{
    auto items = iterate(v);
    if (!items) return items.status();
    if (items->empty())
        return Value::undefined("No first item, sequence was empty.");
    return items->front();
}

Result<Value> fLast(Interpreter &, const Value &v, CallArgs &)
{
    auto items = iterate(v);
    if (!items) return items.status();
    if (items->empty())
        return Value::undefined("No last item, sequence was empty.");
    return items->back();
}

Result<Value> fList(Interpreter &, const Value &v, CallArgs &)
{
    auto items = iterate(v);
    if (!items) return items.status();
    return Value::list(std::move(*items));
}

std::optional<int64_t> parseInt(const std::string &text, int base)
{
    std::string s = strip(text, Value(), true, true);
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
    const std::string s = strip(text, Value(), true, true);
    if (s.empty())
        return std::nullopt;
    char *end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (!end || *end != '\0')
        return std::nullopt;
    return d;
}

Result<Value> fInt(Interpreter &, const Value &v, CallArgs &a)
{
    if (Status s = a.check("int", 2, {"default", "base"}); !s) return s;
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

Result<Value> fFloat(Interpreter &, const Value &v, CallArgs &a)
{
    if (Status s = a.check("float", 1, {"default"}); !s) return s;
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
    const std::string method = toStr(arg(a, 1, "method", Value("common")));
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
Result<Value> selectImpl(Interpreter &in, const Value &v, CallArgs &a, bool byAttribute, bool select)
{
    List out;
    if (!truthy(v))   // Jinja: `if value:` guards the loop, so None selects nothing
        return Value::list();
    auto items = iterate(v);
    if (!items) return items.status();
    size_t next = 0;
    Value attribute;
    if (byAttribute) {
        if (a.positional.empty())
            return typeError("selectattr/rejectattr needs an attribute name");
        attribute = a.positional[next++];
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
        const Value subject = byAttribute ? attrPath(in, item, attribute) : item;
        bool ok;
        if (testName.empty()) {
            ok = truthy(subject);
        } else {
            CallArgs copy = testArgs;
            auto r = in.applyTest(testName, subject, copy);
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
    auto items = iterate(v);
    if (!items) return items.status();
    List out;
    const Value *attribute = a.get(SIZE_MAX, "attribute");
    if (attribute) {
        const Value *dflt = a.get(SIZE_MAX, "default");
        for (const Value &item : *items) {
            if (Status s = in.step(); !s) return s;
            Value r = attrPath(in, item, *attribute);
            if (r.isUndefined() && dflt)
                r = *dflt;
            out.push_back(std::move(r));
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

Result<Value> fItems(Interpreter &, const Value &v, CallArgs &)
{
    if (v.isUndefined())
        return Value::list();
    if (!v.isMapping())
        return typeError("Can only get item pairs from a mapping.");
    List out;
    for (const auto &[k, val] : v.asDict().entries)
        out.push_back(Value::tuple({k, val}));
    return Value::list(std::move(out));
}

// Sort key comparison with optional case folding of strings.
Result<int> sortCompare(const Value &x, const Value &y, bool caseSensitive)
{
    if (!caseSensitive && x.isString() && y.isString())
        return compare(Value(mapCase(x.asString(), false)), Value(mapCase(y.asString(), false)), "<");
    return compare(x, y, "<");
}

Result<List> sortValues(List items, const std::function<Value(const Value &)> &key, bool caseSensitive, bool reverse)
{
    std::optional<Status> error;
    std::stable_sort(items.begin(), items.end(), [&](const Value &p, const Value &q) {
        if (error)
            return false;
        auto c = sortCompare(key(p), key(q), caseSensitive);
        if (!c) {
            error = c.status();
            return false;
        }
        return reverse ? *c > 0 : *c < 0;
    });
    if (error)
        return *error;
    return items;
}

Result<Value> fDictsort(Interpreter &, const Value &v, CallArgs &a)
{
    if (Status s = a.check("dictsort", 3, {"case_sensitive", "by", "reverse"}); !s) return s;
    if (!v.isMapping())
        return typeError("dictsort needs a mapping");
    const bool caseSensitive = truthy(arg(a, 0, "case_sensitive", Value(false)));
    const std::string by = toStr(arg(a, 1, "by", Value("key")));
    const bool reverse = truthy(arg(a, 2, "reverse", Value(false)));
    if (by != "key" && by != "value")
        return typeError("You can only sort by either 'key' or 'value'");
    List pairs;
    for (const auto &[k, val] : v.asDict().entries)
        pairs.push_back(Value::tuple({k, val}));
    const size_t index = by == "key" ? 0 : 1;
    auto sorted = sortValues(std::move(pairs), [index](const Value &p) { return p.asList()[index]; }, caseSensitive, reverse);
    if (!sorted) return sorted.status();
    return Value::list(std::move(*sorted));
}

Result<Value> fSort(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("sort", 3, {"reverse", "case_sensitive", "attribute"}); !s) return s;
    auto items = iterate(v);
    if (!items) return items.status();
    const bool reverse = truthy(arg(a, 0, "reverse", Value(false)));
    const bool caseSensitive = truthy(arg(a, 1, "case_sensitive", Value(false)));
    const Value attribute = arg(a, 2, "attribute");
    auto sorted = sortValues(std::move(*items), [&](const Value &x) {
        return attribute.isUndefined() ? x : attrPath(in, x, attribute);
    }, caseSensitive, reverse);
    if (!sorted) return sorted.status();
    return Value::list(std::move(*sorted));
}

Result<Value> fReverse(Interpreter &, const Value &v, CallArgs &)
{
    if (v.isString()) {
        auto cps = utf8Decode(v.asString());
        std::reverse(cps.begin(), cps.end());
        return Value(utf8Encode(cps));
    }
    auto items = iterate(v);
    if (!items) return items.status();
    std::reverse(items->begin(), items->end());
    return Value::list(std::move(*items));
}

Result<Value> fUnique(Interpreter &in, const Value &v, CallArgs &a)
{
    if (Status s = a.check("unique", 2, {"case_sensitive", "attribute"}); !s) return s;
    auto items = iterate(v);
    if (!items) return items.status();
    const bool caseSensitive = truthy(arg(a, 0, "case_sensitive", Value(false)));
    const Value attribute = arg(a, 1, "attribute");
    List out, seen;
    for (const Value &item : *items) {
        if (Status s = in.step(); !s) return s;
        Value key = attribute.isUndefined() ? item : attrPath(in, item, attribute);
        if (!caseSensitive && key.isString())
            key = Value(mapCase(key.asString(), false));
        bool dup = false;
        for (const Value &s : seen)
            if (equals(s, key)) {
                dup = true;
                break;
            }
        if (!dup) {
            seen.push_back(key);
            out.push_back(item);
        }
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
    const std::string s = toStr(v) + "\n";
    const auto lines = splitLines(s, false);
    std::string rv;
    if (blank) {
        for (size_t i = 0; i < lines.size(); ++i)
            rv += (i ? "\n" + indention : "") + lines[i];
    } else {
        rv = lines.empty() ? "" : lines[0];
        for (size_t i = 1; i < lines.size(); ++i)
            rv += "\n" + (lines[i].empty() ? "" : indention + lines[i]);
    }
    if (first)
        rv = indention + rv;
    if (Status st = checkStringSize(in, rv); !st) return st;
    return Value(std::move(rv));
}

Result<Value> fSum(Interpreter &in, const Value &v, CallArgs &a)
{
    auto items = iterate(v);
    if (!items) return items.status();
    const Value attribute = arg(a, 0, "attribute");
    Value total = arg(a, 1, "start", Value(int64_t(0)));
    for (const Value &item : *items) {
        const Value x = attribute.isUndefined() ? item : attrPath(in, item, attribute);
        if (!x.isNumber() || !total.isNumber())
            return typeError(std::string("unsupported operand type(s) for +: '") + typeName(total) + "' and '" + typeName(x) + "'");
        if (x.isFloat() || total.isFloat())
            total = Value(total.asFloat() + x.asFloat());
        else {
            int64_t r = 0;
            if (__builtin_add_overflow(total.asInt(), x.asInt(), &r))
                return typeError("integer overflow");
            total = Value(r);
        }
    }
    return total;
}

Result<Value> minMax(Interpreter &in, const Value &v, CallArgs &a, bool wantMax)
{
    auto items = iterate(v);
    if (!items) return items.status();
    if (items->empty())
        return Value::undefined(std::string("No ") + (wantMax ? "largest" : "smallest") + " item, sequence was empty.");
    const bool caseSensitive = truthy(arg(a, 0, "case_sensitive", Value(false)));
    const Value attribute = arg(a, 1, "attribute");
    size_t best = 0;
    for (size_t i = 1; i < items->size(); ++i) {
        auto key = [&](size_t k) { return attribute.isUndefined() ? (*items)[k] : attrPath(in, (*items)[k], attribute); };
        auto c = sortCompare(key(i), key(best), caseSensitive);
        if (!c) return c.status();
        if (wantMax ? *c > 0 : *c < 0)
            best = i;
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

Result<Value> fWordcount(Interpreter &, const Value &v, CallArgs &)
{
    auto parts = split(toStr(v), Value(), -1, false);
    if (!parts) return parts.status();
    return Value(int64_t(parts->asList().size()));
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

Result<bool> argCompare(const Value &v, CallArgs &a, const char *op)
{
    if (a.positional.size() != 1)
        return typeError(std::string("test '") + op + "' needs one argument");
    const Value &other = a.positional[0];
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
Result<bool> tEq(Interpreter &, const Value &v, CallArgs &a) { return argCompare(v, a, "=="); }
Result<bool> tNe(Interpreter &, const Value &v, CallArgs &a) { return argCompare(v, a, "!="); }
Result<bool> tLt(Interpreter &, const Value &v, CallArgs &a) { return argCompare(v, a, "<"); }
Result<bool> tLe(Interpreter &, const Value &v, CallArgs &a) { return argCompare(v, a, "<="); }
Result<bool> tGt(Interpreter &, const Value &v, CallArgs &a) { return argCompare(v, a, ">"); }
Result<bool> tGe(Interpreter &, const Value &v, CallArgs &a) { return argCompare(v, a, ">="); }
Result<bool> tIn(Interpreter &, const Value &v, CallArgs &a)
{
    if (a.positional.size() != 1)
        return typeError("test 'in' needs one argument");
    const Value &c = a.positional[0];
    if (c.isString()) {
        if (!v.isString())
            return typeError(std::string("'in <string>' requires string as left operand, not ") + typeName(v));
        return c.asString().find(v.asString()) != std::string::npos;
    }
    if (c.isMapping())
        return c.asDict().find(v) != nullptr;
    auto items = iterate(c);
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
    if (v.isList()) return &v.asList() == &o.asList();
    if (v.isMapping()) return v.dictPtr() == o.dictPtr();
    return equals(v, o);
}
Result<bool> tLower(Interpreter &, const Value &v, CallArgs &)
{
    const std::string s = toStr(v);
    return s == mapCase(s, false);
}
Result<bool> tUpper(Interpreter &, const Value &v, CallArgs &)
{
    const std::string s = toStr(v);
    return s == mapCase(s, true);
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

Result<Value> stringMethod(Interpreter &in, const std::string &s, const std::string &name, CallArgs &a)
{
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        if (Status st = a.check(name.c_str(), 1, {}); !st) return st;
        return Value(strip(s, arg(a, 0, "chars"), name != "rstrip", name != "lstrip"));
    }
    if (name == "split" || name == "rsplit") {
        if (Status st = a.check(name.c_str(), 2, {"sep", "maxsplit"}); !st) return st;
        const Value maxsplit = arg(a, 1, "maxsplit", Value(int64_t(-1)));
        return split(s, arg(a, 0, "sep"), maxsplit.isInt() ? maxsplit.asInt() : -1, name == "rsplit");
    }
    if (name == "startswith" || name == "endswith") {
        if (a.positional.size() != 1)
            return typeError(name + "() takes exactly one argument");
        auto r = affixMatch(s, a.positional[0], name == "startswith", name.c_str());
        if (!r) return r.status();
        return Value(*r);
    }
    if (name == "upper") return Value(mapCase(s, true));
    if (name == "lower") return Value(mapCase(s, false));
    if (name == "title") return Value(pyTitle(s));
    if (name == "capitalize") return Value(capitalize(s));
    if (name == "replace") {
        if (a.positional.size() < 2 || !a.positional[0].isString() || !a.positional[1].isString())
            return typeError("replace() needs two strings");
        const int64_t count = a.positional.size() > 2 && a.positional[2].isInt() ? a.positional[2].asInt() : -1;
        auto r = replace(s, a.positional[0].asString(), a.positional[1].asString(), count, in.limits().maxOutputBytes);
        if (!r) return r.status();
        return Value(std::move(*r));
    }
    if (name == "find" || name == "rfind" || name == "count" || name == "index") {
        if (a.positional.size() != 1 || !a.positional[0].isString())
            return typeError(name + "() needs one string");
        const std::string &sub = a.positional[0].asString();
        if (name == "count") {
            if (sub.empty())
                return Value(int64_t(utf8Length(s) + 1));
            int64_t n = 0;
            for (size_t p = s.find(sub); p != std::string::npos; p = s.find(sub, p + sub.size()))
                ++n;
            return Value(n);
        }
        const size_t p = name == "rfind" ? s.rfind(sub) : s.find(sub);
        if (p == std::string::npos) {
            if (name == "index")
                return typeError("substring not found");
            return Value(int64_t(-1));
        }
        return Value(int64_t(utf8Length(std::string_view(s).substr(0, p))));
    }
    if (name == "join") {
        if (a.positional.size() != 1)
            return typeError("join() takes exactly one argument");
        auto items = iterate(a.positional[0]);
        if (!items) return items.status();
        std::string out;
        for (size_t i = 0; i < items->size(); ++i) {
            if (!(*items)[i].isString())
                return typeError("sequence item " + std::to_string(i) + ": expected str instance, "
                                 + typeName((*items)[i]) + " found");
            out += (i ? s : "") + (*items)[i].asString();
            if (Status st = checkStringSize(in, out); !st) return st;
        }
        return Value(std::move(out));
    }
    if (name == "splitlines") {
        List out;
        for (auto &line : splitLines(s, truthy(arg(a, 0, "keepends", Value(false)))))
            out.emplace_back(std::move(line));
        return Value::list(std::move(out));
    }
    auto all = [&](auto pred) {
        const auto cps = utf8Decode(s);
        return Value(!cps.empty() && std::all_of(cps.begin(), cps.end(), pred));
    };
    if (name == "isdigit") return all([](uint32_t c) { return c >= '0' && c <= '9'; });
    if (name == "isspace") return all([](uint32_t c) { return isPySpace(c); });
    if (name == "isalpha") return all([](uint32_t c) { return isCased(c) || c > 0x2E7F; });
    if (name == "isupper") return Value(s == mapCase(s, true) && s != mapCase(s, false));
    if (name == "islower") return Value(s == mapCase(s, false) && s != mapCase(s, true));
    return typeError("'str' object has no attribute '" + name + "'");
}

Result<Value> dictMethod(const Value &d, const std::string &name, CallArgs &a)
{
    if (name == "items") {
        List out;
        for (const auto &[k, v] : d.asDict().entries)
            out.push_back(Value::tuple({k, v}));
        return Value::list(std::move(out));
    }
    if (name == "keys" || name == "values") {
        List out;
        for (const auto &[k, v] : d.asDict().entries)
            out.push_back(name == "keys" ? k : v);
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

Result<Value> listMethod(const Value &l, const std::string &name, CallArgs &a)
{
    if (a.positional.size() != 1)
        return typeError(name + "() takes exactly one argument");
    int64_t n = 0;
    for (size_t i = 0; i < l.asList().size(); ++i) {
        if (equals(l.asList()[i], a.positional[0])) {
            if (name == "index")
                return Value(int64_t(i));
            ++n;
        }
    }
    if (name == "index")
        return typeError(repr(a.positional[0]) + " is not in list");
    return Value(n);
}

bool isStringMethod(const std::string &n)
{
    static const char *const names[] = {"strip", "lstrip", "rstrip", "split", "rsplit", "startswith", "endswith",
                                        "upper", "lower", "title", "capitalize", "replace", "find", "rfind",
                                        "count", "index", "join", "splitlines", "isdigit", "isspace", "isalpha",
                                        "isupper", "islower"};
    for (const char *x : names)
        if (n == x)
            return true;
    return false;
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
    List out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
        if (Status s = in.step(); !s) return s;
        if (out.size() >= in.limits().maxListItems)
            return typeError("range() exceeds the limit of " + std::to_string(in.limits().maxListItems) + " items");
        out.push_back(Value(i));
        if (__builtin_add_overflow(i, step, &i))
            break;
        i -= step;
    }
    return Value::list(std::move(out));
}

Result<Value> gNamespace(Interpreter &in, CallArgs &a)
{
    Dict d;
    for (const Value &v : a.positional) {
        if (!v.isMapping())
            return typeError("namespace() positional arguments must be mappings");
        for (const auto &[k, val] : v.asDict().entries)
            d.set(k, val);
    }
    for (const auto &[k, v] : a.named)
        d.set(Value(k), v);
    return in.newNamespace(std::move(d));
}

Result<Value> gDict(Interpreter &, CallArgs &a)
{
    Dict d;
    for (const Value &v : a.positional) {
        if (!v.isMapping())
            return typeError("dict() positional arguments must be mappings");
        for (const auto &[k, val] : v.asDict().entries)
            d.set(k, val);
    }
    for (const auto &[k, v] : a.named)
        d.set(Value(k), v);
    return Value::dict(std::move(d));
}

Result<Value> gRaise(Interpreter &, CallArgs &a)
{
    const Value msg = arg(a, 0, "message");
    return Status::error(toStr(msg));
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
    if (receiver.isString() && isStringMethod(name)) {
        const std::string s = receiver.asString();
        return Value::callable(name, [s, name](Interpreter &in, CallArgs &a) { return stringMethod(in, s, name, a); });
    }
    if (receiver.isDict() && (name == "items" || name == "keys" || name == "values" || name == "get")) {
        return Value::callable(name, [receiver, name](Interpreter &, CallArgs &a) { return dictMethod(receiver, name, a); });
    }
    if (receiver.isList() && (name == "index" || name == "count")) {
        return Value::callable(name, [receiver, name](Interpreter &, CallArgs &a) { return listMethod(receiver, name, a); });
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
