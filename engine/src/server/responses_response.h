// What POST /v1/responses answers, in the Responses API's shapes: one
// `response` object whose `output` is a list of items — `reasoning`
// (content [{type: "reasoning_text", text}]), `message` (content
// [{type: "output_text", text, annotations: []}]) and `function_call`
// ({call_id, name, arguments}) — in the order the reply wrote them.
//
// Streamed, the events (each "event: TYPE\ndata: {type, sequence_number, ...}"):
// response.created, response.in_progress; per item
// response.output_item.added, then response.reasoning_text.delta /
// (response.content_part.added, response.output_text.delta) /
// response.function_call_arguments.delta, their .done events,
// response.output_item.done; last response.completed (or
// response.incomplete when max_output_tokens or the context ended it, or
// response.failed on an error).
#pragma once

#include "burrow/engine.h"
#include "server/api_error.h"
#include "server/api_response.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace burrow::server {

// Builds one response, streamed or whole: each call returns the SSE bytes
// of the events it makes (the caller drops them for a whole response).
class ResponsesBuilder {
public:
    void setIds(const ResponseIds &ids) { m_ids = ids; }
    std::string start(const Usage &usage);
    std::string reasoning(std::string_view text);
    std::string text(std::string_view text);
    std::string call(const ToolCallOut &call);
    // A function_call item streamed: output_item.added (arguments ""), a
    // function_call_arguments.delta per piece, then at callEnd() (or when
    // the next item opens) function_call_arguments.done and output_item.done.
    std::string callStart(const ToolCallOut &call);
    std::string callArguments(std::string_view piece);
    std::string callEnd();
    std::string finish(StopReason reason, const Usage &usage);
    std::string fail(const ApiError &error);
    // The response object as it stands (the whole answer once finished).
    std::string body() const;

private:
    enum class Item { ITEM_NONE, ITEM_REASONING, ITEM_MESSAGE, ITEM_FUNCTION_CALL };
    nlohmann::ordered_json response() const;
    std::string event(const char *type, nlohmann::ordered_json payload);
    std::string open(Item item);
    std::string close();

    ResponseIds m_ids;
    Item m_open = Item::ITEM_NONE;
    std::string m_itemId;
    std::string m_text;             // the open item's text so far (a function call's arguments)
    std::string m_callId, m_callName;   // ITEM_FUNCTION_CALL
    int m_outputIndex = -1;
    int m_sequence = 0;
    std::string m_status = "in_progress";
    nlohmann::ordered_json m_output = nlohmann::ordered_json::array();
    nlohmann::ordered_json m_usage;
    nlohmann::ordered_json m_incomplete;   // null, or {"reason": "max_output_tokens"}
    nlohmann::ordered_json m_error;        // null, or {"code", "message"}
};

} // namespace burrow::server
