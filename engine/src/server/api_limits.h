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
    size_t maxHeaderBytes = 16u << 10;     // request line + headers, and the trailer of a chunked body (431 beyond; at most 48 KiB)
    size_t maxMessages = 2048;             // chat messages per request
    size_t maxStopStrings = 16;            // entries of `stop`
    size_t maxStopBytes = 1024;            // bytes of one stop string
    int64_t maxTokens = 65536;             // largest max_tokens / max_completion_tokens accepted
    int maxJsonDepth = 64;                 // nesting of the request JSON
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

// The bound of a connection's read buffer. A whole request header
// (maxHeaderBytes) and a chunked body's trailer must fit in it, and a read
// that needs more fails (http::error::buffer_overflow, answered 431), so no
// field ever reaches Beast's own limit of 65,534 bytes (past which it throws).
inline size_t readBufferBytes(const ServerLimits &limits)
{
    const size_t wanted = limits.maxHeaderBytes + 8192;
    return wanted < 16384 ? 16384 : wanted > (56u << 10) ? (56u << 10) : wanted;
}

} // namespace burrow::server
