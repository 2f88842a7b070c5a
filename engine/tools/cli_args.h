// Reading burrow-cli options: one option at a time, its value as text or a
// number (errors printed as "burrow-cli COMMAND: ..."), the generation
// options that `run` and `chat` share, and the --chat-format check that
// `chat` and `template` share.
#pragma once

#include "burrow/engine.h"
#include "chat/chat_format.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace burrow::cli {

class ArgReader {
public:
    ArgReader(const char *command, const std::vector<std::string> &args) : m_command(command), m_args(args) {}

    // Moves to the next option; false after the last one.
    bool next() { return ++m_index < m_args.size(); }
    const std::string &option() const { return m_args[m_index]; }

    // The current option's value (the next argument); false, with a message, when there is none.
    bool value(std::string *out)
    {
        if (m_index + 1 >= m_args.size()) {
            std::fprintf(stderr, "burrow-cli %s: %s needs a value\n", m_command, option().c_str());
            return false;
        }
        const std::string &name = option();
        *out = m_args[++m_index];
        m_lastOption = name;
        return true;
    }
    bool integer(long *out)
    {
        std::string v;
        if (!value(&v))
            return false;
        char *end = nullptr;
        *out = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || !end || *end != '\0') {
            std::fprintf(stderr, "burrow-cli %s: %s expects an integer, got '%s'\n", m_command, m_lastOption.c_str(), v.c_str());
            return false;
        }
        return true;
    }
    bool real(float *out)
    {
        std::string v;
        if (!value(&v))
            return false;
        char *end = nullptr;
        *out = std::strtof(v.c_str(), &end);
        if (v.empty() || !end || *end != '\0') {
            std::fprintf(stderr, "burrow-cli %s: %s expects a number, got '%s'\n", m_command, m_lastOption.c_str(), v.c_str());
            return false;
        }
        return true;
    }

private:
    const char *m_command;
    const std::vector<std::string> &m_args;
    size_t m_index = size_t(-1);
    std::string m_lastOption;
};

// -n, --temp, --top-k, --top-p, --min-p, --repeat-penalty, --seed, -t, -c.
struct GenerationOptions {
    long n = -1;          // tokens to generate (-1: until end of generation)
    long threads = 0;     // 0: all physical cores
    long ctx = 4096;
    long seed = -1;       // -1: random
    bool flashAttention = true;   // -fa on|off
    std::string cacheTypeK = "f16", cacheTypeV = "f16";   // -ctk, -ctv
    burrow::KvCacheType kvCacheType = burrow::KvCacheType::KV_CACHE_F16;   // set by checkGenerationOptions
    burrow::SamplingParams sampling;
    burrow::SpeculativeOptions speculative;   // --spec, --draft-max, --draft (speculative.draftModel)
    bool specGiven = false;                   // --spec was given (else --draft implies --spec draft)
};

// The help lines of --spec / --draft-max / --draft.
inline constexpr const char *kSpeculativeHelp =
    "  --spec auto|mtp|ngram|draft|off  speculative decoding (default auto: the file's\n"
    "                          MTP block where it has one, else n-gram drafts copied\n"
    "                          from the conversation; verified in one pass, the output\n"
    "                          is the same token for token; draft: --draft's guesses;\n"
    "                          mtp or auto with --draft: Gemma 4's assistant file)\n"
    "  --draft MODEL           a smaller .gguf with the same vocabulary that drafts\n"
    "                          (implies --spec draft), or a Gemma 4 model's assistant\n"
    "                          (gemma4-assistant .gguf: its MTP drafter)\n"
    "  --draft-max N           most draft tokens per step (default 8, 0..16; adapts to\n"
    "                          the acceptance, down to none)\n";

