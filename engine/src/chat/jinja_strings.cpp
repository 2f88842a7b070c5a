// Python str operations with charged, bounded work (see jinja_strings.h).
#include "chat/jinja_strings.h"

#include "chat/jinja_interpreter.h"

#include <algorithm>

namespace burrow::jinja::strings {

namespace {

Value arg(const CallArgs &args, size_t pos, std::string_view name, Value dflt = Value())
{
    const Value *v = args.get(pos, name);
    return v ? *v : dflt;
}

// How often a loop that grows a string looks at its size.
constexpr size_t GROW_CHECK = 4096;

// Maps every code point through `map(cp, index, previous)`; the result is
// checked against the output limit as it grows (invalid bytes become
// U+FFFD, three bytes, so a result may be larger than its input).
template <class Map>
Result<std::string> mapCodePoints(Interpreter &in, std::string_view s, Map map)
{
    if (Status st = in.chargeBytes(s.size()); !st)
        return st;
    std::string out;
    out.reserve(s.size());
    size_t index = 0;
    uint32_t previous = 0;
    for (size_t i = 0; i < s.size(); ++index) {
        const uint32_t cp = utf8Next(s, i);
        utf8Append(out, map(cp, index, previous));
        previous = cp;
        if ((index % GROW_CHECK) == 0)
            if (Status st = in.checkSize(out.size()); !st)
                return st;
    }
    if (Status st = in.checkSize(out.size()); !st)
        return st;
    return out;
}

Status tooManyItems(Interpreter &in, size_t n, const char *function)
{
    if (Status st = in.checkItems(n); !st)
        return Status::error(std::string(function) + "(): " + st.message());
    return {};
}

// Code-point index of byte offset `byte` of `s` (O(1) for ASCII text).
int64_t indexOfByte(const Value &s, size_t byte)
{
    if (s.stringData().ascii())
        return int64_t(byte);
    return int64_t(utf8Length(std::string_view(s.asString()).substr(0, byte)));
}

Result<Value> affixMatch(Interpreter &in, std::string_view s, const Value &affix, bool prefix, const char *fn)
{
    auto one = [&](std::string_view a) {
        if (a.size() > s.size())
            return false;
        return prefix ? s.substr(0, a.size()) == a : s.substr(s.size() - a.size()) == a;
    };
    if (affix.isString()) {
        if (Status st = in.chargeBytes(affix.asString().size()); !st)
            return st;
        return Value(one(affix.asString()));
    }
    if (affix.isList()) {
        for (const Value &a : affix.asList()) {
            if (!a.isString())
                return Status::error(std::string("tuple for ") + fn + " must only contain str, not " + typeName(a));
            if (Status st = in.chargeBytes(a.asString().size()); !st)
                return st;
            if (one(a.asString()))
                return Value(true);
        }
        return Value(false);
    }
    return Status::error(std::string(fn) + " first arg must be str or a tuple of str, not " + typeName(affix));
}

Result<Value> findMethod(Interpreter &in, const Value &receiver, const std::string &name, CallArgs &a)
{
    if (a.positional.size() != 1 || !a.positional[0].isString())
        return Status::error(name + "() needs one string");
    const std::string &s = receiver.asString();
    const std::string &sub = a.positional[0].asString();
    if (Status st = in.chargeBytes(s.size() + sub.size()); !st)
        return st;
    const SubstringSearch search(sub);
    if (name == "count") {
        if (sub.empty())
            return Value(int64_t(receiver.stringData().length() + 1));
        int64_t n = 0;
        for (size_t p = search.find(s); p != std::string::npos; p = search.find(s, p + sub.size()))
            ++n;
        return Value(n);
    }
    const size_t p = name == "rfind" ? search.findLast(s) : search.find(s);
    if (p == std::string::npos) {
        if (name == "index")
            return Status::error("substring not found");
        return Value(int64_t(-1));
    }
    return Value(indexOfByte(receiver, p));
}

Result<Value> joinMethod(Interpreter &in, const std::string &sep, CallArgs &a)
{
    if (a.positional.size() != 1)
        return Status::error("join() takes exactly one argument");
    auto items = in.iterate(a.positional[0]);
    if (!items)
        return items.status();
    std::string out;
    for (size_t i = 0; i < items->size(); ++i) {
        const Value &item = (*items)[i];
        if (!item.isString())
            return Status::error("sequence item " + std::to_string(i) + ": expected str instance, " + typeName(item)
                                 + " found");
        const size_t add = (i ? sep.size() : 0) + item.asString().size();
        if (Status st = in.checkSize(out.size() + add); !st)
            return st;
        if (Status st = in.chargeBytes(add); !st)
            return st;
        if (i)
            out += sep;
        out += item.asString();
    }
    return Value(std::move(out));
}

// isdigit, isspace, isalpha: every code point passes, and there is one.
template <class Pred>
Value allOf(std::string_view s, Pred pred)
{
    if (s.empty())
        return Value(false);
    for (size_t i = 0; i < s.size();)
        if (!pred(utf8Next(s, i)))
            return Value(false);
    return Value(true);
}

} // namespace

Result<std::string> text(Interpreter &in, const Value &v)
{
    std::string s = toStr(v, in.limits().maxOutputBytes);
    if (Status st = in.checkSize(s.size()); !st)
        return st;
    if (Status st = in.chargeBytes(s.size()); !st)
        return st;
    return s;
}

Result<std::string> strip(Interpreter &in, std::string_view s, const Value &chars, bool left, bool right)
{
    if (Status st = in.chargeBytes(s.size()); !st)
        return st;
    std::vector<uint32_t> set;   // sorted: membership in O(log |chars|)
    const bool custom = chars.isString();
    if (custom) {
        if (Status st = in.chargeBytes(chars.asString().size()); !st)
            return st;
        set = utf8Decode(chars.asString());
        std::sort(set.begin(), set.end());
    }
    auto strippable = [&](uint32_t cp) {
        return custom ? std::binary_search(set.begin(), set.end(), cp) : isPySpace(cp);
    };
    // One forward pass: where the first kept code point starts, where the last one ends.
    size_t begin = std::string_view::npos, end = 0;
    for (size_t i = 0; i < s.size();) {
        const size_t at = i;
        const uint32_t cp = utf8Next(s, i);
        if (!strippable(cp)) {
            if (begin == std::string_view::npos)
                begin = at;
            end = i;
        }
    }
    if (begin == std::string_view::npos)   // all strippable
        return std::string(left || right ? std::string_view() : s);
    const size_t b = left ? begin : 0;
    const size_t e = right ? end : s.size();
    // Re-encode so invalid bytes read as U+FFFD, as everywhere else.
    std::string out;
    out.reserve(e - b);
    for (size_t i = b; i < e;)
        utf8Append(out, utf8Next(s, i));
    return out;
}

Result<std::string> mapCase(Interpreter &in, std::string_view s, bool upper)
{
    return mapCodePoints(in, s, [upper](uint32_t cp, size_t, uint32_t) { return upper ? toUpperCp(cp) : toLowerCp(cp); });
}

Result<std::string> capitalize(Interpreter &in, std::string_view s)
{
    return mapCodePoints(in, s, [](uint32_t cp, size_t index, uint32_t) { return index == 0 ? toUpperCp(cp) : toLowerCp(cp); });
}

// Python str.title(): a cased character following an uncased one starts a word.
Result<std::string> pyTitle(Interpreter &in, std::string_view s)
{
    return mapCodePoints(in, s, [](uint32_t cp, size_t index, uint32_t previous) {
        const bool prevCased = index > 0 && isCased(previous);
        return prevCased ? toLowerCp(cp) : toUpperCp(cp);
    });
}

// Jinja's title filter: words start after whitespace, '-', '(', '{', '[', '<'.
Result<std::string> jinjaTitle(Interpreter &in, std::string_view s)
{
    auto separator = [](uint32_t cp) {
        return isPySpace(cp) || cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<';
    };
    return mapCodePoints(in, s, [&](uint32_t cp, size_t index, uint32_t previous) {
        if (separator(cp))
            return cp;
        return index == 0 || separator(previous) ? toUpperCp(cp) : toLowerCp(cp);
    });
}

Result<std::string> escapeHtml(Interpreter &in, std::string_view s)
{
    if (Status st = in.chargeBytes(s.size()); !st)
        return st;
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        switch (s[i]) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&#34;"; break;
        case '\'': out += "&#39;"; break;
        default: out += s[i];
        }
        if ((i % GROW_CHECK) == 0)
            if (Status st = in.checkSize(out.size()); !st)
                return st;
    }
    if (Status st = in.checkSize(out.size()); !st)
        return st;
    return out;
}

