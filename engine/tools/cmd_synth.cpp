// burrow-cli synth [--preset NAME] [--arch ARCH] [shape options] [--type TYPE]
// [--seed N] -o FILE.gguf: writes a random-weight model of any supported
// architecture and shape (engine/src/model/synthetic_model.h), for tests and
// benchmarks (scripts/make-models.sh).
#include "cli_command.h"
#include "cli_files.h"

#include "burrow/engine.h"
#include "model/synthetic_model.h"

#include <chrono>
#include <ctime>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

using burrow::model::SyntheticPreset;
using burrow::model::SyntheticShape;
using burrow::model::SyntheticSpec;

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli synth [--preset NAME] [--arch ARCH] [shape options] [--type TYPE]\n"
                 "                        [--seed N] [-t THREADS] [-q] (-o FILE.gguf | --dry-run)\n\n"
                 "Writes a model with random weights (N(0, 0.02); norms around 1) of the given\n"
                 "architecture and shape, with an SPM vocabulary and the tensor types of a real\n"
                 "TYPE download (the reference's per-tensor mix). For tests and benchmarks:\n"
                 "its output is noise. The file is written to FILE.gguf.part and renamed.\n\n"
                 "options:\n"
                 "  --preset NAME        start from a named shape (below); later options change it\n"
                 "  --arch ARCH          architecture: llama, qwen2, phi3, gemma2, qwen3, qwen3moe,\n"
                 "                       gemma3, gpt-oss, qwen35, qwen35moe, gemma4 (required without --preset)\n"
                 "  --embd N             embedding length\n"
                 "  --layers N           layers\n"
                 "  --heads N            attention heads\n"
                 "  --kv-heads N         key/value heads (divides --heads)\n"
                 "  --head-dim N         size of one head (default embd / heads)\n"
                 "  --ffn N              feed-forward length of the dense layers\n"
                 "  --experts N          experts per layer (qwen3moe, gpt-oss; gemma4: beside a dense FFN)\n"
                 "  --experts-used N     experts each token runs\n"
                 "  --expert-ffn N       feed-forward length of one expert\n"
                 "  --shared-expert-ffn N  feed-forward length of the shared expert (qwen35moe)\n"
                 "  --ssm-state N        Gated DeltaNet head size (qwen35, qwen35moe)\n"
                 "  --ssm-key-heads N    Gated DeltaNet key heads\n"
                 "  --ssm-value-heads N  Gated DeltaNet value heads (a multiple of the key heads)\n"
                 "  --attention-interval N  every Nth layer is attention, the others DeltaNet\n"
                 "                       (default 4; 1: all attention; more than the layers: none)\n"
                 "  --mtp N              multi-token-prediction blocks after the layers (qwen35,\n"
                 "                       qwen35moe; 0 or 1): blk.L.nextn.* and nextn_predict_layers\n"
                 "  --vocab N            vocabulary size (>= 8; >= 259 adds byte-fallback tokens)\n"
                 "  --ctx N              trained context length\n"
                 "  --sliding-window N   sliding-window size (gemma2, gemma3, gpt-oss)\n"
                 "  --sliding-pattern N  sliding-window period to write (default: the architecture's;\n"
                 "                       gemma4: layer il slides unless il %% N == N - 1, default 6)\n"
                 "  --head-dim-swa N     gemma4: head size of the sliding layers (--head-dim: the global ones)\n"
                 "  --kv-heads-global N  gemma4: KV heads of the global layers (a per-layer array)\n"
                 "  --per-layer-embd N   gemma4: per-layer input embeddings of N per layer (E2B/E4B)\n"
                 "  --shared-kv-layers N gemma4: the last N layers reuse earlier layers' keys and values\n"
                 "  --double-wide-mlp    gemma4: the shared-KV layers' FFN is twice --ffn\n"
                 "  --v-from-k           gemma4: no attn_v on the global layers (V = K)\n"
                 "  --assistant          write instead the Gemma 4 assistant (gemma4-assistant, the\n"
                 "                       MTP drafter: --spec mtp --draft FILE) that fits the gemma4\n"
                 "                       model the other options describe, with its vocabulary and\n"
                 "                       file type: 4 layers, a quarter of its width\n"
                 "  --tied, --untied     output matrix shared with the embeddings, or its own\n"
                 "  --tensor-scales      add <matrix>.scale and .input_scale tensors (as NVFP4\n"
                 "                       \"scale2\" files carry) beside every layer matrix\n"
                 "  --rope-base F        RoPE frequency base (default: the architecture's)\n"
                 "  --type TYPE          file type (default F32): %s\n"
                 "  --seed N             random seed, 0..2^64-1 (default 1); same seed, same file\n"
                 "  --name TEXT          general.name (default synthetic-ARCH)\n"
                 "  --chat-template FILE write FILE (Jinja, <= 1 MiB) as tokenizer.chat_template\n"
                 "                       (default: none, a base model)\n"
                 "  --token TEXT         an extra vocabulary entry (user-defined, matched whole),\n"
                 "                       e.g. a template's markup \"<|im_start|>\"; repeatable (64 at most)\n"
                 "  --script PIECES      a scripted model (trying the reply display): after the\n"
                 "                       first piece (the prompt's last token) it writes the\n"
                 "                       others in turn. Pieces are vocabulary entries separated\n"
                 "                       by spaces; _x is the word piece \"\u2581x\", \\n the newline\n"
                 "                       byte <0x0A>. Needs --untied. Example (gemma4-tiny):\n"
                 "                       '\\n <|channel> _hmm _let _me _see <channel|> _all _ok <turn|>'\n"
                 "  -o, --output FILE    where to write (required unless --dry-run)\n"
                 "  --dry-run            write nothing; print the file's size in bytes, tensor and\n"
                 "                       parameter counts (\"file_size N\" lines)\n"
                 "  -t, --threads N      threads (default: all hardware threads)\n"
                 "  -q, --quiet          no line per tensor\n"
                 "  -h, --help           show this help\n\n"
                 "presets:\n",
                 burrow::model::quantFileTypeNames().c_str());
    for (const SyntheticPreset &p : burrow::model::syntheticPresets())
        std::fprintf(out, "  %-22s %s\n", p.name, p.summary);
    std::fprintf(out, "\nexit status: 0 ok, 1 failed (message on stderr), 2 usage error\n");
}

