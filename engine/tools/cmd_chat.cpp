// burrow-cli chat -m MODEL [--system TEXT] [--chat-format NAME] [sampling
// options]: an interactive terminal chat with the model's chat template (or
// its fallback format, or the format --chat-format names). Each turn the
// prompt is built with burrow::buildChatPrompt (the whole conversation,
// oldest exchanges left out when it outgrows the context minus the room for
// the reply) and the session reuses the KV cache for the part it has already
// seen, so only the new turn is computed. Replies stream to stdout; the
// model's reasoning (think / analysis) is shown faint on a terminal, or goes
// to stderr when stdout is not one; prompts and notices go to stderr. Ctrl+C
// cancels the prompt or the reply (exit status 130, see cli_interrupt.h).
#include "cli_args.h"
#include "cli_command.h"
#include "cli_interrupt.h"

#include "burrow/engine.h"

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace burrow::cli;

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli chat -m MODEL [--system TEXT] [--chat-format NAME] [-n N] [--temp T]\n"
                 "                       [--top-k K] [--top-p P] [--min-p P] [--repeat-penalty R] [--seed S]\n"
                 "                       [-t THREADS] [-c CTX]\n\n"
                 "Chats with MODEL in the terminal, using the model's chat template (or the\n"
                 "fallback format chosen for it, or the format --chat-format names). It says\n"
                 "which format it uses. Type a message and press Enter; end a line\n"
                 "with \\ to continue the message on the next line. Replies stream to stdout;\n"
                 "the model's reasoning is shown faint (to stderr when stdout is not a terminal).\n"
                 "When the conversation outgrows the context, the oldest exchanges are left out.\n"
                 "Ctrl+C stops the prompt or the reply: \"cancelled\" and the timings so far go\n"
                 "to stderr and the exit status is 130 (a second Ctrl+C exits at once).\n\n"
                 "commands:\n"
                 "  /reset                  forget the conversation (the system prompt stays)\n"
                 "  /exit                   quit (so does end of input, Ctrl-D)\n\n"
                 "options:\n"
                 "  -m, --model MODEL       the .gguf file\n"
                 "  --system TEXT           a system prompt\n"
                 "  --chat-format NAME      auto (default: the model's template, or a format picked\n"
                 "                          for it), chatml, llama2, llama3, gemma, phi3, mistral, zephyr\n"
                 "  -n, --n-predict N       at most N tokens per reply (default -1: until the turn ends;\n"
                 "                          a quarter of the context is kept free for the reply)\n"
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
                 "  -h, --help              show this help\n\n"
                 "exit status: 0 ok, 1 failed (message on stderr), 2 usage error, 130 cancelled (Ctrl+C)\n",
                 kCacheTypeHelp, kSpeculativeHelp);
}

// One message from stdin: a line, continued while it ends with a backslash.
// False at end of input.
bool readMessage(std::string &out)
{
    out.clear();
    std::string line;
    std::fputs("> ", stderr);
    std::fflush(stderr);
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (!line.empty() && line.back() == '\\') {
            line.pop_back();
            out += line + "\n";
            std::fputs(". ", stderr);
            std::fflush(stderr);
            continue;
        }
        out += line;
        return true;
    }
    return !out.empty();
}

