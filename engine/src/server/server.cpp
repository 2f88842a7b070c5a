// The HTTP side of the server (see server.h): Boost.Asio for sockets and
// timers, Boost.Beast for parsing requests and writing responses (chunked
// for streams).
//
// One Connection per accepted socket, on its own strand. Its life:
//   read the header (bounded size, bounded time: a new connection has
//   headerTimeoutSeconds for its first) -> check Host, Origin, the route,
//   the key, Content-Length -> read the body (bounded; a chunked body's
//   trailer is bounded by the read buffer) -> answer, or hand the body to
//   the PreparePool (JSON, template, tokens: off the network threads) and
//   then start a completion job; while either runs, watch the socket: the
//   client closing it cancels them. Streamed answers go out as SSE in HTTP
//   chunks (raw until the close for HTTP/1.0), with a keep-alive comment
//   when nothing was written for a while; every write has a deadline and
//   the bytes queued for a slow reader are bounded, so no client holds
//   memory or time without limit.
// Admission: when full, a new connection evicts the one waiting longest for
// a header (connection_registry.h). Every handler runs guarded: an
// exception (Beast's, the standard library's) drops that connection and is
// logged; it never ends the server.
// Scheduler callbacks arrive on the scheduler thread and are posted to the
// connection's strand through a Gate that the server closes before its
// io_context goes away.
#include "burrow/server.h"

#include "server/anthropic_response.h"
#include "server/api_error.h"
#include "server/api_request.h"
#include "server/api_response.h"
#include "server/completion_job.h"
#include "server/connection_registry.h"
#include "server/http_guard.h"
#include "server/prepare_pool.h"
#include "server/read_buffer.h"
#include "server/response_assembler.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace burrow::server {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

// Closed once, before the io_context is destroyed: posts from the
// scheduler thread after that are dropped.
struct Gate {
    std::mutex mutex;
    bool open = true;
};

// Where one connection's job events go: its strand. The scheduler may hold
// a job's callbacks (and so this) after the connection, or the whole
// server, is gone; the connection drops the executor when it dies (always
// before its io_context's services), so nothing is posted to, or
// released into, a dead io_context.
struct EventTarget {
    std::mutex mutex;
    std::optional<net::any_io_executor> executor;
};

// What every connection shares.
struct Shared {
    std::shared_ptr<const Model> model;
    std::shared_ptr<Scheduler> scheduler;
    ServerOptions options;
    std::string modelId;
    std::string modelFileName;
    std::string machineName;
    int64_t created = 0;
    uint32_t contextSize = 0;
    std::shared_ptr<Gate> gate = std::make_shared<Gate>();
    std::atomic<int32_t> connections{0};
    std::atomic<int32_t> activeRequests{0};
    std::atomic<uint64_t> requests{0};
    std::unique_ptr<ConnectionRegistry> registry;
    PreparePool *prepare = nullptr;            // owned by the ServerImpl, which outlives every connection
    std::atomic<int32_t> peakSinceTrim{0};

    // A connection closed, `open` are left: after a storm of connections has
    // gone (none left, or a quarter of the peak), hand the freed memory back
    // to the system (glibc keeps it otherwise).
    void connectionClosed(int32_t open)
    {
#if defined(__GLIBC__)
        int32_t peak = peakSinceTrim.load(std::memory_order_relaxed);
        if (peak >= 16 && (open == 0 || open < peak / 4) && peakSinceTrim.compare_exchange_strong(peak, open))
            malloc_trim(0);   // a few milliseconds, once per storm
#else
        (void)open;
#endif
    }
    void connectionOpened(int32_t open)
    {
        int32_t peak = peakSinceTrim.load(std::memory_order_relaxed);
        while (open > peak && !peakSinceTrim.compare_exchange_weak(peak, open)) {
        }
    }
};

// The request target or a message for the log: control characters (a
// client's CR, LF, ESC) written as \xNN, so a request cannot forge log lines
// or drive a terminal.
std::string printable(std::string_view text, size_t maxBytes)
{
    std::string out;
    for (const char c : text.substr(0, maxBytes)) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    if (text.size() > maxBytes)
        out += "...";
    return out;
}

bool isLoopback(const tcp::endpoint &endpoint)
{
    const net::ip::address a = endpoint.address();
    if (a.is_v4())
        return a.to_v4().is_loopback();
    const net::ip::address_v6 v6 = a.to_v6();
    return v6.is_loopback() || (v6.is_v4_mapped() && net::ip::make_address_v4(net::ip::v4_mapped, v6).is_loopback());
}

bool modelMatches(const Shared &shared, const std::string &name)
{
    return name.empty() || name == shared.modelId || name == shared.modelFileName;
}

using Prepared = std::variant<std::shared_ptr<CompletionJob>, ApiError>;

