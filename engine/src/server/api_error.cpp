// ApiError constructors and its JSON body.
#include "server/api_error.h"

#include <nlohmann/json.hpp>

namespace burrow::server {

namespace {
ApiError make(int status, const char *type, std::string message, std::string param = {}, std::string code = {})
{
    ApiError e;
    e.status = status;
    e.type = type;
    e.message = std::move(message);
    e.param = std::move(param);
    e.code = std::move(code);
    return e;
}
} // namespace

ApiError ApiError::badRequest(std::string message, std::string param, std::string code)
{
    return make(400, "invalid_request_error", std::move(message), std::move(param), std::move(code));
}
ApiError ApiError::unauthorized()
{
    return make(401, "authentication_error", "invalid or missing API key (send Authorization: Bearer KEY)", {},
                "invalid_api_key");
}
ApiError ApiError::forbidden(std::string message)
{
    return make(403, "permission_error", std::move(message));
}
ApiError ApiError::notFound(std::string message, std::string code)
{
    return make(404, "not_found_error", std::move(message), {}, std::move(code));
}
ApiError ApiError::methodNotAllowed(std::string message)
{
    return make(405, "invalid_request_error", std::move(message));
}
ApiError ApiError::payloadTooLarge(std::string message)
{
    return make(413, "invalid_request_error", std::move(message), {}, "request_too_large");
}
ApiError ApiError::headersTooLarge(std::string message)
{
    return make(431, "invalid_request_error", std::move(message), {}, "headers_too_large");
}
ApiError ApiError::busy(std::string message, int retryAfterSeconds)
{
    ApiError e = make(503, "unavailable_error", std::move(message), {}, "server_busy");
    e.retryAfterSeconds = retryAfterSeconds;
    return e;
}
ApiError ApiError::internal(std::string message)
{
    return make(500, "server_error", std::move(message));
}

std::string errorBody(const ApiError &error)
{
    nlohmann::ordered_json inner;
    inner["message"] = error.message;
    inner["type"] = error.type;
    inner["param"] = error.param.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(error.param);
    inner["code"] = error.code.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(error.code);
    nlohmann::ordered_json body;
    body["error"] = std::move(inner);
    return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace burrow::server
