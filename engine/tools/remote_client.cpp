#include "remote_client.h"

#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace burrow::cli {

namespace {

namespace http = boost::beast::http;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxLine = size_t(4) << 20;         // one SSE line
constexpr size_t kMaxErrorBody = size_t(64) << 10;   // an error's body, or a model list's up to kMaxList
constexpr size_t kMaxList = size_t(4) << 20;
constexpr int kPollMs = 100;                          // how often a wait looks at the cancel token

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One TCP connection; every wait bounded and cancellable.
class Connection {
public:
    ~Connection()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }

    bool open(const RemoteUrl &url, int timeoutMs, std::string *error)
    {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        addrinfo *found = nullptr;
        const std::string port = std::to_string(url.port);
        if (const int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
            *error = "cannot resolve " + url.host + ": " + gai_strerror(rc);
            return false;
        }
        std::string last = "no address";
        for (addrinfo *a = found; a; a = a->ai_next) {
            const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
            if (fd < 0) {
                last = std::strerror(errno);
                continue;
            }
            bool ok = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0;
            if (!ok) {
                if (errno == EINPROGRESS)
                    ok = waitConnected(fd, timeoutMs, &last);
                else
                    last = std::strerror(errno);
            }
            if (ok) {
                m_fd = fd;
                break;
            }
            ::close(fd);
        }
        ::freeaddrinfo(found);
        if (m_fd < 0)
            *error = "could not reach " + url.host + ":" + port + " (" + last + ")";
        return m_fd >= 0;
    }

    bool sendAll(const std::string &bytes, int timeoutMs, std::string *error)
    {
        size_t sent = 0;
        const auto start = Clock::now();
        while (sent < bytes.size()) {
            const ssize_t n = ::send(m_fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
            if (n > 0) {
                sent += size_t(n);
                continue;
            }
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                *error = std::string("sending failed: ") + std::strerror(errno);
                return false;
            }
            if (msSince(start) > timeoutMs) {
                *error = "the server took no data for " + std::to_string(timeoutMs / 1000) + " s";
                return false;
            }
            pollfd p{m_fd, POLLOUT, 0};
            ::poll(&p, 1, kPollMs);
        }
        return true;
    }

    enum Got : long { Eof = 0, Failed = -1, TimedOut = -2, Cancelled = -3 };
    // Bytes read (> 0), or Eof, Failed, TimedOut (nothing for `timeoutMs`), Cancelled.
    long receive(char *buffer, size_t size, int timeoutMs, const CancelToken &cancel)
    {
        const auto start = Clock::now();
        for (;;) {
            if (cancel.isCancelled())
                return Cancelled;
            const ssize_t n = ::recv(m_fd, buffer, size, 0);
            if (n >= 0)
                return long(n);
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                return Failed;
            if (msSince(start) > timeoutMs)
                return TimedOut;
            pollfd p{m_fd, POLLIN, 0};
            ::poll(&p, 1, kPollMs);
        }
    }

private:
    static bool waitConnected(int fd, int timeoutMs, std::string *why)
    {
        pollfd p{fd, POLLOUT, 0};
        const int rc = ::poll(&p, 1, timeoutMs);
        if (rc <= 0) {
            *why = rc == 0 ? "no answer within " + std::to_string(timeoutMs / 1000) + " s" : std::strerror(errno);
            return false;
        }
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0)
            *why = std::strerror(err);
        return err == 0;
    }

    int m_fd = -1;
};

struct Answer {
    int status = 0;
    std::string contentType;
    std::string body;            // an error's (bounded), or what onBody did not take
    std::string error;           // the transport failed ("" otherwise)
    bool cancelled = false;
    bool ended = false;          // the whole answer arrived
};

