// compileSchema(): one node per schema (memoized per $ref target, so
// recursion closes into a cycle), checked keyword by keyword.
#include "grammar/json_schema.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace burrow::grammar {

bool Node::mayCloseFrom(uint32_t i) const
{
    for (size_t k = i; k < properties.size(); ++k)
        if (properties[k].required)
            return false;
    return true;
}

namespace {

using json::JsonType;
using json::JsonValue;

const std::set<std::string> &annotations()
{
    static const std::set<std::string> names = {
        "title", "description", "default", "examples", "$schema", "$id", "$comment", "strict", "readOnly",
        "writeOnly", "deprecated", "$defs", "definitions", "discriminator", "name", "id", "example",
        "contentMediaType", "contentEncoding"};
    return names;
}

const std::set<std::string> &supported()
{
    static const std::set<std::string> names = {
        "type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems", "minLength",
        "maxLength", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "nullable"};
    return names;
}

class Compiler {
public:
    Compiler(const JsonValue &root, const SchemaLimits &limits) : m_root(root), m_limits(limits) {}

    Result<SchemaGraph> run()
    {
        m_graph.anyNode = add(Node{});
        Node str;
        str.kind = NodeKind::NODE_STRING;
        m_graph.anyStringNode = add(std::move(str));
        Node num;
        num.kind = NodeKind::NODE_NUMBER;
        m_graph.anyNumberNode = add(std::move(num));
        Node kw;
        kw.kind = NodeKind::NODE_LITERALS;
        kw.literals = {"false", "null", "true"};
        m_graph.keywordNode = add(std::move(kw));
        uint32_t root = 0;
        if (Status s = compile(m_root, "schema", 0, &root); !s)
            return s;
        m_graph.root = root;
        return std::move(m_graph);
    }

private:
    uint32_t add(Node node)
    {
        m_graph.nodes.push_back(std::move(node));
        return static_cast<uint32_t>(m_graph.nodes.size() - 1);
    }

    Status tooMany(const std::string &where, const char *what, size_t limit)
    {
        return Status::error(where + ": more " + what + " than the " + std::to_string(limit) + " a schema may have");
    }

    Status readCount(const JsonValue &s, const char *key, const std::string &where, uint32_t *out)
    {
        const JsonValue *v = s.find(key);
        if (!v)
            return Status::ok();
        // An integer, or a number without a fraction (2.0, 1e30: never cast
        // before its range is known).
        const double d = v->number;
        const bool whole = v->type == JsonType::JSON_TYPE_INT ||
                           (v->type == JsonType::JSON_TYPE_DOUBLE && std::isfinite(d) && std::floor(d) == d);
        if (!whole || d < 0)
            return Status::error(where + "." + key + ": expected a non-negative integer");
        *out = d >= 4.0e9 ? UINT32_MAX - 1 : static_cast<uint32_t>(d);
        return Status::ok();
    }

    // Literal texts of enum / const values, sorted and unique.
    Status literalNode(std::vector<std::string> texts, const std::string &where, uint32_t *out)
    {
        for (const std::string &t : texts)
            m_literalBytes += t.size();
        if (m_literalBytes > m_limits.maxLiteralBytes)
            return tooMany(where, "bytes of enum and const values", m_limits.maxLiteralBytes);
        std::sort(texts.begin(), texts.end());
        texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
        Node n;
        n.kind = NodeKind::NODE_LITERALS;
        n.literals = std::move(texts);
        *out = add(std::move(n));
        return Status::ok();
    }

    Status resolveRef(const std::string &ref, const std::string &where, const JsonValue **target)
    {
        if (ref == "#") {
            *target = &m_root;
            return Status::ok();
        }
        for (const char *prefix : {"#/$defs/", "#/definitions/"}) {
            const std::string p = prefix;
            if (ref.compare(0, p.size(), p) == 0) {
                const JsonValue *defs = m_root.find(p.substr(2, p.size() - 3));
                const JsonValue *def = defs ? defs->find(ref.substr(p.size())) : nullptr;
                if (def) {
                    *target = def;
                    return Status::ok();
                }
            }
        }
        return Status::error(where + ": '$ref' " + ref + " is not supported (only #, #/$defs/NAME, #/definitions/NAME)");
    }

