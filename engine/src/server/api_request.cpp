// parseApiRequest(): the OpenAI request fields, checked one by one.
//
// Each reader takes the field's name and JSON value and either stores the
// value or returns the 400 that names the field and what it expected. A
// field that is null counts as absent (clients send "stop": null).
#include "server/api_request.h"

#include "server/anthropic_request.h"
#include "server/responses_request.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace burrow::server {

using json = nlohmann::ordered_json;

namespace {

constexpr int64_t kMaxTopLogprobs = 20;   // OpenAI's bound

const char *typeName(const json &v)
{
    switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "a value";
    }
}

ApiError wrongType(const std::string &name, const char *expected, const json &v)
{
    return ApiError::badRequest(name + ": expected " + expected + ", got " + typeName(v), name);
}

std::string numberText(double d)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", d);
    return buf;
}

// A number in [lo, hi] (integers count as numbers).
std::optional<ApiError> readNumber(const json &v, const std::string &name, double lo, double hi, float *out)
{
    if (!v.is_number())
        return wrongType(name, "a number", v);
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi)
        return ApiError::badRequest(name + ": " + numberText(d) + " is out of range (" + numberText(lo) + " to " +
                                        numberText(hi) + ")",
                                    name);
    *out = static_cast<float>(d);
    return std::nullopt;
}

// An integer in [lo, hi].
std::optional<ApiError> readInteger(const json &v, const std::string &name, int64_t lo, int64_t hi, int64_t *out)
{
    if (!v.is_number_integer())
        return wrongType(name, "an integer", v);
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return ApiError::badRequest(name + ": " + v.dump() + " is out of range (" + std::to_string(lo) + " to " +
                                        std::to_string(hi) + ")",
                                    name);
    const int64_t i = v.get<int64_t>();
    if (i < lo || i > hi)
        return ApiError::badRequest(name + ": " + std::to_string(i) + " is out of range (" + std::to_string(lo) +
                                        " to " + std::to_string(hi) + ")",
                                    name);
    *out = i;
    return std::nullopt;
}

std::optional<ApiError> readBool(const json &v, const std::string &name, bool *out)
{
    if (!v.is_boolean())
        return wrongType(name, "a boolean", v);
    *out = v.get<bool>();
    return std::nullopt;
}

// reasoning_effort values clients send, mapped onto what templates read
// (gpt-oss knows low / medium / high). "none" also turns thinking off.
std::optional<ApiError> readEffort(const json &v, const std::string &name, ApiRequest *r)
{
    if (!v.is_string())
        return wrongType(name, "a string (none, minimal, low, medium, high)", v);
    const std::string s = v.get<std::string>();
    if (s == "none") {
        r->enableThinking = false;
        r->reasoningEffort = "low";
    } else if (s == "minimal" || s == "low") {
        r->reasoningEffort = "low";
    } else if (s == "medium" || s == "high") {
        r->reasoningEffort = s;
    } else if (s == "xhigh") {
        r->reasoningEffort = "high";
    } else {
        return ApiError::badRequest(name + ": '" + s + "' is not one of none, minimal, low, medium, high", name);
    }
    if (s != "none" && !r->enableThinking)
        r->enableThinking = true;
    return std::nullopt;
}

std::optional<ApiError> readStop(const json &v, const ServerLimits &limits, std::vector<std::string> *out)
{
    const auto add = [&](const json &s, const std::string &name) -> std::optional<ApiError> {
        if (!s.is_string())
            return wrongType(name, "a string", s);
        const std::string &text = s.get_ref<const std::string &>();
        if (text.size() > limits.maxStopBytes)
            return ApiError::badRequest(name + ": a stop string may have at most " +
                                            std::to_string(limits.maxStopBytes) + " bytes, got " +
                                            std::to_string(text.size()),
                                        "stop");
        if (!text.empty())
            out->push_back(text);
        return std::nullopt;
    };
    if (v.is_string())
        return add(v, "stop");
    if (!v.is_array())
        return wrongType("stop", "a string or an array of strings", v);
    if (v.size() > limits.maxStopStrings)
        return ApiError::badRequest("stop: at most " + std::to_string(limits.maxStopStrings) +
                                        " stop strings, got " + std::to_string(v.size()),
                                    "stop");
    for (size_t i = 0; i < v.size(); ++i)
        if (auto e = add(v[i], "stop[" + std::to_string(i) + "]"))
            return e;
    return std::nullopt;
}

