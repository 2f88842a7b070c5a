// Anthropic's response shapes (see anthropic_response.h).
#include "server/anthropic_response.h"

#include <nlohmann/json.hpp>

namespace burrow::server {

namespace {

using Json = nlohmann::ordered_json;

std::string dump(const Json &j)
{
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json usageJson(const Usage &u)
{
    return Json{{"input_tokens", u.promptTokens},
                {"output_tokens", u.completionTokens},
                {"cache_read_input_tokens", u.cachedTokens}};
}

Json inputOf(const std::string &arguments)
{
    Json input = Json::parse(arguments, nullptr, false);
    return input.is_object() ? input : Json::object();
}

// Anthropic's error types by status.
const char *errorType(int status)
{
    switch (status) {
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429:
    case 503: return "overloaded_error";
    case 500: return "api_error";
    default: return "invalid_request_error";
    }
}

} // namespace

const char *anthropicStopReason(StopReason reason, bool calledTools)
{
    if (calledTools)
        return "tool_use";
    switch (reason) {
    case StopReason::STOP_REASON_MAX_TOKENS:
    case StopReason::STOP_REASON_CONTEXT_FULL: return "max_tokens";
    case StopReason::STOP_REASON_STOP_STRING: return "stop_sequence";
    default: return "end_turn";
    }
}

std::string anthropicErrorBody(const ApiError &error)
{
    return dump(Json{{"type", "error"}, {"error", Json{{"type", errorType(error.status)}, {"message", error.message}}}});
}

std::string sseNamedEvent(std::string_view name, std::string_view json)
{
    std::string out;
    out.reserve(name.size() + json.size() + 16);
    out += "event: ";
    out += name;
    out += "\ndata: ";
    out += json;
    out += "\n\n";
    return out;
}

std::string messagesResponse(const ResponseIds &ids, const ChoiceResult &choice, std::string_view stopReason,
                             const Usage &usage)
{
    Json content = Json::array();
    if (!choice.reasoning.empty())
        content.push_back(Json{{"type", "thinking"}, {"thinking", choice.reasoning}, {"signature", ""}});
    if (!choice.text.empty())
        content.push_back(Json{{"type", "text"}, {"text", choice.text}});
    for (const ToolCallOut &c : choice.toolCalls)
        content.push_back(Json{{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", inputOf(c.arguments)}});
    Json j{{"id", ids.id},       {"type", "message"},         {"role", "assistant"},
           {"model", ids.model}, {"content", std::move(content)}, {"stop_reason", std::string(stopReason)},
           {"stop_sequence", nullptr}, {"usage", usageJson(usage)}};
    return dump(j);
}

std::string MessagesStream::start(const ResponseIds &ids, const Usage &usage)
{
    Usage u = usage;
    u.completionTokens = 0;
    Json message{{"id", ids.id},       {"type", "message"},    {"role", "assistant"},
                 {"model", ids.model}, {"content", Json::array()}, {"stop_reason", nullptr},
                 {"stop_sequence", nullptr}, {"usage", usageJson(u)}};
    return sseNamedEvent("message_start", dump(Json{{"type", "message_start"}, {"message", std::move(message)}}));
}

std::string MessagesStream::close()
{
    if (m_open == Block::BLOCK_NONE)
        return {};
    std::string out;
    if (m_open == Block::BLOCK_THINKING)   // clients expect a signature before the block ends
        out += sseNamedEvent("content_block_delta",
                             dump(Json{{"type", "content_block_delta"},
                                       {"index", m_index},
                                       {"delta", Json{{"type", "signature_delta"}, {"signature", ""}}}}));
    m_open = Block::BLOCK_NONE;
    return out + sseNamedEvent("content_block_stop", dump(Json{{"type", "content_block_stop"}, {"index", m_index}}));
}

std::string MessagesStream::open(Block block)
{
    if (m_open == block)
        return {};
    std::string out = close();
    m_open = block;
    ++m_index;
    const Json start = block == Block::BLOCK_THINKING ? Json{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}
                                                      : Json{{"type", "text"}, {"text", ""}};
    return out + sseNamedEvent("content_block_start", dump(Json{{"type", "content_block_start"},
                                                                {"index", m_index},
                                                                {"content_block", start}}));
}

std::string MessagesStream::thinking(std::string_view text)
{
    if (text.empty())
        return {};
    std::string out = open(Block::BLOCK_THINKING);
    return out + sseNamedEvent("content_block_delta",
                               dump(Json{{"type", "content_block_delta"},
                                         {"index", m_index},
                                         {"delta", Json{{"type", "thinking_delta"}, {"thinking", std::string(text)}}}}));
}

std::string MessagesStream::text(std::string_view text)
{
    if (text.empty())
        return {};
    std::string out = open(Block::BLOCK_TEXT);
    return out + sseNamedEvent("content_block_delta",
                               dump(Json{{"type", "content_block_delta"},
                                         {"index", m_index},
                                         {"delta", Json{{"type", "text_delta"}, {"text", std::string(text)}}}}));
}

std::string MessagesStream::toolUseStart(const ToolCallOut &call)
{
    std::string out = close();
    ++m_index;
    m_open = Block::BLOCK_TOOL_USE;
    return out + sseNamedEvent("content_block_start",
                               dump(Json{{"type", "content_block_start"},
                                         {"index", m_index},
                                         {"content_block", Json{{"type", "tool_use"}, {"id", call.id}, {"name", call.name},
                                                                {"input", Json::object()}}}}));
}

std::string MessagesStream::toolUseDelta(std::string_view piece)
{
    if (m_open != Block::BLOCK_TOOL_USE || piece.empty())
        return {};
    return sseNamedEvent("content_block_delta",
                         dump(Json{{"type", "content_block_delta"},
                                   {"index", m_index},
                                   {"delta", Json{{"type", "input_json_delta"}, {"partial_json", std::string(piece)}}}}));
}

std::string MessagesStream::toolUseEnd()
{
    return m_open == Block::BLOCK_TOOL_USE ? close() : std::string();
}

std::string MessagesStream::finish(std::string_view stopReason, const Usage &usage)
{
    std::string out = close();
    out += sseNamedEvent("message_delta",
                         dump(Json{{"type", "message_delta"},
                                   {"delta", Json{{"stop_reason", std::string(stopReason)}, {"stop_sequence", nullptr}}},
                                   {"usage", Json{{"output_tokens", usage.completionTokens}}}}));
    return out + sseNamedEvent("message_stop", dump(Json{{"type", "message_stop"}}));
}

} // namespace burrow::server
