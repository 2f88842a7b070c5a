// The JSON-schema grammar (engine/src/grammar):
// - refused: schemas with keywords Burrow does not compile, or past a bound,
//   fail with the keyword / bound named;
// - texts: the byte matcher accepts valid documents whole (and says they may
//   end) and refuses invalid ones (expected verdicts from the JSON and
//   schema specifications, written here by hand);
// - randomDrawsAreValid: a sampler drawing from random logits over a small
//   vocabulary under the grammar always ends with a document that parses and
//   that a validator written here (independent of the compiler) accepts;
// - maskAgreesWithAllows / maskIsCached: the trie walk's mask is exactly the
//   set of tokens allows() accepts, and a state seen again hits the cache.
#include "burrow/engine.h"
#include "grammar/json_matcher.h"
#include "grammar/json_schema.h"
#include "grammar/token_constraint.h"
#include "sampling/sampler.h"

#include <QTest>

#include <random>
#include <set>
#include <string>
#include <vector>

using namespace burrow;
using namespace burrow::grammar;

namespace {

json::JsonValue parse(const std::string &text)
{
    auto v = json::parseJson(text, "test");
    if (!v)
        qFatal("test JSON: %s", v.message().c_str());
    return *v;
}

// Feeds `text` byte by byte; returns -1 when all of it is accepted and the
// document may end there, -2 when accepted but unfinished, else the offset
// of the first refused byte.
long feed(const SchemaGraph &g, const std::string &text, uint32_t prefix = UINT32_MAX, uint32_t suffix = UINT32_MAX)
{
    JsonMatcher m(g, prefix, suffix);
    StateSet cur, next;
    cur.copyFrom(m.initial());
    for (size_t i = 0; i < text.size(); ++i) {
        m.advance(cur, static_cast<uint8_t>(text[i]), next);
        if (next.empty())
            return static_cast<long>(i);
        cur.copyFrom(next);
    }
    return m.canFinish(cur) ? -1 : -2;
}

// A validator for the subset the tests use, written from the JSON Schema
// specification (not from the compiler).
bool valid(const json::JsonValue &v, const json::JsonValue &s, const json::JsonValue &root)
{
    if (const json::JsonValue *ref = s.find("$ref")) {
        const std::string name = ref->string.substr(ref->string.rfind('/') + 1);
        return valid(v, ref->string == "#" ? root : *root.find("$defs")->find(name), root);
    }
    if (const json::JsonValue *e = s.find("enum")) {
        for (const auto &x : e->array)
            if (json::toJsonString(x) == json::toJsonString(v))
                return true;
        return false;
    }
    if (const json::JsonValue *c = s.find("const"))
        return json::toJsonString(*c) == json::toJsonString(v);
    if (const json::JsonValue *any = s.find("anyOf")) {
        for (const auto &b : any->array)
            if (valid(v, b, root))
                return true;
        return false;
    }
    const json::JsonValue *t = s.find("type");
    if (!t)
        return true;
    const std::string type = t->string;
    using JT = json::JsonType;
    if (type == "string") {
        if (!v.isString())
            return false;
        size_t points = 0;
        for (const char c : v.string)
            points += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        const auto *mn = s.find("minLength");
        const auto *mx = s.find("maxLength");
        return (!mn || points >= size_t(mn->integer)) && (!mx || points <= size_t(mx->integer));
    }
    if (type == "integer")
        return v.type == JT::JSON_TYPE_INT;
    if (type == "number")
        return v.type == JT::JSON_TYPE_INT || v.type == JT::JSON_TYPE_DOUBLE;
    if (type == "boolean")
        return v.type == JT::JSON_TYPE_BOOL;
    if (type == "null")
        return v.isNull();
    if (type == "array") {
        if (!v.isArray())
            return false;
        const auto *mn = s.find("minItems");
        const auto *mx = s.find("maxItems");
        if ((mn && v.array.size() < size_t(mn->integer)) || (mx && v.array.size() > size_t(mx->integer)))
            return false;
        if (const json::JsonValue *items = s.find("items"))
            for (const auto &x : v.array)
                if (!valid(x, *items, root))
                    return false;
        return true;
    }
    if (type == "object") {
        if (!v.isObject())
            return false;
        const json::JsonValue *props = s.find("properties");
        if (const json::JsonValue *req = s.find("required"))
            for (const auto &r : req->array)
                if (!v.find(r.string))
                    return false;
        for (const auto &[k, x] : v.object) {
            const json::JsonValue *ps = props ? props->find(k) : nullptr;
            if (props && !ps)
                return false;   // the tests' schemas allow no others
            if (ps && !valid(x, *ps, root))
                return false;
        }
        return true;
    }
    return false;
}

// A small vocabulary: every printable ASCII byte, some multi-byte pieces and
// UTF-8, a control token without bytes, and token 0 the end of generation.
std::vector<std::string> smallVocab()
{
    std::vector<std::string> v = {"</s>", ""};
    for (int c = 0x20; c < 0x7f; ++c)
        v.push_back(std::string(1, char(c)));
    for (const char *p : {"{\"", "\":", "\",\"", "\"}", "true", "false", "null", "name", "\"name\":\"", "[]", "[\"",
                          "\"]", "123", "-0.5e+3", "é", "日本", "\xe6", "\x97\xa5", "\\n", "\\u00e9", "},{", "]}", "ab",
                          "\"\"", "\n", "\t", "\x01"})
        v.push_back(p);
    return v;
}

std::shared_ptr<const CompiledGrammar> compiled(const std::string &schema, const std::vector<std::string> &vocab,
                                                const std::string &prefix = {}, const std::string &suffix = {})
{
    auto g = compileSchema(parse(schema));
    if (!g)
        qFatal("schema: %s", g.message().c_str());
    auto c = std::make_shared<Grammar>();
    c->graph = std::move(*g);
    addAffixes(c->graph, prefix, suffix, &c->prefixNode, &c->suffixNode);
    c->vocab = VocabIndex::build(vocab, {0});
    return c;
}

} // namespace

