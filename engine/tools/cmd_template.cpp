// burrow-cli template: renders a conversation with a chat template (a model's
// own, a template file, or a built-in format) and prints it exactly.
#include "cli_args.h"
#include "cli_files.h"
#include "cli_command.h"

#include "chat/chat_format.h"
#include "chat/chat_gguf.h"
#include "chat/chat_template.h"
#include "common/json.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <optional>

namespace {

const char *const kUsage =
    "usage: burrow-cli template (-m MODEL | --template FILE | --chat-format NAME) --messages FILE.json\n"
    "                           [--add-generation-prompt] [--bos TEXT] [--eos TEXT]\n"
    "                           [--context FILE.json] [--kwargs JSON] [--now UNIX_SECONDS]\n"
    "                           [--strftime-now TEXT] [--show-format]\n"
    "\n"
    "Renders a conversation with a chat template and prints the text exactly (no\n"
    "newline added).\n"
    "\n"
    "  -m, --model MODEL          use the GGUF model's template and special tokens\n"
    "                             (a known format when it has none or it does not parse)\n"
    "  --template FILE            a Jinja template file\n"
    "  --chat-format NAME         a built-in format: chatml, llama2, llama3, gemma, phi3,\n"
    "                             mistral, zephyr (with -m: instead of the model's template),\n"
    "                             or auto (with -m: the model's own choice); --format is the same\n"
    "  --messages FILE.json       a JSON list of {\"role\": ..., \"content\": ...}; every other\n"
    "                             field a message carries (reasoning_content, thinking,\n"
    "                             tool_calls, ...) reaches the template as written\n"
    "  --add-generation-prompt    end with the header of an assistant turn\n"
    "  --bos TEXT, --eos TEXT     bos_token / eos_token (override the model's)\n"
    "  --context FILE.json        extra template variables (a JSON object, e.g. tools)\n"
    "  --kwargs JSON              template variables as a JSON object on the command line,\n"
    "                             over --context: '{\"enable_thinking\": false}',\n"
    "                             '{\"reasoning_effort\": \"high\"}'\n"
    "  --now UNIX_SECONDS         the time strftime_now() formats (default: now)\n"
    "  --strftime-now TEXT        strftime_now() returns TEXT whatever the format (to\n"
    "                             reproduce fixtures rendered with such a stub)\n"
    "  --show-format              print the format used, why, its stop strings, its reasoning\n"
    "                             syntax and the reasoning variables it reads on stderr\n";

std::string jsonQuoted(const std::string &s)
{
    burrow::json::JsonValue v;
    v.type = burrow::json::JsonType::JSON_TYPE_STRING;
    v.string = s;
    return burrow::json::toJsonString(v);
}

// "; reasoning: think-tags; reads: enable_thinking" for --show-format.
std::string reasoningText(burrow::ReasoningSyntax syntax, bool readsEnableThinking, bool readsReasoningEffort)
{
    const char *name = syntax == burrow::ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS ? "think-tags"
                       : syntax == burrow::ReasoningSyntax::REASONING_SYNTAX_HARMONY  ? "harmony"
                       : syntax == burrow::ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL ? "gemma4-channel"
                                                                                      : "none";
    std::string out = std::string("; reasoning: ") + name;
    std::string reads;
    if (readsEnableThinking)
        reads += "enable_thinking";
    if (readsReasoningEffort)
        reads += std::string(reads.empty() ? "" : ", ") + "reasoning_effort";
    if (!reads.empty())
        out += "; reads: " + reads;
    return out;
}

int runTemplate(const std::vector<std::string> &args)
{
    std::string modelPath, templatePath, formatName, messagesPath, contextPath, kwargsText;
    bool haveKwargs = false;
    std::optional<std::string> bos, eos;
    std::optional<std::time_t> now;
    std::optional<std::string> fixedStrftime;
    bool addGenerationPrompt = false, showFormat = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        auto value = [&](std::string &out) {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "burrow-cli template: %s needs a value\n%s", a.c_str(), kUsage);
                return false;
            }
            out = args[++i];
            return true;
        };
        std::string v;
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (a == "-m" || a == "--model") {
            if (!value(modelPath)) return 2;
        } else if (a == "--template") {
            if (!value(templatePath)) return 2;
        } else if (a == "--format" || a == "--chat-format") {
            if (!value(formatName)) return 2;
        } else if (a == "--messages") {
            if (!value(messagesPath)) return 2;
        } else if (a == "--context") {
            if (!value(contextPath)) return 2;
        } else if (a == "--kwargs") {
            if (!value(kwargsText)) return 2;
            haveKwargs = true;
        } else if (a == "--bos") {
            if (!value(v)) return 2;
            bos = v;
        } else if (a == "--eos") {
            if (!value(v)) return 2;
            eos = v;
        } else if (a == "--now") {
            if (!value(v)) return 2;
            long long t = 0;
            auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), t);
            if (ec != std::errc() || ptr != v.data() + v.size()) {
                std::fprintf(stderr, "burrow-cli template: --now expects seconds since 1970, got '%s'\n", v.c_str());
                return 2;
            }
            now = std::time_t(t);
        } else if (a == "--strftime-now") {
            if (!value(v)) return 2;
            fixedStrftime = v;
        } else if (a == "--add-generation-prompt") {
            addGenerationPrompt = true;
        } else if (a == "--show-format") {
            showFormat = true;
        } else {
            std::fprintf(stderr, "burrow-cli template: unknown option '%s'\n%s", a.c_str(), kUsage);
            return 2;
        }
    }
    const int sources = int(!modelPath.empty()) + int(!templatePath.empty());
    if (sources > 1 || (sources == 0 && formatName.empty()) || (!templatePath.empty() && !formatName.empty())) {
        std::fprintf(stderr, "burrow-cli template: give one of -m MODEL, --template FILE or --format NAME\n%s", kUsage);
        return 2;
    }
    if (messagesPath.empty()) {
        std::fprintf(stderr, "burrow-cli template: --messages FILE.json is required\n%s", kUsage);
        return 2;
    }
    std::optional<burrow::chat::ChatFormatKind> forced;
    bool autoFormat = false;   // --chat-format auto: the model's own choice
    if (!formatName.empty()) {
        std::string lowered = formatName;
        for (char &c : lowered)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        autoFormat = lowered == "auto";
        if (autoFormat && modelPath.empty()) {
            std::fprintf(stderr, "burrow-cli template: --chat-format auto needs -m MODEL\n%s", kUsage);
            return 2;
        }
        if (!autoFormat) {
            forced = burrow::chat::chatFormatFromName(formatName);
            if (!forced || (*forced == burrow::chat::ChatFormatKind::CHAT_FORMAT_KIND_MODEL && modelPath.empty())) {
                std::fprintf(stderr, "burrow-cli template: unknown chat format '%s' (expected one of: %s)\n",
                             formatName.c_str(), burrow::cli::chatFormatNamesText().c_str());
                return 2;
            }
        }
    }

    std::string messagesText;
    if (!burrow::cli::readWholeFile(messagesPath, messagesText)) {
        std::fprintf(stderr, "burrow-cli template: cannot read %s\n", messagesPath.c_str());
        return 1;
    }
    auto messages = burrow::json::parseJson(messagesText, messagesPath);
    if (!messages) {
        std::fprintf(stderr, "burrow-cli template: %s\n", messages.message().c_str());
        return 1;
    }
    burrow::chat::ChatTemplateInputs inputs;
    inputs.addGenerationPrompt = addGenerationPrompt;
    if (now)
        inputs.render.clock = [t = *now] { return t; };
    inputs.render.fixedStrftime = fixedStrftime;
    if (!contextPath.empty()) {
        std::string text;
        if (!burrow::cli::readWholeFile(contextPath, text)) {
            std::fprintf(stderr, "burrow-cli template: cannot read %s\n", contextPath.c_str());
            return 1;
        }
        auto context = burrow::json::parseJson(text, contextPath);
        if (!context) {
            std::fprintf(stderr, "burrow-cli template: %s\n", context.message().c_str());
            return 1;
        }
        if (!context->isObject()) {
            std::fprintf(stderr, "burrow-cli template: %s: expected a JSON object of variables\n", contextPath.c_str());
            return 1;
        }
        inputs.extraContext = std::move(*context);
    }
    if (haveKwargs) {
        auto kwargs = burrow::chat::templateKwargs(kwargsText);
        if (!kwargs) {
            std::fprintf(stderr, "burrow-cli template: --kwargs: %s\n", kwargs.message().c_str());
            return 1;
        }
        if (!inputs.extraContext.isObject())
            inputs.extraContext = std::move(*kwargs);
        else
            for (auto &[k, v] : kwargs->object) {
                bool replaced = false;
                for (auto &[ck, cv] : inputs.extraContext.object)
                    if (ck == k) {
                        cv = v;
                        replaced = true;
                    }
                if (!replaced)
                    inputs.extraContext.object.emplace_back(k, std::move(v));
            }
    }

    burrow::chat::ChatTemplate chatTemplate;
    std::string formatLine;
    if (!modelPath.empty()) {
        auto facts = burrow::chat::readChatFacts(modelPath);
        if (!facts) {
            std::fprintf(stderr, "burrow-cli template: %s\n", facts.message().c_str());
            return 1;
        }
        auto formatInputs = facts->formatInputs();
        formatInputs.forced = forced;
        auto choice = burrow::chat::chooseChatFormat(formatInputs);
        if (!choice) {
            std::fprintf(stderr, "burrow-cli template: %s\n", choice.message().c_str());
            return 1;
        }
        inputs.specialTokens = facts->specialTokens;
        chatTemplate = std::move(choice->chatTemplate);
        std::string stops;
        for (const auto &s : choice->stopStrings)
            stops += (stops.empty() ? "" : ", ") + jsonQuoted(s);
        formatLine = "format: " + choice->name + " (" + choice->reason + "); stop strings: [" + stops + "]" +
                     reasoningText(choice->reasoning, choice->readsEnableThinking, choice->readsReasoningEffort);
        if (choice->kind != burrow::chat::ChatFormatKind::CHAT_FORMAT_KIND_MODEL && !showFormat)
            std::fprintf(stderr, "burrow-cli template: %s\n", formatLine.c_str());
    } else {
        std::string text, name;
        if (!templatePath.empty()) {
            if (!burrow::cli::readWholeFile(templatePath, text)) {
                std::fprintf(stderr, "burrow-cli template: cannot read %s\n", templatePath.c_str());
                return 1;
            }
            name = templatePath;
            formatLine = "format: template file " + templatePath;
        } else {
            text = std::string(burrow::chat::builtinTemplateText(*forced));
            name = std::string("built-in ") + burrow::chat::chatFormatName(*forced) + " template";
            formatLine = std::string("format: ") + burrow::chat::chatFormatName(*forced) + " (built-in)";
        }
        auto parsed = burrow::chat::ChatTemplate::parse(text, name);
        if (!parsed) {
            std::fprintf(stderr, "burrow-cli template: %s\n", parsed.message().c_str());
            return 1;
        }
        chatTemplate = std::move(*parsed);
        if (!templatePath.empty())
            formatLine += reasoningText(burrow::chat::reasoningSyntaxOf(chatTemplate.source()),
                                        chatTemplate.readsVariable("enable_thinking"),
                                        chatTemplate.readsVariable("reasoning_effort"));
    }
    auto setToken = [&](const std::string &name, const std::optional<std::string> &value) {
        if (!value)
            return;
        for (auto &[n, text] : inputs.specialTokens)
            if (n == name) {
                text = *value;
                return;
            }
        inputs.specialTokens.emplace_back(name, *value);
    };
    setToken("bos_token", bos);
    setToken("eos_token", eos);
    if (showFormat)
        std::fprintf(stderr, "%s\n", formatLine.c_str());

    auto rendered = chatTemplate.apply(*messages, inputs);
    if (!rendered) {
        std::fprintf(stderr, "burrow-cli template: %s\n", rendered.message().c_str());
        return 1;
    }
    std::fwrite(rendered->data(), 1, rendered->size(), stdout);
    std::fflush(stdout);
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(template_, "template", "render a conversation with a chat template", runTemplate);
