// Writes the seed corpus of fuzz_jinja into DIR, inputs of the form
//   TEMPLATE \0 MESSAGES-JSON \0 KWARGS-JSON
// from: every built-in format's template; a few small templates using each
// kind of statement; and, from SHARED (../shared, when given), every
// templates*/cases.json case (its template file, messages and kwargs).
//
// usage: chat_seed_corpus DIR [SHARED]
#include "chat/chat_format.h"
#include "common/json.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace burrow;

namespace {

int g_written = 0;

bool save(const std::string &dir, const std::string &name, const std::string &templateText, const std::string &messages,
          const std::string &kwargs)
{
    const std::string path = dir + "/" + name;
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "chat_seed_corpus: cannot create %s\n", path.c_str());
        return false;
    }
    std::string bytes = templateText;
    bytes += '\0';
    bytes += messages;
    bytes += '\0';
    bytes += kwargs;
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    return std::fclose(f) == 0 && ok && ++g_written;
}

bool readFile(const std::filesystem::path &path, std::string &out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return true;
}

const char *const kConversation =
    R"([{"role": "system", "content": "S"}, {"role": "user", "content": "U"},)"
    R"( {"role": "assistant", "content": "A", "reasoning_content": "R", "tool_calls": [{"function": {"name": "f", "arguments": {"x": 1}}}]},)"
    R"( {"role": "tool", "content": "T", "name": "f"}, {"role": "user", "content": "V"}])";

void generated(const std::string &dir)
{
    for (chat::ChatFormatKind kind : chat::builtinChatFormats())
        save(dir, std::string("builtin-") + chat::chatFormatName(kind) + ".txt", std::string(chat::builtinTemplateText(kind)),
             kConversation, "{}");
    const char *const small[] = {
        "{% for m in messages %}{{ loop.index }}:{{ m.role | upper }}={{ m.content | trim }}{% if not loop.last %}, {% endif %}{% endfor %}",
        "{% set ns = namespace(n=0) %}{% for m in messages if m.role == 'user' %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}",
        "{% macro r(x, d=0) %}{% if d < 3 %}[{{ r(x, d + 1) }}]{% else %}{{ x }}{% endif %}{% endmacro %}{{ r('a') }}",
        "{{ messages | tojson(indent=2) }}{{ messages[0]['content'][::-1] }}{{ (messages | map(attribute='role') | list)[1:] }}",
        "{% if enable_thinking is defined and not enable_thinking %}<think>\n\n</think>\n\n{% endif %}{{ reasoning_effort | default('medium') }}",
        "{%- for m in messages %}{%- if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>{% endif %}"
        "{{ m.content.split('</think>')[-1].lstrip('\\n') }}{% endfor %}{{ raise_exception('done') if messages | length > 9 }}",
        "{% filter upper %}{{ strftime_now('%Y-%m-%d %H:%M') }}{% endfilter %}{{ range(3) | join(',') }}{{ 7 // 2 }}{{ 2 ** 10 }}",
        "<|start|>assistant<|channel|>analysis<|message|>{{ messages[-1].thinking }}<|end|><|start|>assistant<|channel|>final<|message|>",
    };
    int i = 0;
    for (const char *t : small)
        save(dir, "small-" + std::to_string(i++) + ".txt", t, kConversation, R"({"enable_thinking": false, "reasoning_effort": "high"})");
}

void fromShared(const std::string &dir, const std::string &shared)
{
    namespace fs = std::filesystem;
    for (const char *folder : {"templates", "templates-2026"}) {
        const fs::path base = fs::path(shared) / folder;
        std::string text;
        if (!readFile(base / "cases.json", text))
            continue;
        auto doc = json::parseJson(text, "cases.json");
        if (!doc || !doc->find("cases"))
            continue;
        int n = 0;
        for (const json::JsonValue &c : doc->find("cases")->array) {
            const json::JsonValue *file = c.find("template");
            const json::JsonValue *messages = c.find("messages");
            if (!file || !file->isString() || !messages)
                continue;
            std::string templateText;
            if (!readFile(base / file->string, templateText))
                continue;
            const json::JsonValue *kwargs = c.find("kwargs");
            save(dir, std::string(folder) + "-" + std::to_string(n++) + ".txt", templateText, json::toJsonString(*messages),
                 kwargs ? json::toJsonString(*kwargs) : std::string());
        }
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: chat_seed_corpus DIR [SHARED]\n");
        return 2;
    }
    generated(argv[1]);
    if (argc == 3)
        fromShared(argv[1], argv[2]);
    std::printf("chat_seed_corpus: %d files\n", g_written);
    return g_written > 0 ? 0 : 1;
}
