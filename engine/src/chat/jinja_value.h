// Values of the Jinja interpreter, with Python semantics: None, bool, int,
// float, str (UTF-8, indexed by code point), list, dict (insertion ordered),
// namespace, callables and Jinja's Undefined (prints as "", iterates as
// empty, fails on any other use with the message it carries).
//
// Contract: every operation that can fail on user data returns a Result with
// a Python-like message ("can only concatenate str (not \"int\") to str");
// the interpreter adds the template position. Lists and dicts are shared by
// reference like Python objects; templates cannot mutate lists (Hugging Face's
// sandbox forbids append), only namespaces change in place.
#pragma once

#include "burrow/status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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

class Value {
public:
    Value() = default;                                   // Undefined without a message
    Value(bool b) : m_kind(ValueKind::VALUE_KIND_BOOL), m_int(b) {}                 // NOLINT
    Value(int v) : m_kind(ValueKind::VALUE_KIND_INT), m_int(v) {}                   // NOLINT
    Value(int64_t v) : m_kind(ValueKind::VALUE_KIND_INT), m_int(v) {}               // NOLINT
    Value(double v) : m_kind(ValueKind::VALUE_KIND_FLOAT), m_float(v) {}            // NOLINT
    Value(std::string s) : m_kind(ValueKind::VALUE_KIND_STRING), m_string(std::move(s)) {} // NOLINT
    Value(const char *s) : m_kind(ValueKind::VALUE_KIND_STRING), m_string(s) {}     // NOLINT
    Value(std::string_view s) : m_kind(ValueKind::VALUE_KIND_STRING), m_string(s) {} // NOLINT

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
    const std::string &asString() const { return m_string; }
    const std::string &undefinedMessage() const { return m_string; }
    const List &asList() const { return *m_list; }
    const Dict &asDict() const { return *m_dict; }           // DICT and NAMESPACE
    Dict &mutableDict() const { return *m_dict; }            // NAMESPACE assignment
    const std::shared_ptr<Dict> &dictPtr() const { return m_dict; }
    const Callable &asCallable() const { return *m_callable; }

private:
    ValueKind m_kind = ValueKind::VALUE_KIND_UNDEFINED;
    bool m_tuple = false;             // LIST: Python tuple (repr only, and tuple != list)
    int m_depth = 0;                  // LIST, DICT: see depth()
    int64_t m_int = 0;
    double m_float = 0.0;
    std::string m_string;             // STRING, or UNDEFINED's message
    std::shared_ptr<const List> m_list;
    std::shared_ptr<Dict> m_dict;
    std::shared_ptr<const Callable> m_callable;
};

// Insertion-ordered mapping with Python key equality (1 == 1.0 == True).
// Lookups are linear: template dicts are small.
struct Dict {
    std::vector<std::pair<Value, Value>> entries;
    int namespaceDepth = 1;   // NAMESPACE: upper bound of its nesting (grows with assignments)
    const Value *find(const Value &key) const;
    const Value *findKey(std::string_view key) const;   // string key
    void set(Value key, Value value);   // replaces in place or appends
};

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

// --- UTF-8 helpers (strings are indexed by code point, like Python) ----------

std::vector<uint32_t> utf8Decode(std::string_view s);   // invalid bytes decode as U+FFFD
std::string utf8Encode(const std::vector<uint32_t> &cps, size_t begin = 0, size_t end = SIZE_MAX);
void utf8Append(std::string &out, uint32_t cp);
size_t utf8Length(std::string_view s);
bool isPySpace(uint32_t cp);                            // str.isspace()
uint32_t toUpperCp(uint32_t cp);                       // ASCII, Latin-1, Greek, Cyrillic
uint32_t toLowerCp(uint32_t cp);
bool isCased(uint32_t cp);

// Python slice semantics: indices selected by [start:stop:step] from a
// sequence of `length` items. step 0 is an error.
Result<std::vector<size_t>> sliceIndices(int64_t length, const Value &start, const Value &stop, const Value &step);

} // namespace burrow::jinja
