// The HTTP side of the server (see server.h): Boost.Asio for sockets and
// timers, Boost.Beast for parsing requests and writing responses (chunked
// for streams).
//
// One Connection per accepted socket, on its own strand. Its life:
//   read the header (bounded size, bounded time) -> check Host, Origin, the
//   route, the key, Content-Length -> read the body (bounded) -> answer, or
//   start a completion job and, while it runs, watch the socket: the client
//   closing it cancels the job. Streamed answers go out as SSE in HTTP
//   chunks, with a keep-alive comment when nothing was written for a while;
//   every write has a deadline and the bytes queued for a slow reader are
//   bounded, so no client holds memory or time without limit.
// Scheduler callbacks arrive on the scheduler thread and are posted to the
// connection's strand through a Gate that the server closes before its
// io_context goes away.
#include "burrow/server.h"

#include "server/api_error.h"
#include "server/api_request.h"
#include "server/api_response.h"
#include "server/completion_job.h"
#include "server/http_guard.h"
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
};

std::chrono::steady_clock::duration seconds(double s)
{
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

enum class Route { ROUTE_NONE, ROUTE_HEALTH, ROUTE_MODELS, ROUTE_MODEL, ROUTE_CHAT, ROUTE_COMPLETIONS };

class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(tcp::socket socket, std::shared_ptr<Shared> shared)
        : m_stream(std::move(socket)),
          m_shared(std::move(shared)),
          m_writeTimer(m_stream.get_executor()),
          m_pingTimer(m_stream.get_executor()),
          m_drainTimer(m_stream.get_executor()),
          m_events(std::make_shared<EventTarget>())
    {
        m_events->executor.emplace(m_stream.get_executor());
        m_shared->connections.fetch_add(1);
    }

    ~Connection()
    {
        {
            std::lock_guard lock(m_events->mutex);
            m_events->executor.reset();
        }
        if (m_job) {
            m_job->cancel();
            m_shared->activeRequests.fetch_sub(1);
        }
        m_shared->connections.fetch_sub(1);
    }

    // `overLimit`: too many connections: answer 503 and close.
    void start(bool overLimit)
    {
        net::dispatch(m_stream.get_executor(), [self = shared_from_this(), overLimit] {
            if (overLimit) {
                self->m_keepAlive = false;
                self->m_mustClose = true;
                self->sendError(ApiError::busy("too many connections; retry shortly"));
            } else {
                self->readHeader();
            }
        });
    }

private:
    // ---- reading a request ------------------------------------------------

    void readHeader()
    {
        m_parser.emplace();
        m_parser->header_limit(static_cast<std::uint32_t>(m_shared->options.limits.maxHeaderBytes));
        m_parser->body_limit(m_shared->options.limits.maxBodyBytes);
        m_origin.clear();
        m_keepAlive = true;
        m_mustClose = false;
        m_stream.expires_after(seconds(m_shared->options.limits.requestTimeoutSeconds));
        http::async_read_header(m_stream, m_buffer, *m_parser,
                                [self = shared_from_this()](beast::error_code ec, size_t) { self->onHeader(ec); });
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
        if (ec)
            return onReadError(ec);
        const auto &req = m_parser->get();
        m_method = req.method();
        m_target = std::string(req.target());
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
        if (m_route == Route::ROUTE_NONE)
            return refuse(ApiError::notFound("no endpoint " + path + " (see GET /v1/models, POST /v1/chat/completions)"));
        const bool post = m_route == Route::ROUTE_CHAT || m_route == Route::ROUTE_COMPLETIONS;
        if ((post && m_method != http::verb::post) ||
            (!post && m_method != http::verb::get && m_method != http::verb::head))
            return refuse(ApiError::methodNotAllowed(std::string(http::to_string(m_method)) + " is not allowed on " +
                                                     path + " (use " + (post ? "POST" : "GET") + ")"));
        if (!m_shared->options.apiKey.empty() && m_route != Route::ROUTE_HEALTH) {
            const auto auth = req.find(http::field::authorization);
            if (auth == req.end() || !bearerMatches(auth->value(), m_shared->options.apiKey))
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
                if (wec)
                    return self->close();
                self->readBody();
            });
            return;
        }
        readBody();
    }

    void readBody()
    {
        http::async_read(m_stream, m_buffer, *m_parser,
                         [self = shared_from_this()](beast::error_code ec, size_t) { self->onBody(ec); });
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
            if (!modelMatches(m_routeArg))
                return sendError(ApiError::notFound("model '" + m_routeArg + "' is not served here (this server has '" +
                                                        m_shared->modelId + "')",
                                                    "model_not_found"));
            return sendJson(http::status::ok, modelObject(m_shared->modelId, m_shared->created));
        case Route::ROUTE_CHAT:
            return startCompletion(Endpoint::ENDPOINT_CHAT_COMPLETIONS);
        case Route::ROUTE_COMPLETIONS:
            return startCompletion(Endpoint::ENDPOINT_COMPLETIONS);
        case Route::ROUTE_NONE:
            break;
        }
        sendError(ApiError::notFound("no such endpoint"));
    }

    bool modelMatches(const std::string &name) const
    {
        return name.empty() || name == m_shared->modelId || name == m_shared->modelFileName;
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

    void startCompletion(Endpoint endpoint)
    {
        auto parsed = parseApiRequest(endpoint, m_parser->get().body(), m_shared->options.limits,
                                      m_shared->options.maxChoices);
        if (auto *error = std::get_if<ApiError>(&parsed))
            return sendError(*error);
        ApiRequest &request = std::get<ApiRequest>(parsed);
        if (!modelMatches(request.model))
            return sendError(ApiError::notFound("model '" + request.model + "' is not served here (this server has '" +
                                                    m_shared->modelId + "'; see GET /v1/models)",
                                                "model_not_found"));
        auto prepared = CompletionJob::prepare(m_shared->model, m_shared->contextSize, std::move(request));
        if (auto *error = std::get_if<ApiError>(&prepared))
            return sendError(*error);
        std::shared_ptr<CompletionJob> job = std::get<std::shared_ptr<CompletionJob>>(prepared);

        ResponseIds ids;
        ids.id = newResponseId(endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS ? "chatcmpl-" : "cmpl-");
        ids.created = static_cast<int64_t>(std::time(nullptr));
        ids.model = m_shared->modelId;
        m_assembler.emplace(job->request(), ids, job->promptTokens());
        m_streaming = job->request().stream;

        // Events go from the scheduler thread to this strand; a generation
        // number drops those of an earlier job (one refused halfway).
        const uint64_t generation = ++m_generation;
        std::weak_ptr<Connection> weak = weak_from_this();
        std::shared_ptr<EventTarget> target = m_events;
        std::shared_ptr<Gate> gate = m_shared->gate;
        auto error = job->submit(*m_shared->scheduler, m_shared->options.priority,
                                 [weak, target, gate, generation](JobEvent &&event) {
                                     std::lock_guard open(gate->mutex);
                                     std::lock_guard lock(target->mutex);
                                     if (!gate->open || !target->executor)
                                         return;
                                     net::post(*target->executor, [weak, generation, event = std::move(event)]() mutable {
                                         if (auto self = weak.lock())
                                             self->onJobEvent(generation, event);
                                     });
                                 });
        if (error) {
            m_assembler.reset();
            return sendError(*error);
        }
        m_job = std::move(job);
        m_shared->activeRequests.fetch_add(1);
        m_started = Clock::now();
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
        if (m_buffer.size() >= 64 * 1024)
            return;   // enough pipelined bytes held; stop watching rather than grow
        m_watching = true;
        m_stream.socket().async_read_some(
            m_buffer.prepare(4096), [self = shared_from_this()](beast::error_code ec, size_t n) {
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
        if (m_job) {
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
        res->body() = errorBody(error);
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
            self->m_writeTimer.cancel();
            self->m_shared->requests.fetch_add(1);
            self->log(self->m_status, self->m_errorMessage.empty() ? "" : " " + self->m_errorMessage);
            self->m_errorMessage.clear();
            self->m_assembler.reset();
            if (ec)
                return self->close();
            self->nextRequest(keep);
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
                // The client stopped reading.
                if (self->m_job)
                    self->m_job->cancel();
                self->endJob();
                self->close();
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
        head->keep_alive(m_keepAlive);
        head->chunked(true);
        auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*head);
        m_status = 200;
        m_writing = true;
        m_lastWrite = Clock::now();
        armWriteDeadline();
        http::async_write_header(m_stream.socket(), *serializer,
                                 [self = shared_from_this(), head, serializer](beast::error_code ec, size_t) {
                                     self->m_writeTimer.cancel();
                                     self->m_writing = false;
                                     if (ec)
                                         return self->clientGone();
                                     self->flush();
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
            self->m_writeTimer.cancel();
            self->m_writing = false;
            const bool last = self->m_outbox.front().last;
            self->m_pendingBytes -= self->m_outbox.front().data.size();
            self->m_outbox.pop_front();
            self->m_lastWrite = Clock::now();
            if (ec)
                return self->clientGone();
            if (last) {
                self->m_pingTimer.cancel();
                self->m_streaming = false;
                self->m_shared->requests.fetch_add(1);
                self->log(200, self->m_assembler && self->m_assembler->error() ? " error in stream" : "");
                self->m_assembler.reset();
                return self->nextRequest(self->m_keepAlive);
            }
            self->flush();
        };
        const Outgoing &front = m_outbox.front();
        if (front.last)
            net::async_write(m_stream.socket(), http::make_chunk_last(), std::move(done));
        else
            net::async_write(m_stream.socket(), http::make_chunk(net::buffer(front.data)), std::move(done));
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
            if (Clock::now() - self->m_lastWrite >= seconds(interval * 0.9) && self->m_outbox.empty())
                self->queueChunk(sseKeepAlive());
            self->schedulePing();
        });
    }

    // ---- closing ----------------------------------------------------------

    // After an answer that leaves the connection: stop sending, read (and
    // drop) what the client is still sending for a moment, then close, so
    // the answer is not lost to a reset.
    void lingeringClose()
    {
        afterWatch([this] {
            beast::error_code ignored;
            m_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
            m_drainTimer.expires_after(std::chrono::seconds(2));
            m_drainTimer.async_wait([weak = weak_from_this()](beast::error_code ec) {
                if (!ec)
                    if (auto s = weak.lock())
                        s->close();
            });
            drain();
        });
    }

    void drain()
    {
        if (m_closed)
            return;
        m_buffer.clear();
        m_stream.socket().async_read_some(m_buffer.prepare(16384), [self = shared_from_this()](beast::error_code ec,
                                                                                               size_t n) {
            self->m_drained += n;
            if (ec || self->m_drained > 4 * self->m_shared->options.limits.maxBodyBytes)
                return self->close();
            self->drain();
        });
    }

    void close()
    {
        if (m_closed)
            return;
        m_closed = true;
        m_afterWatch = nullptr;
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
        std::string line = std::string(http::to_string(m_method)) + " " + m_target.substr(0, 200) + " " +
                           std::to_string(status);
        if (m_assembler && (m_route == Route::ROUTE_CHAT || m_route == Route::ROUTE_COMPLETIONS)) {
            const Usage &u = m_assembler->usage();
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - m_started).count();
            char buf[96];
            std::snprintf(buf, sizeof buf, " prompt %lld, reply %lld tokens, %.0f ms",
                          static_cast<long long>(u.promptTokens), static_cast<long long>(u.completionTokens), ms);
            line += buf;
        }
        m_shared->options.log(line + detail);
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
    bool m_keepAlive = true;
    bool m_mustClose = false;
    int m_status = 0;
    std::string m_errorMessage;

    std::shared_ptr<CompletionJob> m_job;
    std::optional<ResponseAssembler> m_assembler;
    uint64_t m_generation = 0;
    bool m_streaming = false;
    Clock::time_point m_started;

    std::deque<Outgoing> m_outbox;
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
        : m_shared(std::move(shared)), m_io(std::max(1, m_shared->options.ioThreads)), m_acceptor(m_io)
    {
    }

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
            m_threads.emplace_back([this] { m_io.run(); });
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
    void accept()
    {
        m_acceptor.async_accept(net::make_strand(m_io), [this](beast::error_code ec, tcp::socket socket) {
            if (ec == net::error::operation_aborted || !m_acceptor.is_open())
                return;
            if (!ec) {
                beast::error_code ignored;
                socket.set_option(tcp::no_delay(true), ignored);
                const bool over = m_shared->connections.load() >= m_shared->options.limits.maxConnections;
                std::make_shared<Connection>(std::move(socket), m_shared)->start(over);
            }
            accept();
        });
    }

    std::shared_ptr<Shared> m_shared;
    net::io_context m_io;
    tcp::acceptor m_acceptor;
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
