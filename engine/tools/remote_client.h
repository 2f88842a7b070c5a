// A minimal client of an OpenAI-compatible server for `burrow-cli chat
// --remote` (GET <base>/models, a streamed POST <base>/chat/completions).
// Plain HTTP/1.1 only (burrow-cli links no TLS library: https is refused
// with a message). POSIX sockets with poll(): every wait is bounded
// (connecting, the answer's headers, each quiet spell inside a stream) and
// checks the cancel token every 100 ms, so Ctrl+C closes the request.
// Beast's response parser does the HTTP framing (chunked or not), and the
// SSE lines are read by hand, each at most kMaxLine bytes; an error body is
// read up to 64 KiB. Nothing here is trusted: a bad answer is a message.
#pragma once

#include "burrow/engine.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace burrow::cli {

struct RemoteUrl {
    std::string host;       // as typed (a name or an address; IPv6 without brackets)
    uint16_t port = 80;
    std::string basePath;   // "/v1" (no trailing slash)
    bool loopback = false;  // localhost, 127.0.0.0/8, ::1
};

// "http://HOST[:PORT][/PATH]" (no path: /v1). False with a message for
// anything else (https included).
bool parseRemoteUrl(const std::string &url, RemoteUrl *out, std::string *error);

struct RemoteLimits {
    int connectMs = 10000;
    int firstByteMs = 120000;   // the answer's headers (a long prompt on a busy server)
    int idleMs = 60000;         // the longest quiet spell inside a stream
};

struct RemoteReply {
    int status = 0;             // HTTP status (0: no answer)
    bool complete = false;      // the stream ended properly ([DONE] or a finish_reason)
    bool cancelled = false;
    std::string finishReason;
    int promptTokens = -1, completionTokens = -1;   // from usage (-1: not sent)
    double firstTokenMs = -1, lastTokenMs = -1;     // since the request was sent
    std::string text, reasoning;
    std::string error;          // a sentence when it failed ("" otherwise)
};

class RemoteClient {
public:
    RemoteClient(RemoteUrl url, std::string apiKey, RemoteLimits limits = {});

    // The server's model ids; false with a message.
    bool listModels(std::vector<std::string> *ids, std::string *error) const;

    // One streamed reply to `messagesJson` (a JSON array text) from `model`,
    // with the sampling settings that do something; `onText` gets each piece
    // (reasoning: true for reasoning_content / reasoning).
    RemoteReply chat(const std::string &model, const std::string &messagesJson, const SamplingParams &sampling,
                     long maxTokens, const std::function<void(const std::string &piece, bool reasoning)> &onText,
                     const CancelToken &cancel) const;

private:
    RemoteUrl m_url;
    std::string m_key;
    RemoteLimits m_limits;
};

} // namespace burrow::cli