// --spec NAME: auto, mtp, ngram, draft, off; false with a message.
inline bool parseSpeculativeMode(const std::string &v, burrow::SpeculativeMode *out)
{
    if (v == "auto")
        *out = burrow::SpeculativeMode::SPECULATIVE_AUTO;
    else if (v == "ngram")
        *out = burrow::SpeculativeMode::SPECULATIVE_NGRAM;
    else if (v == "off")
        *out = burrow::SpeculativeMode::SPECULATIVE_OFF;
    else if (v == "mtp")
        *out = burrow::SpeculativeMode::SPECULATIVE_MTP;
    else if (v == "draft")
        *out = burrow::SpeculativeMode::SPECULATIVE_DRAFT;
    else {
        std::fprintf(stderr, "burrow-cli: --spec expects auto, mtp, ngram, draft or off, got '%s'\n", v.c_str());
        return false;
    }
    return true;
}

// -ctk / --cache-type-k and -ctv / --cache-type-v (the reference's names):
// true when `a` is one of them and its value was read into *k or *v.
inline bool isCacheTypeOption(const std::string &a)
{
    return a == "-ctk" || a == "--cache-type-k" || a == "-ctv" || a == "--cache-type-v";
}
inline bool readCacheTypeOption(ArgReader &args, std::string *k, std::string *v)
{
    const std::string a = args.option();
    return args.value(a == "-ctk" || a == "--cache-type-k" ? k : v);
}

// The KV cache type for -ctk K -ctv V: f16 or q8_0 (case-insensitive), both
// the same (Burrow stores keys and values alike); false with a message.
inline bool parseKvCacheTypes(const char *command, std::string k, std::string v, burrow::KvCacheType *out)
{
    for (std::string *s : {&k, &v})
        for (char &c : *s)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (k != v) {
        std::fprintf(stderr,
                     "burrow-cli %s: -ctk %s and -ctv %s differ; Burrow stores keys and values alike "
                     "(use the same type for both)\n",
                     command, k.c_str(), v.c_str());
        return false;
    }
    if (k == "f16") {
        *out = burrow::KvCacheType::KV_CACHE_F16;
        return true;
    }
    if (k == "q8_0") {
        *out = burrow::KvCacheType::KV_CACHE_Q8_0;
        return true;
    }
    std::fprintf(stderr, "burrow-cli %s: KV cache type '%s' is not supported (expected f16 or q8_0)\n", command,
                 k.c_str());
    return false;
}

// The help lines of -ctk / -ctv (commands that take them print these).
inline constexpr const char *kCacheTypeHelp =
    "  -ctk, --cache-type-k T  KV cache type: f16 (default) or q8_0 (half the memory;\n"
    "                          needs -fa on; -ctv must be the same)\n"
    "  -ctv, --cache-type-v T  the same for values\n";

// "on" / "off" (also 1/0, true/false) for -fa; false when neither.
inline bool parseOnOff(const std::string &v, bool *out)
{
    if (v == "on" || v == "1" || v == "true") {
        *out = true;
        return true;
    }
    if (v == "off" || v == "0" || v == "false") {
        *out = false;
        return true;
    }
    return false;
}

// 1: the current option was a generation option and was read; 0: it is not
// one; -1: its value was bad (message printed).
inline int readGenerationOption(ArgReader &args, GenerationOptions *g)
{
    const std::string a = args.option();
    long k = 0;
    bool ok = true;
    if (a == "-n" || a == "--n-predict")
        ok = args.integer(&g->n);
    else if (a == "--temp")
        ok = args.real(&g->sampling.temperature);
    else if (a == "--top-k") {
        ok = args.integer(&k);
        g->sampling.topK = static_cast<int32_t>(k);
    } else if (a == "--top-p")
        ok = args.real(&g->sampling.topP);
    else if (a == "--min-p")
        ok = args.real(&g->sampling.minP);
    else if (a == "--repeat-penalty")
        ok = args.real(&g->sampling.repeatPenalty);
    else if (a == "--seed")
        ok = args.integer(&g->seed);
    else if (a == "-t" || a == "--threads")
        ok = args.integer(&g->threads);
    else if (a == "-c" || a == "--ctx-size")
        ok = args.integer(&g->ctx);
    else if (isCacheTypeOption(a))
        ok = readCacheTypeOption(args, &g->cacheTypeK, &g->cacheTypeV);
    else if (a == "--spec") {
        std::string v;
        ok = args.value(&v) && parseSpeculativeMode(v, &g->speculative.mode);
        g->specGiven = true;
    } else if (a == "--draft-max") {
        ok = args.integer(&k);
        g->speculative.draftMax = static_cast<int32_t>(std::clamp(k, -1L, 1000L));
    } else if (a == "--draft") {
        ok = args.value(&g->speculative.draftModel);
    }
    else if (a == "-fa" || a == "--flash-attn") {
        std::string v;
        ok = args.value(&v) && parseOnOff(v, &g->flashAttention);
        if (!ok)
            std::fprintf(stderr, "burrow-cli: %s expects on or off\n", a.c_str());
    } else
        return 0;
    return ok ? 1 : -1;
}

