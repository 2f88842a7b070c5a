// Burrow's OpenAI-compatible HTTP server over a Scheduler: what `burrow-cli
// serve` and the app's local server run (public API, beside engine.h).
// Qt-free; Boost.Beast/Asio for HTTP, nlohmann-json for request bodies
// (both from Debian), neither seen by this header's users.
//
// Endpoints: GET /health, GET /v1/models, GET /v1/models/{id},
// POST /v1/chat/completions, POST /v1/completions (also without the /v1
// prefix), streamed (Server-Sent Events) or whole. docs/server.md lists the
// fields, limits and security defaults.
//
// Threads: `ioThreads` threads run the network (every connection is
// asynchronous, so a slow client holds no thread); `prepareThreads` build
// prompts (a request's template render and tokenizing never run on a
// network thread); the scheduler's thread runs the model. A client that
// disconnects has its requests cancelled, its prompt building too.
// Robustness: every network handler catches; what a client sends can fail
// its own request or connection, never the server (docs/server.md).
// Lifetime: the Server must be destroyed before the Scheduler it serves
// (destroying it closes every connection, cancels their requests and any
// template still rendering: it returns within about a second).
#pragma once

#include "burrow/engine.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::server {

// The bounds the server puts on what a client may send or hold: every field
// a request carries and every connection is bounded, so a hostile or broken
// client gets a clear error (400 / 413 / 431 / 503) instead of memory or a
// worker. The defaults are what docs/server.md lists.
struct ServerLimits {
    size_t maxBodyBytes = 4u << 20;        // request body (413 beyond)
    size_t maxHeaderBytes = 16u << 10;     // request line + headers, and the trailer of a chunked body (431 beyond; at most 48 KiB)
    size_t maxMessages = 2048;             // chat messages per request
    size_t maxStopStrings = 16;            // entries of `stop`
    size_t maxStopBytes = 1024;            // bytes of one stop string
    int64_t maxTokens = 65536;             // largest max_tokens / max_completion_tokens accepted
    int maxJsonDepth = 64;                 // nesting of the request JSON
    size_t maxTools = 256;                 // entries of `tools`
    size_t maxToolNameBytes = 64;          // a function's name ([A-Za-z0-9_.-])
    // Open connections. When all are taken, a new one evicts the connection
    // that has waited longest for a request header (idle or slow); 503 only
    // when every one is busy with a request.
    int maxConnections = 128;
    // Open connections from one non-loopback address (the same eviction
    // within them, then 503). Loopback peers are all this machine: not limited.
    int maxConnectionsPerPeer = 32;
    double headerTimeoutSeconds = 10;      // a new connection's first whole request header
    double requestTimeoutSeconds = 30;     // to send one whole request, and idle time between requests
    size_t maxPendingPrepares = 64;        // requests waiting for a prompt to be built (503 beyond)
    double writeTimeoutSeconds = 60;       // for one write to drain (a client that stops reading is dropped)
    size_t maxPendingWriteBytes = 8u << 20; // response bytes queued for a slow reader before it is dropped
};

struct ServerOptions {
    std::string host = "127.0.0.1";            // the address to listen on ("0.0.0.0": every interface)
    uint16_t port = 8080;                      // 0: any free port (see Server::port())
    std::string modelId;                       // the name /v1/models shows ("": the file name without .gguf)
    std::string apiKey;                        // "": no key; else "Authorization: Bearer KEY" on every endpoint but /health
    std::vector<std::string> corsOrigins;      // origins browsers may call from ("*": any); none by default
    std::vector<std::string> allowedHosts;     // Host names accepted beyond IP literals, localhost and this machine's name
    int32_t priority = 0;                      // of the requests it submits (the app's own chats run above)
    int32_t maxChoices = 1;                    // the largest `n` (the scheduler's parallel)
    int ioThreads = 2;                         // the network (they never render or tokenize)
    int prepareThreads = 2;                    // build prompts: read the body, render the template, tokenize
    double keepAliveSeconds = 5;               // ": keep-alive" comment after this long without a byte on a stream
    SpeculativeOptions speculative;            // drafting for every request (usage reports drafts accepted/rejected)
    ServerLimits limits;
    // One line per finished request ("POST /v1/chat/completions 200 ..."); may be null. Called on a network thread.
    std::function<void(std::string_view line)> log;
};

struct ServerStats {
    int32_t connections = 0;                   // open now
    int32_t activeRequests = 0;                // completions being generated now
    uint64_t requests = 0;                     // answered so far
};

class Server {
public:
    // Listens and starts serving. Errors: the address is not valid, the port
    // is taken, the model or scheduler is missing.
    static Result<std::unique_ptr<Server>> start(std::shared_ptr<const Model> model,
                                                 std::shared_ptr<Scheduler> scheduler, ServerOptions options);
    virtual ~Server() = default;

    virtual uint16_t port() const = 0;                  // the port it listens on
    virtual std::string url() const = 0;                // "http://127.0.0.1:8080"
    virtual const std::string &modelId() const = 0;
    virtual ServerStats stats() const = 0;
};

} // namespace burrow::server