std::chrono::steady_clock::duration seconds(double s)
{
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

enum class Route { ROUTE_NONE, ROUTE_HEALTH, ROUTE_MODELS, ROUTE_MODEL, ROUTE_CHAT, ROUTE_COMPLETIONS, ROUTE_MESSAGES,
                   ROUTE_RESPONSES };

class Connection : public ConnectionSlot, public std::enable_shared_from_this<Connection> {
public:
    Connection(tcp::socket socket, std::shared_ptr<Shared> shared, std::string peer)
        : ConnectionSlot(std::move(peer)),
          m_stream(std::move(socket)),
          m_shared(std::move(shared)),
          m_buffer(readBufferBytes(m_shared->options.limits)),
          m_writeTimer(m_stream.get_executor()),
          m_pingTimer(m_stream.get_executor()),
          m_drainTimer(m_stream.get_executor()),
          m_events(std::make_shared<EventTarget>())
    {
        m_events->executor.emplace(m_stream.get_executor());
        m_shared->connectionOpened(m_shared->connections.fetch_add(1) + 1);
        waitingForHeader();
    }

    ~Connection() override
    {
        {
            std::lock_guard lock(m_events->mutex);
            m_events->executor.reset();
        }
        if (m_prepareCancel)
            m_prepareCancel->cancel();
        if (m_job) {
            m_job->cancel();
            m_shared->activeRequests.fetch_sub(1);
        }
        m_shared->connectionClosed(m_shared->connections.fetch_sub(1) - 1);
    }

    // `overLimit`: too many connections: answer 503 and close.
    void start(bool overLimit)
    {
        net::dispatch(m_stream.get_executor(), [self = shared_from_this(), overLimit] {
            self->safely([&] {
                if (overLimit) {
                    self->busy();
                    self->m_refused = true;
                    self->m_keepAlive = false;
                    self->m_mustClose = true;
                    self->sendError(ApiError::busy("too many connections; retry shortly"));
                } else {
                    self->readHeader();
                }
            });
        });
    }

protected:
    // The accept loop needs room: close, unless a whole header came meanwhile.
    void evict() override
    {
        net::post(m_stream.get_executor(), [weak = weak_from_this()] {
            if (auto self = weak.lock())
                self->safely([&] {
                    if (self->m_waitingForHeader)
                        self->close();
                    else
                        self->spared();
                });
        });
    }

private:
    // Runs one handler's work: whatever it throws (Beast's length_error, a
    // bad_alloc) drops this connection and is logged; nothing escapes to
    // the io_context.
    template <class F>
    void safely(F &&work) noexcept
    {
        try {
            work();
        } catch (const std::exception &e) {
            failInternally(e.what());
        } catch (...) {
            failInternally("unknown exception");
        }
    }

    void failInternally(const char *what) noexcept
    {
        try {
            if (m_shared->options.log)
                m_shared->options.log("internal error on a connection (closed): " + printable(what, 200));
        } catch (...) {
        }
        try {
            if (m_job)
                m_job->cancel();
            endJob();
            close();
        } catch (...) {
        }
    }

    // ---- reading a request ------------------------------------------------

    void readHeader()
    {
        m_parser.emplace();
        m_parser->header_limit(static_cast<std::uint32_t>(m_shared->options.limits.maxHeaderBytes));
        m_parser->body_limit(m_shared->options.limits.maxBodyBytes);
        m_origin.clear();
        m_method = http::verb::unknown;
        m_target.clear();
        m_version = 11;
        m_keepAlive = true;
        m_mustClose = false;
        // A new connection has a short deadline for its first header; a kept-
        // alive one may idle for the request timeout. Both are evictable
        // while they wait (connection_registry.h).
        const ServerLimits &limits = m_shared->options.limits;
        m_stream.expires_after(seconds(m_requests == 0 ? std::min(limits.headerTimeoutSeconds, limits.requestTimeoutSeconds)
                                                       : limits.requestTimeoutSeconds));
        m_waitingForHeader = true;
        waitingForHeader();
        http::async_read_header(m_stream, m_buffer, *m_parser, [self = shared_from_this()](beast::error_code ec, size_t) {
            self->safely([&] { self->onHeader(ec); });
        });
    }

    // A read error: answer what can be answered, close otherwise.
    void onReadError(beast::error_code ec)
    {
        m_keepAlive = false;
        m_mustClose = true;
        if (ec == http::error::body_limit) {
            sendError(ApiError::payloadTooLarge("the request body is larger than " +
                                                std::to_string(m_shared->options.limits.maxBodyBytes) + " bytes"));
        } else if (ec == http::error::header_limit) {
            sendError(ApiError::headersTooLarge("the request header is larger than " +
                                                std::to_string(m_shared->options.limits.maxHeaderBytes) + " bytes"));
        } else if (ec == http::error::buffer_overflow) {
            sendError(ApiError::headersTooLarge("a request header or trailer field does not fit in " +
                                                std::to_string(m_buffer.max_size()) + " bytes"));
        } else if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::eof ||
                   ec == net::error::connection_reset || ec == net::error::operation_aborted ||
                   ec == http::error::partial_message) {
            close();   // gone, idle, or too slow to send a whole request
        } else {
            sendError(ApiError::badRequest("malformed HTTP request: " + ec.message()));
        }
    }

    void onHeader(beast::error_code ec)
    {
        m_waitingForHeader = false;
        busy();
        if (ec)
            return onReadError(ec);
        ++m_requests;
        // The body (if any) has the request timeout from here.
        m_stream.expires_after(seconds(m_shared->options.limits.requestTimeoutSeconds));
        const auto &req = m_parser->get();
        m_method = req.method();
        m_target = std::string(req.target());
        m_version = req.version();
        m_keepAlive = req.keep_alive();
        const std::string path = m_target.substr(0, m_target.find('?'));

        // Host (DNS rebinding), then Origin (CORS), before anything else.
        const auto host = req.find(http::field::host);
        if (host == req.end())
            return refuse(ApiError::badRequest("the Host header is missing"));
        if (!hostAllowed(host->value(), m_shared->options.allowedHosts, m_shared->machineName))
            return refuse(ApiError::forbidden("Host '" + std::string(host->value()) +
                                              "' is not this server's (add it with --allowed-host)"));
        if (const auto origin = req.find(http::field::origin); origin != req.end()) {
            if (!originAllowed(origin->value(), m_shared->options.corsOrigins))
                return refuse(ApiError::forbidden("Origin '" + std::string(origin->value()) +
                                                  "' is not allowed (add it with --cors-origin)"));
            m_origin = std::string(origin->value());
        }
        if (m_method == http::verb::options)
            return preflight();

        m_route = Route::ROUTE_NONE;
        m_routeArg.clear();
        std::string p = path;
        if (p.rfind("/v1/", 0) == 0)
            p = p.substr(3);
        if (p == "/health")
            m_route = Route::ROUTE_HEALTH;
        else if (p == "/models")
            m_route = Route::ROUTE_MODELS;
        else if (p.rfind("/models/", 0) == 0) {
            m_route = Route::ROUTE_MODEL;
            m_routeArg = p.substr(8);
        } else if (p == "/chat/completions")
            m_route = Route::ROUTE_CHAT;
        else if (p == "/completions")
            m_route = Route::ROUTE_COMPLETIONS;
        else if (p == "/messages")
            m_route = Route::ROUTE_MESSAGES;
        else if (p == "/responses")
            m_route = Route::ROUTE_RESPONSES;
        if (m_route == Route::ROUTE_NONE)
            return refuse(ApiError::notFound("no endpoint " + path + " (see GET /v1/models, POST /v1/chat/completions)"));
        const bool post =
            m_route == Route::ROUTE_CHAT || m_route == Route::ROUTE_COMPLETIONS || m_route == Route::ROUTE_MESSAGES ||
            m_route == Route::ROUTE_RESPONSES;
        if ((post && m_method != http::verb::post) ||
            (!post && m_method != http::verb::get && m_method != http::verb::head))
            return refuse(ApiError::methodNotAllowed(std::string(http::to_string(m_method)) + " is not allowed on " +
                                                     path + " (use " + (post ? "POST" : "GET") + ")"));
        if (!m_shared->options.apiKey.empty() && m_route != Route::ROUTE_HEALTH) {
            // "Authorization: Bearer KEY", or Anthropic's "x-api-key: KEY".
            const auto auth = req.find(http::field::authorization);
            const auto xKey = req.find("x-api-key");
            const bool bearer = auth != req.end() && bearerMatches(auth->value(), m_shared->options.apiKey);
            if (!bearer && (xKey == req.end() || !keyMatches(xKey->value(), m_shared->options.apiKey)))
                return refuse(ApiError::unauthorized());
        }
        if (m_parser->is_done())
            return onBody({});
        // "Expect: 100-continue" (curl, for large bodies): the checks above
        // passed, so ask for the body.
        const auto expect = req.find(http::field::expect);
        if (expect != req.end() && beast::iequals(expect->value(), "100-continue")) {
            auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, req.version());
            http::async_write(m_stream, *cont, [self = shared_from_this(), cont](beast::error_code wec, size_t) {
                self->safely([&] {
                    if (wec)
                        return self->close();
                    self->readBody();
                });
            });
            return;
        }
        readBody();
    }

    void readBody()
    {
        http::async_read(m_stream, m_buffer, *m_parser, [self = shared_from_this()](beast::error_code ec, size_t) {
            self->safely([&] { self->onBody(ec); });
        });
    }

    void onBody(beast::error_code ec)
    {
        if (ec)
            return onReadError(ec);
        m_stream.expires_never();
        switch (m_route) {
        case Route::ROUTE_HEALTH:
            return sendJson(http::status::ok, "{\"status\":\"ok\"}");
        case Route::ROUTE_MODELS:
            return sendJson(http::status::ok, modelList(m_shared->modelId, m_shared->created));
        case Route::ROUTE_MODEL:
            if (!modelMatches(*m_shared, m_routeArg))
                return sendError(ApiError::notFound("model '" + m_routeArg + "' is not served here (this server has '" +
                                                        m_shared->modelId + "')",
                                                    "model_not_found"));
            return sendJson(http::status::ok, modelObject(m_shared->modelId, m_shared->created));
        case Route::ROUTE_CHAT:
            return startCompletion(Endpoint::ENDPOINT_CHAT_COMPLETIONS);
        case Route::ROUTE_COMPLETIONS:
            return startCompletion(Endpoint::ENDPOINT_COMPLETIONS);
        case Route::ROUTE_MESSAGES:
            return startCompletion(Endpoint::ENDPOINT_MESSAGES);
        case Route::ROUTE_RESPONSES:
            return startCompletion(Endpoint::ENDPOINT_RESPONSES);
        case Route::ROUTE_NONE:
            break;
        }
        sendError(ApiError::notFound("no such endpoint"));
    }

    // An answer before the body was read: the connection closes after it
    // (the unread body would otherwise be taken for the next request).
    void refuse(const ApiError &error)
    {
        m_keepAlive = false;
        m_mustClose = true;
        sendError(error);
    }

    void preflight()
    {
        auto res = std::make_shared<http::response<http::empty_body>>(http::status::no_content, 11);
        const auto &req = m_parser->get();
        if (!m_origin.empty()) {
            res->set(http::field::access_control_allow_methods, "GET, POST, OPTIONS");
            const auto headers = req.find(http::field::access_control_request_headers);
            res->set(http::field::access_control_allow_headers,
                     headers != req.end() ? std::string(headers->value()) : std::string("Authorization, Content-Type"));
            res->set(http::field::access_control_max_age, "600");
        }
        m_keepAlive = false;
        m_mustClose = true;
        finishHeaders(*res);
        res->keep_alive(false);
        m_status = 204;
        writeResponse(res);
    }

    // ---- completions ------------------------------------------------------

    // The body goes to the PreparePool: it reads the JSON, renders the
    // template and tokenizes there; onPrepared() continues on this strand.
    // Meanwhile the socket is watched: a client that leaves cancels it.
    void startCompletion(Endpoint endpoint)
    {
        const uint64_t generation = ++m_generation;
        m_prepareCancel = std::make_shared<CancelToken>();
        auto body = std::make_shared<std::string>(std::move(m_parser->get().body()));
        auto task = [shared = std::weak_ptr<Shared>(m_shared), model = m_shared->model, endpoint, body,
                     cancel = m_prepareCancel, weak = weak_from_this(), target = m_events, gate = m_shared->gate,
                     generation] {
            Prepared result = ApiError::internal("the server is stopping");
            if (auto s = shared.lock())
                result = prepareRequest(*s, model, endpoint, *body, cancel);
            std::lock_guard open(gate->mutex);
            std::lock_guard lock(target->mutex);
            if (!gate->open || !target->executor)
                return;
            net::post(*target->executor, [weak, generation, result = std::move(result)]() mutable {
                if (auto self = weak.lock())
                    self->safely([&] { self->onPrepared(generation, std::move(result)); });
            });
        };
        if (!m_shared->prepare->submit(m_prepareCancel, std::move(task))) {
            m_prepareCancel.reset();
            return sendError(ApiError::busy("too many requests are waiting for their prompt to be built; retry shortly"));
        }
        m_started = Clock::now();
        watch();
    }

    // On a PreparePool thread: the request's JSON, the model it names, its prompt.
    static Prepared prepareRequest(const Shared &shared, const std::shared_ptr<const Model> &model, Endpoint endpoint,
                                   const std::string &body, const std::shared_ptr<CancelToken> &cancel)
    {
        auto parsed = parseApiRequest(endpoint, body, shared.options.limits, shared.options.maxChoices);
        if (auto *error = std::get_if<ApiError>(&parsed))
            return *error;
        ApiRequest &request = std::get<ApiRequest>(parsed);
        if (!modelMatches(shared, request.model))
            return ApiError::notFound("model '" + request.model + "' is not served here (this server has '" +
                                          shared.modelId + "'; see GET /v1/models)",
                                      "model_not_found");
        auto prepared = CompletionJob::prepare(model, shared.contextSize, std::move(request), cancel);
        if (auto *job = std::get_if<std::shared_ptr<CompletionJob>>(&prepared))
            return *job;
        return std::get<ApiError>(prepared);
    }

    void onPrepared(uint64_t generation, Prepared prepared)
    {
        if (generation != m_generation || m_closed || !m_prepareCancel)
            return;
        m_prepareCancel.reset();
        if (auto *error = std::get_if<ApiError>(&prepared))
            return sendError(*error);
        std::shared_ptr<CompletionJob> job = std::get<std::shared_ptr<CompletionJob>>(prepared);
        const Endpoint endpoint = job->request().endpoint;

        ResponseIds ids;
        ids.id = newResponseId(endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS ? "chatcmpl-"
                               : endpoint == Endpoint::ENDPOINT_MESSAGES      ? "msg_"
                               : endpoint == Endpoint::ENDPOINT_RESPONSES     ? "resp_"
                                                                              : "cmpl-");
        ids.created = static_cast<int64_t>(std::time(nullptr));
        ids.model = m_shared->modelId;
        m_assembler.emplace(job->request(), ids, job->promptTokens(), job->toolCallSyntax());
        m_streaming = job->request().stream;

        // Events go from the scheduler thread to this strand; the generation
        // number drops those of an earlier job (one refused halfway).
        std::weak_ptr<Connection> weak = weak_from_this();
        std::shared_ptr<EventTarget> target = m_events;
        std::shared_ptr<Gate> gate = m_shared->gate;
        job->setSpeculative(m_shared->options.speculative);
        auto error = job->submit(*m_shared->scheduler, m_shared->options.priority,
                                 [weak, target, gate, generation](JobEvent &&event) {
                                     std::lock_guard open(gate->mutex);
                                     std::lock_guard lock(target->mutex);
                                     if (!gate->open || !target->executor)
                                         return;
                                     net::post(*target->executor, [weak, generation, event = std::move(event)]() mutable {
                                         if (auto self = weak.lock())
                                             self->safely([&] { self->onJobEvent(generation, event); });
                                     });
                                 });
        if (error) {
            m_assembler.reset();
            return sendError(*error);
        }
        m_job = std::move(job);
        m_shared->activeRequests.fetch_add(1);
        watch();
        if (m_streaming)
            openStream();
    }

    void onJobEvent(uint64_t generation, const JobEvent &event)
    {
        if (generation != m_generation || !m_job || !m_assembler || m_closed)
            return;
        std::string bytes = m_assembler->onEvent(event);
        if (m_streaming && !bytes.empty())
            queueChunk(std::move(bytes));
        if (!m_assembler->finished())
            return;
        endJob();
        if (m_streaming) {
            queueLastChunk();
            return;
        }
        if (m_assembler->error())
            return sendError(*m_assembler->error());
        sendJson(http::status::ok, m_assembler->body());
    }

    void endJob()
    {
        if (m_job) {
            m_job.reset();
            m_shared->activeRequests.fetch_sub(1);
        }
    }

    // While a job runs, a read is kept pending: it fails when the client
    // closes the connection (or resets it), and the job is cancelled. Bytes
    // that do arrive (a pipelined request) are kept for the next read.
    void watch()
    {
        if (m_watching || m_closed)
            return;
        const size_t room = m_buffer.max_size() - m_buffer.size();
        if (room < 1024)
            return;   // enough pipelined bytes held; stop watching rather than grow
        m_watching = true;
        m_stream.socket().async_read_some(
            m_buffer.prepare(std::min<size_t>(room, 4096)), [self = shared_from_this()](beast::error_code ec, size_t n) {
                self->safely([&] {
                    self->m_watching = false;
                    if (!ec) {
                        self->m_buffer.commit(n);
                        if (self->m_afterWatch)
                            return self->runAfterWatch();
                        return self->watch();
                    }
                    if (ec == net::error::operation_aborted && self->m_afterWatch)
                        return self->runAfterWatch();
                    // The client went away: stop its work now. A continuation
                    // waiting for this read is dropped (it holds the connection).
                    self->m_afterWatch = nullptr;
                    self->clientGone();
                });
            });
    }

    void runAfterWatch()
    {
        auto next = std::move(m_afterWatch);
        m_afterWatch = nullptr;
        next();
    }

    // Runs `next` once no watch read is pending: now, or from the watch
    // read's handler once the cancel lands. `next` must not own the
    // connection (capture `this`, not `self`): while it waits in
    // m_afterWatch the pending read's handler keeps the connection alive,
    // and when the io_context is stopped first, that handler is destroyed
    // unrun and the connection goes with it. A `self` in `next` would be a
    // cycle (connection -> m_afterWatch -> connection) that outlives the
    // server.
    void afterWatch(std::function<void()> next)
    {
        if (!m_watching)
            return next();
        m_afterWatch = std::move(next);
        beast::error_code ignored;
        m_stream.socket().cancel(ignored);
    }

    void clientGone()
    {
        if (m_job || m_prepareCancel) {
            if (m_job)
                m_job->cancel();
            log(499, " client closed the connection; cancelled");
        }
        endJob();
        close();
    }

    // ---- writing ----------------------------------------------------------

    template <class Body>
    void finishHeaders(http::response<Body> &res)
    {
        res.set(http::field::server, "burrow");
        if (!m_origin.empty()) {
            res.set(http::field::access_control_allow_origin, m_origin);
            res.set(http::field::vary, "Origin");
        }
    }

    void sendJson(http::status status, std::string body)
    {
        auto res = std::make_shared<http::response<http::string_body>>(status, 11);
        res->set(http::field::content_type, "application/json");
        finishHeaders(*res);
        res->keep_alive(m_keepAlive && !m_mustClose);
        if (m_method == http::verb::head)
            body.clear();
        res->body() = std::move(body);
        res->prepare_payload();
        m_status = static_cast<int>(status);
        writeResponse(res);
    }

    void sendError(const ApiError &error)
    {
        auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(error.status), 11);
        res->set(http::field::content_type, "application/json");
        if (error.retryAfterSeconds > 0)
            res->set(http::field::retry_after, std::to_string(error.retryAfterSeconds));
        if (error.status == 401)
            res->set(http::field::www_authenticate, "Bearer");
        finishHeaders(*res);
        res->keep_alive(m_keepAlive && !m_mustClose);
        if (m_method != http::verb::head)   // a HEAD answer never has a body
            res->body() = m_route == Route::ROUTE_MESSAGES ? anthropicErrorBody(error) : errorBody(error);
        res->prepare_payload();
        m_status = error.status;
        m_errorMessage = error.message;
        writeResponse(res);
    }

    // One whole response; then the next request, or close.
    template <class Response>
    void writeResponse(std::shared_ptr<Response> res)
    {
        const bool keep = res->keep_alive();
        armWriteDeadline();
        http::async_write(m_stream.socket(), *res, [self = shared_from_this(), res, keep](beast::error_code ec, size_t) {
            self->safely([&] {
                self->m_writeTimer.cancel();
                self->m_shared->requests.fetch_add(1);
                self->log(self->m_status, self->m_errorMessage.empty() ? "" : " " + self->m_errorMessage);
                self->m_errorMessage.clear();
                self->m_assembler.reset();
                if (ec)
                    return self->close();
                self->nextRequest(keep);
            });
        });
    }

    void nextRequest(bool keep)
    {
        if (!keep || m_closed)
            return lingeringClose();
        afterWatch([this] { readHeader(); });
    }

    void armWriteDeadline()
    {
        m_writeTimer.expires_after(seconds(m_shared->options.limits.writeTimeoutSeconds));
        m_writeTimer.async_wait([weak = weak_from_this()](beast::error_code ec) {
            if (ec)
                return;   // cancelled: the write finished
            if (auto self = weak.lock()) {
                self->safely([&] {
                    // The client stopped reading.
                    if (self->m_job)
                        self->m_job->cancel();
                    self->endJob();
                    self->close();
                });
            }
        });
    }

    void openStream()
    {
        auto head = std::make_shared<http::response<http::empty_body>>(http::status::ok, 11);
        head->set(http::field::content_type, "text/event-stream");
        head->set(http::field::cache_control, "no-cache");
        head->set("X-Accel-Buffering", "no");
        finishHeaders(*head);
        // HTTP/1.0 has no chunked encoding: its stream is the raw events,
        // ended by closing the connection.
        m_chunked = m_version >= 11;
        if (!m_chunked)
            m_keepAlive = false;
        head->keep_alive(m_keepAlive);
        head->chunked(m_chunked);
        auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*head);
        m_status = 200;
        m_writing = true;
        m_lastWrite = Clock::now();
        armWriteDeadline();
        http::async_write_header(m_stream.socket(), *serializer,
                                 [self = shared_from_this(), head, serializer](beast::error_code ec, size_t) {
                                     self->safely([&] {
                                         self->m_writeTimer.cancel();
                                         self->m_writing = false;
                                         if (ec)
                                             return self->clientGone();
                                         self->flush();
                                     });
                                 });
        if (std::string opening = m_assembler->open(); !opening.empty())
            queueChunk(std::move(opening));
        schedulePing();
    }

    void queueChunk(std::string bytes)
    {
        m_pendingBytes += bytes.size();
        if (m_pendingBytes > m_shared->options.limits.maxPendingWriteBytes) {
            // The client reads far slower than the model writes.
            if (m_job)
                m_job->cancel();
            endJob();
            return close();
        }
        m_outbox.push_back({std::move(bytes), false});
        flush();
    }

    void queueLastChunk()
    {
        m_outbox.push_back({{}, true});
        flush();
    }

    void flush()
    {
        if (m_writing || m_outbox.empty() || m_closed)
            return;
        m_writing = true;
        armWriteDeadline();
        auto done = [self = shared_from_this()](beast::error_code ec, size_t) {
            self->safely([&] { self->onWritten(ec); });
        };
        const Outgoing &front = m_outbox.front();
        if (!m_chunked)   // HTTP/1.0: the bytes as they are; the last "chunk" is nothing (the close ends it)
            net::async_write(m_stream.socket(), net::buffer(front.data), std::move(done));
        else if (front.last)
            net::async_write(m_stream.socket(), http::make_chunk_last(), std::move(done));
        else
            net::async_write(m_stream.socket(), http::make_chunk(net::buffer(front.data)), std::move(done));
    }

    void onWritten(beast::error_code ec)
    {
        m_writeTimer.cancel();
        m_writing = false;
        const bool last = m_outbox.front().last;
        m_pendingBytes -= m_outbox.front().data.size();
        m_outbox.pop_front();
        m_lastWrite = Clock::now();
        if (ec)
            return clientGone();
        if (last) {
            m_pingTimer.cancel();
            m_streaming = false;
            m_shared->requests.fetch_add(1);
            log(200, m_assembler && m_assembler->error() ? " error in stream" : "");
            m_assembler.reset();
            return nextRequest(m_keepAlive);
        }
        flush();
    }

    // ": keep-alive" while the stream is silent (a long prompt being
    // evaluated), so clients with idle timeouts (Node's 300 s) stay.
    void schedulePing()
    {
        const double interval = m_shared->options.keepAliveSeconds;
        if (interval <= 0)
            return;
        m_pingTimer.expires_after(seconds(interval));
        m_pingTimer.async_wait([weak = weak_from_this(), interval](beast::error_code ec) {
            auto self = weak.lock();
            if (ec || !self || !self->m_streaming || !self->m_job || self->m_closed)
                return;
            self->safely([&] {
                if (Clock::now() - self->m_lastWrite >= seconds(interval * 0.9) && self->m_outbox.empty())
                    self->queueChunk(sseKeepAlive());
                self->schedulePing();
            });
        });
    }

    // ---- closing ----------------------------------------------------------

    // After an answer that leaves the connection: stop sending, read (and
    // drop) what the client is still sending for a moment, then close, so
    // the answer is not lost to a reset.
    void lingeringClose()
    {
        afterWatch([this] {
            m_waitingForHeader = true;   // done with: the first to make room for a new connection
            waitingForHeader();
            beast::error_code ignored;
            m_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
            // A refused connection (503 on arrival) lingers briefly: under a
            // flood, thousands of them must not hold descriptors for long.
            m_drainTimer.expires_after(m_refused ? std::chrono::milliseconds(200) : std::chrono::milliseconds(2000));
            m_drainTimer.async_wait([weak = weak_from_this()](beast::error_code ec) {
                if (!ec)
                    if (auto s = weak.lock())
                        s->safely([&] { s->close(); });
            });
            drain();
        });
    }

    void drain()
    {
        if (m_closed)
            return;
        m_buffer.clear();
        m_stream.socket().async_read_some(m_buffer.prepare(std::min<size_t>(16384, m_buffer.max_size())),
                                          [self = shared_from_this()](beast::error_code ec, size_t n) {
                                              self->safely([&] {
                                                  self->m_drained += n;
                                                  if (ec || self->m_drained > 4 * self->m_shared->options.limits.maxBodyBytes)
                                                      return self->close();
                                                  self->drain();
                                              });
                                          });
    }

    void close()
    {
        if (m_closed)
            return;
        m_closed = true;
        m_afterWatch = nullptr;
        if (m_prepareCancel)
            m_prepareCancel->cancel();
        m_pingTimer.cancel();
        m_writeTimer.cancel();
        m_drainTimer.cancel();
        beast::error_code ignored;
        m_stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
        m_stream.socket().close(ignored);
    }

    void log(int status, const std::string &detail)
    {
        if (!m_shared->options.log)
            return;
        std::string line = std::string(http::to_string(m_method)) + " " + printable(m_target, 200) + " " +
                           std::to_string(status);
        if (m_assembler && (m_route == Route::ROUTE_CHAT || m_route == Route::ROUTE_COMPLETIONS)) {
            const Usage &u = m_assembler->usage();
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - m_started).count();
            char buf[96];
            std::snprintf(buf, sizeof buf, " prompt %lld, reply %lld tokens, %.0f ms",
                          static_cast<long long>(u.promptTokens), static_cast<long long>(u.completionTokens), ms);
            line += buf;
        }
        m_shared->options.log(line + printable(detail, 1000));
    }

    struct Outgoing {
        std::string data;
        bool last = false;   // the terminating zero-length chunk
    };

    beast::tcp_stream m_stream;
    std::shared_ptr<Shared> m_shared;
    beast::flat_buffer m_buffer;
    std::optional<http::request_parser<http::string_body>> m_parser;
    net::steady_timer m_writeTimer, m_pingTimer, m_drainTimer;
    std::shared_ptr<EventTarget> m_events;

    http::verb m_method = http::verb::unknown;
    std::string m_target;
    Route m_route = Route::ROUTE_NONE;
    std::string m_routeArg;
    std::string m_origin;          // allowed Origin of this request ("" when none)
    unsigned m_version = 11;       // of the request: 10 for HTTP/1.0
    bool m_keepAlive = true;
    bool m_mustClose = false;
    int m_status = 0;
    std::string m_errorMessage;
    bool m_waitingForHeader = true;   // evictable (ConnectionSlot mirrors it for the accept loop)
    uint64_t m_requests = 0;          // headers received on this connection
    bool m_refused = false;           // answered 503 on arrival (the server was full)

    std::shared_ptr<CancelToken> m_prepareCancel;   // set while the PreparePool builds the prompt
    std::shared_ptr<CompletionJob> m_job;
    std::optional<ResponseAssembler> m_assembler;
    uint64_t m_generation = 0;
    bool m_streaming = false;
    Clock::time_point m_started;

    std::deque<Outgoing> m_outbox;
    bool m_chunked = true;         // the stream's framing (false: HTTP/1.0, raw until close)
    size_t m_pendingBytes = 0;
    bool m_writing = false;
    Clock::time_point m_lastWrite;

    bool m_watching = false;
    std::function<void()> m_afterWatch;
    size_t m_drained = 0;
    bool m_closed = false;
};

