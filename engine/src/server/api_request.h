// Reading one OpenAI-style request body: POST /v1/chat/completions or
// POST /v1/completions. Every field the server knows is checked for its
// type and range; a field that fails is a 400 naming it (never silently
// replaced by a default); fields the server does not know are ignored.
//
// Contract: never throws; `body` is untrusted (its size is bounded by the
// caller, its nesting and every count by `limits`). Cost: O(body).
#pragma once

#include "burrow/engine.h"
#include "server/api_error.h"
#include "burrow/server.h"

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace burrow::server {

enum class Endpoint {
    ENDPOINT_CHAT_COMPLETIONS,     // messages in, a chat message out
    ENDPOINT_COMPLETIONS,          // prompt text in, text out
    ENDPOINT_MESSAGES,             // Anthropic's Messages API: read as a chat request (anthropic_request.h)
    ENDPOINT_RESPONSES,            // OpenAI's Responses API: read as a chat request (responses_request.h)
};

// A chat-shaped request: messages in, the template, tools, an assistant message out.
inline bool isChat(Endpoint e)
{
    return e != Endpoint::ENDPOINT_COMPLETIONS;
}

struct ApiRequest {
    Endpoint endpoint = Endpoint::ENDPOINT_CHAT_COMPLETIONS;
    std::string model;                        // "" when absent or null
    std::vector<ChatMessage> messages;        // chat: at least one
    std::string prompt;                       // completions
    // The engine's defaults (SamplingParams{}) for every field absent or null.
    SamplingParams sampling;
    int32_t maxTokens = -1;                   // -1: until the end of the turn or the context is full
    std::vector<std::string> stop;            // the client's stop strings (empty ones dropped)
    bool stream = false;
    bool includeUsage = false;                // stream_options.include_usage
    int32_t n = 1;                            // choices, 1..maxChoices
    // Reasoning: RenderOptions::enableThinking / reasoningEffort and
    // template variables (chat_template_kwargs) for the chat template.
    std::optional<bool> enableThinking;
    std::string reasoningEffort;              // "low" / "medium" / "high" or ""
    std::string templateKwargsJson;           // "" or a JSON object text

    // Tools (chat): the request's `tools` array as JSON text ("" when none),
    // each {"type": "function", "function": {"name", "description"?,
    // "parameters"?, "strict"?}} checked; at most limits.maxTools.
    std::string toolsJson;
    std::vector<std::string> toolNames;       // in order
    enum class ToolChoice { TOOL_CHOICE_AUTO, TOOL_CHOICE_NONE, TOOL_CHOICE_REQUIRED, TOOL_CHOICE_NAMED };
    ToolChoice toolChoice = ToolChoice::TOOL_CHOICE_AUTO;
    std::string toolChoiceName;               // TOOL_CHOICE_NAMED: one of the tools
    bool parallelToolCalls = true;            // false: the first call only
    // response_format: text, json_object (any JSON object) or json_schema
    // (responseSchemaJson: the schema as JSON text).
    enum class ResponseFormat { RESPONSE_FORMAT_TEXT, RESPONSE_FORMAT_JSON_OBJECT, RESPONSE_FORMAT_JSON_SCHEMA };
    ResponseFormat responseFormat = ResponseFormat::RESPONSE_FORMAT_TEXT;
    std::string responseSchemaJson;
    // logprobs (chat: a boolean; completions: an integer 0..20 that is also
    // the top count) and top_logprobs (chat: 0..20, needs logprobs).
    bool logprobs = false;
    int32_t topLogprobs = 0;

    bool toolsActive() const { return !toolsJson.empty() && toolChoice != ToolChoice::TOOL_CHOICE_NONE; }
};

// `maxChoices`: the largest `n` (the server's --parallel).
std::variant<ApiRequest, ApiError> parseApiRequest(Endpoint endpoint, std::string_view body,
                                                   const ServerLimits &limits, int32_t maxChoices);

// Deepest nesting of arrays and objects in `text` (strings skipped), read
// without parsing; stops counting once past `limit` (returns limit + 1).
int jsonNestingDepth(std::string_view text, int limit);

} // namespace burrow::server
