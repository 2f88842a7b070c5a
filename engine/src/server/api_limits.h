// The bounds the server puts on what a client may send or hold: every field
// a request carries and every connection is bounded, so a hostile or broken
// client gets a clear error (400 / 413 / 431 / 503) instead of memory or a
// worker. The defaults are what docs/server.md lists.
#pragma once

#include <cstddef>
#include <cstdint>

namespace burrow::server {

struct ServerLimits {
    size_t maxBodyBytes = 4u << 20;        // request body (413 beyond)
    size_t maxHeaderBytes = 16u << 10;     // request line + headers (431 beyond)
    size_t maxMessages = 2048;             // chat messages per request
    size_t maxStopStrings = 16;            // entries of `stop`
    size_t maxStopBytes = 1024;            // bytes of one stop string
    int64_t maxTokens = 65536;             // largest max_tokens / max_completion_tokens accepted
    int maxJsonDepth = 64;                 // nesting of the request JSON
    int maxConnections = 128;              // open connections (503 beyond)
    double requestTimeoutSeconds = 30;     // to send one whole request, and idle time between requests
    double writeTimeoutSeconds = 60;       // for one write to drain (a client that stops reading is dropped)
    size_t maxPendingWriteBytes = 8u << 20; // response bytes queued for a slow reader before it is dropped
};

} // namespace burrow::server
