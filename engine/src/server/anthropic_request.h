// POST /v1/messages (Anthropic's Messages API) read as the chat request it
// is: the body is rewritten into the OpenAI chat shape, which the one
// request reader (api_request.h) then checks field by field.
//
//   system (a string or text blocks)      -> a first "system" message
//   messages[].content: a string, or blocks:
//     text                                -> content (several joined by "\n")
//     thinking / redacted_thinking        -> the assistant turn's reasoning
//     tool_use {id, name, input}          -> tool_calls [{id, type, function: {name, arguments}}]
//     tool_result {tool_use_id, content, is_error}
//                                         -> a "tool" message with tool_call_id (before the
//                                            user text of the same turn)
//     image, document, ...                -> 400 naming the block
//   max_tokens, temperature, top_p, top_k, stream, metadata (ignored)
//   stop_sequences                        -> stop
//   tools [{name, description, input_schema}] -> tools (function tools; server tools: 400)
//   tool_choice {type: auto | any | tool | none, name, disable_parallel_tool_use}
//                                         -> tool_choice, parallel_tool_calls
//   thinking {type: enabled | disabled}   -> thinking
// Unknown fields are ignored. Errors name the Anthropic field.
// Contract: never throws; the input is already parsed JSON.
#pragma once

#include "server/api_error.h"

#include <nlohmann/json.hpp>

#include <variant>

namespace burrow::server {

std::variant<nlohmann::ordered_json, ApiError> anthropicToChat(const nlohmann::ordered_json &body);

} // namespace burrow::server
