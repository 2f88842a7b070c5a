// burrow-cli models [--json] [--folder DIR]... [--verbose]: the GGUF models
// already on this computer, as the app's library lists them (burrow/library.h):
// the folders of LM Studio, Ollama, GPT4All, Jan, the Hugging Face cache and
// Burrow's own, found from HOME, XDG_*, HF_HOME / HF_HUB_CACHE and
// OLLAMA_MODELS (docs/cli.md lists every place and JSON key).
#include "cli_command.h"
#include "cli_format.h"

#include "burrow/library.h"
#include "common/json.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using burrow::cli::humanBytes;
using burrow::json::jsonString;
namespace lib = burrow::library;

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli models [--json] [--folder DIR]... [--verbose]\n\n"
                 "Lists the GGUF models on this computer: Burrow's models folder and the\n"
                 "folders of LM Studio, Ollama, GPT4All, Jan and the Hugging Face cache\n"
                 "(found from HOME, XDG_DATA_HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME, HF_HOME,\n"
                 "HF_HUB_CACHE and OLLAMA_MODELS), with each model's source, name, family,\n"
                 "size, type and whether Burrow can run it. Files are told by their header;\n"
                 "only headers are read.\n\n"
                 "options:\n"
                 "  --json        print one JSON object (keys documented in docs/cli.md)\n"
                 "  --folder DIR  look in DIR too (any number of times)\n"
                 "  --verbose     also list the places looked in and the files passed over\n"
                 "  -h, --help    show this help\n\n"
                 "exit status: 0 ok (also when nothing is found), 2 usage error\n");
}

const char *runnableId(lib::Runnable r)
{
    switch (r) {
    case lib::Runnable::RUNNABLE_YES: return "yes";
    case lib::Runnable::RUNNABLE_ARCHITECTURE: return "architecture";
    case lib::Runnable::RUNNABLE_SPLIT: return "split";
    case lib::Runnable::RUNNABLE_MISSING_PART: return "missing_part";
    case lib::Runnable::RUNNABLE_SETTINGS: return "settings";
    case lib::Runnable::RUNNABLE_WEIGHTS: return "weights";
    case lib::Runnable::RUNNABLE_TOKENIZER: return "tokenizer";
    }
    return "yes";
}

void printJson(const lib::ScanResult &result)
{
    std::printf("{\n  \"models\": [");
    for (size_t i = 0; i < result.models.size(); ++i) {
        const lib::FoundModel &m = result.models[i];
        std::printf("%s\n    {\n", i ? "," : "");
        std::printf("      \"path\": %s,\n", jsonString(m.path).c_str());
        std::printf("      \"real_path\": %s,\n", jsonString(m.realPath).c_str());
        std::printf("      \"source\": %s,\n", jsonString(lib::sourceId(m.source)).c_str());
        std::printf("      \"source_name\": %s,\n", jsonString(lib::sourceName(m.source)).c_str());
        std::printf("      \"place\": %s,\n", jsonString(m.placePath).c_str());
        std::printf("      \"name\": %s,\n", jsonString(m.name).c_str());
        std::printf("      \"repository\": %s,\n", jsonString(m.repository).c_str());
        std::printf("      \"model_name\": %s,\n", jsonString(m.info.name).c_str());
        std::printf("      \"family\": %s,\n", jsonString(m.info.architecture).c_str());
        std::printf("      \"size_class\": %s,\n", jsonString(m.sizeClass).c_str());
        std::printf("      \"type\": %s,\n", jsonString(m.info.fileType).c_str());
        std::printf("      \"file_size\": %" PRIu64 ",\n", m.totalSize);
        std::printf("      \"parts\": %u,\n", m.partCount);
        std::printf("      \"parameter_count\": %" PRIu64 ",\n", m.info.parameterCount);
        std::printf("      \"context_length\": %u,\n", m.info.contextLength);
        std::printf("      \"modified\": %" PRId64 ",\n", m.modifiedNs / 1000000000);
        std::printf("      \"runnable\": %s,\n", m.canRun() ? "true" : "false");
        std::printf("      \"why_not\": %s,\n", m.canRun() ? "null" : jsonString(m.whyNot).c_str());
        std::printf("      \"why_not_kind\": %s\n", m.canRun() ? "null" : jsonString(runnableId(m.runnable)).c_str());
        std::printf("    }");
    }
    std::printf("%s],\n  \"skipped\": [", result.models.empty() ? "" : "\n  ");
    for (size_t i = 0; i < result.skipped.size(); ++i)
        std::printf("%s\n    {\"path\": %s, \"reason\": %s}", i ? "," : "", jsonString(result.skipped[i].path).c_str(),
                    jsonString(result.skipped[i].reason).c_str());
    std::printf("%s],\n  \"places\": [", result.skipped.empty() ? "" : "\n  ");
    for (size_t i = 0; i < result.places.size(); ++i) {
        const lib::PlaceReport &p = result.places[i];
        std::printf("%s\n    {\"source\": %s, \"path\": %s, \"exists\": %s, \"models\": %u}", i ? "," : "",
                    jsonString(lib::sourceId(p.place.source)).c_str(), jsonString(p.place.path).c_str(),
                    p.exists ? "true" : "false", p.modelCount);
    }
    std::printf("%s]\n}\n", result.places.empty() ? "" : "\n  ");
}

