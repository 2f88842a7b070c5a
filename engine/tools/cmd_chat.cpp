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
// With --remote URL the model is one an OpenAI-compatible server serves
// (remote_client.h): the same terminal, the server's chat template.
// With --mcp CONFIG the model may call the tools of MCP servers (stdio,
// mcp_client.h): each call is shown and asked about on the terminal
// (y / n / always), or allowed with --mcp-allow-all; its result goes back
// to the model and the reply goes on.
#include "cli_args.h"
#include "cli_command.h"
#include "cli_interrupt.h"
#include "mcp_client.h"
#include "remote_client.h"

#include "burrow/engine.h"
#include "burrow/tool_calls.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sys/stat.h>
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
                 "                       [-t THREADS] [-c CTX]\n"
                 "                       [--mcp CONFIG [--mcp-allow-all]]\n"
                 "       burrow-cli chat --remote URL [--api-key-file F] [--model ID] [--system TEXT] [-n N] [--temp T] ...\n\n"
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
                 "  -m, --model MODEL       the .gguf file (with --remote: the server's model id; default its first)\n"
                 "  --remote URL            chat with a model an OpenAI-compatible server serves (vLLM, llama-server,\n"
                 "                          Ollama's http://HOST:11434/v1, LM Studio, burrow-cli serve): its base URL,\n"
                 "                          http:// only (no path: /v1); plain http to another computer is warned about\n"
                 "  --api-key-file F        the server's API key, the first line of F (a file only you can read: 0600)\n"
                 "  --system TEXT           a system prompt\n"
                 "  --mcp CONFIG            tools from MCP servers: a JSON file {\"mcpServers\": {\"NAME\": {\"command\": ...,\n"
                 "                          \"args\": [...], \"env\": {...}}}} (stdio servers); each call the model makes is\n"
                 "                          shown and asked about: y (run it), n (refuse), a (always run this tool)\n"
                 "  --mcp-allow-all         run every tool call without asking\n"
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

// The API key from `path`'s first line ("" and false with a message when it
// cannot be read); a file others may read is used, with a warning.
bool readKeyFile(const std::string &path, std::string *key)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 4096) {
        std::fprintf(stderr, "burrow-cli chat: --api-key-file %s: not a readable file of at most 4 KiB\n", path.c_str());
        return false;
    }
    if ((st.st_mode & 077) != 0)
        std::fprintf(stderr, "burrow-cli chat: warning: %s can be read by other users (chmod 600 it)\n", path.c_str());
    std::ifstream in(path);
    std::getline(in, *key);
    while (!key->empty() && (key->back() == '\r' || key->back() == ' '))
        key->pop_back();
    if (key->empty() || key->find_first_of(" \t") != std::string::npos) {
        std::fprintf(stderr, "burrow-cli chat: --api-key-file %s: the first line holds no key\n", path.c_str());
        return false;
    }
    return true;
}