// One chat message: role, content (a string, null, or text parts), the
// reasoning of an assistant turn, and every other field as extraJson for
// the template (tool_calls, name, tool_call_id, ...).
std::optional<ApiError> readMessage(const json &m, size_t index, ChatMessage *out)
{
    const std::string where = "messages[" + std::to_string(index) + "]";
    if (!m.is_object())
        return wrongType(where, "an object", m);
    const auto role = m.find("role");
    if (role == m.end() || !role->is_string())
        return role == m.end() ? ApiError::badRequest(where + ".role: missing", where + ".role")
                               : wrongType(where + ".role", "a string", *role);
    std::string r = role->get<std::string>();
    if (r == "developer")
        r = "system";
    if (r != "system" && r != "user" && r != "assistant" && r != "tool" && r != "function")
        return ApiError::badRequest(where + ".role: '" + r + "' is not one of system, developer, user, assistant, tool",
                                    where + ".role");
    out->role = r;
    json extra = json::object();
    for (auto it = m.begin(); it != m.end(); ++it) {
        const std::string &key = it.key();
        const json &value = it.value();
        if (key == "role")
            continue;
        if (key == "content") {
            if (value.is_null())
                continue;
            if (value.is_string()) {
                out->content = value.get<std::string>();
                continue;
            }
            if (!value.is_array())
                return wrongType(where + ".content", "a string or an array of text parts", value);
            for (size_t j = 0; j < value.size(); ++j) {
                const std::string partName = where + ".content[" + std::to_string(j) + "]";
                const json &part = value[j];
                if (!part.is_object())
                    return wrongType(partName, "an object", part);
                const auto type = part.find("type");
                if (type == part.end() || !type->is_string())
                    return ApiError::badRequest(partName + ".type: expected a string", partName + ".type");
                if (*type != "text")
                    return ApiError::badRequest(partName + ".type: '" + type->get<std::string>() +
                                                    "' is not supported (text parts only)",
                                                partName + ".type");
                const auto text = part.find("text");
                if (text == part.end() || !text->is_string())
                    return ApiError::badRequest(partName + ".text: expected a string", partName + ".text");
                if (!out->content.empty())
                    out->content += "\n";
                out->content += text->get<std::string>();
            }
            continue;
        }
        if (key == "reasoning_content" || key == "reasoning" || key == "thinking") {
            if (value.is_null())
                continue;
            if (!value.is_string())
                return wrongType(where + "." + key, "a string", value);
            out->reasoning = value.get<std::string>();
            continue;
        }
        extra[key] = value;
    }
    if (!extra.empty())
        out->extraJson = extra.dump(-1, ' ', false, json::error_handler_t::replace);
    return std::nullopt;
}