class TestJsonGrammar : public QObject {
    Q_OBJECT

private slots:
    void refused_data();
    void refused();
    void texts_data();
    void texts();
    void affixes();
    void randomDrawsAreValid_data();
    void randomDrawsAreValid();
    void maskAgreesWithAllows();
    void maskIsCached();
    void deepAnyJsonCloses();
};

void TestJsonGrammar::refused_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QString>("named");
    QTest::newRow("pattern") << QByteArray(R"({"type": "string", "pattern": "^a+$"})") << "pattern";
    QTest::newRow("format") << QByteArray(R"({"type": "object", "properties": {"d": {"type": "string", "format": "date"}}})")
                            << "schema.properties.d: 'format'";
    QTest::newRow("minimum") << QByteArray(R"({"type": "integer", "minimum": 0})") << "minimum";
    QTest::newRow("not") << QByteArray(R"({"not": {"type": "string"}})") << "'not'";
    QTest::newRow("allOf-two") << QByteArray(R"({"allOf": [{"type": "string"}, {"maxLength": 2}]})") << "allOf";
    QTest::newRow("ref-external") << QByteArray(R"({"$ref": "https://example.com/s.json"})") << "$ref";
    QTest::newRow("ref-missing") << QByteArray(R"({"$ref": "#/$defs/nope"})") << "$ref";
    QTest::newRow("type-unknown") << QByteArray(R"({"type": "date"})") << "'date'";
    QTest::newRow("required-unknown") << QByteArray(R"({"type": "object", "properties": {"a": {}}, "required": ["b"]})")
                                      << "'b'";
    QTest::newRow("false") << QByteArray("false") << "accepts nothing";
    QTest::newRow("fraction-count") << QByteArray(R"({"type": "array", "maxItems": 1.5})") << "maxItems: expected";
    QTest::newRow("negative-count") << QByteArray(R"({"type": "string", "minLength": -1})") << "minLength: expected";
    std::string deep = R"({"type": "string"})";
    for (int i = 0; i < 100; ++i)
        deep = R"({"type": "array", "items": )" + deep + "}";
    QTest::newRow("too-deep") << QByteArray::fromStdString(deep) << "deeper than 64";
    std::string huge = R"({"enum": [)";
    for (int i = 0; i < 5000; ++i) {
        if (i)
            huge += ',';
        huge += std::to_string(i);
    }
    QTest::newRow("huge-enum") << QByteArray::fromStdString(huge + "]}") << "4096";
    std::string branches = R"({"anyOf": [)";
    for (int i = 0; i < 100; ++i)
        branches += std::string(i ? "," : "") + R"({"const": )" + std::to_string(i) + "}";
    QTest::newRow("many-branches") << QByteArray::fromStdString(branches + "]}") << "64";
    std::string props = R"({"type": "object", "properties": {)";
    for (int i = 0; i < 300; ++i)
        props += std::string(i ? "," : "") + "\"p" + std::to_string(i) + "\": {}";
    QTest::newRow("many-properties") << QByteArray::fromStdString(props + "}}") << "256";
}

void TestJsonGrammar::refused()
{
    QFETCH(QByteArray, schema);
    QFETCH(QString, named);
    auto g = compileSchema(parse(schema.toStdString()));
    QVERIFY(!g);
    QVERIFY2(QString::fromStdString(g.message()).contains(named), g.message().c_str());
}

void TestJsonGrammar::texts_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("verdict");   // -1 valid and complete, -2 valid prefix, else the refused byte
    const QByteArray person = R"({"type": "object", "properties": {"name": {"type": "string", "maxLength": 4},
        "age": {"type": "integer"}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1, "maxItems": 2},
        "ok": {"type": "boolean"}}, "required": ["name", "tags"], "additionalProperties": false})";
    QTest::newRow("person/full") << person << QByteArray(R"({"name":"Zoë","age":-12,"tags":["a","b"],"ok":true})") << -1;
    QTest::newRow("person/required-only") << person << QByteArray(R"({"name":"","tags":["b"]})") << -1;
    QTest::newRow("person/prefix") << person << QByteArray(R"({"name":"ab","ta)") << -2;
    QTest::newRow("person/missing-required") << person << QByteArray(R"({"name":"x"})") << 11;
    // Keys come in the schema's order, and a required one cannot be skipped.
    QTest::newRow("person/order") << person << QByteArray(R"({"tags":["a"],"name":"x"})") << 2;
    QTest::newRow("person/too-long") << person << QByteArray(R"({"name":"abcde"})") << 13;
    QTest::newRow("person/too-many") << person << QByteArray(R"({"name":"a","tags":["a","a","b"]})") << 27;
    QTest::newRow("person/too-few") << person << QByteArray(R"({"name":"a","tags":[]})") << 20;
    QTest::newRow("person/enum") << person << QByteArray(R"({"name":"a","tags":["c"]})") << 21;
    QTest::newRow("person/unknown-key") << person << QByteArray(R"({"nick":"a"})") << 3;
    QTest::newRow("person/whitespace") << person << QByteArray(R"({ "name":"a"})") << 1;
    QTest::newRow("person/int-fraction") << person << QByteArray(R"({"name":"a","age":1.5})") << 19;
    QTest::newRow("number/exp") << QByteArray(R"({"type": "number"})") << QByteArray("-0.25E+10") << -1;
    QTest::newRow("number/leading-zero") << QByteArray(R"({"type": "number"})") << QByteArray("01") << 1;
    QTest::newRow("number/dot-end") << QByteArray(R"({"type": "number"})") << QByteArray("1.") << -2;
    QTest::newRow("string/escapes") << QByteArray(R"({"type": "string"})") << QByteArray(R"("a\n\"\u00e9\\")") << -1;
    QTest::newRow("string/bad-escape") << QByteArray(R"({"type": "string"})") << QByteArray(R"("\x")") << 2;
    QTest::newRow("string/control") << QByteArray(R"({"type": "string"})") << QByteArray("\"a\nb\"") << 2;
    QTest::newRow("string/bad-utf8") << QByteArray(R"({"type": "string"})") << QByteArray("\"\xc3(\"") << 2;
    QTest::newRow("string/min") << QByteArray(R"({"type": "string", "minLength": 2})") << QByteArray("\"日\"") << 4;
    QTest::newRow("any/nested") << QByteArray("{}") << QByteArray(R"({"a":[1,{"b":null},"x",true,-3.5e2],"c":{}})") << -1;
    QTest::newRow("any-object/not-array") << QByteArray(R"({"type": "object"})") << QByteArray("[1]") << 0;
    QTest::newRow("anyOf/either") << QByteArray(R"({"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]})")
                                  << QByteArray("\"x\"") << -1;
    QTest::newRow("type-list") << QByteArray(R"({"type": ["integer", "null"]})") << QByteArray("null") << -1;
    QTest::newRow("enum-prefixes") << QByteArray(R"({"type": "array", "items": {"enum": [1, 12, 123]}})")
                                   << QByteArray("[12,1,123]") << -1;
    QTest::newRow("const-object") << QByteArray(R"({"const": {"a": [1, 2]}})") << QByteArray(R"({"a":[1,2]})") << -1;
    QTest::newRow("recursive-ref") << QByteArray(R"({"$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"},
        "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}}, "required": ["v", "next"]}}, "$ref": "#/$defs/node"})")
                                   << QByteArray(R"({"v":1,"next":{"v":2,"next":null}})") << -1;
    QTest::newRow("optional-middle") << QByteArray(R"({"type": "object", "properties": {"a": {"type": "integer"},
        "b": {"type": "integer"}, "c": {"type": "integer"}}, "required": ["c"]})")
                                     << QByteArray(R"({"b":1,"c":2})") << -1;
    QTest::newRow("empty-object-only") << QByteArray(R"({"type": "object", "additionalProperties": false})")
                                       << QByteArray("{}") << -1;
    QTest::newRow("after-end") << QByteArray(R"({"type": "boolean"})") << QByteArray("true ") << 4;
    // Counts past 32 bits (fuzz_json_schema's first find: a float-to-integer
    // cast out of range) are read as "no bound".
    QTest::newRow("huge-maxLength") << QByteArray(R"({"type": "string", "maxLength": 222222222222222222223})")
                                    << QByteArray("\"abc\"") << -1;
}

