// responsesToChat(): the Responses API body in the chat completions shape.
#include "server/responses_request.h"

#include <optional>
#include <string>

namespace burrow::server {

namespace {

using json = nlohmann::ordered_json;

ApiError bad(const std::string &where, const std::string &what)
{
    return ApiError::badRequest(where + ": " + what, where);
}

// A message's content: a string, or parts with text.
std::optional<ApiError> contentText(const json &content, const std::string &where, std::string *out)
{
    if (content.is_null())
        return std::nullopt;
    if (content.is_string()) {
        *out = content.get<std::string>();
        return std::nullopt;
    }
    if (!content.is_array())
        return bad(where, "expected a string or an array of text parts");
    for (size_t i = 0; i < content.size(); ++i) {
        const json &p = content[i];
        const std::string at = where + "[" + std::to_string(i) + "]";
        const std::string type = p.is_object() && p.contains("type") && p["type"].is_string() ? p["type"].get<std::string>() : "";
        if (type != "input_text" && type != "output_text" && type != "text" && type != "summary_text" &&
            type != "reasoning_text")
            return ApiError::badRequest(at + ".type: '" + type + "' is not supported (text parts only)", at + ".type",
                                        "unsupported_content");
        if (!p.contains("text") || !p["text"].is_string())
            return bad(at + ".text", "expected a string");
        if (!out->empty())
            out->append("\n");
        out->append(p["text"].get<std::string>());
    }
    return std::nullopt;
}

// One input item onto the chat messages; `reasoning` waits for the next assistant turn.
std::optional<ApiError> translateItem(const json &item, size_t index, json &messages, std::string &reasoning)
{
    const std::string where = "input[" + std::to_string(index) + "]";
    if (!item.is_object())
        return bad(where, "expected an object");
    const std::string type = item.contains("type") && item["type"].is_string() ? item["type"].get<std::string>()
                                                                               : "message";
    if (type == "message") {
        if (!item.contains("role") || !item["role"].is_string())
            return bad(where + ".role", "expected a string");
        std::string text;
        if (auto e = contentText(item.contains("content") ? item["content"] : json(), where + ".content", &text))
            return e;
        json msg{{"role", item["role"]}, {"content", text}};
        if (item["role"] == "assistant" && !reasoning.empty()) {
            msg["reasoning_content"] = reasoning;
            reasoning.clear();
        }
        messages.push_back(std::move(msg));
    } else if (type == "function_call") {
        if (!item.contains("name") || !item["name"].is_string())
            return bad(where + ".name", "expected a string");
        json call{{"id", item.contains("call_id") ? item["call_id"] : json("")},
                  {"type", "function"},
                  {"function", json{{"name", item["name"]},
                                    {"arguments", item.contains("arguments") ? item["arguments"] : json("{}")}}}};
        // Consecutive calls belong to one assistant turn.
        if (messages.empty() || messages.back()["role"] != "assistant" || !messages.back().contains("tool_calls")) {
            json msg{{"role", "assistant"}, {"content", ""}, {"tool_calls", json::array()}};
            if (!reasoning.empty()) {
                msg["reasoning_content"] = reasoning;
                reasoning.clear();
            }
            messages.push_back(std::move(msg));
        }
        messages.back()["tool_calls"].push_back(std::move(call));
    } else if (type == "function_call_output") {
        std::string output;
        if (item.contains("output"))
            if (auto e = contentText(item["output"], where + ".output", &output))
                return e;
        messages.push_back(json{{"role", "tool"},
                                {"tool_call_id", item.contains("call_id") ? item["call_id"] : json("")},
                                {"content", output}});
    } else if (type == "reasoning") {
        for (const char *key : {"content", "summary"})
            if (item.contains(key) && item[key].is_array() && !item[key].empty()) {
                std::string text;
                if (auto e = contentText(item[key], where + "." + key, &text))
                    return e;
                reasoning += text;
                break;
            }
    } else {
        return ApiError::badRequest(where + ".type: '" + type +
                                        "' is not supported (message, function_call, function_call_output, reasoning)",
                                    where + ".type", "unsupported_content");
    }
    return std::nullopt;
}

std::optional<ApiError> translateTools(const json &tools, json &out)
{
    if (!tools.is_array())
        return bad("tools", "expected an array of function tools");
    out = json::array();
    for (size_t i = 0; i < tools.size(); ++i) {
        const json &t = tools[i];
        const std::string where = "tools[" + std::to_string(i) + "]";
        if (!t.is_object() || !t.contains("type") || !t["type"].is_string())
            return bad(where, "expected an object with a type");
        if (t["type"] != "function")
            return ApiError::badRequest(where + ".type: '" + t["type"].get<std::string>() +
                                            "' is a built-in tool; only function tools are served",
                                        where + ".type", "unsupported_tool");
        json fn{{"name", t.contains("name") ? t["name"] : json()}};
        for (const char *key : {"description", "parameters", "strict"})
            if (t.contains(key))
                fn[key] = t[key];
        out.push_back(json{{"type", "function"}, {"function", std::move(fn)}});
    }
    return std::nullopt;
}

} // namespace

std::variant<json, ApiError> responsesToChat(const json &body)
{
    if (!body.is_object())
        return ApiError::badRequest("the request body must be a JSON object");
    for (const char *stateful : {"previous_response_id", "conversation"})
        if (body.contains(stateful) && !body[stateful].is_null())
            return ApiError::badRequest(std::string(stateful) +
                                            ": this server stores no responses; send the whole conversation as input",
                                        stateful, "unsupported_parameter");
    json messages = json::array();
    if (body.contains("instructions") && body["instructions"].is_string() && !body["instructions"].get<std::string>().empty())
        messages.push_back(json{{"role", "system"}, {"content", body["instructions"]}});
    if (!body.contains("input"))
        return bad("input", "missing (a string or an array of items)");
    const json &input = body["input"];
    if (input.is_string()) {
        messages.push_back(json{{"role", "user"}, {"content", input}});
    } else if (input.is_array()) {
        std::string reasoning;
        for (size_t i = 0; i < input.size(); ++i)
            if (auto e = translateItem(input[i], i, messages, reasoning))
                return *e;
    } else {
        return bad("input", "expected a string or an array of items");
    }
    json out{{"messages", std::move(messages)}};
    for (const char *same : {"model", "temperature", "top_p", "stream", "reasoning", "parallel_tool_calls"})
        if (body.contains(same))
            out[same] = body[same];
    if (body.contains("max_output_tokens"))
        out["max_tokens"] = body["max_output_tokens"];
    if (body.contains("tools") && !body["tools"].is_null()) {
        json tools;
        if (auto e = translateTools(body["tools"], tools))
            return *e;
        out["tools"] = std::move(tools);
    }
    if (body.contains("tool_choice") && !body["tool_choice"].is_null()) {
        const json &c = body["tool_choice"];
        if (c.is_object() && c.contains("type") && c["type"] == "function" && c.contains("name"))
            out["tool_choice"] = json{{"type", "function"}, {"function", json{{"name", c["name"]}}}};
        else
            out["tool_choice"] = c;
    }
    if (body.contains("text") && body["text"].is_object() && body["text"].contains("format")) {
        const json &f = body["text"]["format"];
        if (!f.is_object() || !f.contains("type") || !f["type"].is_string())
            return bad("text.format", "expected {\"type\": \"text\" | \"json_object\" | \"json_schema\"}");
        if (f["type"] == "json_schema")
            out["response_format"] = json{{"type", "json_schema"},
                                          {"json_schema", json{{"name", f.contains("name") ? f["name"] : json("")},
                                                               {"schema", f.contains("schema") ? f["schema"] : json::object()}}}};
        else
            out["response_format"] = json{{"type", f["type"]}};
    }
    return out;
}

} // namespace burrow::server
