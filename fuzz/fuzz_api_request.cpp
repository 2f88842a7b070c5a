// libFuzzer: what the server reads from a client before any model work —
// a request body for every endpoint (parseApiRequest; Anthropic's Messages
// and OpenAI's Responses bodies are rewritten into chat requests first), and header values
// (the Host, Origin and Authorization checks) — and the JSON it answers
// with from what it read (an error body, a chunk of the first message).
// Invariants checked on every accepted body: the counts and ranges the
// limits promise.
#include "server/api_error.h"
#include "server/api_request.h"
#include "server/api_response.h"
#include "server/http_guard.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace burrow::server;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    const ServerLimits limits;
    for (const Endpoint endpoint : {Endpoint::ENDPOINT_CHAT_COMPLETIONS, Endpoint::ENDPOINT_COMPLETIONS,
                                    Endpoint::ENDPOINT_MESSAGES, Endpoint::ENDPOINT_RESPONSES}) {
        const auto parsed = parseApiRequest(endpoint, input, limits, 4);
        if (const auto *error = std::get_if<ApiError>(&parsed)) {
            if (error->status != 400 || error->message.empty() || errorBody(*error).empty())
                std::abort();
            continue;
        }
        const ApiRequest &r = std::get<ApiRequest>(parsed);
        if (r.n < 1 || r.n > 4 || r.stop.size() > limits.maxStopStrings ||
            (r.maxTokens != -1 && (r.maxTokens < 1 || r.maxTokens > limits.maxTokens)) ||
            r.messages.size() > limits.maxMessages ||
            (isChat(endpoint) && r.messages.empty()) || r.toolNames.size() > limits.maxTools ||
            r.topLogprobs < 0 || r.topLogprobs > 20 || (r.topLogprobs > 0 && !r.logprobs))
            std::abort();
        for (const std::string &s : r.stop)
            if (s.empty() || s.size() > limits.maxStopBytes)
                std::abort();
        const ResponseIds ids{"chatcmpl-fuzz", 0, r.model};
        const std::string text = isChat(endpoint) ? r.messages[0].content : r.prompt;
        if (chatDeltaChunk(ids, 0, "content", text).empty())
            std::abort();
    }
    // Header values: the first line as Host, the second as Origin, the rest as Authorization.
    const size_t a = input.find('\n');
    const std::string_view host = input.substr(0, a);
    const std::string_view rest = a == std::string_view::npos ? std::string_view() : input.substr(a + 1);
    const size_t b = rest.find('\n');
    (void)hostAllowed(host, {".lan", "chat.example.org"}, "box");
    (void)originAllowed(rest.substr(0, b), {"http://localhost:3000"});
    (void)bearerMatches(b == std::string_view::npos ? std::string_view() : rest.substr(b + 1), "s3cret");
    return 0;
}
