// burrow-cli run -m MODEL -p PROMPT [options]: generates text from a prompt,
// streaming it to stdout as it is produced; timings go to stderr. Ctrl+C
// cancels the prompt or the reply (exit status 130, see cli_interrupt.h).
#include "cli_args.h"
#include "cli_command.h"
#include "cli_interrupt.h"

#include "burrow/engine.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace burrow::cli;

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli run -m MODEL -p PROMPT [-n N] [--temp T] [--top-k K] [--top-p P]\n"
                 "                      [--min-p P] [--repeat-penalty R] [--seed S] [-t THREADS] [-c CTX]\n"
                 "                      [-fa on|off] [-ctk f16|q8_0 -ctv f16|q8_0]\n\n"
                 "Generates a continuation of PROMPT and streams it to stdout (the prompt is\n"
                 "printed first). Timings (prompt and generation tokens/s) go to stderr.\n"
                 "Ctrl+C stops the prompt or the reply: \"cancelled\" and the timings so far go\n"
                 "to stderr and the exit status is 130 (a second Ctrl+C exits at once).\n\n"
                 "options:\n"
                 "  -m, --model MODEL       the .gguf file\n"
                 "  -p, --prompt TEXT       the prompt (BOS added as the vocabulary says)\n"
                 "  -n, --n-predict N       tokens to generate (default -1: until end of\n"
                 "                          generation; the context shifts when it fills)\n"
                 "  --temp T                temperature (default 0.8; 0 = greedy)\n"
                 "  --top-k K               top-k (default 40; 0 = off)\n"
                 "  --top-p P               top-p (default 0.95; 1 = off)\n"
                 "  --min-p P               min-p (default 0.05; 0 = off)\n"
                 "  --repeat-penalty R      repetition penalty over the last 64 tokens (default 1 = off)\n"
                 "  --seed S                random seed (default: random)\n"
                 "  -t, --threads N         threads (default: the physical cores)\n"
                 "  -c, --ctx-size N        context size (default 4096, at most the model's)\n"
                 "  -fa, --flash-attn on|off  attention as the reference with or without flash attention\n"
                 "%s%s"
                 "  --no-display-prompt     do not print the prompt\n"
                 "  -h, --help              show this help\n\n"
                 "exit status: 0 ok, 1 failed (message on stderr), 2 usage error, 130 cancelled (Ctrl+C)\n",
                 kCacheTypeHelp, kSpeculativeHelp);
}

int runRun(const std::vector<std::string> &args)
{
    std::string modelPath, prompt;
    bool havePrompt = false, displayPrompt = true;
    GenerationOptions gen;
    ArgReader reader("run", args);
    while (reader.next()) {
        const std::string &a = reader.option();
        std::string v;
        if (const int read = readGenerationOption(reader, &gen); read != 0) {
            if (read < 0)
                return 2;
            continue;
        }
        if (a == "-h" || a == "--help") {
            printHelp(stdout);
            return 0;
        } else if (a == "-m" || a == "--model") {
            if (!reader.value(&v)) return 2;
            modelPath = v;
        } else if (a == "-p" || a == "--prompt") {
            if (!reader.value(&v)) return 2;
            prompt = v;
            havePrompt = true;
        } else if (a == "--no-display-prompt") {
            displayPrompt = false;
        } else {
            std::fprintf(stderr, "burrow-cli run: unknown option '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        }
    }
    if (modelPath.empty() || !havePrompt) {
        std::fprintf(stderr, "burrow-cli run: -m MODEL and -p PROMPT are required\n");
        printHelp(stderr);
        return 2;
    }
    if (!checkGenerationOptions("run", &gen))
        return 2;
    installInterruptHandler();   // Ctrl+C while loading ends at once
    std::shared_ptr<burrow::Model> model;
    std::unique_ptr<burrow::Session> session;
    if (!openModelSession("run", modelPath, gen, &model, &session))
        return 1;
    const std::vector<burrow::Token> tokens = model->tokenize(prompt, true, true);
    if (displayPrompt) {
        std::fwrite(prompt.data(), 1, prompt.size(), stdout);
        std::fflush(stdout);
    }
    burrow::GenerateOptions go;
    go.maxTokens = static_cast<int32_t>(gen.n);
    go.speculative = gen.speculative;
    burrow::GenerateResult result;
    bool interrupted = false;
    const burrow::Status s = generateInterruptible(*session, tokens, gen.sampling, go, &result, &interrupted);
    if (!s) {
        std::fprintf(stderr, "burrow-cli run: %s\n", s.message().c_str());
        return 1;
    }
    if (interrupted)
        return reportInterrupted("run", result.timings);
    std::fputc('\n', stderr);
    printTimings(result.timings);
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(run, "run", "generate text from a prompt, streamed to stdout", runRun);