bool validToolName(const std::string &name, size_t maxBytes)
{
    if (name.empty() || name.size() > maxBytes)
        return false;
    for (const char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.'))
            return false;
    return true;
}

// tools: [{"type": "function", "function": {"name", "description", "parameters", "strict"}}].
std::optional<ApiError> readTools(const json &v, const ServerLimits &limits, ApiRequest *r)
{
    if (!v.is_array())
        return wrongType("tools", "an array of {\"type\": \"function\", \"function\": {...}}", v);
    if (v.size() > limits.maxTools)
        return ApiError::badRequest("tools: at most " + std::to_string(limits.maxTools) + " tools, got " +
                                        std::to_string(v.size()),
                                    "tools");
    std::vector<std::string> names;
    for (size_t i = 0; i < v.size(); ++i) {
        const std::string where = "tools[" + std::to_string(i) + "]";
        const json &tool = v[i];
        if (!tool.is_object())
            return wrongType(where, "an object", tool);
        const auto type = tool.find("type");
        if (type == tool.end() || *type != "function")
            return ApiError::badRequest(where + ".type: expected \"function\" (the only tool type served)",
                                        where + ".type");
        const auto fn = tool.find("function");
        if (fn == tool.end() || !fn->is_object())
            return ApiError::badRequest(where + ".function: expected an object", where + ".function");
        const auto name = fn->find("name");
        if (name == fn->end() || !name->is_string() ||
            !validToolName(name->get<std::string>(), limits.maxToolNameBytes))
            return ApiError::badRequest(where + ".function.name: expected 1 to " +
                                            std::to_string(limits.maxToolNameBytes) +
                                            " characters of a-z, A-Z, 0-9, _, - and .",
                                        where + ".function.name");
        const auto params = fn->find("parameters");
        if (params != fn->end() && !params->is_null() && !params->is_object())
            return wrongType(where + ".function.parameters", "a JSON schema object", *params);
        const auto description = fn->find("description");
        if (description != fn->end() && !description->is_null() && !description->is_string())
            return wrongType(where + ".function.description", "a string", *description);
        if (std::find(names.begin(), names.end(), name->get<std::string>()) != names.end())
            return ApiError::badRequest(where + ".function.name: '" + name->get<std::string>() +
                                            "' is given twice",
                                        where + ".function.name");
        names.push_back(name->get<std::string>());
    }
    if (!v.empty())
        r->toolsJson = v.dump(-1, ' ', false, json::error_handler_t::replace);
    r->toolNames = std::move(names);
    return std::nullopt;
}

// tool_choice: "auto" | "none" | "required" | {"type": "function", "function": {"name"}}.
std::optional<ApiError> readToolChoice(const json &v, ApiRequest *r)
{
    using C = ApiRequest::ToolChoice;
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        if (s == "auto")
            r->toolChoice = C::TOOL_CHOICE_AUTO;
        else if (s == "none")
            r->toolChoice = C::TOOL_CHOICE_NONE;
        else if (s == "required" || s == "any")
            r->toolChoice = C::TOOL_CHOICE_REQUIRED;
        else
            return ApiError::badRequest("tool_choice: '" + s + "' is not one of auto, none, required", "tool_choice");
        return std::nullopt;
    }
    if (v.is_object() && v.contains("function") && v["function"].is_object() && v["function"].contains("name") &&
        v["function"]["name"].is_string()) {
        r->toolChoice = C::TOOL_CHOICE_NAMED;
        r->toolChoiceName = v["function"]["name"].get<std::string>();
        return std::nullopt;
    }
    return wrongType("tool_choice", "\"auto\", \"none\", \"required\" or {\"type\": \"function\", \"function\": {\"name\"}}",
                     v);
}