Result<std::string> reversed(Interpreter &in, std::string_view s)
{
    if (Status st = in.chargeBytes(2 * s.size()); !st)
        return st;
    // Two passes, no list of code points: the length re-encoded, then each
    // code point written at its mirrored place.
    size_t total = 0;
    std::string one;
    for (size_t i = 0; i < s.size();) {
        one.clear();
        utf8Append(one, utf8Next(s, i));
        total += one.size();
    }
    if (Status st = in.checkSize(total); !st)
        return st;
    std::string out(total, '\0');
    size_t end = total;
    for (size_t i = 0; i < s.size();) {
        one.clear();
        utf8Append(one, utf8Next(s, i));
        end -= one.size();
        out.replace(end, one.size(), one);
    }
    return out;
}

Result<std::string> replace(Interpreter &in, std::string_view s, std::string_view from, std::string_view to,
                            int64_t count)
{
    if (Status st = in.chargeBytes(s.size() + from.size()); !st)
        return st;
    std::string out;
    if (from.empty()) {
        // Python inserts `to` between every character (and at both ends).
        int64_t done = 0;
        for (size_t i = 0;; ) {
            if (count < 0 || done < count) {
                if (Status st = in.checkSize(out.size() + to.size()); !st)
                    return st;
                if (Status st = in.chargeBytes(to.size()); !st)
                    return st;
                out += to;
                ++done;
            }
            if (i >= s.size())
                break;
            utf8Append(out, utf8Next(s, i));
        }
        return out;
    }
    const SubstringSearch search(from);
    size_t pos = 0;
    int64_t done = 0;
    while (count < 0 || done < count) {
        const size_t hit = search.find(s, pos);
        if (hit == std::string_view::npos)
            break;
        if (Status st = in.checkSize(out.size() + (hit - pos) + to.size()); !st)
            return st;
        if (Status st = in.chargeBytes(to.size()); !st)
            return st;
        out.append(s.substr(pos, hit - pos));
        out += to;
        pos = hit + from.size();
        ++done;
    }
    if (Status st = in.checkSize(out.size() + (s.size() - pos)); !st)
        return st;
    out.append(s.substr(pos));
    return out;
}

