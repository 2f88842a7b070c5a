// libFuzzer: the server's HTTP request path as a connection runs it, from
// the raw bytes a client sends: Boost.Beast's request parser with the
// server's limits (header, body, and the read buffer's bound, which keeps a
// chunked trailer from reaching Beast's 65,534-byte field limit), fed in
// pieces as a socket delivers them, several requests on one connection
// (keep-alive); then, for each whole request, what the server checks before
// any model work: Host, Origin, the key, the route, the body.
//
// The input's first byte picks the piece size (1 to 64 bytes per read); the
// rest is the byte stream. An exception escaping (Beast's length_error was
// issue 27's crash), a sanitizer report or a trap is a bug.
#include "server/api_error.h"
#include "server/read_buffer.h"
#include "server/api_request.h"
#include "server/http_guard.h"

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace beast = boost::beast;
namespace http = beast::http;
using namespace burrow::server;

namespace {

// The checks of a connection's onHeader/onBody, on a whole request.
void checkRequest(const http::request<http::string_body> &req, const ServerLimits &limits)
{
    if (const auto host = req.find(http::field::host); host != req.end())
        (void)hostAllowed(host->value(), {".lan", "chat.example.org"}, "box");
    if (const auto origin = req.find(http::field::origin); origin != req.end())
        (void)originAllowed(origin->value(), {"http://localhost:3000", "*"});
    if (const auto auth = req.find(http::field::authorization); auth != req.end())
        (void)bearerMatches(auth->value(), "s3cret");
    (void)req.keep_alive();
    (void)req.version();
    const std::string_view target = req.target();
    const std::string_view path = target.substr(0, target.find('?'));
    Endpoint endpoint;
    if (path == "/v1/chat/completions" || path == "/chat/completions")
        endpoint = Endpoint::ENDPOINT_CHAT_COMPLETIONS;
    else if (path == "/v1/completions" || path == "/completions")
        endpoint = Endpoint::ENDPOINT_COMPLETIONS;
    else
        return;
    if (req.body().size() > limits.maxBodyBytes)
        __builtin_trap();   // the body limit holds
    const auto parsed = parseApiRequest(endpoint, req.body(), limits, 4);
    if (const auto *error = std::get_if<ApiError>(&parsed))
        if (error->message.empty() || errorBody(*error).empty())
            __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    ServerLimits limits;
    limits.maxBodyBytes = 64u << 10;   // the fuzzer's inputs are small; the logic is the same
    const size_t piece = 1 + data[0] % 64;
    const std::string_view stream(reinterpret_cast<const char *>(data + 1), size - 1);
    beast::flat_buffer buffer(readBufferBytes(limits));
    size_t pos = 0;
    for (int request = 0; request < 4; ++request) {
        http::request_parser<http::string_body> parser;
        parser.header_limit(static_cast<std::uint32_t>(limits.maxHeaderBytes));
        parser.body_limit(limits.maxBodyBytes);
        parser.eager(true);
        beast::error_code ec;
        while (!parser.is_done()) {
            // What a socket read delivers, into what room the buffer has.
            const size_t room = buffer.max_size() - buffer.size();
            if (room == 0) {
                ec = http::error::buffer_overflow;   // async_read's answer: 431
                break;
            }
            const size_t n = std::min({piece, room, stream.size() - pos});
            if (n == 0) {
                if (buffer.size() == 0)
                    return 0;   // the client is done
                parser.put_eof(ec);
                break;
            }
            std::memcpy(buffer.prepare(n).data(), stream.data() + pos, n);
            buffer.commit(n);
            pos += n;
            const size_t used = parser.put(buffer.data(), ec);
            buffer.consume(used);
            if (ec == http::error::need_more) {
                ec = {};
                continue;
            }
            if (ec)
                break;
        }
        if (ec || !parser.is_done())
            return 0;   // the server answers the error (400, 413, 431) and closes
        checkRequest(parser.get(), limits);
        if (!parser.get().keep_alive())
            return 0;
    }
    return 0;
}
