// One API request as work for the scheduler: the prompt built from the
// request (the chat template for messages, the tokenizer for a prompt), `n`
// scheduler requests submitted with the request's sampling, and their
// callbacks turned into JobEvents for whoever answers the client.
//
// Threads: prepare() and submit() run on the caller's thread (the server
// calls prepare() on its PreparePool); the sink is
// called on the scheduler thread (keep it quick: copy, post, return);
// cancel() is thread-safe and may come at any time (a client that left).
#pragma once

#include "burrow/engine.h"
#include "server/api_error.h"
#include "chat/tool_calls.h"
#include "server/api_request.h"
#include "server/api_response.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace burrow::server {

struct JobEvent {
    // KIND_TOOL_CALL: text the reasoning split keeps apart as a tool call
    // (GenerateOptions::onToolCall), for the choice's tool-call parser.
    // KIND_LOGPROBS: one generated token's entry (request().logprobs), before its text.
    enum class Kind { KIND_TEXT, KIND_REASONING, KIND_TOOL_CALL, KIND_LOGPROBS, KIND_DONE };
    Kind kind = Kind::KIND_TEXT;
    int choice = 0;                 // 0..n-1
    std::string text;               // KIND_TEXT / KIND_REASONING / KIND_TOOL_CALL: one piece
    TokenLogprobText logprob;       // KIND_LOGPROBS
    GenerateResult result;          // KIND_DONE
    Status status;                  // KIND_DONE: ok, or why the request failed
};

using JobSink = std::function<void(JobEvent &&event)>;

class CompletionJob : public std::enable_shared_from_this<CompletionJob> {
public:
    // Builds the prompt (renders the chat template, tokenizes; slow for a
    // large request: run it off the network threads) and compiles the
    // grammar that response_format or a required tool call asks for
    // (a JSON schema: json_object any object, json_schema the schema,
    // tool_choice required / named {"name": one of the tools, "arguments":
    // its parameters}, inside "<tool_call>\n...\n</tool_call>" for the
    // tagged family, bare otherwise). Errors (400): a schema Burrow cannot
    // compile (the message names the keyword), a
    // template error, a prompt that does not fit the context (code
    // "context_length_exceeded"), an empty prompt; `cancel` cancelled while
    // the template renders: an error too (the caller has left).
    static std::variant<std::shared_ptr<CompletionJob>, ApiError> prepare(std::shared_ptr<const Model> model,
                                                                          uint32_t contextSize, ApiRequest request,
                                                                          std::shared_ptr<const CancelToken> cancel = {});

    // Submits request().n requests; events go to `sink` (for each choice
    // its pieces in order, then exactly one KIND_DONE). Errors: the queue is
    // full (503 with Retry-After), anything else the scheduler refuses
    // (400). On an error nothing stays queued and the sink is never called.
    std::optional<ApiError> submit(Scheduler &scheduler, int32_t priority, JobSink sink);

    // Stops every choice within one scheduler step (their KIND_DONE still comes).
    void cancel();
    bool cancelled() const { return m_cancelled.load(std::memory_order_acquire); }

    const ApiRequest &request() const { return m_request; }
    // The family's tool-call syntax (from the model's template), meaningful
    // when request().toolsActive().
    chat::ToolCallSyntax toolCallSyntax() const { return m_toolCallSyntax; }
    // Speculative decoding for its requests (the server's option).
    void setSpeculative(const SpeculativeOptions &s) { m_options.speculative = s; }
    int64_t promptTokens() const { return static_cast<int64_t>(m_prompt.size()); }

private:
    CompletionJob() = default;
    // Sets request.sampling.grammar (and the reply's tool-call syntax) from
    // response_format / tool_choice; a 400 naming the parameter otherwise.
    std::optional<ApiError> compileGrammar(const std::shared_ptr<const Model> &model, ApiRequest &request);

    std::shared_ptr<const Model> m_model;
    ApiRequest m_request;
    std::vector<Token> m_prompt;
    GenerateOptions m_options;          // stop strings, reasoning, maxTokens
    chat::ToolCallSyntax m_toolCallSyntax = chat::ToolCallSyntax::TOOL_CALL_SYNTAX_JSON;
    Scheduler *m_scheduler = nullptr;
    std::mutex m_mutex;
    std::vector<RequestId> m_ids;       // guarded by m_mutex
    std::atomic<bool> m_cancelled{false};
    std::atomic<bool> m_abandoned{false};   // submit failed: events are dropped
    JobSink m_sink;
};

} // namespace burrow::server
