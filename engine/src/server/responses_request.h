// POST /v1/responses (OpenAI's Responses API) read as the chat request it
// is: the body is rewritten into the chat completions shape, which the one
// request reader (api_request.h) then checks field by field.
//
//   instructions                          -> a first "system" message
//   input: a string                       -> one user message
//   input: items
//     {type: "message", role, content}    -> a message (content a string or
//                                            input_text / output_text / text parts)
//     {type: "function_call", call_id, name, arguments}
//                                         -> tool_calls on an assistant message
//                                            (consecutive calls on one)
//     {type: "function_call_output", call_id, output}
//                                         -> a "tool" message
//     {type: "reasoning", summary / content}
//                                         -> the next assistant turn's reasoning
//     other items (images, files, ...)    -> 400 naming the item
//   max_output_tokens -> max_tokens; temperature, top_p, stream, reasoning,
//   parallel_tool_calls as they are
//   tools [{type: "function", name, description, parameters, strict}]
//                                         -> tools (built-in tools: 400)
//   tool_choice "auto" | "none" | "required" | {type: "function", name}
//   text.format {type: text | json_object | json_schema, name, schema, strict}
//                                         -> response_format
//   previous_response_id, conversation    -> 400 (no stored responses: send the whole input)
// Unknown fields (store, metadata, ...) are ignored. Never throws.
#pragma once

#include "server/api_error.h"

#include <nlohmann/json.hpp>

#include <variant>

namespace burrow::server {

std::variant<nlohmann::ordered_json, ApiError> responsesToChat(const nlohmann::ordered_json &body);

} // namespace burrow::server