void TestJsonGrammar::texts()
{
    QFETCH(QByteArray, schema);
    QFETCH(QByteArray, text);
    QFETCH(int, verdict);
    auto g = compileSchema(parse(schema.toStdString()));
    QVERIFY2(g, g.message().c_str());
    QCOMPARE(feed(*g, text.toStdString()), long(verdict));
}

void TestJsonGrammar::affixes()
{
    auto g = compileSchema(parse(R"({"type": "object", "properties": {"name": {"const": "f"}}, "required": ["name"]})"));
    QVERIFY(g);
    uint32_t prefix = 0, suffix = 0;
    addAffixes(*g, "<tool_call>\n", "\n</tool_call>", &prefix, &suffix);
    QCOMPARE(feed(*g, "<tool_call>\n{\"name\":\"f\"}\n</tool_call>", prefix, suffix), -1L);
    QCOMPARE(feed(*g, "<tool_call>\n{\"name\":\"f\"}", prefix, suffix), -2L);
    QCOMPARE(feed(*g, "{\"name\":\"f\"}", prefix, suffix), 0L);
}

void TestJsonGrammar::randomDrawsAreValid_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<float>("temperature");
    QTest::newRow("person") << QByteArray(R"({"type": "object", "properties": {"name": {"type": "string", "maxLength": 6},
        "age": {"type": "integer"}, "tags": {"type": "array", "items": {"enum": ["a", "bb", 3]}, "maxItems": 3},
        "ok": {"type": "boolean"}}, "required": ["name", "ok"]})") << 1.0f;
    QTest::newRow("person-greedy") << QByteArray(R"({"type": "object", "properties": {"name": {"type": "string", "maxLength": 3},
        "n": {"type": "number"}}, "required": ["name", "n"]})") << 0.0f;
    QTest::newRow("union") << QByteArray(R"({"anyOf": [{"type": "object", "properties": {"name": {"const": "get_weather"},
        "arguments": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 5}}, "required": ["city"]}},
        "required": ["name", "arguments"]}, {"type": "array", "items": {"type": "null"}, "minItems": 1, "maxItems": 2}]})")
                           << 1.0f;
    QTest::newRow("short-strings") << QByteArray(R"({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 2},
        "minItems": 2, "maxItems": 4})") << 1.0f;
}