// burrow-cli chat --remote: the conversation goes to the server whole each
// turn (its template, its context); replies stream as they arrive.
int runRemoteChat(const std::string &url, const std::string &keyFile, std::string model, const std::string &system,
                  const GenerationOptions &gen)
{
    RemoteUrl target;
    std::string error, key;
    if (!parseRemoteUrl(url, &target, &error)) {
        std::fprintf(stderr, "burrow-cli chat: %s\n", error.c_str());
        return 2;
    }
    if (!keyFile.empty() && !readKeyFile(keyFile, &key))
        return 2;
    if (!target.loopback)
        std::fprintf(stderr, "burrow-cli chat: warning: plain http to %s: your messages%s cross the network unencrypted\n",
                     target.host.c_str(), key.empty() ? "" : " and the API key");
    const RemoteClient client(target, key);
    std::vector<std::string> ids;
    if (!client.listModels(&ids, &error)) {
        std::fprintf(stderr, "burrow-cli chat: %s: %s\n", url.c_str(), error.c_str());
        return 1;
    }
    if (model.empty() && !ids.empty())
        model = ids.front();
    if (std::find(ids.begin(), ids.end(), model) == ids.end()) {
        std::string list;
        for (const std::string &id : ids)
            list += (list.empty() ? "" : ", ") + id;
        std::fprintf(stderr, "burrow-cli chat: the server has no model '%s' (it has: %s)\n", model.c_str(),
                     list.empty() ? "none" : list.c_str());
        return 1;
    }
    std::fprintf(stderr, "burrow-cli chat: %s on %s. /reset forgets, /exit quits.\n", model.c_str(), url.c_str());
    nlohmann::json conversation = nlohmann::json::array();
    if (!system.empty())
        conversation.push_back({{"role", "system"}, {"content", system}});
    const bool reasoningToTerminal = isatty(STDOUT_FILENO) != 0;
    std::string input;
    while (readMessage(input)) {
        if (input == "/exit" || input == "/quit")
            break;
        if (input == "/reset") {
            conversation.erase(conversation.begin() + (system.empty() ? 0 : 1), conversation.end());
            std::fprintf(stderr, "(conversation forgotten)\n");
            continue;
        }
        if (input.empty())
            continue;
        conversation.push_back({{"role", "user"}, {"content", input}});
        auto cancel = std::make_shared<burrow::CancelToken>();
        const InterruptTarget interruptTarget(cancel);
        const RemoteReply reply = client.chat(
            model, conversation.dump(), gen.sampling, gen.n,
            [reasoningToTerminal](const std::string &piece, bool reasoning) {
                if (!reasoning)
                    std::fwrite(piece.data(), 1, piece.size(), stdout);
                else if (reasoningToTerminal)
                    std::fprintf(stdout, "\x1b[2m%s\x1b[22m", piece.c_str());
                else
                    std::fwrite(piece.data(), 1, piece.size(), stderr);
                std::fflush(stdout);
            },
            *cancel);
        std::fputc('\n', stdout);
        if (reply.cancelled) {
            std::fprintf(stderr, "\nburrow-cli chat: cancelled\n");
            return kInterruptedExitCode;
        }
        if (!reply.error.empty()) {
            std::fprintf(stderr, "burrow-cli chat: %s\n", reply.error.c_str());
            conversation.erase(conversation.end() - 1);
            continue;
        }
        conversation.push_back({{"role", "assistant"}, {"content", reply.text}});
        const double ms = reply.lastTokenMs - reply.firstTokenMs;
        if (reply.completionTokens >= 0)
            std::fprintf(stderr, "[prompt %d tokens; reply %d tokens, %.1f tokens/s (the server's counts)%s]\n",
                         reply.promptTokens, reply.completionTokens, ms > 0 ? reply.completionTokens * 1000.0 / ms : 0.0,
                         reply.finishReason == "length" ? "; cut at the token limit" : "");
    }
    return 0;
}

// --mcp: the servers, their tools (OpenAI function tools, the template's
// `tools`), and what the user allowed.
struct ChatTools {
    std::vector<std::unique_ptr<McpStdioClient>> servers;
    nlohmann::json tools = nlohmann::json::array();
    std::vector<size_t> serverOf;   // per tool
    bool allowAll = false;
    std::set<std::string> always;
};

bool startTools(const std::string &config, ChatTools *t)
{
    std::vector<McpServerConfig> configs;
    std::string error;
    if (!readMcpConfig(config, &configs, &error)) {
        std::fprintf(stderr, "burrow-cli chat: --mcp %s\n", error.c_str());
        return false;
    }
    for (McpServerConfig &c : configs) {
        auto client = std::make_unique<McpStdioClient>(std::move(c));
        if (!client->start(&error)) {
            std::fprintf(stderr, "burrow-cli chat: --mcp: %s\n", error.c_str());
            return false;
        }
        std::string names;
        for (const nlohmann::json &tool : client->tools()) {
            const std::string name = tool["name"].get<std::string>();
            names += (names.empty() ? "" : ", ") + name;
            nlohmann::json fn{{"name", name}, {"description", tool.value("description", std::string())},
                              {"parameters", tool.contains("inputSchema") && tool["inputSchema"].is_object()
                                                 ? tool["inputSchema"] : nlohmann::json{{"type", "object"}}}};
            t->tools.push_back({{"type", "function"}, {"function", std::move(fn)}});
            t->serverOf.push_back(t->servers.size());
        }
        std::fprintf(stderr, "burrow-cli chat: tools of %s: %s\n", client->config().name.c_str(),
                     names.empty() ? "none" : names.c_str());
        t->servers.push_back(std::move(client));
    }
    return true;
}

