// libFuzzer entry point for the chat-template interpreter. The input is
//   TEMPLATE \0 MESSAGES-JSON \0 KWARGS-JSON
// (missing parts: a default conversation, no kwargs). The template is parsed
// and, when it parses, rendered with the messages and kwargs under tight
// render limits: steps, output, items, memory of live values, a wall-clock
// deadline (so each run stays fast and small whatever the template: any
// input that takes long or grows memory is a bug in the bounds, and
// libFuzzer's -timeout and -malloc_limit_mb report it); the format facts (reasoning
// syntax, stop strings, variables read) are derived from it. The rendered
// text and the template text also go through the reasoning splitter, whose
// result must not depend on how the text is cut (one push versus byte by
// byte): a difference traps. A crash, sanitizer report, leak, timeout or trap
// here is a bug.
#include "chat/chat_format.h"
#include "chat/chat_template.h"
#include "chat/reasoning_split.h"
#include "common/json.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace burrow;

namespace {

const char *const kDefaultMessages =
    R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},)"
    R"( {"role": "assistant", "content": "<think>\nx\n</think>\n\nHello", "reasoning_content": "x", "thinking": "x"},)"
    R"( {"role": "user", "content": "Bye"}])";

// Reasoning and answer of `text` split in one push, or byte by byte.
std::pair<std::string, std::string> splitText(ReasoningSyntax syntax, bool startsInReasoning, std::string_view text,
                                              bool byteByByte)
{
    ReasoningOptions options;
    options.syntax = syntax;
    options.startsInReasoning = startsInReasoning;
    chat::ReasoningSplitter splitter(options);
    std::pair<std::string, std::string> out;
    auto take = [&](const std::vector<chat::ReplyPart> &parts) {
        for (const auto &p : parts)
            (p.kind == chat::ReplyPartKind::REPLY_PART_KIND_REASONING ? out.first : out.second) += p.text;
    };
    if (byteByByte)
        for (size_t i = 0; i < text.size(); ++i)
            take(splitter.push(text.substr(i, 1)));
    else
        take(splitter.push(text));
    take(splitter.finish());
    return out;
}

void checkSplitter(std::string_view text)
{
    if (text.size() > 4096)
        text = text.substr(0, 4096);   // byte by byte is quadratic in the held tail at worst
    for (ReasoningSyntax syntax : {ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS, ReasoningSyntax::REASONING_SYNTAX_HARMONY,
                                   ReasoningSyntax::REASONING_SYNTAX_NONE})
        for (bool starts : {false, true}) {
            const auto whole = splitText(syntax, starts, text, false);
            const auto pieces = splitText(syntax, starts, text, true);
            if (whole != pieces)
                __builtin_trap();   // the split depends on the cut
            (void)chat::promptEndsInReasoning(syntax, text);
        }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    const size_t first = input.find('\0');
    const std::string_view templateText = input.substr(0, first);
    std::string_view messagesText = kDefaultMessages, kwargsText;
    if (first != std::string_view::npos) {
        const std::string_view rest = input.substr(first + 1);
        const size_t second = rest.find('\0');
        messagesText = rest.substr(0, second);
        if (second != std::string_view::npos)
            kwargsText = rest.substr(second + 1);
    }

    checkSplitter(templateText);

    // The format facts: any text, parsed or not.
    chat::ChatFormatInputs formatInputs;
    formatInputs.templateText = std::string(templateText);
    formatInputs.eosText = "<|im_end|>";
    formatInputs.vocabHas = [](std::string_view t) { return t == "<|im_start|>" || t == "<|im_end|>"; };
    auto choice = chat::chooseChatFormat(formatInputs);
    if (!choice)
        __builtin_trap();   // a model's template that does not parse falls back; built-ins always parse
    (void)chat::stopStringsFor(templateText, "</s>", "<|eot_id|>");

    auto parsed = chat::ChatTemplate::parse(templateText, "fuzz");
    if (!parsed) {
        if (parsed.message().rfind("fuzz:", 0) != 0)
            __builtin_trap();   // every message names the template
        return 0;
    }
    (void)parsed->readsVariable("enable_thinking");

    json::JsonValue messages;
    if (auto given = json::parseJson(messagesText, "messages"))
        messages = std::move(given.value());
    else if (auto fallback = json::parseJson(kDefaultMessages, "messages"))
        messages = std::move(fallback.value());
    auto kwargs = chat::templateKwargs(kwargsText, std::nullopt, "");

    chat::ChatTemplateInputs inputs;
    inputs.addGenerationPrompt = (size & 1) != 0;
    inputs.specialTokens = {{"bos_token", "<s>"}, {"eos_token", "</s>"}};
    if (kwargs)
        inputs.extraContext = std::move(kwargs.value());
    inputs.render.clock = [] { return std::time_t(1721995200); };
    inputs.render.limits.maxSteps = 200'000;
    inputs.render.limits.maxOutputBytes = size_t(1) << 20;
    inputs.render.limits.maxListItems = 100'000;
    inputs.render.limits.maxCallDepth = 50;
    inputs.render.limits.maxLiveBytes = size_t(32) << 20;
    inputs.render.limits.maxSeconds = 2;
    auto rendered = parsed->apply(messages, inputs);
    if (rendered) {
        if (rendered->size() > inputs.render.limits.maxOutputBytes)
            __builtin_trap();   // the output limit holds
        checkSplitter(*rendered);
    } else if (rendered.message().empty()) {
        __builtin_trap();
    }

    // The typed message path with reasoning and extra fields.
    std::vector<chat::ChatMessage> typed = {{"user", std::string(messagesText.substr(0, 64)), "", ""},
                                            {"assistant", "ok", std::string(kwargsText.substr(0, 64)),
                                             std::string(kwargsText)}};
    (void)parsed->apply(typed, inputs);
    return 0;
}
