// Turns one job's events into what the client receives (OpenAI's shapes, or
// Anthropic's for /v1/messages: anthropic_response.h): for a streamed
// request the SSE bytes of each event (see api_response.h for the exact
// sequence), for a whole one the text gathered until every choice is done
// and then the response body. Runs on the connection's strand only.
//
// A choice that fails (its KIND_DONE carries an error status) ends the
// response: streamed, as a data: {"error": ...} event without [DONE] (what
// OpenAI and llama-server send once streaming has started); whole, as the
// error() the connection answers with (500).
#pragma once

#include "chat/tool_calls.h"
#include "server/anthropic_response.h"
#include "server/api_error.h"
#include "server/api_request.h"
#include "server/api_response.h"
#include "server/responses_response.h"
#include "server/completion_job.h"

#include <optional>
#include <string>
#include <vector>

namespace burrow::server {

class ResponseAssembler {
public:
    // With tools active (request.toolsActive(), chat), each choice's answer
    // and tool-call text go through a chat::ToolCallParser for `syntax`:
    // content as content deltas, each call streamed as the model writes it
    // (its start with id and name, then its arguments in pieces: the
    // parser's Options::streamArguments) or in message.tool_calls (whole),
    // finish_reason "tool_calls".
    ResponseAssembler(const ApiRequest &request, ResponseIds ids, int64_t promptTokens,
                      chat::ToolCallSyntax syntax = chat::ToolCallSyntax::TOOL_CALL_SYNTAX_JSON);

    // Streamed: the bytes that open the stream (a role chunk per choice for
    // chat; nothing for completions). Call once, before any event.
    std::string open();
    // Streamed: the SSE bytes for `event` ("" for an empty piece). Whole:
    // gathers the event and returns "". Events after finished() give "".
    std::string onEvent(const JobEvent &event);

    bool finished() const { return m_finished; }
    // Whole requests, once finished(): the response body, or error() set.
    std::string body() const;
    const std::optional<ApiError> &error() const { return m_error; }
    const Usage &usage() const { return m_usage; }

private:
    // Content and calls from a choice's parser: SSE bytes (streamed) or gathered.
    std::string items(int choice, std::vector<chat::ToolCallItem> &&items);
    // Streamed: a call's start, argument piece or end, as the endpoint sends it.
    std::string streamedCall(int choice, chat::ToolCallItem &item);
    std::string onMessagesEvent(const JobEvent &event);
    std::string onResponsesEvent(const JobEvent &event);

    Endpoint m_endpoint;
    bool m_parallelToolCalls = true;
    std::vector<std::optional<chat::ToolCallParser>> m_parsers;   // per choice; empty without tools
    // Streamed: per choice, the call being streamed (skipped: a call past
    // the first with parallel_tool_calls false).
    struct OpenCall {
        bool open = false;
        bool skipped = false;
        ToolCallOut call;
    };
    std::vector<OpenCall> m_openCalls;
    // Streamed: per choice, the logprob entries not yet sent (they go with
    // the next chunk of that choice); whole: ChoiceResult::tokenLogprobs.
    std::vector<std::vector<TokenLogprobText>> m_pendingLogprobs;
    // The pending entries of `choice` for a chunk (null when none), moved
    // into m_sending until the next call.
    const std::vector<TokenLogprobText> *takeLogprobs(int choice);
    std::vector<TokenLogprobText> m_sending;
    std::vector<MessagesStream> m_messages;   // /v1/messages: one per choice; empty otherwise
    std::vector<ResponsesBuilder> m_responses; // /v1/responses: one per choice (streamed or not); empty otherwise
    bool m_stream;
    bool m_includeUsage;
    ResponseIds m_ids;
    std::vector<ChoiceResult> m_choices;
    std::vector<bool> m_done;
    int m_remaining;
    Usage m_usage;
    bool m_finished = false;
    std::optional<ApiError> m_error;
};

} // namespace burrow::server
