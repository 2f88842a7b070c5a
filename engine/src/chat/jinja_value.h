// Values of the Jinja interpreter, with Python semantics: None, bool, int,
// float, str (UTF-8, indexed by code point), list, dict (insertion ordered),
// namespace, callables and Jinja's Undefined (prints as "", iterates as
// empty, fails on any other use with the message it carries).
//
// Contract: every operation that can fail on user data returns a Result with
// a Python-like message ("can only concatenate str (not \"int\") to str");
// the interpreter adds the template position. Strings, lists and dicts are
// shared by reference like Python objects (copying a Value copies a pointer,
// never the text); templates cannot mutate lists or strings (Hugging Face's
// sandbox forbids append), only namespaces change in place.
// Memory: a Value is 32 bytes; its string, list or dict is charged to the
// meter of the render that made it (jinja_memory.h).
#pragma once

#include "burrow/status.h"
#include "chat/jinja_memory.h"
#include "chat/jinja_text.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace burrow::jinja {

enum class ValueKind {
    VALUE_KIND_UNDEFINED, VALUE_KIND_NONE, VALUE_KIND_BOOL, VALUE_KIND_INT, VALUE_KIND_FLOAT,
    VALUE_KIND_STRING, VALUE_KIND_LIST, VALUE_KIND_DICT, VALUE_KIND_NAMESPACE, VALUE_KIND_CALLABLE,
};

class Value;
class Interpreter;
using List = std::vector<Value>;
struct Dict;
struct CallArgs;

// A function value: builtins, bound methods, macros, loop.cycle.
struct Callable {
    std::string name;
    std::function<Result<Value>(Interpreter &, CallArgs &)> call;
};

// A string value's text, shared by every copy of the value and never
// changed, with what indexing by code point needs: the number of code
// points, and for non-ASCII text the byte offset of every 64th one, so s[i]
// and slices cost O(1 + result) instead of decoding the whole text.
class StringData {
public:
    explicit StringData(std::string text);

    const std::string &text() const { return m_text; }
    size_t length() const { return m_length; }         // code points (Python len())
    bool ascii() const { return m_marks.empty(); }
    // Byte offset of code point `index` (0 <= index <= length()).
    size_t offsetOf(size_t index) const;

private:
    static constexpr size_t MARK_EVERY = 64;
    std::string m_text;
    size_t m_length = 0;
    std::vector<size_t> m_marks;   // m_marks[k]: byte offset of code point k * MARK_EVERY (non-ASCII only)
    Charge m_charge;
};

// A list value's items (shared, never changed).
struct ListData {
    explicit ListData(List values);
    List items;
    Charge charge;
};

class Value {
public:
    Value() = default;                                   // Undefined without a message
    Value(bool b) : m_kind(ValueKind::VALUE_KIND_BOOL), m_int(b) {}                 // NOLINT
    Value(int v) : m_kind(ValueKind::VALUE_KIND_INT), m_int(v) {}                   // NOLINT
    Value(int64_t v) : m_kind(ValueKind::VALUE_KIND_INT), m_int(v) {}               // NOLINT
    Value(double v) : m_kind(ValueKind::VALUE_KIND_FLOAT), m_float(v) {}            // NOLINT
    Value(std::string s);                                                           // NOLINT
    Value(const char *s) : Value(std::string(s)) {}                                 // NOLINT
    Value(std::string_view s) : Value(std::string(s)) {}                            // NOLINT
    // The string of `data` (shares it; no copy of the text).
    static Value string(std::shared_ptr<const StringData> data);

    // `message` is what using it reports, e.g. "'tools' is undefined".
    static Value undefined(std::string message);
    static Value none();
    static Value list(List items = {});
    static Value tuple(List items);                      // a list that prints as (a, b)
    static Value dict(Dict entries);
    static Value dict();
    static Value makeNamespace(Dict entries);
    static Value callable(std::string name, std::function<Result<Value>(Interpreter &, CallArgs &)> fn);

    ValueKind kind() const { return m_kind; }
    bool isUndefined() const { return m_kind == ValueKind::VALUE_KIND_UNDEFINED; }
    bool isNone() const { return m_kind == ValueKind::VALUE_KIND_NONE; }
    bool isBool() const { return m_kind == ValueKind::VALUE_KIND_BOOL; }
    bool isInt() const { return m_kind == ValueKind::VALUE_KIND_INT; }
    bool isFloat() const { return m_kind == ValueKind::VALUE_KIND_FLOAT; }
    bool isNumber() const { return isInt() || isFloat() || isBool(); }   // Python: bool is an int
    bool isString() const { return m_kind == ValueKind::VALUE_KIND_STRING; }
    bool isList() const { return m_kind == ValueKind::VALUE_KIND_LIST; }   // lists and tuples
    bool isTuple() const { return m_tuple; }
    // Nesting of lists and dicts (a scalar or a namespace is 0, [1] is 1,
    // [[1]] is 2); the interpreter bounds it so that printing, comparing and
    // freeing values cannot exhaust the stack.
    int depth() const;
    bool isDict() const { return m_kind == ValueKind::VALUE_KIND_DICT; }
    bool isNamespace() const { return m_kind == ValueKind::VALUE_KIND_NAMESPACE; }
    bool isMapping() const { return isDict() || isNamespace(); }
    bool isCallable() const { return m_kind == ValueKind::VALUE_KIND_CALLABLE; }