// --draft without --spec means --spec draft; --spec draft needs --draft;
// --draft with mtp or auto names Gemma 4's assistant (the engine checks the
// file), with ngram or off it is a usage error; false (message printed).
inline bool checkSpeculativeOptions(const char *command, bool specGiven, burrow::SpeculativeOptions *s)
{
    using burrow::SpeculativeMode;
    if (!s->draftModel.empty() && !specGiven)
        s->mode = SpeculativeMode::SPECULATIVE_DRAFT;
    if (s->mode == SpeculativeMode::SPECULATIVE_DRAFT && s->draftModel.empty()) {
        std::fprintf(stderr, "burrow-cli %s: --spec draft needs --draft MODEL (a smaller model with the same "
                             "vocabulary)\n", command);
        return false;
    }
    if ((s->mode == SpeculativeMode::SPECULATIVE_NGRAM || s->mode == SpeculativeMode::SPECULATIVE_OFF) &&
        !s->draftModel.empty()) {
        std::fprintf(stderr, "burrow-cli %s: --draft MODEL is for --spec draft (or mtp and auto with Gemma 4's "
                             "assistant)\n", command);
        return false;
    }
    return true;
}

// Checks the ranges of the generation options and applies --seed; false
// (message printed) on a usage error.
inline bool checkGenerationOptions(const char *command, GenerationOptions *g)
{
    if (g->ctx < 1 || g->threads < 0 || g->n < -1 || g->seed < -1 || g->seed > 0xFFFFFFFFL) {
        std::fprintf(stderr, "burrow-cli %s: -c must be >= 1, -t >= 0, -n >= -1 and --seed 0..4294967295\n", command);
        return false;
    }
    if (g->seed >= 0)
        g->sampling.seed = static_cast<uint32_t>(g->seed);
    if (g->speculative.draftMax < 0 || g->speculative.draftMax > 16) {
        std::fprintf(stderr, "burrow-cli %s: --draft-max must be 0..16\n", command);
        return false;
    }
    return checkSpeculativeOptions(command, g->specGiven, &g->speculative) &&
           parseKvCacheTypes(command, g->cacheTypeK, g->cacheTypeV, &g->kvCacheType);
}