int runChat(const std::vector<std::string> &args)
{
    std::string modelPath, system, chatFormat = "auto";
    GenerationOptions gen;
    ArgReader reader("chat", args);
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
        } else if (a == "--system") {
            if (!reader.value(&v)) return 2;
            system = v;
        } else if (a == "--chat-format") {
            if (!reader.value(&v)) return 2;
            if (!checkChatFormatName("chat", v)) return 2;
            chatFormat = v;
        } else {
            std::fprintf(stderr, "burrow-cli chat: unknown option '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        }
    }
    if (modelPath.empty()) {
        std::fprintf(stderr, "burrow-cli chat: -m MODEL is required\n");
        printHelp(stderr);
        return 2;
    }
    if (!checkGenerationOptions("chat", &gen))
        return 2;
    installInterruptHandler();   // Ctrl+C while loading or waiting for input ends at once
    std::shared_ptr<burrow::Model> model;
    std::unique_ptr<burrow::Session> session;
    if (!openModelSession("chat", modelPath, gen, &model, &session))
        return 1;

    std::vector<burrow::ChatMessage> conversation;
    if (!system.empty())
        conversation.push_back({"system", system, {}, {}});
    // Name the format up front.
    {
        auto format = burrow::chatFormatFor(*model, chatFormat, false);
        if (!format) {
            std::fprintf(stderr, "burrow-cli chat: %s\n", format.message().c_str());
            return 1;
        }
        std::fprintf(stderr, "burrow-cli chat: %s, chat format: %s, context %u tokens. /reset forgets, /exit quits.\n",
                     model->info().name.c_str(), format->name.c_str(), session->contextSize());
    }
    // Room kept for the reply: -n tokens, else a quarter of the context; at
    // most half of it.
    const uint32_t context = session->contextSize();
    const uint32_t wanted = gen.n > 0 ? static_cast<uint32_t>(std::min<long>(gen.n, context)) : context / 4;
    const uint32_t reserve = std::max<uint32_t>(1, std::min(wanted, context / 2));
    const bool reasoningToTerminal = isatty(STDOUT_FILENO) != 0;

    std::string input;
    while (readMessage(input)) {
        if (input == "/exit" || input == "/quit")
            break;
        if (input == "/reset") {
            conversation.resize(system.empty() ? 0 : 1);
            session->reset();
            std::fprintf(stderr, "(conversation forgotten)\n");
            continue;
        }
        if (input.empty())
            continue;
        conversation.push_back({"user", input, {}, {}});
        burrow::PromptOptions promptOptions;
        promptOptions.render.chatFormat = chatFormat;
        promptOptions.budget = context > reserve ? context - reserve : 1;
        auto prompt = burrow::buildChatPrompt(*model, conversation, promptOptions);
        if (!prompt) {
            std::fprintf(stderr, "burrow-cli chat: %s\n", prompt.message().c_str());
            conversation.pop_back();
            continue;
        }
        if (prompt->droppedMessages > 0)
            std::fprintf(stderr, "(%zu earlier messages left out to fit the context)\n", prompt->droppedMessages);
        burrow::GenerateOptions go;
        go.maxTokens = static_cast<int32_t>(gen.n);
        go.speculative = gen.speculative;
        go.stopStrings = prompt->format.stopStrings;
        go.overflow = burrow::ContextOverflow::CONTEXT_OVERFLOW_STOP;
        go.nKeep = prompt->keepTokens;
        go.reasoning = prompt->reasoning;
        go.onReasoning = [reasoningToTerminal](std::string_view piece) {
            if (reasoningToTerminal) {
                std::fprintf(stdout, "\x1b[2m%.*s\x1b[22m", static_cast<int>(piece.size()), piece.data());
                std::fflush(stdout);
            } else {
                std::fwrite(piece.data(), 1, piece.size(), stderr);
            }
            return true;
        };
        burrow::GenerateResult result;
        bool interrupted = false;
        const burrow::Status s =
            generateInterruptible(*session, prompt->tokens, gen.sampling, go, &result, &interrupted);
        if (!s) {
            std::fprintf(stderr, "burrow-cli chat: %s (/reset starts over)\n", s.message().c_str());
            conversation.pop_back();
            continue;
        }
        if (interrupted)
            return reportInterrupted("chat", result.timings);
        conversation.push_back({"assistant", result.text, result.reasoning, {}});
        const burrow::Timings &t = result.timings;
        std::fprintf(stderr, "[prompt %d tokens, %d reused from the cache; reply %d tokens, %.1f tokens/s%s]\n",
                     t.promptTokens, t.reusedTokens, t.generatedTokens, t.generateTokensPerSecond(),
                     result.stopReason == burrow::StopReason::STOP_REASON_CONTEXT_FULL ? "; context full, /reset" : "");
    }
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(chat, "chat", "interactive chat in the terminal with the model's template", runChat);