// response_format: {"type": "text" | "json_object" | "json_schema", "json_schema": {"name", "schema", "strict"}}.
std::optional<ApiError> readResponseFormat(const json &v, ApiRequest *r)
{
    using F = ApiRequest::ResponseFormat;
    if (!v.is_object() || !v.contains("type") || !v["type"].is_string())
        return wrongType("response_format", "an object with a \"type\"", v);
    const std::string type = v["type"].get<std::string>();
    if (type == "text") {
        r->responseFormat = F::RESPONSE_FORMAT_TEXT;
    } else if (type == "json_object") {
        r->responseFormat = F::RESPONSE_FORMAT_JSON_OBJECT;
        // llama-server's shape: {"type": "json_object", "schema": {...}}.
        if (v.contains("schema") && v["schema"].is_object()) {
            r->responseFormat = F::RESPONSE_FORMAT_JSON_SCHEMA;
            r->responseSchemaJson = v["schema"].dump(-1, ' ', false, json::error_handler_t::replace);
        }
    } else if (type == "json_schema") {
        const auto spec = v.find("json_schema");
        if (spec == v.end() || !spec->is_object())
            return ApiError::badRequest("response_format.json_schema: expected an object with a \"schema\"",
                                        "response_format.json_schema");
        const auto schema = spec->find("schema");
        if (schema != spec->end() && !schema->is_object() && !schema->is_boolean())
            return wrongType("response_format.json_schema.schema", "a JSON schema object", *schema);
        r->responseFormat = F::RESPONSE_FORMAT_JSON_SCHEMA;
        r->responseSchemaJson =
            schema == spec->end() ? "{}" : schema->dump(-1, ' ', false, json::error_handler_t::replace);
    } else {
        return ApiError::badRequest("response_format.type: '" + type +
                                        "' is not one of text, json_object, json_schema",
                                    "response_format.type");
    }
    return std::nullopt;
}

// What only the fields together decide: the named tool exists, a required
// call has tools, a required call and a JSON response_format do not mix,
// top_logprobs comes with logprobs.
std::optional<ApiError> checkCombinations(const ApiRequest &r)
{
    using C = ApiRequest::ToolChoice;
    if (r.toolChoice == C::TOOL_CHOICE_NAMED &&
        std::find(r.toolNames.begin(), r.toolNames.end(), r.toolChoiceName) == r.toolNames.end())
        return ApiError::badRequest("tool_choice: '" + r.toolChoiceName + "' is not one of the tools", "tool_choice");
    if (r.toolsJson.empty() && (r.toolChoice == C::TOOL_CHOICE_REQUIRED || r.toolChoice == C::TOOL_CHOICE_NAMED))
        return ApiError::badRequest("tool_choice: a tool is required but `tools` is empty", "tool_choice");
    if (r.toolsActive() && r.responseFormat != ApiRequest::ResponseFormat::RESPONSE_FORMAT_TEXT &&
        r.toolChoice != C::TOOL_CHOICE_AUTO)
        return ApiError::badRequest("response_format: cannot be combined with a required tool call", "response_format");
    if (r.topLogprobs > 0 && !r.logprobs)
        return ApiError::badRequest("top_logprobs: needs logprobs: true", "top_logprobs");
    return std::nullopt;
}