bool parseUnsigned(const std::string &text, uint64_t max, uint64_t *out)
{
    if (text.empty() || text[0] == '-' || text[0] == '+')
        return false;
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (!end || *end != '\0' || errno == ERANGE || v > max)
        return false;
    *out = v;
    return true;
}

struct ShapeOption {
    const char *flag;
    uint32_t SyntheticShape::*field;
};

constexpr ShapeOption kShapeOptions[] = {
    {"--embd", &SyntheticShape::nEmbd},
    {"--layers", &SyntheticShape::nLayer},
    {"--heads", &SyntheticShape::nHead},
    {"--kv-heads", &SyntheticShape::nHeadKv},
    {"--head-dim", &SyntheticShape::headDim},
    {"--ffn", &SyntheticShape::nFf},
    {"--experts", &SyntheticShape::nExpert},
    {"--experts-used", &SyntheticShape::nExpertUsed},
    {"--expert-ffn", &SyntheticShape::nFfExp},
    {"--shared-expert-ffn", &SyntheticShape::nFfShexp},
    {"--ssm-state", &SyntheticShape::ssmStateSize},
    {"--ssm-key-heads", &SyntheticShape::ssmGroups},
    {"--ssm-value-heads", &SyntheticShape::ssmHeads},
    {"--attention-interval", &SyntheticShape::attentionInterval},
    {"--mtp", &SyntheticShape::nextnLayers},
    {"--vocab", &SyntheticShape::nVocab},
    {"--ctx", &SyntheticShape::nCtx},
    {"--sliding-window", &SyntheticShape::slidingWindow},
    {"--sliding-pattern", &SyntheticShape::slidingPattern},
    {"--head-dim-swa", &SyntheticShape::headDimSwa},
    {"--kv-heads-global", &SyntheticShape::nHeadKvGlobal},
    {"--per-layer-embd", &SyntheticShape::nEmbdPerLayer},
    {"--shared-kv-layers", &SyntheticShape::sharedKvLayers},
};

int usage(const char *fmt, const std::string &a, const std::string &b = {})
{
    std::fprintf(stderr, "burrow-cli synth: ");
    std::fprintf(stderr, fmt, a.c_str(), b.c_str());
    std::fprintf(stderr, "\n");
    return 2;
}

