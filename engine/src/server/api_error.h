// An error answered to a client, in OpenAI's shape:
//   {"error": {"message": "...", "type": "...", "param": ..., "code": ...}}
// with the HTTP status it travels with. `param` names the request field at
// fault (null when none); `code` is a short machine-readable string or null,
// as in OpenAI's API (openai-node types it string | null).
#pragma once

#include <string>

namespace burrow::server {

struct ApiError {
    int status = 400;
    std::string type = "invalid_request_error";
    std::string message;
    std::string param;                     // "" -> null
    std::string code;                      // "" -> null
    int retryAfterSeconds = 0;             // > 0: a Retry-After header (503)

    static ApiError badRequest(std::string message, std::string param = {}, std::string code = {});
    static ApiError unauthorized();
    static ApiError forbidden(std::string message);
    static ApiError notFound(std::string message, std::string code = {});
    static ApiError methodNotAllowed(std::string message);
    static ApiError payloadTooLarge(std::string message);
    static ApiError headersTooLarge(std::string message);
    static ApiError busy(std::string message, int retryAfterSeconds = 1);
    static ApiError internal(std::string message);
};

// The JSON body of `error` (one line, no trailing newline).
std::string errorBody(const ApiError &error);

} // namespace burrow::server
