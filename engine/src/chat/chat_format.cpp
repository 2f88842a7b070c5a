// Built-in chat formats (our own Jinja texts reproducing each family's
// published markup) and the fallback choice.
#include "chat/chat_format.h"

#include <algorithm>
#include <cctype>

namespace burrow::chat {

namespace {

// ChatML (Qwen, Hermes, many fine-tunes).
constexpr std::string_view kChatml =
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}";

// Llama 2 chat: the system prompt is folded into the first user turn.
constexpr std::string_view kLlama2 =
    "{%- if messages and messages[0]['role'] == 'system' -%}"
    "{%- set system_message = messages[0]['content'] -%}{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}{%- set system_message = none -%}{%- set loop_messages = messages -%}{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- set content = message['content'] -%}"
    "{%- if loop.first and system_message is not none -%}"
    "{%- set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + content -%}"
    "{%- endif -%}"
    "{%- if message['role'] == 'user' -%}{{- bos_token + '[INST] ' + content.strip() + ' [/INST]' -}}"
    "{%- elif message['role'] == 'assistant' -%}{{- ' ' + content.strip() + ' ' + eos_token -}}"
    "{%- endif -%}"
    "{%- endfor -%}";

// Llama 3 / 3.x without tools.
constexpr std::string_view kLlama3 =
    "{{- bos_token -}}"
    "{%- for message in messages -%}"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}{%- endif -%}";

// Gemma: no system role, so a system message is prepended to the first user turn.
constexpr std::string_view kGemma =
    "{{- bos_token -}}"
    "{%- if messages and messages[0]['role'] == 'system' -%}"
    "{%- set system_message = messages[0]['content'] | trim -%}{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}{%- set system_message = '' -%}{%- set loop_messages = messages -%}{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- set role = 'model' if message['role'] == 'assistant' else message['role'] -%}"
    "{%- set content = message['content'] | trim -%}"
    "{%- if loop.first and system_message -%}{%- set content = system_message + '\\n\\n' + content -%}{%- endif -%}"
    "{{- '<start_of_turn>' + role + '\\n' + content + '<end_of_turn>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<start_of_turn>model\\n' -}}{%- endif -%}";

// Phi-3 / Phi-3.5.
constexpr std::string_view kPhi3 =
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'system' and message['content'] -%}{{- '<|system|>\\n' + message['content'] + '<|end|>\\n' -}}"
    "{%- elif message['role'] == 'user' -%}{{- '<|user|>\\n' + message['content'] + '<|end|>\\n' -}}"
    "{%- elif message['role'] == 'assistant' -%}{{- '<|assistant|>\\n' + message['content'] + '<|end|>\\n' -}}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|assistant|>\\n' -}}{%- else -%}{{- eos_token -}}{%- endif -%}";

// Mistral Instruct (v0.1 style): a system message is prepended to the first user turn.
constexpr std::string_view kMistral =
    "{{- bos_token -}}"
    "{%- if messages and messages[0]['role'] == 'system' -%}"
    "{%- set system_message = messages[0]['content'] -%}{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}{%- set system_message = '' -%}{%- set loop_messages = messages -%}{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- set content = message['content'] -%}"
    "{%- if loop.first and system_message -%}{%- set content = system_message + '\\n\\n' + content -%}{%- endif -%}"
    "{%- if message['role'] == 'user' -%}{{- '[INST] ' + content + ' [/INST]' -}}"
    "{%- elif message['role'] == 'assistant' -%}{{- content + eos_token -}}"
    "{%- endif -%}"
    "{%- endfor -%}";

// Zephyr.
constexpr std::string_view kZephyr =
    "{%- for message in messages -%}"
    "{{- '<|' + message['role'] + '|>\\n' + message['content'] + eos_token + '\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|assistant|>\\n' -}}{%- endif -%}";

struct FormatRow {
    ChatFormatKind kind;
    const char *name;
    std::string_view text;
};

