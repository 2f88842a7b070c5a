// burrow-cli quantize IN.gguf OUT.gguf TYPE [-t THREADS] [-q]: writes a copy of
// a model with its matrices quantized to TYPE, with the reference engine's
// per-tensor mix (engine/src/model/quant_mix.h). The input may be F32, F16,
// BF16 or already quantized (tensors are dequantized first). The output is
// written to OUT.gguf.part and renamed when complete.
#include "cli_command.h"

#include "model/quantize_model.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli quantize IN.gguf OUT.gguf TYPE [-t THREADS] [-q]\n\n"
                 "Writes OUT.gguf: IN.gguf with its matrices converted to TYPE, using the\n"
                 "reference engine's per-tensor mix (llama-quantize without an importance\n"
                 "matrix). 1-D tensors (norms, biases) are copied unchanged; metadata is\n"
                 "copied with general.file_type set to TYPE.\n\n"
                 "TYPE:\n");
    for (const burrow::model::QuantFileType &ft : burrow::model::quantFileTypes())
        std::fprintf(out, "  %-8s %s\n", ft.name, ft.summary);
    std::fprintf(out,
                 "\noptions:\n"
                 "  -t, --threads N   threads (default: all hardware threads)\n"
                 "  -q, --quiet       no line per tensor\n"
                 "  -h, --help        show this help\n\n"
                 "exit status: 0 ok, 1 failed (message on stderr), 2 usage error\n");
}

int runQuantize(const std::vector<std::string> &args)
{
    std::vector<std::string> positional;
    long threads = 0;
    bool quiet = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (a == "-h" || a == "--help") {
            printHelp(stdout);
            return 0;
        } else if (a == "-q" || a == "--quiet") {
            quiet = true;
        } else if (a == "-t" || a == "--threads") {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "burrow-cli quantize: %s needs a value\n", a.c_str());
                return 2;
            }
            const std::string &v = args[++i];
            char *end = nullptr;
            threads = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || !end || *end != '\0' || threads < 1 || threads > 256) {
                std::fprintf(stderr, "burrow-cli quantize: %s expects a number of threads (1-256), got '%s'\n",
                             a.c_str(), v.c_str());
                return 2;
            }
        } else if (a.size() > 1 && a[0] == '-') {
            std::fprintf(stderr, "burrow-cli quantize: unknown option '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        } else {
            positional.push_back(a);
        }
    }
    if (positional.size() != 3) {
        std::fprintf(stderr, "burrow-cli quantize: expected IN.gguf OUT.gguf TYPE, got %zu argument%s\n",
                     positional.size(), positional.size() == 1 ? "" : "s");
        printHelp(stderr);
        return 2;
    }
    const std::string &in = positional[0], &out = positional[1], &typeName = positional[2];
    const burrow::model::QuantFileType *ft = burrow::model::findQuantFileType(typeName);
    if (!ft) {
        std::fprintf(stderr, "burrow-cli quantize: unknown type '%s', expected one of: %s\n", typeName.c_str(),
                     burrow::model::quantFileTypeNames().c_str());
        return 2;
    }
    if (in == out) {
        std::fprintf(stderr, "burrow-cli quantize: IN and OUT are the same file ('%s')\n", in.c_str());
        return 2;
    }

    burrow::model::QuantizeOptions options;
    options.threads = static_cast<int>(threads);
    if (!quiet) {
        options.onTensor = [](const burrow::model::QuantizedTensorReport &r) {
            std::printf("[%4d/%4d] %-32s %-6s -> %-6s %9.3f MiB -> %9.3f MiB%s\n", r.index + 1, r.count,
                        r.name.c_str(), burrow::ggmlTypeName(r.from).c_str(), burrow::ggmlTypeName(r.to).c_str(),
                        static_cast<double>(r.bytesIn) / (1024.0 * 1024.0),
                        static_cast<double>(r.bytesOut) / (1024.0 * 1024.0), r.converted ? "" : " (copied)");
            std::fflush(stdout);
        };
    }
    auto summary = burrow::model::quantizeModelFile(in, out, *ft, options);
    if (!summary) {
        std::fprintf(stderr, "burrow-cli quantize: %s\n", summary.message().c_str());
        return 1;
    }
    const auto &s = summary.value();
    std::printf("%s: %d tensors (%d converted), %.2f MiB -> %.2f MiB of tensor data, type %s\n", out.c_str(),
                s.tensors, s.converted, static_cast<double>(s.bytesIn) / (1024.0 * 1024.0),
                static_cast<double>(s.bytesOut) / (1024.0 * 1024.0), ft->name);
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(quantize, "quantize", "write a copy of a model quantized to Q8_0, Q4_0, Q4_K_M, ...", runQuantize);
