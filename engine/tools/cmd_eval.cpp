// burrow-cli eval -m MODEL -p PROMPT [-n N] [--json]: what the engine computes
// for a prompt, in the form of ../shared/reference/generation/*.json:
// prompt_tokens (BOS as the vocabulary says), logits_after_prompt (every
// vocabulary logit for the next token) and, with -n, greedy_tokens and
// greedy_text (argmax continuation, stopped at end of generation).
#include "cli_args.h"
#include "cli_command.h"

#include "burrow/engine.h"
#include "common/json.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli eval -m MODEL (-p PROMPT | --prompt-tokens IDS) [-n N] [--json]\n"
                 "                       [-t THREADS] [-c CTX] [-fa on|off] [-ctk T -ctv T]\n\n"
                 "Evaluates PROMPT and prints the logits for the next token; with -n, also the\n"
                 "greedy (argmax) continuation of up to N tokens.\n\n"
                 "options:\n"
                 "  -m, --model MODEL       the .gguf file\n"
                 "  -p, --prompt TEXT       the prompt (tokenized with BOS as the vocabulary says)\n"
                 "  --prompt-tokens IDS     comma-separated token ids instead of -p\n"
                 "  -n N                    greedy tokens to generate (default 0)\n"
                 "  --json                  one JSON object: model, prompt, prompt_tokens,\n"
                 "                          greedy_tokens, greedy_text, logits_after_prompt\n"
                 "  -t, --threads N         threads (default: the physical cores)\n"
                 "  -c, --ctx-size N        context size (default 2048, at most the model's)\n"
                 "  -fa, --flash-attn on|off  attention as the reference computes it with or without\n"
                 "                          flash attention (default on, as the reference)\n"
                 "%s"
                 "  -h, --help              show this help\n\n"
                 "exit status: 0 ok, 1 failed (message on stderr), 2 usage error\n",
                 burrow::cli::kCacheTypeHelp);
}

using burrow::json::jsonString;