void TestJsonGrammar::randomDrawsAreValid()
{
    QFETCH(QByteArray, schema);
    QFETCH(float, temperature);
    const std::vector<std::string> vocab = smallVocab();
    auto grammar = compiled(schema.toStdString(), vocab);
    const json::JsonValue schemaJson = parse(schema.toStdString());
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 3.0f);
    for (int run = 0; run < 40; ++run) {
        SamplingParams p;
        p.temperature = temperature;
        p.seed = 100 + static_cast<uint32_t>(run);
        p.grammar = std::static_pointer_cast<const Grammar>(grammar);
        auto chain = sampling::Chain::create(p, static_cast<uint32_t>(vocab.size()), 4096);
        QVERIFY2(chain, chain.message().c_str());
        std::string text;
        bool ended = false;
        std::vector<float> logits(vocab.size());
        for (int step = 0; step < 4000 && !ended; ++step) {
            for (float &l : logits)
                l = noise(rng);
            const Token t = (*chain)->sample(logits.data());
            (*chain)->accept(t);
            if (t == 0)
                ended = true;
            else
                text += vocab[static_cast<size_t>(t)];
        }
        QVERIFY2(ended, text.c_str());
        auto doc = json::parseJson(text, "draw");
        QVERIFY2(doc, (text + ": " + doc.message()).c_str());
        QVERIFY2(valid(*doc, schemaJson, schemaJson), text.c_str());
    }
}