Result<Value> split(Interpreter &in, std::string_view s, const Value &sepV, int64_t maxsplit, bool fromRight)
{
    if (Status st = in.chargeBytes(s.size()); !st)
        return st;
    List parts;
    const auto add = [&](std::string_view piece) -> Status {
        if (Status st = tooManyItems(in, parts.size() + 1, fromRight ? "rsplit" : "split"); !st)
            return st;
        if (Status st = in.charge(1); !st)
            return st;
        parts.emplace_back(piece);
        return {};
    };
    if (sepV.isUndefined() || sepV.isNone()) {
        // Runs of whitespace separate; the remainder after maxsplit keeps its
        // trailing (split) or leading (rsplit) whitespace.
        std::vector<std::pair<size_t, size_t>> words;   // byte ranges
        for (size_t at = 0;;) {
            while (at < s.size()) {   // skip a whitespace run
                size_t j = at;
                if (!isPySpace(utf8Next(s, j)))
                    break;
                at = j;
            }
            if (at >= s.size())
                break;
            size_t end = at;
            while (end < s.size()) {   // the word
                size_t j = end;
                if (isPySpace(utf8Next(s, j)))
                    break;
                end = j;
            }
            words.emplace_back(at, end);
            if (Status st = tooManyItems(in, words.size(), fromRight ? "rsplit" : "split"); !st)
                return st;
            at = end;
        }
        if (maxsplit >= 0 && int64_t(words.size()) > maxsplit) {
            if (!fromRight) {
                words[size_t(maxsplit)].second = s.size();
                words.resize(size_t(maxsplit) + 1);
            } else {
                const size_t firstKept = words.size() - size_t(maxsplit);
                std::vector<std::pair<size_t, size_t>> w{{0, words[firstKept - 1].second}};
                w.insert(w.end(), words.begin() + long(firstKept), words.end());
                words = std::move(w);
            }
        }
        for (auto [b, e] : words) {
            std::string word;
            for (size_t i = b; i < e;)
                utf8Append(word, utf8Next(s, i));
            if (Status st = add(word); !st)
                return st;
        }
        return Value::list(std::move(parts));
    }
    if (!sepV.isString())
        return Status::error(std::string("must be str or None, not ") + typeName(sepV));
    const std::string &sep = sepV.asString();
    if (sep.empty())
        return Status::error("empty separator");
    if (!fromRight) {
        const SubstringSearch search(sep);
        size_t pos = 0;
        for (int64_t done = 0; maxsplit < 0 || done < maxsplit; ++done) {
            const size_t hit = search.find(s, pos);
            if (hit == std::string_view::npos)
                break;
            if (Status st = add(s.substr(pos, hit - pos)); !st)
                return st;
            pos = hit + sep.size();
        }
        if (Status st = add(s.substr(pos)); !st)
            return st;
        return Value::list(std::move(parts));
    }
    // rsplit: the separators found scanning from the right (Python's), i.e.
    // a forward search of the reversed separator in the reversed text.
    const std::string rs(s.rbegin(), s.rend()), rsep(sep.rbegin(), sep.rend());
    const SubstringSearch search(rsep);
    std::vector<std::pair<size_t, size_t>> pieces;   // byte ranges in s, last piece first
    size_t pos = 0;   // in rs
    for (int64_t done = 0; maxsplit < 0 || done < maxsplit; ++done) {
        const size_t hit = search.find(rs, pos);
        if (hit == std::string::npos)
            break;
        pieces.emplace_back(s.size() - hit, s.size() - pos);
        pos = hit + rsep.size();
        if (Status st = tooManyItems(in, pieces.size() + 1, "rsplit"); !st)
            return st;
    }
    pieces.emplace_back(0, s.size() - pos);
    for (auto it = pieces.rbegin(); it != pieces.rend(); ++it)
        if (Status st = add(s.substr(it->first, it->second - it->first)); !st)
            return st;
    return Value::list(std::move(parts));
}