std::optional<ApiError> readFields(Endpoint endpoint, const json &body, const ServerLimits &limits, int32_t maxChoices,
                                   ApiRequest *r)
{
    bool haveMaxCompletion = false;
    for (auto it = body.begin(); it != body.end(); ++it) {
        const std::string &key = it.key();
        const json &v = it.value();
        if (v.is_null())
            continue;
        std::optional<ApiError> e;
        int64_t i = 0;
        if (key == "model") {
            if (!v.is_string())
                return wrongType(key, "a string", v);
            r->model = v.get<std::string>();
        } else if (key == "messages" && endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS) {
            if (!v.is_array())
                return wrongType(key, "an array of messages", v);
            if (v.empty())
                return ApiError::badRequest("messages: at least one message is needed", key);
            if (v.size() > limits.maxMessages)
                return ApiError::badRequest("messages: at most " + std::to_string(limits.maxMessages) +
                                                " messages, got " + std::to_string(v.size()),
                                            key);
            r->messages.resize(v.size());
            for (size_t m = 0; m < v.size(); ++m)
                if ((e = readMessage(v[m], m, &r->messages[m])))
                    return e;
        } else if (key == "prompt" && endpoint == Endpoint::ENDPOINT_COMPLETIONS) {
            if (v.is_string()) {
                r->prompt = v.get<std::string>();
            } else if (v.is_array() && v.size() == 1 && v[0].is_string()) {
                r->prompt = v[0].get<std::string>();
            } else if (v.is_array() && v.size() != 1) {
                return ApiError::badRequest("prompt: one prompt per request (an array of " +
                                                std::to_string(v.size()) + " is not supported)",
                                            key);
            } else {
                return wrongType(key, "a string", v);
            }
        } else if (key == "max_tokens" || key == "max_completion_tokens") {
            if ((e = readInteger(v, key, 1, limits.maxTokens, &i)))
                return e;
            // max_completion_tokens (the newer name, what LangChain sends) wins.
            if (key == "max_completion_tokens" || !haveMaxCompletion)
                r->maxTokens = static_cast<int32_t>(i);
            haveMaxCompletion = haveMaxCompletion || key == "max_completion_tokens";
        } else if (key == "temperature") {
            e = readNumber(v, key, 0, 2, &r->sampling.temperature);
        } else if (key == "top_p") {
            e = readNumber(v, key, 0, 1, &r->sampling.topP);
        } else if (key == "min_p") {
            e = readNumber(v, key, 0, 1, &r->sampling.minP);
        } else if (key == "top_k") {
            if (!(e = readInteger(v, key, 0, std::numeric_limits<int32_t>::max(), &i)))
                r->sampling.topK = static_cast<int32_t>(i);
        } else if (key == "presence_penalty") {
            e = readNumber(v, key, -2, 2, &r->sampling.presencePenalty);
        } else if (key == "frequency_penalty") {
            e = readNumber(v, key, -2, 2, &r->sampling.frequencyPenalty);
        } else if (key == "repeat_penalty" || key == "repetition_penalty") {
            e = readNumber(v, key, 0.01, 10, &r->sampling.repeatPenalty);
        } else if (key == "seed") {
            // Any integer: -1 is random (llama.cpp's convention); others are
            // folded into the 32 bits the sampler takes (0xFFFFFFFF is
            // the engine's "random", so it is never produced).
            if (!v.is_number_integer())
                return wrongType(key, "an integer", v);
            if (v.is_number_unsigned()) {
                r->sampling.seed = static_cast<uint32_t>(v.get<uint64_t>() % 0xFFFFFFFFull);
            } else {
                const int64_t s = v.get<int64_t>();
                r->sampling.seed = s == -1 ? 0xFFFFFFFFu
                                           : static_cast<uint32_t>(static_cast<uint64_t>(s) % 0xFFFFFFFFull);
            }
        } else if (key == "stop") {
            e = readStop(v, limits, &r->stop);
        } else if (key == "stream") {
            e = readBool(v, key, &r->stream);
        } else if (key == "stream_options") {
            if (!v.is_object())
                return wrongType(key, "an object", v);
            const auto usage = v.find("include_usage");
            if (usage != v.end() && !usage->is_null())
                e = readBool(*usage, "stream_options.include_usage", &r->includeUsage);
        } else if (key == "n") {
            if (!(e = readInteger(v, key, 1, maxChoices, &i)))
                r->n = static_cast<int32_t>(i);
        } else if (key == "reasoning_effort") {
            e = readEffort(v, key, r);
        } else if (key == "reasoning") {
            // {"effort": "high"} (the Responses API, OpenRouter, Ollama).
            if (!v.is_object())
                return wrongType(key, "an object", v);
            const auto effort = v.find("effort");
            if (effort != v.end() && !effort->is_null())
                e = readEffort(*effort, "reasoning.effort", r);
        } else if (key == "thinking") {
            // true / false, or {"type": "enabled" | "disabled"} (Anthropic's shape).
            if (v.is_boolean()) {
                r->enableThinking = v.get<bool>();
            } else if (v.is_object() && v.contains("type") && v["type"].is_string() &&
                       (v["type"] == "enabled" || v["type"] == "disabled")) {
                r->enableThinking = v["type"] == "enabled";
            } else {
                return wrongType(key, "a boolean or {\"type\": \"enabled\" | \"disabled\"}", v);
            }
        } else if (key == "chat_template_kwargs") {
            if (!v.is_object())
                return wrongType(key, "an object", v);
            r->templateKwargsJson = v.dump(-1, ' ', false, json::error_handler_t::replace);
        } else if (key == "logprobs") {
            if (endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS) {
                e = readBool(v, key, &r->logprobs);
            } else if (!(e = readInteger(v, key, 0, kMaxTopLogprobs, &i))) {
                // Completions: an integer, the number of top tokens too.
                r->logprobs = true;
                r->topLogprobs = static_cast<int32_t>(i);
            }
        } else if (key == "top_logprobs") {
            if (!(e = readInteger(v, key, 0, kMaxTopLogprobs, &i)))
                r->topLogprobs = static_cast<int32_t>(i);
        } else if (key == "tools" && endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS) {
            e = readTools(v, limits, r);
        } else if (key == "tool_choice" && endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS) {
            e = readToolChoice(v, r);
        } else if (key == "parallel_tool_calls") {
            e = readBool(v, key, &r->parallelToolCalls);
        } else if (key == "echo") {
            if (v.is_boolean() && v.get<bool>())
                return ApiError::badRequest("echo: not supported by this server", key, "unsupported_parameter");
        } else if (key == "suffix") {
            if (!v.is_string() || !v.get_ref<const std::string &>().empty())
                return ApiError::badRequest("suffix: not supported by this server", key, "unsupported_parameter");
        } else if (key == "response_format") {
            e = readResponseFormat(v, r);
        }
        if (e)
            return e;
    }
    if (auto e = checkCombinations(*r))
        return e;
    if (endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS && r->messages.empty())
        return ApiError::badRequest("messages: missing (an array of {role, content})", "messages");
    if (endpoint == Endpoint::ENDPOINT_COMPLETIONS && !body.contains("prompt"))
        return ApiError::badRequest("prompt: missing", "prompt");
    return std::nullopt;
}

} // namespace