// One request/answer. `onBody` (when set and the status is 2xx) takes the
// body as it arrives and returns false to stop reading; otherwise the body
// is kept in Answer::body up to `maxBody` bytes.
Answer exchange(const RemoteUrl &url, const std::string &request, const RemoteLimits &limits, const CancelToken &cancel,
                size_t maxBody, const std::function<bool(std::string_view)> &onBody)
{
    Answer answer;
    Connection connection;
    if (!connection.open(url, limits.connectMs, &answer.error) ||
        !connection.sendAll(request, limits.connectMs, &answer.error))
        return answer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none);
    parser.header_limit(64 * 1024);
    parser.eager(true);
    std::string pending;
    char buffer[16384];
    for (;;) {
        const long got = connection.receive(buffer, sizeof buffer, parser.is_header_done() ? limits.idleMs
                                                                                          : limits.firstByteMs, cancel);
        if (got == Connection::Cancelled) {
            answer.cancelled = true;
            return answer;
        }
        if (got == Connection::TimedOut) {
            answer.error = parser.is_header_done() ? "the server sent nothing for " + std::to_string(limits.idleMs / 1000) + " s"
                                                   : "no answer within " + std::to_string(limits.firstByteMs / 1000) + " s";
            return answer;
        }
        if (got == Connection::Failed) {
            answer.error = std::string("the connection failed: ") + std::strerror(errno);
            return answer;
        }
        boost::system::error_code ec;
        if (got == Connection::Eof) {
            parser.put_eof(ec);
        } else {
            pending.append(buffer, size_t(got));
            while (!pending.empty() && !parser.is_done()) {
                const size_t used = parser.put(boost::asio::buffer(pending), ec);
                pending.erase(0, used);
                if (ec == http::error::need_more) {
                    ec = {};
                    break;
                }
                if (ec || used == 0)
                    break;
            }
        }
        if (ec) {
            answer.error = got == Connection::Eof ? "the connection ended in the middle of the answer"
                                                  : "the answer is not HTTP (" + ec.message() + ")";
            return answer;
        }
        if (parser.is_header_done() && answer.status == 0) {
            answer.status = int(parser.get().result_int());
            answer.contentType = std::string(parser.get()[http::field::content_type]);
        }
        std::string &body = parser.get().body();
        const bool streamed = onBody && answer.status >= 200 && answer.status < 300;
        if (streamed && !body.empty()) {
            const bool more = onBody(body);
            body.clear();
            if (!more) {
                answer.ended = true;
                return answer;
            }
        } else if (!streamed && body.size() > maxBody) {
            body.resize(maxBody);
            answer.body = body;
            answer.ended = true;
            return answer;
        }
        if (parser.is_done() || got == Connection::Eof) {
            answer.body = body;
            answer.ended = parser.is_done();
            if (!answer.ended)
                answer.error = "the connection ended in the middle of the answer";
            return answer;
        }
    }
}

std::string requestHead(const RemoteUrl &url, const char *method, const std::string &path, const std::string &key,
                        size_t bodyBytes)
{
    const bool v6 = url.host.find(':') != std::string::npos;
    std::string head = std::string(method) + " " + url.basePath + path + " HTTP/1.1\r\nHost: " +
                       (v6 ? "[" + url.host + "]" : url.host) + ":" + std::to_string(url.port) +
                       "\r\nUser-Agent: burrow-cli\r\nConnection: close\r\n";
    if (!key.empty())
        head += "Authorization: Bearer " + key + "\r\n";
    if (bodyBytes > 0)
        head += "Content-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: " +
                std::to_string(bodyBytes) + "\r\n";
    return head + "\r\n";
}

// The server's words for a failed status.
std::string statusMessage(int status, const std::string &body, const std::string &model)
{
    std::string said;
    const Json j = Json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("error")) {
        const Json &e = j["error"];
        if (e.is_object() && e.contains("message") && e["message"].is_string())
            said = e["message"].get<std::string>();
        else if (e.is_string())
            said = e.get<std::string>();
    }
    if (said.size() > 300)
        said = said.substr(0, 300) + "...";
    const std::string detail = said.empty() ? "" : " (" + said + ")";
    if (status == 401 || status == 403)
        return "the server refused the API key (HTTP " + std::to_string(status) + ")" + detail;
    if (status == 404)
        return "the server has no model '" + model + "' (HTTP 404)" + detail + "; --model names another";
    if (status == 429 || status == 503)
        return "the server is busy (HTTP " + std::to_string(status) + ")" + detail + "; try again later";
    return "the server answered HTTP " + std::to_string(status) + detail;
}

} // namespace

