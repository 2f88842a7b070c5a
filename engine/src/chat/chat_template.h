// Chat templates: render a conversation with a model's Jinja template the way
// Hugging Face's apply_chat_template does (trim_blocks, lstrip_blocks,
// raise_exception(), strftime_now(), tojson keeping non-ASCII text).
//
// The context a template sees: `messages` (list of {"role", "content", ...}
// dicts, every field of the input kept), `add_generation_prompt`, the
// special-token texts (`bos_token`, `eos_token`, ...) and any extra variables.
// Variables not given (tools, date_string, ...) are undefined, as in HF.
//
// Contract: errors (template syntax, raise_exception, limits) come back as a
// Status "NAME:LINE:COL: message"; nothing throws.
#pragma once

#include "chat/jinja_template.h"
#include "common/json.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace burrow::chat {

struct ChatMessage {
    std::string role;      // "system", "user", "assistant", "tool", ...
    std::string content;
};

struct ChatTemplateInputs {
    bool addGenerationPrompt = false;
    // Template variable name -> token text: {"bos_token", "<s>"}, {"eos_token", "</s>"}, ...
    std::vector<std::pair<std::string, std::string>> specialTokens;
    // Extra variables (a JSON object, e.g. {"tools": [...]}); ignored unless an object.
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

private:
    std::string m_source;
    jinja::Template m_template;
};

// One-shot parse + apply.
Result<std::string> renderChatTemplate(std::string_view templateText, const json::JsonValue &messages,
                                       const ChatTemplateInputs &inputs);

} // namespace burrow::chat