class ServerImpl final : public Server {
public:
    explicit ServerImpl(std::shared_ptr<Shared> shared)
        : m_shared(std::move(shared)),
          m_io(std::max(1, m_shared->options.ioThreads)),
          m_acceptor(m_io),
          m_acceptRetry(m_io),
          m_prepare(std::max(1, m_shared->options.prepareThreads), m_shared->options.limits.maxPendingPrepares)
    {
        m_shared->registry = std::make_unique<ConnectionRegistry>(m_shared->options.limits.maxConnections,
                                                                  m_shared->options.limits.maxConnectionsPerPeer);
        m_shared->prepare = &m_prepare;
    }

    // Returns within about a second whatever runs: the network threads only
    // do I/O, and a template still rendering on the PreparePool is cancelled.
    ~ServerImpl() override
    {
        {
            std::lock_guard lock(m_shared->gate->mutex);
            m_shared->gate->open = false;
        }
        net::post(m_io, [this] {
            beast::error_code ignored;
            m_acceptor.close(ignored);
        });
        m_io.stop();
        for (std::thread &t : m_threads)
            t.join();
        m_prepare.stop();   // cancels the renders, joins; their results meet the closed gate
        // The io_context's destructor destroys the pending handlers, and
        // with them the connections (which cancel their jobs).
    }