Result<Value> splitLines(Interpreter &in, std::string_view s, bool keepEnds)
{
    if (Status st = in.chargeBytes(s.size()); !st)
        return st;
    List lines;
    std::string line;
    for (size_t i = 0; i < s.size();) {
        const uint32_t c = utf8Next(s, i);
        const bool brk = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E
                         || c == 0x85 || c == 0x2028 || c == 0x2029;
        if (!brk || keepEnds)
            utf8Append(line, c);
        if (!brk)
            continue;
        if (c == '\r' && i < s.size() && s[i] == '\n') {
            ++i;
            if (keepEnds)
                line += '\n';
        }
        if (Status st = tooManyItems(in, lines.size() + 1, "splitlines"); !st)
            return st;
        lines.emplace_back(std::move(line));
        line.clear();
    }
    if (!line.empty()) {
        if (Status st = tooManyItems(in, lines.size() + 1, "splitlines"); !st)
            return st;
        lines.emplace_back(std::move(line));
    }
    if (Status st = in.charge(lines.size()); !st)
        return st;
    return Value::list(std::move(lines));
}

bool isAllCase(std::string_view s, bool upper)
{
    for (size_t i = 0; i < s.size();) {
        const uint32_t cp = utf8Next(s, i);
        if ((upper ? toUpperCp(cp) : toLowerCp(cp)) != cp)
            return false;
    }
    return true;
}