    bool asBool() const { return m_int != 0; }
    int64_t asInt() const { return m_int; }                  // INT and BOOL
    double asFloat() const { return isFloat() ? m_float : double(m_int); }
    const std::string &asString() const;                     // STRING ("" for others)
    const std::string &undefinedMessage() const { return asString(); }
    // STRING: its shared text and code-point facts.
    const StringData &stringData() const { return *static_cast<const StringData *>(m_data.get()); }
    std::shared_ptr<const StringData> stringPtr() const { return std::static_pointer_cast<const StringData>(m_data); }
    const List &asList() const { return static_cast<const ListData *>(m_data.get())->items; }
    const Dict &asDict() const { return *static_cast<const Dict *>(m_data.get()); }   // DICT and NAMESPACE
    Dict &mutableDict() const { return *static_cast<Dict *>(m_data.get()); }          // NAMESPACE assignment
    std::shared_ptr<Dict> dictPtr() const { return std::static_pointer_cast<Dict>(m_data); }
    const Callable &asCallable() const { return *static_cast<const Callable *>(m_data.get()); }
    // The same object (a list, dict or namespace shared by reference; a string's text).
    bool sameObject(const Value &other) const { return m_data && m_data == other.m_data; }

private:
    ValueKind m_kind = ValueKind::VALUE_KIND_UNDEFINED;
    bool m_tuple = false;             // LIST: Python tuple (repr only, and tuple != list)
    int32_t m_depth = 0;              // LIST, DICT: see depth()
    union {
        int64_t m_int = 0;            // BOOL, INT
        double m_float;               // FLOAT
    };
    // STRING and UNDEFINED (its message; may be null): StringData; LIST:
    // ListData; DICT and NAMESPACE: Dict; CALLABLE: Callable.
    std::shared_ptr<void> m_data;
};

// Insertion-ordered mapping with Python key equality (1 == 1.0 == True).
// Lookups hash the key (an index built on the first lookup past a few
// entries and extended as entries are appended), so building a dict of n
// entries costs O(n), not O(n^2).
struct Dict {
    std::vector<std::pair<Value, Value>> entries;
    int namespaceDepth = 1;   // NAMESPACE: upper bound of its nesting (grows with assignments)
    Charge charge;            // what the entries weigh (Value::dict, the interpreter for namespaces)

    const Value *find(const Value &key) const;
    const Value *findKey(std::string_view key) const;   // string key
    void set(Value key, Value value);   // replaces in place or appends
    // The heap bytes the dict holds (for its charge).
    size_t footprint() const;

private:
    static constexpr size_t INDEX_FROM = 8;                    // linear search below this many entries
    mutable std::unordered_multimap<size_t, size_t> m_index;   // key hash -> entry position
    mutable size_t m_indexed = 0;                              // entries[0..m_indexed) are in m_index
    const Value *indexedFind(const Value &key, size_t hash) const;
};

// Python-consistent hash of a dict key: equal values (1, 1.0, True) hash alike.
size_t hashKey(const Value &key);

// Arguments of a call: positional then keyword.
struct CallArgs {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> named;

    // The argument at `position` or named `name`; nullptr when not given.
    const Value *get(size_t position, std::string_view name) const;
    // Fails when more than `maxPositional` positional arguments or a keyword
    // not in `names` was passed ("trim() got an unexpected keyword argument 'x'").
    Status check(const char *function, size_t maxPositional, std::initializer_list<std::string_view> names) const;
};

// --- Python semantics -------------------------------------------------------

bool truthy(const Value &v);
// str(v) and repr(v). Undefined prints as "". Output past `maxBytes` is cut
// short (callers check the size); a namespace inside itself prints as
// "<Namespace ...>".
std::string toStr(const Value &v, size_t maxBytes = SIZE_MAX);
std::string repr(const Value &v, size_t maxBytes = SIZE_MAX);
std::string pyFloatRepr(double d);          // repr(float): "1.0", "0.1", "1e+20", "nan", "inf"
const char *typeName(const Value &v);       // Python type name: "str", "int", "NoneType", ...
std::string objectTypeRepr(const Value &v); // Jinja's object_type_repr: "dict object", "None", ...
bool equals(const Value &a, const Value &b);
// -1, 0 or 1; error for unorderable types ("'<' not supported between instances of 'str' and 'int'").
Result<int> compare(const Value &a, const Value &b, const char *op);

// The error a use of `v` (Undefined) reports.
Status undefinedError(const Value &v);

struct JsonOptions {
    std::optional<std::string> indent;     // nullopt: single line
    std::string itemSeparator = ", ";      // json.dumps defaults; "," when indented
    std::string keySeparator = ": ";
    bool sortKeys = false;
    bool ensureAscii = false;              // Hugging Face keeps non-ASCII text
    size_t maxBytes = SIZE_MAX;            // fail once the text grows past this
};
// json.dumps(v, ...) as Python writes it. Fails on Undefined and callables.
Result<std::string> toJson(const Value &v, const JsonOptions &options);

// Python slice semantics: the items [start:stop:step] selects from a
// sequence of `length` items are start, start + step, ... (count of them).
// step 0 is an error. Cost O(1): nothing is listed.
struct Slice {
    int64_t start = 0;
    int64_t step = 1;
    size_t count = 0;
    size_t at(size_t k) const { return size_t(start + int64_t(k) * step); }
};
Result<Slice> sliceOf(int64_t length, const Value &start, const Value &stop, const Value &step);

} // namespace burrow::jinja