constexpr FormatRow kFormats[] = {
    {ChatFormatKind::CHAT_FORMAT_KIND_CHATML, "chatml", kChatml},
    {ChatFormatKind::CHAT_FORMAT_KIND_LLAMA2, "llama2", kLlama2},
    {ChatFormatKind::CHAT_FORMAT_KIND_LLAMA3, "llama3", kLlama3},
    {ChatFormatKind::CHAT_FORMAT_KIND_GEMMA, "gemma", kGemma},
    {ChatFormatKind::CHAT_FORMAT_KIND_PHI3, "phi3", kPhi3},
    {ChatFormatKind::CHAT_FORMAT_KIND_MISTRAL, "mistral", kMistral},
    {ChatFormatKind::CHAT_FORMAT_KIND_ZEPHYR, "zephyr", kZephyr},
};

// End-of-turn markers, in the order they are reported.
constexpr std::string_view kEndOfTurnMarkers[] = {
    "<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<end_of_turn>", "<|end|>", "<|END_OF_TURN_TOKEN|>",
    "<｜end▁of▁sentence｜>", "<|endoftext|>", "<|end_of_text|>", "</s>", "<turn|>",
};

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

const char *chatFormatName(ChatFormatKind kind)
{
    if (kind == ChatFormatKind::CHAT_FORMAT_KIND_MODEL)
        return "model";
    for (const auto &row : kFormats)
        if (row.kind == kind)
            return row.name;
    return "?";
}

std::optional<ChatFormatKind> chatFormatFromName(std::string_view name)
{
    std::string n = lower(name);
    n.erase(std::remove(n.begin(), n.end(), '-'), n.end());
    n.erase(std::remove(n.begin(), n.end(), '_'), n.end());
    if (n == "model")
        return ChatFormatKind::CHAT_FORMAT_KIND_MODEL;
    for (const auto &row : kFormats)
        if (n == row.name)
            return row.kind;
    return std::nullopt;
}

std::string_view builtinTemplateText(ChatFormatKind kind)
{
    for (const auto &row : kFormats)
        if (row.kind == kind)
            return row.text;
    return {};
}

std::vector<ChatFormatKind> builtinChatFormats()
{
    std::vector<ChatFormatKind> out;
    for (const auto &row : kFormats)
        out.push_back(row.kind);
    return out;
}

ChatFormatKind detectFallbackFormat(const std::string &architecture, const VocabLookup &vocabHas, std::string *why,
                                    bool *byVocabulary)
{
    auto has = [&](std::string_view t) { return vocabHas && vocabHas(t); };
    if (byVocabulary)
        *byVocabulary = true;   // until the vocabulary's markers run out
    auto say = [&](std::string text) {
        if (why)
            *why = std::move(text);
    };
    if (has("<|im_start|>") && has("<|im_end|>")) {
        say("the vocabulary has <|im_start|> and <|im_end|>");
        return ChatFormatKind::CHAT_FORMAT_KIND_CHATML;
    }
    if (has("<|start_header_id|>") && has("<|eot_id|>")) {
        say("the vocabulary has <|start_header_id|> and <|eot_id|>");
        return ChatFormatKind::CHAT_FORMAT_KIND_LLAMA3;
    }
    if (has("<start_of_turn>") && has("<end_of_turn>")) {
        say("the vocabulary has <start_of_turn> and <end_of_turn>");
        return ChatFormatKind::CHAT_FORMAT_KIND_GEMMA;
    }
    if (has("<|assistant|>") && has("<|end|>")) {
        say("the vocabulary has <|assistant|> and <|end|>");
        return ChatFormatKind::CHAT_FORMAT_KIND_PHI3;
    }
    if (has("[INST]") && has("[/INST]")) {
        say("the vocabulary has [INST] and [/INST]");
        return ChatFormatKind::CHAT_FORMAT_KIND_MISTRAL;
    }
    if (byVocabulary)
        *byVocabulary = false;
    const std::string arch = lower(architecture);
    if (arch.rfind("gemma", 0) == 0) {
        say("architecture " + architecture);
        return ChatFormatKind::CHAT_FORMAT_KIND_GEMMA;
    }
    if (arch.rfind("phi3", 0) == 0) {
        say("architecture " + architecture);
        return ChatFormatKind::CHAT_FORMAT_KIND_PHI3;
    }
    if (arch.rfind("qwen", 0) == 0) {
        say("architecture " + architecture);
        return ChatFormatKind::CHAT_FORMAT_KIND_CHATML;
    }
    if (arch == "llama" && has("<s>") && has("</s>")) {
        say("architecture llama with the <s> </s> vocabulary of Llama 2");
        return ChatFormatKind::CHAT_FORMAT_KIND_LLAMA2;
    }
    say("no known markers in the vocabulary (architecture " + (architecture.empty() ? std::string("unknown") : architecture)
        + "); ChatML is the most common format");
    return ChatFormatKind::CHAT_FORMAT_KIND_CHATML;
}