bool parseRemoteUrl(const std::string &url, RemoteUrl *out, std::string *error)
{
    const std::string http = "http://";
    if (url.rfind("https://", 0) == 0) {
        *error = "burrow-cli speaks plain http only; reach an https server through a tunnel "
                 "(ssh -L 8080:localhost:8000 HOST), or use the app, which speaks https";
        return false;
    }
    if (url.rfind(http, 0) != 0) {
        *error = "--remote takes an http:// address, e.g. http://127.0.0.1:8080/v1";
        return false;
    }
    std::string rest = url.substr(http.size());
    const size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    std::string path = slash == std::string::npos ? "" : rest.substr(slash);
    while (!path.empty() && path.back() == '/')
        path.pop_back();
    if (path.find_first_of("?# \r\n") != std::string::npos || authority.find('@') != std::string::npos) {
        *error = "--remote: no query, fragment, spaces or user name in the address";
        return false;
    }
    RemoteUrl u;
    u.basePath = path.empty() ? "/v1" : path;
    std::string portText;
    if (!authority.empty() && authority[0] == '[') {
        const size_t close = authority.find(']');
        if (close == std::string::npos) {
            *error = "--remote: an IPv6 address needs its closing ]";
            return false;
        }
        u.host = authority.substr(1, close - 1);
        if (close + 1 < authority.size() && authority[close + 1] == ':')
            portText = authority.substr(close + 2);
    } else {
        const size_t colon = authority.rfind(':');
        u.host = authority.substr(0, colon);
        if (colon != std::string::npos)
            portText = authority.substr(colon + 1);
    }
    if (u.host.empty() || u.host.find_first_of(" \r\n/") != std::string::npos) {
        *error = "--remote: the address has no host";
        return false;
    }
    if (!portText.empty()) {
        char *end = nullptr;
        const long port = std::strtol(portText.c_str(), &end, 10);
        if (*end != '\0' || port < 1 || port > 65535) {
            *error = "--remote: the port must be 1 to 65535";
            return false;
        }
        u.port = uint16_t(port);
    }
    in6_addr v6{};
    in_addr v4{};
    u.loopback = u.host == "localhost" || (::inet_pton(AF_INET, u.host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127) ||
                 (::inet_pton(AF_INET6, u.host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6));
    *out = u;
    return true;
}

RemoteClient::RemoteClient(RemoteUrl url, std::string apiKey, RemoteLimits limits)
    : m_url(std::move(url)), m_key(std::move(apiKey)), m_limits(limits)
{
}

bool RemoteClient::listModels(std::vector<std::string> *ids, std::string *error) const
{
    CancelToken never;
    RemoteLimits limits = m_limits;
    limits.firstByteMs = std::min(limits.firstByteMs, 15000);
    const Answer a = exchange(m_url, requestHead(m_url, "GET", "/models", m_key, 0), limits, never, kMaxList, {});
    if (!a.error.empty()) {
        *error = a.error;
        return false;
    }
    if (a.status != 200) {
        *error = statusMessage(a.status, a.body, "");
        return false;
    }
    const Json j = Json::parse(a.body, nullptr, false);
    if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) {
        *error = "the server's /models answer has no list of models";
        return false;
    }
    for (const Json &m : j["data"])
        if (m.is_object() && m.contains("id") && m["id"].is_string())
            ids->push_back(m["id"].get<std::string>());
    return true;
}

