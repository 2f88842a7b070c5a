// A small JSON reader (RFC 8259) for engine-side configuration and chat
// messages. Qt-free; objects keep their insertion order (chat templates print
// them with tojson, and Python dicts keep insertion order too).
//
// Contract: parseJson() never throws and never reads out of bounds; malformed
// input, nesting deeper than JSON_MAX_DEPTH or invalid UTF-8 escapes come back
// as a Status "NAME:LINE:COL: what was expected".
// Cost: O(text) time; the tree owns copies of all strings.
#pragma once

#include "burrow/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace burrow::json {

inline constexpr int JSON_MAX_DEPTH = 512;

enum class JsonType { JSON_TYPE_NULL, JSON_TYPE_BOOL, JSON_TYPE_INT, JSON_TYPE_DOUBLE,
                      JSON_TYPE_STRING, JSON_TYPE_ARRAY, JSON_TYPE_OBJECT };

struct JsonValue {
    // Declared here, defined in json.cpp: clang with libstdc++ 12 cannot
    // instantiate the implicit ones of a type that holds a vector of pairs of
    // itself (the fuzz tree is built with clang).
    JsonValue();
    ~JsonValue();
    JsonValue(const JsonValue &);
    JsonValue(JsonValue &&) noexcept;
    JsonValue &operator=(const JsonValue &);
    JsonValue &operator=(JsonValue &&) noexcept;

    JsonType type = JsonType::JSON_TYPE_NULL;
    bool boolean = false;
    int64_t integer = 0;        // JSON_TYPE_INT: a number without fraction/exponent that fits int64
    double number = 0.0;        // JSON_TYPE_DOUBLE (and a copy of integer for JSON_TYPE_INT)
    std::string string;         // JSON_TYPE_STRING (UTF-8)
    std::vector<JsonValue> array;
    std::vector<std::pair<std::string, JsonValue>> object;   // insertion order; a repeated key keeps the last value

    bool isNull() const { return type == JsonType::JSON_TYPE_NULL; }
    bool isString() const { return type == JsonType::JSON_TYPE_STRING; }
    bool isArray() const { return type == JsonType::JSON_TYPE_ARRAY; }
    bool isObject() const { return type == JsonType::JSON_TYPE_OBJECT; }
    // Object member by key; nullptr when absent or not an object.
    const JsonValue *find(std::string_view key) const;
};

const char *jsonTypeName(JsonType type);   // "null", "bool", "integer", "number", "string", "array", "object"

// Parses one JSON document (surrounding whitespace allowed). `sourceName`
// prefixes error messages.
Result<JsonValue> parseJson(std::string_view text, const std::string &sourceName = "json");

// Serializes compactly (no spaces), non-ASCII kept as UTF-8.
std::string toJsonString(const JsonValue &value);

// `text` as a JSON string literal, quotes included: '"' and '\\' escaped,
// \n \r \t \b \f as such, other bytes below 0x20 as \u00XX; every other
// byte as it is (UTF-8 passes through, and so do invalid bytes: the caller
// decides whether to clean them). The engine's one JSON string writer
// (toJsonString, burrow-cli info / bench / eval).
void appendJsonString(std::string &out, std::string_view text);
std::string jsonString(std::string_view text);

} // namespace burrow::json
