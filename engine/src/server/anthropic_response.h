// What POST /v1/messages answers, in Anthropic's shapes.
//
// Whole: {"id": "msg_...", "type": "message", "role": "assistant", "model",
//   "content": [{"type": "thinking", "thinking", "signature": ""},
//               {"type": "text", "text"}, {"type": "tool_use", "id", "name", "input"}],
//   "stop_reason": "end_turn" | "max_tokens" | "stop_sequence" | "tool_use",
//   "stop_sequence": null, "usage": {"input_tokens", "output_tokens", "cache_read_input_tokens"}}
// Streamed: named SSE events ("event: NAME\ndata: {...}\n\n"): message_start,
// then per content block content_block_start, content_block_delta
// (thinking_delta, text_delta, input_json_delta), content_block_stop, then
// message_delta (stop_reason, usage) and message_stop; an error is an
// "error" event. Errors: {"type": "error", "error": {"type", "message"}}.
#pragma once

#include "burrow/engine.h"
#include "server/api_error.h"
#include "server/api_response.h"

#include <string>
#include <string_view>

namespace burrow::server {

// "end_turn", "max_tokens", "stop_sequence" or "tool_use".
const char *anthropicStopReason(StopReason reason, bool calledTools);

std::string anthropicErrorBody(const ApiError &error);
std::string sseNamedEvent(std::string_view name, std::string_view json);

std::string messagesResponse(const ResponseIds &ids, const ChoiceResult &choice, std::string_view stopReason,
                             const Usage &usage);

// One message's stream: which content block is open, its index.
class MessagesStream {
public:
    std::string start(const ResponseIds &ids, const Usage &usage);
    std::string thinking(std::string_view text);
    std::string text(std::string_view text);
    // A tool_use block streamed: content_block_start with the id and name
    // (input {}), an input_json_delta per piece of the arguments, and
    // content_block_stop at toolUseEnd() (or when the next block opens).
    std::string toolUseStart(const ToolCallOut &call);
    std::string toolUseDelta(std::string_view piece);
    std::string toolUseEnd();
    std::string finish(std::string_view stopReason, const Usage &usage);

private:
    enum class Block { BLOCK_NONE, BLOCK_THINKING, BLOCK_TEXT, BLOCK_TOOL_USE };
    std::string open(Block block);
    std::string close();

    Block m_open = Block::BLOCK_NONE;
    int m_index = -1;
};

} // namespace burrow::server