RemoteReply RemoteClient::chat(const std::string &model, const std::string &messagesJson, const SamplingParams &s,
                               long maxTokens, const std::function<void(const std::string &, bool)> &onText,
                               const CancelToken &cancel) const
{
    Json body = {{"model", model}, {"stream", true}, {"stream_options", {{"include_usage", true}}}};
    body["messages"] = Json::parse(messagesJson);
    body["temperature"] = s.temperature < 0 ? 0.0f : s.temperature;
    if (s.topP < 1.0f) body["top_p"] = s.topP;
    if (s.topK > 0) body["top_k"] = s.topK;
    if (s.minP > 0.0f) body["min_p"] = s.minP;
    if (s.repeatPenalty != 1.0f) body["repeat_penalty"] = s.repeatPenalty;
    if (s.seed != 0xFFFFFFFFu) body["seed"] = s.seed;
    if (maxTokens > 0) body["max_tokens"] = maxTokens;
    const std::string text = body.dump();

    RemoteReply reply;
    const auto sent = Clock::now();
    std::string line;
    bool overlong = false;
    const auto takeData = [&](const std::string &data) {
        if (data == "[DONE]") {
            reply.complete = true;
            return;
        }
        const Json chunk = Json::parse(data, nullptr, false);
        if (!chunk.is_object())
            return;
        if (chunk.contains("error")) {
            reply.error = "the server reported an error in the middle of the reply: " + chunk["error"].dump();
            return;
        }
        if (chunk.contains("usage") && chunk["usage"].is_object()) {
            const Json &u = chunk["usage"];
            if (u.contains("prompt_tokens") && u["prompt_tokens"].is_number_integer()) reply.promptTokens = u["prompt_tokens"].get<int>();
            if (u.contains("completion_tokens") && u["completion_tokens"].is_number_integer()) reply.completionTokens = u["completion_tokens"].get<int>();
        }
        if (!chunk.contains("choices") || !chunk["choices"].is_array() || chunk["choices"].empty())
            return;
        const Json &choice = chunk["choices"][0];
        if (!choice.is_object())
            return;
        if (choice.contains("delta") && choice["delta"].is_object()) {
            const Json &d = choice["delta"];
            const auto take = [&](const char *key, bool reasoning) {
                if (!d.contains(key) || !d[key].is_string() || d[key].get_ref<const std::string &>().empty())
                    return false;
                const std::string &piece = d[key].get_ref<const std::string &>();
                (reasoning ? reply.reasoning : reply.text) += piece;
                if (reply.firstTokenMs < 0) reply.firstTokenMs = msSince(sent);
                reply.lastTokenMs = msSince(sent);
                onText(piece, reasoning);
                return true;
            };
            // One name for the reasoning per chunk (vLLM may send both), then the answer.
            if (!take("reasoning_content", true))
                take("reasoning", true);
            take("content", false);
        }
        if (choice.contains("finish_reason") && choice["finish_reason"].is_string()) {
            reply.finishReason = choice["finish_reason"].get<std::string>();
            reply.complete = true;
        }
    };
    const auto onBody = [&](std::string_view bytes) {
        for (const char c : bytes) {
            if (c != '\n') {
                if (line.size() >= kMaxLine) { overlong = true; return false; }
                line += c;
                continue;
            }
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (line.rfind("data:", 0) == 0)
                takeData(line.substr(line.size() > 5 && line[5] == ' ' ? 6 : 5));
            line.clear();
            if (!reply.error.empty()) return false;
        }
        return true;
    };
    const Answer a = exchange(m_url, requestHead(m_url, "POST", "/chat/completions", m_key, text.size()) + text, m_limits,
                              cancel, kMaxErrorBody, onBody);
    reply.status = a.status;
    reply.cancelled = a.cancelled;
    if (a.cancelled || !reply.error.empty())
        return reply;
    if (overlong)
        reply.error = "the server sent a line of more than 4 MiB";
    else if (a.status != 0 && (a.status < 200 || a.status >= 300))
        reply.error = statusMessage(a.status, a.body, model);
    else if (!a.error.empty() && !reply.complete)
        reply.error = a.error + (reply.text.empty() ? "" : "; the reply above is cut off");
    else if (!reply.complete)
        reply.error = "the connection ended in the middle of the reply; the reply above is cut off";
    return reply;
}

} // namespace burrow::cli