    Status compile(const JsonValue &s, const std::string &where, int depth, uint32_t *out)
    {
        if (depth > m_limits.maxDepth)
            return Status::error(where + ": the schema nests deeper than " + std::to_string(m_limits.maxDepth) +
                                 " levels");
        if (m_graph.nodes.size() > m_limits.maxNodes)
            return tooMany(where, "nodes", m_limits.maxNodes);
        if (s.type == JsonType::JSON_TYPE_BOOL) {
            if (!s.boolean)
                return Status::error(where + ": the schema 'false' accepts nothing");
            *out = m_graph.anyNode;
            return Status::ok();
        }
        if (!s.isObject())
            return Status::error(where + ": expected a schema object");
        for (const auto &[key, value] : s.object)
            if (!supported().count(key) && !annotations().count(key))
                return Status::error(where + ": '" + key + "' is not supported");
        if (const JsonValue *ref = s.find("$ref")) {
            if (!ref->isString())
                return Status::error(where + ".$ref: expected a string");
            if (auto memo = m_refs.find(ref->string); memo != m_refs.end()) {
                *out = memo->second;
                return Status::ok();
            }
            const JsonValue *target = nullptr;
            if (Status st = resolveRef(ref->string, where, &target); !st)
                return st;
            // A placeholder first, so a recursive reference finds it.
            Node alias;
            alias.kind = NodeKind::NODE_ANY_OF;
            const uint32_t id = add(std::move(alias));
            m_refs[ref->string] = id;
            uint32_t inner = 0;
            if (Status st = compile(*target, where + "($ref " + ref->string + ")", depth + 1, &inner); !st)
                return st;
            m_graph.nodes[id].branches = {inner};
            *out = id;
            return Status::ok();
        }
        if (const JsonValue *c = s.find("const"))
            return literalNode({json::toJsonString(*c)}, where, out);
        if (const JsonValue *e = s.find("enum")) {
            if (!e->isArray() || e->array.empty())
                return Status::error(where + ".enum: expected a non-empty array");
            if (e->array.size() > m_limits.maxEnumValues)
                return tooMany(where + ".enum", "values", m_limits.maxEnumValues);
            std::vector<std::string> texts;
            for (const JsonValue &v : e->array)
                texts.push_back(json::toJsonString(v));
            return literalNode(std::move(texts), where, out);
        }
        for (const char *key : {"anyOf", "oneOf", "allOf"}) {
            const JsonValue *list = s.find(key);
            if (!list)
                continue;
            if (!list->isArray() || list->array.empty())
                return Status::error(where + "." + key + ": expected a non-empty array of schemas");
            if (std::string(key) == "allOf") {
                if (list->array.size() != 1)
                    return Status::error(where + ": 'allOf' with more than one schema is not supported");
                return compile(list->array[0], where + ".allOf[0]", depth + 1, out);
            }
            if (list->array.size() > m_limits.maxBranches)
                return tooMany(where + "." + key, "branches", m_limits.maxBranches);
            Node n;
            n.kind = NodeKind::NODE_ANY_OF;
            for (size_t i = 0; i < list->array.size(); ++i) {
                uint32_t b = 0;
                if (Status st = compile(list->array[i], where + "." + key + "[" + std::to_string(i) + "]", depth + 1, &b);
                    !st)
                    return st;
                n.branches.push_back(b);
            }
            *out = add(std::move(n));
            return Status::ok();
        }
        std::vector<std::string> types;
        if (const JsonValue *t = s.find("type")) {
            if (t->isString()) {
                types.push_back(t->string);
            } else if (t->isArray() && !t->array.empty()) {
                for (const JsonValue &v : t->array) {
                    if (!v.isString())
                        return Status::error(where + ".type: expected a string or an array of strings");
                    types.push_back(v.string);
                }
            } else {
                return Status::error(where + ".type: expected a string or an array of strings");
            }
        }
        if (const JsonValue *n = s.find("nullable"); n && n->type == JsonType::JSON_TYPE_BOOL && n->boolean &&
                                                      !types.empty())
            types.push_back("null");
        if (types.empty()) {
            // No type: properties / items still say what it is.
            if (s.find("properties"))
                types.push_back("object");
            else if (s.find("items"))
                types.push_back("array");
            else {
                *out = m_graph.anyNode;
                return Status::ok();
            }
        }
        if (types.size() == 1)
            return typed(s, types[0], where, depth, out);
        Node n;
        n.kind = NodeKind::NODE_ANY_OF;
        for (const std::string &t : types) {
            uint32_t b = 0;
            if (Status st = typed(s, t, where, depth, &b); !st)
                return st;
            n.branches.push_back(b);
        }
        *out = add(std::move(n));
        return Status::ok();
    }