bool isStringMethod(std::string_view n)
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

Result<Value> callMethod(Interpreter &in, const Value &receiver, const std::string &name, CallArgs &a)
{
    const std::string &s = receiver.asString();
    const auto wrap = [](Result<std::string> r) -> Result<Value> {
        if (!r)
            return r.status();
        return Value(std::move(*r));
    };
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        if (Status st = a.check(name.c_str(), 1, {}); !st) return st;
        return wrap(strip(in, s, arg(a, 0, "chars"), name != "rstrip", name != "lstrip"));
    }
    if (name == "split" || name == "rsplit") {
        if (Status st = a.check(name.c_str(), 2, {"sep", "maxsplit"}); !st) return st;
        const Value maxsplit = arg(a, 1, "maxsplit", Value(int64_t(-1)));
        return split(in, s, arg(a, 0, "sep"), maxsplit.isInt() ? maxsplit.asInt() : -1, name == "rsplit");
    }
    if (name == "startswith" || name == "endswith") {
        if (a.positional.size() != 1)
            return Status::error(name + "() takes exactly one argument");
        return affixMatch(in, s, a.positional[0], name == "startswith", name.c_str());
    }
    if (name == "upper") return wrap(mapCase(in, s, true));
    if (name == "lower") return wrap(mapCase(in, s, false));
    if (name == "title") return wrap(pyTitle(in, s));
    if (name == "capitalize") return wrap(capitalize(in, s));
    if (name == "replace") {
        if (a.positional.size() < 2 || !a.positional[0].isString() || !a.positional[1].isString())
            return Status::error("replace() needs two strings");
        const int64_t count = a.positional.size() > 2 && a.positional[2].isInt() ? a.positional[2].asInt() : -1;
        return wrap(replace(in, s, a.positional[0].asString(), a.positional[1].asString(), count));
    }
    if (name == "find" || name == "rfind" || name == "count" || name == "index")
        return findMethod(in, receiver, name, a);
    if (name == "join")
        return joinMethod(in, s, a);
    if (name == "splitlines")
        return splitLines(in, s, truthy(arg(a, 0, "keepends", Value(false))));
    if (Status st = in.chargeBytes(s.size()); !st)
        return st;
    if (name == "isdigit") return allOf(s, [](uint32_t c) { return c >= '0' && c <= '9'; });
    if (name == "isspace") return allOf(s, [](uint32_t c) { return isPySpace(c); });
    if (name == "isalpha") return allOf(s, [](uint32_t c) { return isCased(c) || c > 0x2E7F; });
    if (name == "isupper" || name == "islower") {
        // All cased characters in that case, and at least one of them.
        const bool upper = name == "isupper";
        bool anyCased = false;
        for (size_t i = 0; i < s.size();) {
            const uint32_t cp = utf8Next(s, i);
            if ((upper ? toUpperCp(cp) : toLowerCp(cp)) != cp)
                return Value(false);
            anyCased = anyCased || (upper ? toLowerCp(cp) : toUpperCp(cp)) != cp;
        }
        return Value(anyCased);
    }
    return Status::error("'str' object has no attribute '" + name + "'");
}

} // namespace burrow::jinja::strings