ReasoningSyntax reasoningSyntaxOf(std::string_view templateText)
{
    auto has = [&](std::string_view s) { return templateText.find(s) != std::string_view::npos; };
    if (has("<|channel|>") && has("<|message|>"))
        return ReasoningSyntax::REASONING_SYNTAX_HARMONY;
    if (has("<|channel>") && has("<channel|>"))
        return ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL;
    if (has("<think>") || has("</think>"))
        return ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS;
    return ReasoningSyntax::REASONING_SYNTAX_NONE;
}

std::vector<std::string> stopStringsFor(std::string_view templateText, const std::string &eosText,
                                        const std::string &eotText)
{
    const bool harmony = reasoningSyntaxOf(templateText) == ReasoningSyntax::REASONING_SYNTAX_HARMONY;
    std::vector<std::string> out;
    auto add = [&](std::string_view s) {
        if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end() && !(harmony && s == "<|end|>"))
            out.emplace_back(s);
    };
    for (std::string_view marker : kEndOfTurnMarkers) {
        if (templateText.find(marker) != std::string_view::npos)
            add(marker);
    }
    if (harmony)
        for (std::string_view marker : {"<|return|>", "<|call|>"})
            if (templateText.find(marker) != std::string_view::npos)
                add(marker);
    add(eosText);
    add(eotText);
    return out;
}

Result<ChatFormatChoice> chooseChatFormat(const ChatFormatInputs &inputs)
{
    ChatFormatChoice choice;
    std::string reason;
    std::optional<ChatFormatKind> kind = inputs.forced;
    if (kind && *kind == ChatFormatKind::CHAT_FORMAT_KIND_MODEL && inputs.templateText.empty())
        kind.reset();   // nothing to force: fall through to detection
    if (kind && *kind == ChatFormatKind::CHAT_FORMAT_KIND_MODEL) {
        auto t = ChatTemplate::parse(inputs.templateText);
        if (!t)
            return t.status().withContext("the model's chat template was requested but does not parse");
        choice.chatTemplate = std::move(*t);
        reason = "the model's own template (chosen by the user)";
    } else if (kind) {
        reason = std::string("format '") + chatFormatName(*kind) + "' chosen by the user";
    } else if (!inputs.templateText.empty()) {
        auto t = ChatTemplate::parse(inputs.templateText);
        if (t) {
            kind = ChatFormatKind::CHAT_FORMAT_KIND_MODEL;
            choice.chatTemplate = std::move(*t);
            reason = "the model's own template";
        } else {
            std::string why;
            kind = detectFallbackFormat(inputs.architecture, inputs.vocabHas, &why, &choice.byVocabulary);
            reason = "the model's template does not parse (" + t.message() + "); fallback chosen because " + why;
        }
    } else {
        std::string why;
        kind = detectFallbackFormat(inputs.architecture, inputs.vocabHas, &why, &choice.byVocabulary);
        reason = "the model has no chat template; fallback chosen because " + why;
    }
    choice.kind = *kind;
    choice.name = chatFormatName(*kind);
    choice.reason = std::move(reason);
    if (*kind != ChatFormatKind::CHAT_FORMAT_KIND_MODEL) {
        auto t = ChatTemplate::parse(builtinTemplateText(*kind), std::string("built-in ") + choice.name + " template");
        if (!t)
            return t.status();
        choice.chatTemplate = std::move(*t);
    }
    choice.stopStrings = stopStringsFor(choice.chatTemplate.source(), inputs.eosText, inputs.eotText);
    if (*kind == ChatFormatKind::CHAT_FORMAT_KIND_MODEL) {
        choice.reasoning = reasoningSyntaxOf(choice.chatTemplate.source());
        choice.readsEnableThinking = choice.chatTemplate.readsVariable("enable_thinking");
        choice.readsReasoningEffort = choice.chatTemplate.readsVariable("reasoning_effort");
    }
    return choice;
}

} // namespace burrow::chat