    Status typed(const JsonValue &s, const std::string &type, const std::string &where, int depth, uint32_t *out)
    {
        Node n;
        if (type == "string") {
            n.kind = NodeKind::NODE_STRING;
            if (Status st = readCount(s, "minLength", where, &n.minCount); !st)
                return st;
            if (Status st = readCount(s, "maxLength", where, &n.maxCount); !st)
                return st;
            if (n.minCount > n.maxCount)
                return Status::error(where + ": minLength is above maxLength");
        } else if (type == "number" || type == "integer") {
            n.kind = type == "number" ? NodeKind::NODE_NUMBER : NodeKind::NODE_INTEGER;
        } else if (type == "boolean") {
            return literalNode({"false", "true"}, where, out);
        } else if (type == "null") {
            return literalNode({"null"}, where, out);
        } else if (type == "array") {
            n.kind = NodeKind::NODE_ARRAY;
            if (Status st = readCount(s, "minItems", where, &n.minCount); !st)
                return st;
            if (Status st = readCount(s, "maxItems", where, &n.maxCount); !st)
                return st;
            if (n.minCount > n.maxCount)
                return Status::error(where + ": minItems is above maxItems");
            n.items = m_graph.anyNode;
            if (const JsonValue *items = s.find("items"))
                if (Status st = compile(*items, where + ".items", depth + 1, &n.items); !st)
                    return st;
        } else if (type == "object") {
            return object(s, where, depth, out);
        } else {
            return Status::error(where + ".type: '" + type + "' is not a JSON schema type");
        }
        *out = add(std::move(n));
        return Status::ok();
    }

    Status object(const JsonValue &s, const std::string &where, int depth, uint32_t *out)
    {
        const JsonValue *props = s.find("properties");
        if (!props || (props->isObject() && props->object.empty())) {
            const JsonValue *additional = s.find("additionalProperties");
            Node n;
            n.kind = additional && additional->type == JsonType::JSON_TYPE_BOOL && !additional->boolean
                         ? NodeKind::NODE_OBJECT   // no properties at all: "{}"
                         : NodeKind::NODE_ANY_OBJECT;
            *out = add(std::move(n));
            return Status::ok();
        }
        if (!props->isObject())
            return Status::error(where + ".properties: expected an object");
        if (props->object.size() > m_limits.maxProperties)
            return tooMany(where + ".properties", "properties", m_limits.maxProperties);
        std::set<std::string> required;
        if (const JsonValue *req = s.find("required")) {
            if (!req->isArray())
                return Status::error(where + ".required: expected an array of names");
            for (const JsonValue &r : req->array) {
                if (!r.isString())
                    return Status::error(where + ".required: expected an array of names");
                if (!props->find(r.string))
                    return Status::error(where + ".required: '" + r.string + "' is not among the properties");
                required.insert(r.string);
            }
        }
        // The node first (its id is taken), its properties after.
        const uint32_t id = add(Node{});
        std::vector<Property> list;
        for (const auto &[key, schema] : props->object) {
            Property p;
            p.keyLiteral = json::jsonString(key) + ":";
            p.required = required.count(key) != 0;
            if (Status st = compile(schema, where + ".properties." + key, depth + 1, &p.node); !st)
                return st;
            list.push_back(std::move(p));
        }
        Node &n = m_graph.nodes[id];
        n.kind = NodeKind::NODE_OBJECT;
        n.properties = std::move(list);
        const uint32_t count = static_cast<uint32_t>(n.properties.size());
        n.lastCandidate.assign(count + 1, count == 0 ? 0 : count - 1);
        uint32_t nextRequired = UINT32_MAX;
        for (uint32_t i = count; i-- > 0;) {
            if (n.properties[i].required)
                nextRequired = i;
            n.lastCandidate[i] = nextRequired == UINT32_MAX ? count - 1 : nextRequired;
        }
        *out = id;
        return Status::ok();
    }

    const JsonValue &m_root;
    SchemaLimits m_limits;
    SchemaGraph m_graph;
    std::map<std::string, uint32_t> m_refs;
    size_t m_literalBytes = 0;
};

} // namespace

Result<SchemaGraph> compileSchema(const JsonValue &schema, const SchemaLimits &limits)
{
    return Compiler(schema, limits).run();
}

void addAffixes(SchemaGraph &graph, const std::string &prefix, const std::string &suffix, uint32_t *prefixNode,
                uint32_t *suffixNode)
{
    const auto literal = [&](const std::string &text) -> uint32_t {
        if (text.empty())
            return UINT32_MAX;
        Node n;
        n.kind = NodeKind::NODE_LITERALS;
        n.literals = {text};
        graph.nodes.push_back(std::move(n));
        return static_cast<uint32_t>(graph.nodes.size() - 1);
    };
    *prefixNode = literal(prefix);
    *suffixNode = literal(suffix);
}

} // namespace burrow::grammar