int jsonNestingDepth(std::string_view text, int limit)
{
    int depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest && (deepest = depth) > limit)
                return limit + 1;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

std::variant<ApiRequest, ApiError> parseApiRequest(Endpoint endpoint, std::string_view body,
                                                   const ServerLimits &limits, int32_t maxChoices)
{
    if (jsonNestingDepth(body, limits.maxJsonDepth) > limits.maxJsonDepth)
        return ApiError::badRequest("the request JSON nests deeper than " + std::to_string(limits.maxJsonDepth) +
                                    " levels");
    json parsed;
    try {
        parsed = json::parse(body.begin(), body.end());
    } catch (const json::exception &e) {
        return ApiError::badRequest(std::string("the request body is not valid JSON: ") + e.what(), {},
                                    "invalid_json");
    }
    if (!parsed.is_object())
        return ApiError::badRequest(std::string("the request body must be a JSON object, got ") + typeName(parsed));
    ApiRequest request;
    request.endpoint = endpoint;
    try {
        if (endpoint == Endpoint::ENDPOINT_MESSAGES || endpoint == Endpoint::ENDPOINT_RESPONSES) {
            auto chat = endpoint == Endpoint::ENDPOINT_MESSAGES ? anthropicToChat(parsed) : responsesToChat(parsed);
            if (auto *error = std::get_if<ApiError>(&chat))
                return *error;
            parsed = std::move(std::get<json>(chat));
        }
        const Endpoint reader = isChat(endpoint) ? Endpoint::ENDPOINT_CHAT_COMPLETIONS : endpoint;
        if (auto error = readFields(reader, parsed, limits, std::max<int32_t>(1, maxChoices), &request))
            return *error;
    } catch (const json::exception &e) {
        // Every access above is type-checked first; this is a safety net.
        return ApiError::badRequest(std::string("the request could not be read: ") + e.what());
    }
    return request;
}

} // namespace burrow::server
