// burrow-cli bench-grammar -m VOCAB [--schema FILE] [--document FILE] [--rounds N]
// The cost of constrained sampling per generated token (see docs/benchmarks.md):
// the document is tokenized with the vocabulary and walked token by token
// under the schema's grammar, timing per token the check of a drawn token
// (what a token the grammar accepts costs), the mask (what a refused token
// costs: a trie walk, or a cache hit when the state was seen) and the advance.
#include "cli_command.h"

#include "gguf/gguf_reader.h"
#include "grammar/json_schema.h"
#include "grammar/token_constraint.h"
#include "tokenizer/tokenizer.h"

#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// This thread's CPU time in microseconds: what the grammar's work costs,
// steadier than wall time on a busy machine.
double cpuUs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) / 1e3;
}

const char *const kDefaultSchema = R"({"type": "object", "properties": {
  "name": {"const": "search_flights"},
  "arguments": {"type": "object", "properties": {
    "from": {"type": "string", "maxLength": 64}, "to": {"type": "string", "maxLength": 64},
    "date": {"type": "string"}, "passengers": {"type": "integer"},
    "class": {"enum": ["economy", "premium", "business", "first"]},
    "flexible": {"type": "boolean"}, "notes": {"type": "array", "items": {"type": "string"}, "maxItems": 8}},
    "required": ["from", "to", "date", "passengers", "class", "flexible", "notes"], "additionalProperties": false}},
  "required": ["name", "arguments"]})";

const char *const kDefaultDocument =
    R"({"name":"search_flights","arguments":{"from":"Zürich Hauptbahnhof","to":"San Francisco International",)"
    R"("date":"2026-12-24T08:30:00","passengers":3,"class":"premium","flexible":true,)"
    R"("notes":["window seats if possible","one passenger needs assistance","vegetarian meals for two"]}})";

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli bench-grammar -m VOCAB [--schema FILE] [--document FILE] [--rounds N]\n\n"
                 "Times constrained sampling's work per generated token over the vocabulary of\n"
                 "the GGUF file VOCAB (a model or a vocabulary-only file): the document (a JSON\n"
                 "text valid under the schema; defaults: a flight-search tool call) is tokenized\n"
                 "and walked token by token. Prints microseconds per token for: checking a drawn\n"
                 "token, the full mask on a cache miss and on a hit, and advancing the state.\n"
                 "Compare with the model's milliseconds per generated token (burrow-cli bench).\n\n"
                 "options:\n"
                 "  -m, --model VOCAB  the GGUF file\n"
                 "  --schema FILE      the JSON schema\n"
                 "  --document FILE    the JSON document to walk\n"
                 "  --rounds N         walks of the document (default 3)\n");
}

std::string readFile(const std::string &path, bool *ok)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    *ok = static_cast<bool>(in);
    return s.str();
}

double usSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

int run(const std::vector<std::string> &args)
{
    std::string model, schema = kDefaultSchema, document = kDefaultDocument;
    int rounds = 3;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        const bool hasValue = i + 1 < args.size();
        bool ok = true;
        if ((a == "-m" || a == "--model") && hasValue) {
            model = args[++i];
        } else if (a == "--schema" && hasValue) {
            schema = readFile(args[++i], &ok);
        } else if (a == "--document" && hasValue) {
            document = readFile(args[++i], &ok);
        } else if (a == "--rounds" && hasValue) {
            rounds = std::max(1, std::atoi(args[++i].c_str()));
        } else if (a == "-h" || a == "--help") {
            printHelp(stdout);
            return 0;
        } else {
            printHelp(stderr);
            return 2;
        }
        if (!ok) {
            std::fprintf(stderr, "bench-grammar: cannot read %s\n", args[i].c_str());
            return 1;
        }
    }
    if (model.empty()) {
        printHelp(stderr);
        return 2;
    }
    auto gguf = burrow::gguf::GgufFile::open(model);
    if (!gguf) {
        std::fprintf(stderr, "bench-grammar: %s\n", gguf.message().c_str());
        return 1;
    }
    auto tok = burrow::tokenizer::Tokenizer::fromGguf(*gguf.value());
    if (!tok) {
        std::fprintf(stderr, "bench-grammar: %s\n", tok.message().c_str());
        return 1;
    }
    const burrow::tokenizer::Tokenizer &t = *tok.value();
    auto t0 = Clock::now();
    std::vector<std::string> bytes(static_cast<size_t>(t.size()));
    for (int32_t id = 0; id < t.size(); ++id)
        bytes[static_cast<size_t>(id)] = t.tokenBytes(id);
    auto vocab = burrow::grammar::VocabIndex::build(std::move(bytes), t.endOfGenerationIds());
    const double indexMs = usSince(t0) / 1000.0;
    auto parsed = burrow::json::parseJson(schema, "schema");
    if (!parsed) {
        std::fprintf(stderr, "bench-grammar: %s\n", parsed.message().c_str());
        return 1;
    }
    auto graph = burrow::grammar::compileSchema(*parsed);
    if (!graph) {
        std::fprintf(stderr, "bench-grammar: %s\n", graph.message().c_str());
        return 1;
    }
    auto grammar = std::make_shared<burrow::Grammar>();
    grammar->graph = std::move(graph.value());
    grammar->vocab = vocab;
    const std::vector<int32_t> ids = t.tokenize(document, false, false);
    double checkUs = 0, missUs = 0, hitUs = 0, acceptUs = 0;
    size_t misses = 0, hits = 0, tokens = 0;
    for (int r = 0; r < rounds; ++r) {
        burrow::grammar::TokenConstraint c(grammar);
        for (const int32_t id : ids) {
            t0 = Clock::now();
            const bool allowed = c.allows(id);
            checkUs += usSince(t0);
            double c0 = cpuUs();
            c.mask();
            const double first = cpuUs() - c0;
            c0 = cpuUs();
            c.mask();
            hitUs += cpuUs() - c0;
            ++hits;
            if (first > 0) {
                missUs += first;
                ++misses;
            }
            t0 = Clock::now();
            if (!allowed || !c.accept(id)) {
                std::fprintf(stderr, "bench-grammar: the document leaves the grammar at token %zu ('%s')\n", tokens,
                             t.tokenBytes(id).c_str());
                return 1;
            }
            acceptUs += usSince(t0);
            ++tokens;
        }
    }
    std::printf("vocabulary: %d tokens (index built in %.1f ms); document: %zu tokens x %d rounds\n", t.size(), indexMs,
                ids.size(), rounds);
    std::printf("per token (us; masks in thread CPU time): check %.2f | mask %.1f (first time in a state) | "
                "mask %.3f (cached) | advance %.2f\n",
                checkUs / double(tokens), missUs / double(std::max<size_t>(misses, 1)),
                hitUs / double(std::max<size_t>(hits, 1)), acceptUs / double(tokens));
    std::printf("a token the grammar accepts costs check + advance; one it refuses adds the mask and a second draw\n");
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(bench_grammar, "bench-grammar", "time constrained sampling's work per token (JSON schema)", run);