    Status listen()
    {
        beast::error_code ec;
        const auto address = net::ip::make_address(m_shared->options.host, ec);
        if (ec)
            return Status::error("'" + m_shared->options.host + "' is not an IP address (use 127.0.0.1, 0.0.0.0, ::1, ...)");
        const tcp::endpoint endpoint(address, m_shared->options.port);
        m_acceptor.open(endpoint.protocol(), ec);
        if (!ec)
            m_acceptor.set_option(net::socket_base::reuse_address(true), ec);
        if (!ec)
            m_acceptor.bind(endpoint, ec);
        if (!ec)
            m_acceptor.listen(net::socket_base::max_listen_connections, ec);
        if (ec)
            return Status::error("cannot listen on " + m_shared->options.host + ":" +
                                 std::to_string(m_shared->options.port) + ": " + ec.message());
        m_port = m_acceptor.local_endpoint().port();
        const bool v6 = address.is_v6();
        m_url = "http://" + (v6 ? "[" + m_shared->options.host + "]" : m_shared->options.host) + ":" +
                std::to_string(m_port);
        accept();
        for (int i = 0; i < std::max(1, m_shared->options.ioThreads); ++i)
            m_threads.emplace_back([this] { run(); });
        return Status::ok();
    }

    uint16_t port() const override { return m_port; }
    std::string url() const override { return m_url; }
    const std::string &modelId() const override { return m_shared->modelId; }
    ServerStats stats() const override
    {
        ServerStats s;
        s.connections = m_shared->connections.load();
        s.activeRequests = m_shared->activeRequests.load();
        s.requests = m_shared->requests.load();
        return s;
    }

private:
    // A network thread: the handlers are guarded one by one; should anything
    // escape anyway, it is logged and the thread goes on serving.
    void run()
    {
        for (;;) {
            try {
                m_io.run();
                return;
            } catch (const std::exception &e) {
                logInternal(e.what());
            } catch (...) {
                logInternal("unknown exception");
            }
        }
    }

