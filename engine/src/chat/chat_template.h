// Chat templates: render a conversation with a model's Jinja template the way
// Hugging Face's apply_chat_template does (trim_blocks, lstrip_blocks,
// raise_exception(), strftime_now(), tojson keeping non-ASCII text).
//
// The context a template sees: `messages` (list of {"role", "content", ...}
// dicts, every field of the input kept), `add_generation_prompt`, the
// special-token texts (`bos_token`, `eos_token`, ...) and any extra variables
// (template kwargs: `enable_thinking`, `reasoning_effort`, `tools`, ...; as in
// HF they win over the special-token texts, never over `messages` and
// `add_generation_prompt`). Variables not given (tools, date_string, ...)
// are undefined, as in HF.
//
// Contract: errors (template syntax, raise_exception, limits) come back as a
// Status "NAME:LINE:COL: message"; nothing throws.
#pragma once

#include "chat/jinja_template.h"
#include "common/json.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace burrow::chat {

struct ChatMessage {
    std::string role;      // "system", "user", "assistant", "tool", ...
    std::string content;
    // The reasoning behind an assistant turn ("" for none): the template sees
    // it as `reasoning_content` (Qwen3, DeepSeek) and `thinking` (gpt-oss).
    std::string reasoning;
    // More fields as one JSON object text ("" for none): {"tool_calls": [..]}.
    // Each is seen as written; a field named here wins over the ones above.
    std::string extraJson;
};

// The messages as the JSON list a template sees: {"role", "content"}, then
// "reasoning_content" and "thinking" when `reasoning` is set, then the
// fields of extraJson (replacing one of those in place, or appended).
// Errors: an extraJson that is not a JSON object ("messages[2]: ...").
Result<json::JsonValue> messagesToJson(const std::vector<ChatMessage> &messages);

// Template kwargs: the JSON object text `kwargsJson` ("" for none), with
// `enable_thinking` (when set) and `reasoning_effort` (when not empty) on
// top. Errors: text that is not a JSON object, or that names `messages` or
// `add_generation_prompt` (the conversation sets those).
Result<json::JsonValue> templateKwargs(std::string_view kwargsJson, std::optional<bool> enableThinking = std::nullopt,
                                       const std::string &reasoningEffort = {});

struct ChatTemplateInputs {
    bool addGenerationPrompt = false;
    // Template variable name -> token text: {"bos_token", "<s>"}, {"eos_token", "</s>"}, ...
    std::vector<std::pair<std::string, std::string>> specialTokens;
    // Extra variables, the kwargs (a JSON object, e.g. {"tools": [...],
    // "enable_thinking": false}); ignored unless an object.
    json::JsonValue extraContext;
    jinja::RenderOptions render;   // limits and the clock for strftime_now()
};

// JSON -> template value (objects keep their order).
jinja::Value jsonToValue(const json::JsonValue &json);

class ChatTemplate {
public:
    ChatTemplate() = default;
    // `name` prefixes error messages ("chat template:3:7: ...").
    static Result<ChatTemplate> parse(std::string_view templateText, const std::string &name = "chat template");

    // `messages` must be a JSON array of objects, each with a string "role".
    Result<std::string> apply(const json::JsonValue &messages, const ChatTemplateInputs &inputs) const;
    Result<std::string> apply(const std::vector<ChatMessage> &messages, const ChatTemplateInputs &inputs) const;

    const std::string &source() const { return m_source; }
    // The template reads this variable (see jinja::Template::readsName).
    bool readsVariable(std::string_view name) const { return m_template.readsName(name); }

private:
    std::string m_source;
    jinja::Template m_template;
};

// One-shot parse + apply.
Result<std::string> renderChatTemplate(std::string_view templateText, const json::JsonValue &messages,
                                       const ChatTemplateInputs &inputs);

} // namespace burrow::chat