// With --spec draft: checks the draft model against `model` (the same
// vocabulary) and prints the memory it takes beside it (weights mapped, a
// KV cache of `positions` x `sequences`); false (message printed) when it
// cannot draft for it.
inline bool reportDraftModel(const char *command, const burrow::Model &model, const burrow::SpeculativeOptions &s,
                             uint32_t positions, uint32_t sequences, burrow::KvCacheType type)
{
    if (s.draftModel.empty() || s.mode == burrow::SpeculativeMode::SPECULATIVE_OFF ||
        s.mode == burrow::SpeculativeMode::SPECULATIVE_NGRAM)
        return true;
    auto draft = burrow::checkDraftModel(model, s.draftModel);
    if (!draft) {
        std::fprintf(stderr, "burrow-cli %s: %s\n", command, draft.message().c_str());
        return false;
    }
    const burrow::ModelInfo &d = draft.value();
    if (!d.draftsFor.empty()) {   // Gemma 4's assistant: the model's KV cache, none of its own
        std::fprintf(stderr, "burrow-cli %s: Gemma 4 assistant %s (MTP drafts): %.1f MiB of weights, no KV cache of "
                             "its own\n", command, d.name.c_str(), static_cast<double>(d.fileSize) / (1 << 20));
        return true;
    }
    if (s.mode != burrow::SpeculativeMode::SPECULATIVE_DRAFT) {
        std::fprintf(stderr, "burrow-cli %s: %s is a model of its own, not a Gemma 4 assistant: it drafts with "
                             "--spec draft\n", command, s.draftModel.c_str());
        return false;
    }
    const uint32_t ctx = std::min(positions, d.contextLength);
    const double kv = static_cast<double>(d.kvCacheBytes(ctx, type)) * sequences / (1 << 20);
    std::fprintf(stderr, "burrow-cli %s: draft model %s: %.1f MiB of weights, KV cache %.1f MiB for %u x %u positions\n",
                 command, d.name.c_str(), static_cast<double>(d.fileSize) / (1 << 20), kv, sequences, ctx);
    return true;
}

// Loads `path` and creates a session with the options' context and threads;
// false (message printed) when either fails.
inline bool openModelSession(const char *command, const std::string &path, const GenerationOptions &g,
                             std::shared_ptr<burrow::Model> *model, std::unique_ptr<burrow::Session> *session)
{
    auto loaded = burrow::Model::load(path);
    if (!loaded) {
        std::fprintf(stderr, "burrow-cli %s: %s\n", command, loaded.message().c_str());
        return false;
    }
    burrow::SessionOptions options;
    options.contextSize = static_cast<uint32_t>(g.ctx);
    options.threads = static_cast<int32_t>(g.threads);
    options.flashAttention = g.flashAttention;
    options.kvCacheType = g.kvCacheType;
    auto created = burrow::Session::create(loaded.value(), options);
    if (!created) {
        std::fprintf(stderr, "burrow-cli %s: %s\n", command, created.message().c_str());
        return false;
    }
    // What was allocated (full-attention layers for the whole context,
    // sliding layers for their window).
    const uint64_t kvBytes = loaded.value()->info().kvCacheBytes(created.value()->contextSize(), g.kvCacheType);
    std::fprintf(stderr, "burrow-cli %s: KV cache %s, %.1f MiB for %u positions\n", command,
                 burrow::kvCacheTypeName(g.kvCacheType), static_cast<double>(kvBytes) / (1 << 20),
                 created.value()->contextSize());
    if (!reportDraftModel(command, *loaded.value(), g.speculative, created.value()->contextSize(), 1, g.kvCacheType))
        return false;
    *model = std::move(loaded.value());
    *session = std::move(created.value());
    return true;
}

// The names --chat-format accepts, for messages: "auto, chatml, llama2, ...".
inline std::string chatFormatNamesText()
{
    std::string out;
    for (const std::string &n : burrow::chatFormatNames())
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

// --chat-format NAME: "auto" or a built-in format (case-insensitive; llama-3,
// phi-3, ... too), as burrow::RenderOptions::chatFormat accepts. False, with a
// message listing the names, when it is none of them (checked before the model
// is loaded).
inline bool checkChatFormatName(const char *command, const std::string &name)
{
    std::string lowered = name;
    for (char &c : lowered)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lowered == "auto")
        return true;
    const auto kind = burrow::chat::chatFormatFromName(name);
    if (kind && *kind != burrow::chat::ChatFormatKind::CHAT_FORMAT_KIND_MODEL)
        return true;
    std::fprintf(stderr, "burrow-cli %s: unknown chat format '%s' (expected one of: %s)\n", command, name.c_str(),
                 chatFormatNamesText().c_str());
    return false;
}

} // namespace burrow::cli