// --assistant: the spec described the gemma4 model; it becomes that model's
// Gemma 4 assistant (model::assistantSpecFor).
burrow::Status toAssistant(SyntheticSpec &spec)
{
    if (spec.arch != "gemma4")
        return burrow::Status::error("--assistant describes the gemma4 model it drafts for, not " + spec.arch);
    if (burrow::Status s = burrow::model::checkSyntheticSpec(spec); !s)
        return s;
    spec = burrow::model::assistantSpecFor(spec);
    return {};
}

int runSynth(const std::vector<std::string> &args)
{
    // Pass 1: the preset (so the shape options apply on top of it wherever they appear).
    std::string presetName, arch, output;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "-h" || args[i] == "--help") {
            printHelp(stdout);
            return 0;
        }
        if (args[i] == "--preset" && i + 1 < args.size())
            presetName = args[i + 1];
    }
    SyntheticSpec spec;
    spec.arch.clear();
    if (!presetName.empty()) {
        const SyntheticPreset *preset = burrow::model::findSyntheticPreset(presetName);
        if (!preset) {
            std::string names;
            for (const SyntheticPreset &p : burrow::model::syntheticPresets())
                names += (names.empty() ? "" : ", ") + std::string(p.name);
            return usage("unknown preset '%s' (presets: %s)", presetName, names);
        }
        spec.arch = preset->arch;
        spec.shape = preset->shape;
    }

    bool quiet = false, dryRun = false, assistant = false;
    long threads = 0;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        const auto value = [&](std::string *out) {
            if (i + 1 >= args.size())
                return false;
            *out = args[++i];
            return true;
        };
        std::string v;
        if (a == "-q" || a == "--quiet") {
            quiet = true;
            continue;
        }
        if (a == "--dry-run") {
            dryRun = true;
            continue;
        }
        if (a == "--tensor-scales") {
            spec.shape.tensorScales = true;
            continue;
        }
        if (a == "--tied" || a == "--untied") {
            spec.shape.tiedOutput = a == "--tied";
            continue;
        }
        if (a == "--double-wide-mlp") {
            spec.shape.doubleWideMlp = true;
            continue;
        }
        if (a == "--v-from-k") {
            spec.shape.valueFromKeyGlobal = true;
            continue;
        }
        if (a == "--assistant") {
            assistant = true;
            continue;
        }
        if (a.size() < 2 || a[0] != '-')
            return usage("unexpected argument '%s' (the output file goes after -o)", a);
        if (!value(&v))
            return usage("%s needs a value", a);
        bool shapeOption = false;
        for (const ShapeOption &o : kShapeOptions) {
            if (a == o.flag) {
                uint64_t n = 0;
                if (!parseUnsigned(v, 0xffffffffu, &n))
                    return usage("%s expects a number 0..4294967295, got '%s'", a, v);
                spec.shape.*o.field = static_cast<uint32_t>(n);
                shapeOption = true;
            }
        }
        if (shapeOption || a == "--preset")
            continue;
        if (a == "--arch") {
            if (!presetName.empty() && v != spec.arch)
                return usage("--arch %s does not match the preset's architecture (%s)", v, spec.arch);
            spec.arch = v;
        } else if (a == "--type") {
            spec.fileType = v;
        } else if (a == "--seed") {
            uint64_t n = 0;
            if (!parseUnsigned(v, UINT64_MAX, &n))
                return usage("--seed expects a number 0..18446744073709551615, got '%s'", v);
            spec.seed = n;
        } else if (a == "--name") {
            spec.name = v;
        } else if (a == "--token") {
            // An extra vocabulary entry (user-defined: shown, matched whole), e.g. a template's markup.
            spec.extraTokens.push_back(v);
        } else if (a == "--chat-template") {
            // A Jinja file (at most 1 MiB), written as tokenizer.chat_template.
            std::string text;
            if (!burrow::cli::readWholeFile(v, text, size_t(1) << 20)) {
                if (!std::ifstream(v))
                    return usage("--chat-template: cannot open '%s'", v);
                return usage("--chat-template: '%s' is larger than 1 MiB or unreadable", v);
            }
            if (text.empty())
                return usage("--chat-template: '%s' is empty", v);
            spec.chatTemplate = std::move(text);
        } else if (a == "--script") {
            // Space-separated pieces: "_x" is the word piece U+2581 x, "\n" the newline byte token.
            spec.script.clear();
            std::string piece;
            const auto flush = [&] {
                if (piece.empty())
                    return;
                if (piece == "\\n")
                    piece = "<0x0A>";
                else if (piece.size() > 1 && piece[0] == '_')
                    piece = "\xE2\x96\x81" + piece.substr(1);
                spec.script.push_back(piece);
                piece.clear();
            };
            for (char c : v) {
                if (c == ' ')
                    flush();
                else
                    piece += c;
            }
            flush();
            if (spec.script.size() < 2 || spec.script.size() > 4096)
                return usage("--script expects 2..4096 space-separated pieces, got '%s'", v);
        } else if (a == "--rope-base") {
            char *end = nullptr;
            spec.shape.ropeFreqBase = std::strtof(v.c_str(), &end);
            if (v.empty() || !end || *end != '\0' || !(spec.shape.ropeFreqBase > 0.0f))
                return usage("--rope-base expects a positive number, got '%s'", v);
        } else if (a == "-o" || a == "--output") {
            output = v;
        } else if (a == "-t" || a == "--threads") {
            uint64_t n = 0;
            if (!parseUnsigned(v, 256, &n) || n < 1)
                return usage("%s expects a number of threads (1-256), got '%s'", a, v);
            threads = static_cast<long>(n);
        } else {
            std::fprintf(stderr, "burrow-cli synth: unknown option '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        }
    }
    if (spec.arch.empty())
        return usage("%s", "give --arch ARCH or --preset NAME (see --help)");
    if (assistant)
        if (const burrow::Status s = toAssistant(spec); !s)
            return usage("%s", s.message());
    if (output.empty() && !dryRun)
        return usage("%s", "give the output file with -o FILE.gguf (or --dry-run)");
    if (const burrow::Status s = burrow::model::checkSyntheticSpec(spec); !s)
        return usage("%s", s.message());
    if (dryRun) {
        auto planned = burrow::model::planSyntheticModel(spec);
        if (!planned) {
            std::fprintf(stderr, "burrow-cli synth: %s\n", planned.message().c_str());
            return 1;
        }
        std::printf("file_size %" PRIu64 "\ntensors %d\nparameters %" PRIu64 "\n", planned->fileBytes,
                    planned->tensors, planned->parameters);
        for (const auto &[type, count] : planned->tensorTypes)
            std::printf("type %s %d\n", type.c_str(), count);
        return 0;
    }
    spec.threads = static_cast<int>(threads);
    if (!quiet) {
        spec.onTensor = [](const burrow::model::SyntheticTensorReport &r) {
            std::string dims;
            for (int64_t d : r.dims)
                dims += (dims.empty() ? "" : ", ") + std::to_string(d);
            std::printf("[%4d/%4d] %-34s %-7s [%s] %.3f MiB\n", r.index + 1, r.count, r.name.c_str(),
                        burrow::ggmlTypeName(r.type).c_str(), dims.c_str(),
                        static_cast<double>(r.bytes) / (1024.0 * 1024.0));
            std::fflush(stdout);
        };
    }

    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpuStart = std::clock();
    auto written = burrow::model::writeSyntheticModel(spec, output);
    if (!written) {
        std::fprintf(stderr, "burrow-cli synth: %s\n", written.message().c_str());
        return 1;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpuSeconds = static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC;   // all threads
    const auto &s = written.value();
    // The facts as burrow-cli info reads them back.
    auto info = burrow::inspectModel(output);
    if (!info) {
        std::fprintf(stderr, "burrow-cli synth: the file written does not read back: %s\n", info.message().c_str());
        return 1;
    }
    std::printf("%s: %s %s, %d tensors, %" PRIu64 " parameters (%" PRIu64 " active), %.2f MiB, %.1f s (%.1f s CPU)\n",
                output.c_str(), spec.arch.c_str(), info->fileType.c_str(), s.tensors, info->parameterCount,
                info->activeParameterCount, static_cast<double>(s.fileBytes) / (1024.0 * 1024.0), seconds,
                cpuSeconds);
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(synth, "synth", "write a random-weight model of any architecture and shape (tests, benchmarks)",
                   runSynth);