// Asks about one call on the terminal: true to run it.
bool allowCall(ChatTools &t, const burrow::ToolCallRequest &call)
{
    std::fprintf(stderr, "[tool call] %s %s\n", call.name.c_str(), call.argumentsJson.c_str());
    if (t.allowAll || t.always.count(call.name) != 0)
        return true;
    for (;;) {
        std::fprintf(stderr, "run it? [y]es / [n]o / [a]lways for %s: ", call.name.c_str());
        std::fflush(stderr);
        std::string answer;
        if (!std::getline(std::cin, answer))
            return false;
        if (answer == "y" || answer == "yes")
            return true;
        if (answer == "n" || answer == "no")
            return false;
        if (answer == "a" || answer == "always") {
            t.always.insert(call.name);
            return true;
        }
    }
}

// The model's calls and their results into the conversation (an assistant
// turn with tool_calls, then one tool message per call).
void runToolCalls(ChatTools &t, const std::vector<burrow::ToolCallRequest> &calls, const burrow::GenerateResult &result,
                  const burrow::ToolCallReader &reader, std::vector<burrow::ChatMessage> &conversation)
{
    static int callNumber = 0;
    nlohmann::json toolCalls = nlohmann::json::array();
    std::vector<burrow::ChatMessage> results;
    for (const burrow::ToolCallRequest &call : calls) {
        const std::string id = "call_" + std::to_string(++callNumber);
        const nlohmann::json args = nlohmann::json::parse(call.argumentsJson, nullptr, false);
        toolCalls.push_back({{"id", id}, {"type", "function"},
                             {"function", {{"name", call.name},
                                           {"arguments", reader.argumentsAsObject() && args.is_object()
                                                             ? args : nlohmann::json(call.argumentsJson)}}}});
        std::string text;
        size_t tool = 0;
        while (tool < t.tools.size() && t.tools[tool]["function"]["name"] != call.name)
            ++tool;
        if (tool == t.tools.size()) {
            text = "There is no tool called " + call.name + ".";
        } else if (!allowCall(t, call)) {
            text = "The user did not allow this call.";
        } else {
            bool isError = false;
            std::string error;
            if (!t.servers[t.serverOf[tool]]->call(call.name, args.is_object() ? args : nlohmann::json::object(), &text,
                                                   &isError, &error))
                text = error, isError = true;
            if (text.size() > 256 * 1024)
                text = text.substr(0, 256 * 1024) + "\n[the result was cut here]";
        }
        std::fprintf(stderr, "[tool result] %s\n", text.substr(0, 2000).c_str());
        results.push_back({"tool", text, {}, nlohmann::json{{"tool_call_id", id}, {"name", call.name}}.dump()});
    }
    nlohmann::json extra{{"tool_calls", toolCalls}};
    if (result.text.empty() && reader.contentIsNone())
        extra["content"] = nullptr;
    conversation.push_back({"assistant", result.text, result.reasoning, extra.dump()});
    conversation.insert(conversation.end(), results.begin(), results.end());
}

enum class Round { ROUND_DONE, ROUND_AGAIN, ROUND_FAILED, ROUND_INTERRUPTED };

