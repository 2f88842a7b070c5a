// burrow-cli chat -m MODEL [--system TEXT] [--chat-format NAME] [sampling
// options]: an interactive terminal chat with the model's chat template (or
// its fallback format, or the format --chat-format names). The
// whole conversation is rendered each turn and the session reuses the KV cache
// for the part it has already seen, so only the new turn is computed. Replies
// stream to stdout; prompts and notices go to stderr.
#include "cli_args.h"
#include "cli_command.h"

#include "burrow/engine.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
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
                 "with \\ to continue the message on the next line. Replies stream to stdout.\n\n"
                 "commands:\n"
                 "  /reset                  forget the conversation (the system prompt stays)\n"
                 "  /exit                   quit (so does end of input, Ctrl-D)\n\n"
                 "options:\n"
                 "  -m, --model MODEL       the .gguf file\n"
                 "  --system TEXT           a system prompt\n"
                 "  --chat-format NAME      auto (default: the model's template, or a format picked\n"
                 "                          for it), chatml, llama2, llama3, gemma, phi3, mistral, zephyr\n"
                 "  -n, --n-predict N       at most N tokens per reply (default -1: until the turn ends)\n"
                 "  --temp T                temperature (default 0.8; 0 = greedy)\n"
                 "  --top-k K               top-k (default 40; 0 = off)\n"
                 "  --top-p P               top-p (default 0.95; 1 = off)\n"
                 "  --min-p P               min-p (default 0.05; 0 = off)\n"
                 "  --repeat-penalty R      repetition penalty over the last 64 tokens (default 1 = off)\n"
                 "  --seed S                random seed (default: random)\n"
                 "  -t, --threads N         threads (default: all cores)\n"
                 "  -c, --ctx-size N        context size (default 4096, at most the model's)\n"
                 "  -h, --help              show this help\n\n"
                 "exit status: 0 ok, 1 failed (message on stderr), 2 usage error\n");
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
    std::shared_ptr<burrow::Model> model;
    std::unique_ptr<burrow::Session> session;
    if (!openModelSession("chat", modelPath, gen, &model, &session))
        return 1;

    std::vector<burrow::ChatMessage> conversation;
    if (!system.empty())
        conversation.push_back({"system", system});
    // Name the format up front (a render of the system prompt alone, or of nothing).
    {
        burrow::RenderOptions probeOptions;
        probeOptions.chatFormat = chatFormat;
        burrow::ChatFormat format;
        auto probe = burrow::renderChat(*model, conversation, probeOptions, &format);
        if (!probe) {
            std::fprintf(stderr, "burrow-cli chat: %s\n", probe.message().c_str());
            return 1;
        }
        std::fprintf(stderr, "burrow-cli chat: %s, chat format: %s, context %u tokens. /reset forgets, /exit quits.\n",
                     model->info().name.c_str(), format.name.c_str(), session->contextSize());
    }

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
        conversation.push_back({"user", input});
        burrow::RenderOptions renderOptions;
        renderOptions.addGenerationPrompt = true;
        renderOptions.chatFormat = chatFormat;
        burrow::ChatFormat format;
        auto prompt = burrow::renderChat(*model, conversation, renderOptions, &format);
        if (!prompt) {
            std::fprintf(stderr, "burrow-cli chat: %s\n", prompt.message().c_str());
            conversation.pop_back();
            continue;
        }
        const std::vector<burrow::Token> tokens = model->tokenize(prompt.value(), true, true);
        burrow::GenerateOptions go;
        go.maxTokens = static_cast<int32_t>(gen.n);
        go.stopStrings = format.stopStrings;
        go.overflow = burrow::ContextOverflow::CONTEXT_OVERFLOW_STOP;
        burrow::GenerateResult result;
        const burrow::Status s = session->generate(
            tokens, gen.sampling, go,
            [](std::string_view piece) {
                std::fwrite(piece.data(), 1, piece.size(), stdout);
                std::fflush(stdout);
                return true;
            },
            &result);
        std::fputc('\n', stdout);
        std::fflush(stdout);
        if (!s) {
            std::fprintf(stderr, "burrow-cli chat: %s (/reset starts over)\n", s.message().c_str());
            conversation.pop_back();
            continue;
        }
        conversation.push_back({"assistant", result.text});
        const burrow::Timings &t = result.timings;
        std::fprintf(stderr, "[prompt %d tokens, %d reused from the cache; reply %d tokens, %.1f tokens/s%s]\n",
                     t.promptTokens, t.reusedTokens, t.generatedTokens, t.generateTokensPerSecond(),
                     result.stopReason == burrow::StopReason::STOP_REASON_CONTEXT_FULL ? "; context full, /reset" : "");
    }
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(chat, "chat", "interactive chat in the terminal with the model's template", runChat);
