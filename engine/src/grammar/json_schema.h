// A JSON schema compiled to a graph of value shapes, for the byte matcher
// (json_matcher.h) that constrains a reply to JSON the schema accepts.
//
// Supported: type (one or an array of them), properties / required /
// additionalProperties (only the declared properties are produced, in the
// schema's order: valid whatever additionalProperties says), items,
// minItems / maxItems, minLength / maxLength (code points), enum, const,
// anyOf, oneOf (produced as anyOf: valid when the branches do not overlap,
// as in tagged unions), allOf with one entry, $ref to "#", "#/$defs/NAME"
// or "#/definitions/NAME" (recursion allowed), nullable, and the annotations
// (title, description, default, examples, $schema, $id, strict, ...), which
// are ignored. A schema without a type is any JSON value; an object without
// properties any object.
// Refused, with the keyword named: pattern, format, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, multipleOf, minProperties,
// maxProperties, patternProperties, propertyNames, uniqueItems: true,
// prefixItems, contains, not, if / then / else, dependentRequired,
// dependentSchemas, unevaluatedProperties, allOf of several, external or
// unknown $ref, and any other keyword a schema uses that is not listed here
// as supported or an annotation.
//
// What is produced is compact JSON (no white space), integers of at most
// 16 digits, numbers with at most 16 fraction and 3 exponent digits.
//
// Bounds (SchemaLimits): nodes, properties per object, enum values and
// their bytes, anyOf branches, $ref depth while compiling; a schema past
// one is refused with the bound named. Cost: O(schema size).
#pragma once

#include "burrow/status.h"
#include "common/json.h"

#include <cstdint>
#include <string>
#include <vector>

namespace burrow::grammar {

struct SchemaLimits {
    size_t maxNodes = 4096;
    size_t maxProperties = 256;          // per object
    size_t maxEnumValues = 4096;         // per enum
    size_t maxLiteralBytes = 256 * 1024; // all enum / const texts together
    size_t maxBranches = 64;             // per anyOf
    int maxDepth = 64;                   // nesting of the schema itself
};

enum class NodeKind : uint8_t {
    NODE_ANY,        // any JSON value
    NODE_OBJECT,     // declared properties
    NODE_ANY_OBJECT, // any object
    NODE_ARRAY,
    NODE_STRING,
    NODE_NUMBER,
    NODE_INTEGER,
    NODE_LITERALS,   // one of a sorted set of JSON texts (enum, const, true/false/null, boolean)
    NODE_ANY_OF,
};

struct Property {
    std::string keyLiteral;   // "\"name\":" (the key as JSON, then the colon)
    uint32_t node = 0;
    bool required = false;
};

struct Node {
    NodeKind kind = NodeKind::NODE_ANY;
    std::vector<Property> properties;    // NODE_OBJECT
    // NODE_OBJECT: for each i, the last property index a key at position i
    // may name (the first required one at or after i; else the last).
    std::vector<uint32_t> lastCandidate;
    uint32_t items = 0;                  // NODE_ARRAY: node of the items
    uint32_t minCount = 0;               // NODE_ARRAY items, NODE_STRING code points
    uint32_t maxCount = UINT32_MAX;
    std::vector<std::string> literals;   // NODE_LITERALS, sorted, unique
    std::vector<uint32_t> branches;      // NODE_ANY_OF
    // NODE_OBJECT: no required property at index >= i (the object may close).
    bool mayCloseFrom(uint32_t i) const;
};

struct SchemaGraph {
    std::vector<Node> nodes;
    uint32_t root = 0;
    // Shared nodes the matcher uses for any JSON.
    uint32_t anyNode = 0, anyStringNode = 0, anyNumberNode = 0, keywordNode = 0;
};

// Compiles `schema` (a JSON schema object or boolean `true`). Errors name the
// keyword and where it is ("schema.properties.a: 'pattern' is not supported").
Result<SchemaGraph> compileSchema(const json::JsonValue &schema, const SchemaLimits &limits = {});

// A graph accepting one literal text after another: used for a fixed prefix
// / suffix around the value (node ids returned through `prefix` / `suffix`,
// UINT32_MAX for an empty text).
void addAffixes(SchemaGraph &graph, const std::string &prefix, const std::string &suffix, uint32_t *prefixNode,
                uint32_t *suffixNode);

} // namespace burrow::grammar
