// The JSON the server answers, in OpenAI's shapes: streamed chunks (one
// Server-Sent Event each: "data: {json}\n\n"), whole responses, the model
// list. Text is written as the engine gives it (UTF-8 complete pieces);
// any invalid byte becomes U+FFFD rather than breaking the JSON.
//
// A chat stream is, per choice: a chunk with delta {"role":"assistant",
// "content":""}, chunks with delta {"content": piece} or
// {"reasoning_content": piece}, and a last chunk with delta {} and
// finish_reason "stop" or "length" ("tool_calls" when the reply called
// tools: their deltas come as chatToolCall*Chunk); then, when stream_options.include_usage
// was set, one chunk with "choices": [] and "usage"; then "data: [DONE]".
// A completions stream has {"text": piece} choices and the finish_reason in
// its last chunk per choice.
#pragma once

#include "burrow/engine.h"
#include "server/api_request.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::server {

// What every chunk and response of one request repeats.
struct ResponseIds {
    std::string id;                 // "chatcmpl-..." / "cmpl-..."
    int64_t created = 0;            // Unix seconds, fixed for the whole stream
    std::string model;              // the model's id
};

struct Usage {
    int64_t promptTokens = 0;
    int64_t completionTokens = 0;   // reasoning included
    int64_t cachedTokens = 0;       // prompt tokens taken from the KV cache
    int64_t reasoningTokens = 0;
    int64_t draftedTokens = 0;      // speculative decoding: draft tokens verified
    int64_t acceptedTokens = 0;     // of them, accepted
};

// One generated token's log-probability as the client sees it: the token's
// text (its raw bytes; `bytes` in the JSON keeps them exact) and the top
// alternatives (most likely first).
struct LogprobText {
    std::string token;
    float logprob = 0.0f;
};
struct TokenLogprobText {
    LogprobText chosen;
    std::vector<LogprobText> top;
};

struct ToolCallOut {
    std::string id;                 // "call_..." (newResponseId)
    std::string name;
    std::string arguments;          // a JSON object text
};

struct ChoiceResult {
    std::string text;
    std::string reasoning;
    std::string finishReason;       // "stop" / "length" / "tool_calls"
    std::vector<ToolCallOut> toolCalls;
    bool logprobs = false;          // the request asked for them (else "logprobs": null)
    std::vector<TokenLogprobText> tokenLogprobs;
};

// "stop" for the end of the turn or a stop string, "length" for max_tokens
// or a full context (and "stop" for a cancelled request, which no client sees).
const char *finishReason(StopReason reason);

// A fresh id with `prefix` ("chatcmpl-"): 24 random hexadecimal digits.
std::string newResponseId(const char *prefix);

// SSE framing.
std::string sseEvent(std::string_view json);      // "data: " json "\n\n"
std::string sseDone();                            // "data: [DONE]\n\n"
std::string sseKeepAlive();                       // ": keep-alive\n\n" (a comment clients ignore)

// Chat stream chunks (JSON text, without the SSE framing).
std::string chatRoleChunk(const ResponseIds &ids, int index);
// `logprobs` (may be null): the entries of the tokens this chunk carries
// ("logprobs": {"content": [...]}; null when none).
std::string chatDeltaChunk(const ResponseIds &ids, int index, std::string_view field, std::string_view text,
                           const std::vector<TokenLogprobText> *logprobs = nullptr);
std::string chatFinishChunk(const ResponseIds &ids, int index, std::string_view finishReason,
                            const std::vector<TokenLogprobText> *logprobs = nullptr);
// A tool call as OpenAI streams it: first {"index", "id", "type", "function":
// {"name", "arguments": ""}}, then {"index", "function": {"arguments": piece}}.
std::string chatToolCallStartChunk(const ResponseIds &ids, int index, int callIndex, const ToolCallOut &call);
std::string chatToolCallArgumentsChunk(const ResponseIds &ids, int index, int callIndex, std::string_view piece);
// Completions stream chunk; finishReason "" is null.
std::string completionChunk(const ResponseIds &ids, int index, std::string_view text, std::string_view finishReason,
                            const std::vector<TokenLogprobText> *logprobs = nullptr);
// The include_usage chunk ("choices": []).
std::string usageChunk(const ResponseIds &ids, Endpoint endpoint, const Usage &usage);

// Whole (non-streamed) responses.
std::string chatResponse(const ResponseIds &ids, const std::vector<ChoiceResult> &choices, const Usage &usage);
std::string completionResponse(const ResponseIds &ids, const std::vector<ChoiceResult> &choices, const Usage &usage);

// GET /v1/models and GET /v1/models/{id}.
std::string modelObject(const std::string &id, int64_t created);
std::string modelList(const std::string &id, int64_t created);

} // namespace burrow::server
