// libFuzzer: the JSON-schema grammar. The input's first line is a schema
// (any bytes: most are not JSON or not a schema), the rest a text run
// through the compiled matcher byte by byte. Checked: compiling never
// crashes and keeps its bounds (nodes, properties); the matcher's stacks
// stay within their depth and count bounds whatever the bytes.
#include "grammar/json_matcher.h"
#include "grammar/json_schema.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace burrow;
using namespace burrow::grammar;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    const size_t line = input.find('\n');
    const std::string_view schemaText = input.substr(0, line);
    const std::string_view text = line == std::string_view::npos ? std::string_view() : input.substr(line + 1);
    auto schema = json::parseJson(schemaText, "schema");
    if (!schema)
        return 0;
    const SchemaLimits limits;
    auto graph = compileSchema(*schema, limits);
    if (!graph) {
        if (graph.message().empty())
            std::abort();
        return 0;
    }
    if (graph->nodes.size() > limits.maxNodes + 8)
        std::abort();
    for (const Node &n : graph->nodes)
        if (n.properties.size() > limits.maxProperties || n.branches.size() > limits.maxBranches)
            std::abort();
    JsonMatcher matcher(*graph);
    StateSet cur, next;
    cur.copyFrom(matcher.initial());
    for (const char c : text) {
        matcher.advance(cur, static_cast<uint8_t>(c), next);
        if (next.size > kMaxStacks)
            std::abort();
        for (size_t i = 0; i < next.size; ++i)
            if (next.stacks[i].size() > kMaxDepth)
                std::abort();
        if (next.empty())
            break;
        cur.copyFrom(next);
    }
    (void)matcher.canFinish(cur);
    return 0;
}