void TestJsonGrammar::maskAgreesWithAllows()
{
    const std::vector<std::string> vocab = smallVocab();
    auto grammar = compiled(R"({"type": "object", "properties": {"name": {"type": "string", "maxLength": 2},
        "tags": {"type": "array", "items": {"type": "integer"}}}, "required": ["name"]})", vocab);
    TokenConstraint c(grammar);
    // Walk a valid document token by token, comparing at each state.
    for (const char *piece : {"{\"", "name", "\":", "\"", "é", "a", "\",\"", "t", "a", "g", "s", "\":", "[", "123", ",", "-",
                              "1", "]", "}"}) {
        const std::vector<uint64_t> mask = c.mask();
        for (size_t t = 0; t < vocab.size(); ++t)
            QVERIFY2(TokenConstraint::allowed(mask, Token(t)) == c.allows(Token(t)),
                     (std::string("state before '") + piece + "', token '" + vocab[t] + "'").c_str());
        const auto it = std::find(vocab.begin(), vocab.end(), std::string(piece));
        QVERIFY2(it != vocab.end(), piece);
        QVERIFY2(c.accept(Token(it - vocab.begin())), piece);
    }
    QVERIFY(c.complete());
    // The same inside a string without bounds (the walk's string-safe
    // shortcut): a multi-byte character cut across tokens, escapes.
    auto free = compiled(R"({"type": "array", "items": {"type": "string"}})", vocab);
    TokenConstraint f(free);
    for (const char *piece : {"[\"", "a", "é", "\xe6", "\x97\xa5", "\\n", "\\u00e9", "ab", "\"]"}) {
        const std::vector<uint64_t> mask = f.mask();
        for (size_t t = 0; t < vocab.size(); ++t)
            QVERIFY2(TokenConstraint::allowed(mask, Token(t)) == f.allows(Token(t)),
                     (std::string("string state before '") + piece + "', token '" + vocab[t] + "'").c_str());
        const auto it = std::find(vocab.begin(), vocab.end(), std::string(piece));
        QVERIFY2(it != vocab.end(), piece);
        QVERIFY2(f.accept(Token(it - vocab.begin())), piece);
    }
    QVERIFY(f.complete());
    QVERIFY(c.allows(0));                                    // the end now
    QVERIFY(!c.allows(1));                                   // a control token without bytes: never
    QVERIFY(!c.accept(Token(std::find(vocab.begin(), vocab.end(), "a") - vocab.begin())));   // nothing after the end
}

void TestJsonGrammar::maskIsCached()
{
    const std::vector<std::string> vocab = smallVocab();
    auto grammar = compiled(R"({"type": "string"})", vocab);
    TokenConstraint c(grammar);
    const Token quote = Token(std::find(vocab.begin(), vocab.end(), "\"") - vocab.begin());
    const Token a = Token(std::find(vocab.begin(), vocab.end(), "a") - vocab.begin());
    QVERIFY(c.accept(quote));
    QVERIFY(c.accept(a));
    const std::vector<uint64_t> *first = &c.mask();
    QVERIFY(c.accept(a));   // a string of no bounds: the same state again
    QCOMPARE(&c.mask(), first);
    QVERIFY(!c.allows(0));  // unfinished: no end yet
}

// Any JSON: nesting stops at the matcher's depth bound, so a draw that keeps
// opening arrays is made to close them.
void TestJsonGrammar::deepAnyJsonCloses()
{
    auto g = compileSchema(parse("{}"));
    QVERIFY(g);
    std::string deep(kMaxDepth, '[');
    QCOMPARE(feed(*g, deep), -2L);
    QCOMPARE(feed(*g, deep + "["), long(kMaxDepth));
    QCOMPARE(feed(*g, deep + std::string(kMaxDepth, ']')), -1L);
}

QTEST_MAIN(TestJsonGrammar)
#include "tst_json_grammar.moc"