    void logInternal(const char *what) noexcept
    {
        try {
            if (m_shared->options.log)
                m_shared->options.log(std::string("internal error in the network loop: ") + printable(what, 200));
        } catch (...) {
        }
    }

    void accept()
    {
        m_acceptor.async_accept(net::make_strand(m_io), [this](beast::error_code ec, tcp::socket socket) {
            if (ec == net::error::operation_aborted || !m_acceptor.is_open())
                return;
            if (ec) {
                // Out of descriptors or memory: wait a moment rather than spin.
                m_acceptRetry.expires_after(std::chrono::milliseconds(50));
                m_acceptRetry.async_wait([this](beast::error_code wec) {
                    if (!wec)
                        accept();
                });
                return;
            }
            try {
                admit(std::move(socket));
            } catch (const std::exception &e) {
                logInternal(e.what());
            }
            accept();
        });
    }

    void admit(tcp::socket socket)
    {
        beast::error_code ec;
        socket.set_option(tcp::no_delay(true), ec);
        const tcp::endpoint remote = socket.remote_endpoint(ec);
        const std::string peer = ec || isLoopback(remote) ? std::string() : remote.address().to_string();
        const auto admission = m_shared->registry->admit(peer);
        auto connection = std::make_shared<Connection>(std::move(socket), m_shared, peer);
        if (admission != ConnectionRegistry::Admission::ADMISSION_REFUSED)
            m_shared->registry->add(connection);
        connection->start(admission == ConnectionRegistry::Admission::ADMISSION_REFUSED);
    }