// One reply: the prompt from the whole conversation (with the tools), the
// reply streamed, its tool calls run (ROUND_AGAIN: the reply goes on).
Round chatRound(const burrow::Model &model, burrow::Session &session, const GenerationOptions &gen,
                const std::string &chatFormat, uint32_t budget, bool reasoningToTerminal, ChatTools &tools,
                std::vector<burrow::ChatMessage> &conversation, burrow::Timings *timings)
{
    burrow::PromptOptions promptOptions;
    promptOptions.render.chatFormat = chatFormat;
    promptOptions.budget = budget;
    if (!tools.tools.empty())
        promptOptions.render.kwargsJson = nlohmann::json{{"tools", tools.tools}}.dump();
    auto prompt = burrow::buildChatPrompt(model, conversation, promptOptions);
    if (!prompt) {
        std::fprintf(stderr, "burrow-cli chat: %s\n", prompt.message().c_str());
        return Round::ROUND_FAILED;
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
    // With tools the answer goes through the family's tool-call reader:
    // its content to stdout, its calls kept.
    std::unique_ptr<burrow::ToolCallReader> callReader;
    std::vector<burrow::ToolCallRequest> calls;
    std::string content;
    burrow::TextCallback onText;
    if (!tools.tools.empty()) {
        callReader = std::make_unique<burrow::ToolCallReader>(model.info().chatTemplate, tools.tools.dump());
        go.renderedControlTokens = callReader->controlTokens();
        const auto take = [&](std::vector<burrow::ToolCallPiece> &&pieces) {
            for (burrow::ToolCallPiece &p : pieces) {
                if (p.isCall) {
                    calls.push_back(std::move(p.call));
                } else {
                    content += p.content;
                    std::fwrite(p.content.data(), 1, p.content.size(), stdout);
                    std::fflush(stdout);
                }
            }
            return true;
        };
        onText = [&, take](std::string_view piece) { return take(callReader->pushAnswer(piece)); };
        go.onToolCall = [&, take](std::string_view piece) { return take(callReader->pushToolText(piece)); };
    }
    burrow::GenerateResult result;
    bool interrupted = false;
    const burrow::Status s =
        generateInterruptible(session, prompt->tokens, gen.sampling, go, &result, &interrupted, onText);
    if (!s) {
        std::fprintf(stderr, "burrow-cli chat: %s (/reset starts over)\n", s.message().c_str());
        return Round::ROUND_FAILED;
    }
    if (interrupted) {
        *timings = result.timings;
        return Round::ROUND_INTERRUPTED;
    }
    if (callReader) {
        for (burrow::ToolCallPiece &p : callReader->finish()) {
            if (p.isCall)
                calls.push_back(std::move(p.call));
            else
                content += p.content, std::fwrite(p.content.data(), 1, p.content.size(), stdout);
        }
        result.text = content;
    }
    if (!calls.empty()) {
        runToolCalls(tools, calls, result, *callReader, conversation);
        return Round::ROUND_AGAIN;
    }
    conversation.push_back({"assistant", result.text, result.reasoning, {}});
    const burrow::Timings &t = result.timings;
    std::fprintf(stderr, "[prompt %d tokens, %d reused from the cache; reply %d tokens, %.1f tokens/s%s]\n",
                 t.promptTokens, t.reusedTokens, t.generatedTokens, t.generateTokensPerSecond(),
                 result.stopReason == burrow::StopReason::STOP_REASON_CONTEXT_FULL ? "; context full, /reset" : "");
    return Round::ROUND_DONE;
}

int runChat(const std::vector<std::string> &args)
{
    std::string modelPath, system, chatFormat = "auto", remote, keyFile, mcpConfig;
    bool mcpAllowAll = false;
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
        } else if (a == "--remote") {
            if (!reader.value(&remote)) return 2;
        } else if (a == "--api-key-file") {
            if (!reader.value(&keyFile)) return 2;
        } else if (a == "--mcp") {
            if (!reader.value(&mcpConfig)) return 2;
        } else if (a == "--mcp-allow-all") {
            mcpAllowAll = true;
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
    if (!remote.empty() && !mcpConfig.empty()) {
        std::fprintf(stderr, "burrow-cli chat: --mcp goes with a model file, not --remote\n");
        return 2;
    }
    if (!remote.empty()) {
        if (!checkGenerationOptions("chat", &gen))
            return 2;
        installInterruptHandler();
        return runRemoteChat(remote, keyFile, modelPath, system, gen);
    }
    if (!keyFile.empty()) {
        std::fprintf(stderr, "burrow-cli chat: --api-key-file goes with --remote\n");
        return 2;
    }
    if (modelPath.empty()) {
        std::fprintf(stderr, "burrow-cli chat: -m MODEL is required\n");
        printHelp(stderr);
        return 2;
    }
    if (!checkGenerationOptions("chat", &gen))
        return 2;
    installInterruptHandler();   // Ctrl+C while loading or waiting for input ends at once
    ChatTools tools;
    tools.allowAll = mcpAllowAll;
    if (!mcpConfig.empty() && !startTools(mcpConfig, &tools))
        return 1;
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
        const size_t turnStart = conversation.size() - 1;
        // A reply that calls tools goes on with their results (at most 8 rounds a turn).
        Round round = Round::ROUND_AGAIN;
        for (int n = 0; n < 8 && round == Round::ROUND_AGAIN; ++n) {
            burrow::Timings timings;
            round = chatRound(*model, *session, gen, chatFormat, context > reserve ? context - reserve : 1,
                              reasoningToTerminal, tools, conversation, &timings);
            if (round == Round::ROUND_INTERRUPTED)
                return reportInterrupted("chat", timings);
        }
        if (round == Round::ROUND_FAILED)
            conversation.resize(turnStart);
    }
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(chat, "chat", "interactive chat in the terminal with the model's template", runChat);
