// anthropicToChat(): the Messages API body in the chat completions shape.
#include "server/anthropic_request.h"

#include <optional>
#include <string>

namespace burrow::server {

namespace {

using json = nlohmann::ordered_json;

ApiError bad(const std::string &where, const std::string &what)
{
    return ApiError::badRequest(where + ": " + what, where);
}

// Text of a string or an array of text blocks ("" and ok for null).
std::optional<ApiError> textOf(const json &v, const std::string &where, std::string *out)
{
    if (v.is_null())
        return std::nullopt;
    if (v.is_string()) {
        *out = v.get<std::string>();
        return std::nullopt;
    }
    if (!v.is_array())
        return bad(where, "expected a string or an array of text blocks");
    for (size_t i = 0; i < v.size(); ++i) {
        const json &b = v[i];
        if (!b.is_object() || !b.contains("type") || b["type"] != "text" || !b.contains("text") || !b["text"].is_string())
            return bad(where + "[" + std::to_string(i) + "]", "expected a text block {\"type\": \"text\", \"text\": ...}");
        if (!out->empty())
            out->append("\n");
        out->append(b["text"].get<std::string>());
    }
    return std::nullopt;
}

// One Anthropic message -> one or more chat messages (tool results first).
std::optional<ApiError> translateMessage(const json &m, size_t index, json &out)
{
    const std::string where = "messages[" + std::to_string(index) + "]";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
        return bad(where, "expected an object with a role");
    const std::string role = m["role"].get<std::string>();
    if (role != "user" && role != "assistant")
        return bad(where + ".role", "'" + role + "' is not one of user, assistant");
    const json content = m.contains("content") ? m["content"] : json();
    if (content.is_string() || content.is_null()) {
        out.push_back(json{{"role", role}, {"content", content.is_null() ? json("") : content}});
        return std::nullopt;
    }
    if (!content.is_array())
        return bad(where + ".content", "expected a string or an array of content blocks");
    std::string text, thinking;
    json toolCalls = json::array();
    for (size_t i = 0; i < content.size(); ++i) {
        const std::string at = where + ".content[" + std::to_string(i) + "]";
        const json &b = content[i];
        if (!b.is_object() || !b.contains("type") || !b["type"].is_string())
            return bad(at, "expected a content block with a type");
        const std::string type = b["type"].get<std::string>();
        if (type == "text") {
            if (!b.contains("text") || !b["text"].is_string())
                return bad(at + ".text", "expected a string");
            if (!text.empty())
                text += "\n";
            text += b["text"].get<std::string>();
        } else if (type == "thinking" && role == "assistant") {
            if (b.contains("thinking") && b["thinking"].is_string())
                thinking += b["thinking"].get<std::string>();
        } else if (type == "redacted_thinking" && role == "assistant") {
            continue;
        } else if (type == "tool_use" && role == "assistant") {
            if (!b.contains("name") || !b["name"].is_string())
                return bad(at + ".name", "expected a string");
            const json input = b.contains("input") ? b["input"] : json::object();
            toolCalls.push_back(json{{"id", b.contains("id") && b["id"].is_string() ? b["id"] : json("")},
                                     {"type", "function"},
                                     {"function", json{{"name", b["name"]},
                                                       {"arguments", input.dump(-1, ' ', false,
                                                                                json::error_handler_t::replace)}}}});
        } else if (type == "tool_result" && role == "user") {
            std::string result;
            if (b.contains("content"))
                if (auto e = textOf(b["content"], at + ".content", &result))
                    return e;
            if (b.contains("is_error") && b["is_error"].is_boolean() && b["is_error"].get<bool>())
                result = "Error: " + result;
            out.push_back(json{{"role", "tool"},
                               {"tool_call_id", b.contains("tool_use_id") ? b["tool_use_id"] : json("")},
                               {"content", result}});
        } else {
            return ApiError::badRequest(at + ".type: '" + type + "' is not supported in a " + role +
                                            " message (text, thinking, tool_use, tool_result)",
                                        at + ".type", "unsupported_content");
        }
    }
    if (role == "user" && text.empty() && !out.empty() && out.back()["role"] == "tool")
        return std::nullopt;   // only tool results
    json msg{{"role", role}, {"content", text}};
    if (!thinking.empty())
        msg["reasoning_content"] = thinking;
    if (!toolCalls.empty())
        msg["tool_calls"] = std::move(toolCalls);
    out.push_back(std::move(msg));
    return std::nullopt;
}

std::optional<ApiError> translateTools(const json &tools, json &out)
{
    if (!tools.is_array())
        return bad("tools", "expected an array of {name, description, input_schema}");
    out = json::array();
    for (size_t i = 0; i < tools.size(); ++i) {
        const json &t = tools[i];
        const std::string where = "tools[" + std::to_string(i) + "]";
        if (!t.is_object())
            return bad(where, "expected an object");
        if (t.contains("type") && t["type"].is_string() && t["type"] != "custom")
            return ApiError::badRequest(where + ".type: '" + t["type"].get<std::string>() +
                                            "' is a server tool; only client tools {name, input_schema} are served",
                                        where + ".type", "unsupported_tool");
        json fn{{"name", t.contains("name") ? t["name"] : json()}};
        if (t.contains("description"))
            fn["description"] = t["description"];
        if (t.contains("input_schema"))
            fn["parameters"] = t["input_schema"];
        out.push_back(json{{"type", "function"}, {"function", std::move(fn)}});
    }
    return std::nullopt;
}

std::optional<ApiError> translateToolChoice(const json &c, json &out)
{
    if (!c.is_object() || !c.contains("type") || !c["type"].is_string())
        return bad("tool_choice", "expected {\"type\": \"auto\" | \"any\" | \"tool\" | \"none\"}");
    const std::string type = c["type"].get<std::string>();
    if (type == "auto" || type == "none")
        out["tool_choice"] = type;
    else if (type == "any")
        out["tool_choice"] = "required";
    else if (type == "tool" && c.contains("name") && c["name"].is_string())
        out["tool_choice"] = json{{"type", "function"}, {"function", json{{"name", c["name"]}}}};
    else
        return bad("tool_choice", "expected {\"type\": \"auto\" | \"any\" | \"tool\" (with a name) | \"none\"}");
    if (c.contains("disable_parallel_tool_use") && c["disable_parallel_tool_use"].is_boolean())
        out["parallel_tool_calls"] = !c["disable_parallel_tool_use"].get<bool>();
    return std::nullopt;
}

} // namespace

std::variant<json, ApiError> anthropicToChat(const json &body)
{
    if (!body.is_object())
        return ApiError::badRequest("the request body must be a JSON object");
    json out = json::object();
    json messages = json::array();
    if (body.contains("system")) {
        std::string system;
        if (auto e = textOf(body["system"], "system", &system))
            return *e;
        if (!system.empty())
            messages.push_back(json{{"role", "system"}, {"content", system}});
    }
    if (!body.contains("messages") || !body["messages"].is_array())
        return bad("messages", "expected an array of {role, content}");
    const json &list = body["messages"];
    for (size_t i = 0; i < list.size(); ++i)
        if (auto e = translateMessage(list[i], i, messages))
            return *e;
    out["messages"] = std::move(messages);
    for (const char *same : {"model", "max_tokens", "temperature", "top_p", "top_k", "stream"})
        if (body.contains(same))
            out[same] = body[same];
    if (body.contains("stop_sequences"))
        out["stop"] = body["stop_sequences"];
    if (body.contains("tools") && !body["tools"].is_null()) {
        json tools;
        if (auto e = translateTools(body["tools"], tools))
            return *e;
        out["tools"] = std::move(tools);
    }
    if (body.contains("tool_choice") && !body["tool_choice"].is_null())
        if (auto e = translateToolChoice(body["tool_choice"], out))
            return *e;
    if (body.contains("thinking") && !body["thinking"].is_null()) {
        const json &t = body["thinking"];
        if (!t.is_object() || !t.contains("type") || !t["type"].is_string())
            return bad("thinking", "expected {\"type\": \"enabled\" | \"disabled\"}");
        out["thinking"] = t["type"] != "disabled";
    }
    return out;
}

} // namespace burrow::server