    std::shared_ptr<Shared> m_shared;
    net::io_context m_io;
    tcp::acceptor m_acceptor;
    net::steady_timer m_acceptRetry;
    PreparePool m_prepare;
    std::vector<std::thread> m_threads;
    uint16_t m_port = 0;
    std::string m_url;
};

std::string fileStem(const std::string &path, bool keepExtension)
{
    const size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (!keepExtension && name.size() > 5 && name.compare(name.size() - 5, 5, ".gguf") == 0)
        name.resize(name.size() - 5);
    return name;
}

} // namespace

Result<std::unique_ptr<Server>> Server::start(std::shared_ptr<const Model> model, std::shared_ptr<Scheduler> scheduler,
                                              ServerOptions options)
{
    if (!model || !scheduler)
        return Status::error("the server needs a model and a scheduler");
    auto shared = std::make_shared<Shared>();
    shared->model = std::move(model);
    shared->scheduler = std::move(scheduler);
    shared->options = std::move(options);
    const std::string &path = shared->model->info().path;
    shared->modelFileName = fileStem(path, true);
    shared->modelId = !shared->options.modelId.empty() ? shared->options.modelId
                      : !path.empty()                  ? fileStem(path, false)
                                                       : shared->model->info().name;
    shared->machineName = machineHostName();
    shared->created = static_cast<int64_t>(std::time(nullptr));
    // The scheduler clamps its context to the model's trained one.
    shared->contextSize = shared->scheduler->options().contextSize;
    if (const uint32_t trained = shared->model->info().contextLength; trained != 0)
        shared->contextSize = std::min(shared->contextSize, trained);
    try {
        auto server = std::make_unique<ServerImpl>(shared);
        if (Status s = server->listen(); !s)
            return s;
        return std::unique_ptr<Server>(std::move(server));
    } catch (const std::exception &e) {
        return Status::error(std::string("cannot start the server: ") + e.what());
    }
}

} // namespace burrow::server