// Replaces every byte that is not part of a well-formed UTF-8 sequence by U+FFFD.
std::string validUtf8(const std::string &s)
{
    std::string out;
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        bool ok = len > 0 && i + len <= s.size() && !(len == 2 && c < 0xC2);
        for (size_t k = 1; ok && k < len; ++k)
            ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
        if (ok && len == 3) {
            const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
            ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
        } else if (ok && len == 4) {
            const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
            ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90) && c <= 0xF4;
        }
        if (ok) {
            out.append(s, i, len);
            i += len;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

bool parseInt(const std::string &s, long *out)
{
    char *end = nullptr;
    *out = std::strtol(s.c_str(), &end, 10);
    return !s.empty() && end && *end == '\0';
}

// Token ids separated by commas ("1,403,407").
std::string idList(const std::vector<burrow::Token> &ids)
{
    std::string out;
    for (size_t i = 0; i < ids.size(); ++i) {
        if (i)
            out += ',';
        out += std::to_string(ids[i]);
    }
    return out;
}

// The greedy continuation as the reference's own loop runs it: the prompt
// evaluated once (its logits given), then one token at a time on top of its
// KV cache (evaluate() reuses the cached prefix, so each step runs the one
// new token). generate() on the same session would run the prompt's last
// token again (a cached prompt needs its logits), as a one-query step where
// the reference had it in the prompt's batch: after a prompt of 64 tokens or
// more (the tiled attention) its later steps would differ from the
// reference's by rounding. Stops before an end-of-generation token, after n
// tokens or when the context is full.
burrow::Status greedyContinuation(const burrow::Model &model, burrow::Session &session, std::vector<burrow::Token> running,
                                  std::vector<float> step, long n, std::vector<burrow::Token> *out)
{
    for (long i = 0; i < n; ++i) {
        size_t best = 0;
        for (size_t k = 1; k < step.size(); ++k)
            if (step[k] > step[best])
                best = k;
        const burrow::Token next = static_cast<burrow::Token>(best);
        if (model.isEndOfGeneration(next))
            break;
        out->push_back(next);
        running.push_back(next);
        if (i + 1 == n || running.size() >= session.contextSize())
            break;
        if (burrow::Status s = session.evaluate(running, &step); !s)
            return s;
    }
    return burrow::Status::ok();
}

int runEval(const std::vector<std::string> &args)
{
    std::string modelPath, prompt, tokenList, cacheTypeK = "f16", cacheTypeV = "f16";
    bool havePrompt = false, json = false, flash = true;
    long n = 0, threads = 0, ctx = 2048;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        const auto value = [&](std::string *out) {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "burrow-cli eval: %s needs a value\n", a.c_str());
                return false;
            }
            *out = args[++i];
            return true;
        };
        const auto number = [&](long *out) {
            std::string v;
            if (!value(&v))
                return false;
            if (!parseInt(v, out)) {
                std::fprintf(stderr, "burrow-cli eval: %s expects an integer, got '%s'\n", a.c_str(), v.c_str());
                return false;
            }
            return true;
        };
        if (a == "-h" || a == "--help") {
            printHelp(stdout);
            return 0;
        } else if (a == "-m" || a == "--model") {
            if (!value(&modelPath)) return 2;
        } else if (a == "-p" || a == "--prompt") {
            if (!value(&prompt)) return 2;
            havePrompt = true;
        } else if (a == "--prompt-tokens") {
            if (!value(&tokenList)) return 2;
        } else if (a == "-n" || a == "--n-predict") {
            if (!number(&n)) return 2;
        } else if (a == "-t" || a == "--threads") {
            if (!number(&threads)) return 2;
        } else if (a == "-c" || a == "--ctx-size") {
            if (!number(&ctx)) return 2;
        } else if (a == "-fa" || a == "--flash-attn") {
            std::string v;
            if (!value(&v)) return 2;
            if (!burrow::cli::parseOnOff(v, &flash)) {
                std::fprintf(stderr, "burrow-cli eval: %s expects on or off, got '%s'\n", a.c_str(), v.c_str());
                return 2;
            }
        } else if (burrow::cli::isCacheTypeOption(a)) {
            if (!value(a == "-ctk" || a == "--cache-type-k" ? &cacheTypeK : &cacheTypeV)) return 2;
        } else if (a == "--json") {
            json = true;
        } else {
            std::fprintf(stderr, "burrow-cli eval: unknown option '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        }
    }
    if (modelPath.empty() || (!havePrompt && tokenList.empty())) {
        std::fprintf(stderr, "burrow-cli eval: -m MODEL and -p PROMPT (or --prompt-tokens) are required\n");
        printHelp(stderr);
        return 2;
    }
    if (n < 0 || ctx < 1 || threads < 0) {
        std::fprintf(stderr, "burrow-cli eval: -n, -c and -t must not be negative (and -c at least 1)\n");
        return 2;
    }

    auto model = burrow::Model::load(modelPath);
    if (!model) {
        std::fprintf(stderr, "burrow-cli eval: %s\n", model.message().c_str());
        return 1;
    }
    std::vector<burrow::Token> tokens;
    if (!tokenList.empty()) {
        size_t start = 0;
        while (start <= tokenList.size()) {
            const size_t comma = tokenList.find(',', start);
            const std::string item = tokenList.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            long id = 0;
            if (!parseInt(item, &id) || id < 0 || id > INT32_MAX) {
                std::fprintf(stderr, "burrow-cli eval: --prompt-tokens: '%s' is not a token id\n", item.c_str());
                return 2;
            }
            tokens.push_back(static_cast<burrow::Token>(id));
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
    } else {
        tokens = model.value()->tokenize(prompt, true, true);
    }

    burrow::SessionOptions so;
    so.contextSize = static_cast<uint32_t>(ctx);
    so.threads = static_cast<int32_t>(threads);
    so.flashAttention = flash;
    if (!burrow::cli::parseKvCacheTypes("eval", cacheTypeK, cacheTypeV, &so.kvCacheType))
        return 2;
    auto session = burrow::Session::create(model.value(), so);
    if (!session) {
        std::fprintf(stderr, "burrow-cli eval: %s\n", session.message().c_str());
        return 1;
    }
    std::vector<float> logits;
    if (burrow::Status s = session.value()->evaluate(tokens, &logits); !s) {
        std::fprintf(stderr, "burrow-cli eval: %s\n", s.message().c_str());
        return 1;
    }
    burrow::GenerateResult greedy;
    if (n > 0) {
        if (burrow::Status s = greedyContinuation(*model.value(), *session.value(), tokens, logits, n, &greedy.tokens); !s) {
            std::fprintf(stderr, "burrow-cli eval: %s\n", s.message().c_str());
            return 1;
        }
    }
    std::string greedyText;
    for (burrow::Token t : greedy.tokens)
        greedyText += model.value()->tokenBytes(t);
    greedyText = validUtf8(greedyText);

    const size_t slash = modelPath.find_last_of('/');
    const std::string modelName = slash == std::string::npos ? modelPath : modelPath.substr(slash + 1);
    if (json) {
        std::string out = "{\"model\":" + jsonString(modelName) + ",\"prompt\":" + jsonString(validUtf8(prompt)) +
                          ",\"prompt_tokens\":[";
        out += idList(tokens);
        out += "]";
        if (n > 0) {
            out += ",\"greedy_tokens\":[" + idList(greedy.tokens) + "],\"greedy_text\":" + jsonString(greedyText);
        }
        out += ",\"logits_after_prompt\":[";
        char buf[32];
        for (size_t i = 0; i < logits.size(); ++i) {
            std::snprintf(buf, sizeof buf, "%s%.6g", i ? "," : "", static_cast<double>(logits[i]));
            out += buf;
        }
        out += "]}\n";
        std::fwrite(out.data(), 1, out.size(), stdout);
    } else {
        size_t best = 0;
        for (size_t i = 1; i < logits.size(); ++i)
            if (logits[i] > logits[best])
                best = i;
        std::printf("prompt tokens: %zu\n", tokens.size());
        std::printf("next token: %zu (logit %.4f)\n", best, static_cast<double>(logits[best]));
        if (n > 0)
            std::printf("greedy: %s\n", greedyText.c_str());
    }
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(eval, "eval", "evaluate a prompt: logits and greedy continuation (JSON like the reference)", runEval);