void printText(const lib::ScanResult &result, bool verbose)
{
    // Columns sized to their longest cell.
    struct Row {
        std::string source, name, family, size, type, bytes, runs;
    };
    std::vector<Row> rows;
    rows.push_back({"SOURCE", "NAME", "FAMILY", "SIZE", "TYPE", "FILE SIZE", "RUNS"});
    for (const lib::FoundModel &m : result.models)
        rows.push_back({lib::sourceName(m.source), m.name, m.info.architecture, m.sizeClass,
                        m.info.fileType.empty() ? "?" : m.info.fileType, humanBytes(m.totalSize),
                        m.canRun() ? "yes" : "no: " + m.whyNot});
    size_t w[6] = {};
    for (const Row &r : rows) {
        const std::string *cells[6] = {&r.source, &r.name, &r.family, &r.size, &r.type, &r.bytes};
        for (int c = 0; c < 6; ++c)
            w[c] = std::max(w[c], cells[c]->size());
    }
    size_t runnable = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row &r = rows[i];
        std::printf("%-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", int(w[0]), r.source.c_str(), int(w[1]), r.name.c_str(),
                    int(w[2]), r.family.c_str(), int(w[3]), r.size.c_str(), int(w[4]), r.type.c_str(), int(w[5]),
                    r.bytes.c_str(), r.runs.c_str());
        if (i > 0) {
            const lib::FoundModel &m = result.models[i - 1];
            std::printf("%-*s  %s\n", int(w[0]), "", m.path.c_str());
            runnable += m.canRun() ? 1 : 0;
        }
    }
    std::printf("\n%zu model%s, %zu of them runnable.", result.models.size(), result.models.size() == 1 ? "" : "s",
                runnable);
    if (!result.skipped.empty() && !verbose)
        std::printf(" %zu file%s or folder%s passed over (--verbose lists them).", result.skipped.size(),
                    result.skipped.size() == 1 ? "" : "s", result.skipped.size() == 1 ? "" : "s");
    std::printf("\n");
    if (!verbose)
        return;
    std::printf("\nplaces:\n");
    for (const lib::PlaceReport &p : result.places)
        std::printf("  %-12s %s (%s)\n", lib::sourceName(p.place.source), p.place.path.c_str(),
                    p.exists ? (std::to_string(p.modelCount) + (p.modelCount == 1 ? " model" : " models")).c_str()
                             : "absent");
    if (!result.skipped.empty()) {
        std::printf("\npassed over:\n");
        for (const lib::Skipped &s : result.skipped)
            std::printf("  %s: %s\n", s.path.c_str(), s.reason.c_str());
    }
}

int runModels(const std::vector<std::string> &args)
{
    bool json = false, verbose = false;
    std::vector<std::string> folders;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (a == "--json") {
            json = true;
        } else if (a == "--verbose" || a == "-v") {
            verbose = true;
        } else if (a == "--folder") {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "burrow-cli models: --folder needs a value\n");
                return 2;
            }
            folders.push_back(args[++i]);
        } else if (a == "-h" || a == "--help") {
            printHelp(stdout);
            return 0;
        } else {
            std::fprintf(stderr, "burrow-cli models: unknown option '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        }
    }
    std::vector<lib::Place> places = lib::defaultPlaces(lib::Environment::fromProcess());
    for (const std::string &folder : folders) {
        std::string path = folder;
        if (path.empty() || path[0] != '/') {
            char cwd[4096];
            if (::getcwd(cwd, sizeof cwd))
                path = std::string(cwd) + "/" + path;
        }
        while (path.size() > 1 && path.back() == '/')
            path.pop_back();
        places.push_back(lib::userPlace(path));
    }
    lib::Scanner scanner;
    const lib::ScanResult result = scanner.scan(places);
    if (json)
        printJson(result);
    else
        printText(result, verbose);
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(models, "models", "list the GGUF models on this computer (LM Studio, Ollama, Hugging Face, ...)",
                   runModels);
