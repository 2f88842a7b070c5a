// The server's JSON, built with nlohmann::ordered_json so keys keep the
// order OpenAI writes them in (id, object, created, model, choices, usage).
#include "server/api_response.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <random>

namespace burrow::server {

using Json = nlohmann::ordered_json;

namespace {

std::string dump(const Json &j)
{
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json head(const ResponseIds &ids, const char *object)
{
    Json j;
    j["id"] = ids.id;
    j["object"] = object;
    j["created"] = ids.created;
    j["model"] = ids.model;
    return j;
}

Json nullable(std::string_view s)
{
    return s.empty() ? Json() : Json(std::string(s));
}

Json bytesOf(const std::string &s)
{
    Json b = Json::array();
    for (const char c : s)
        b.push_back(static_cast<int>(static_cast<unsigned char>(c)));
    return b;
}

// Chat: {"content": [{"token", "logprob", "bytes", "top_logprobs": [...]}]}.
Json chatLogprobs(const std::vector<TokenLogprobText> *entries)
{
    if (!entries || entries->empty())
        return nullptr;
    Json content = Json::array();
    for (const TokenLogprobText &e : *entries) {
        Json top = Json::array();
        for (const LogprobText &t : e.top)
            top.push_back(Json{{"token", t.token}, {"logprob", t.logprob}, {"bytes", bytesOf(t.token)}});
        content.push_back(Json{{"token", e.chosen.token},
                               {"logprob", e.chosen.logprob},
                               {"bytes", bytesOf(e.chosen.token)},
                               {"top_logprobs", std::move(top)}});
    }
    return Json{{"content", std::move(content)}};
}

// Completions (the legacy shape): tokens, token_logprobs, top_logprobs, text_offset.
Json completionLogprobs(const std::vector<TokenLogprobText> *entries, size_t textOffset)
{
    if (!entries || entries->empty())
        return nullptr;
    Json tokens = Json::array(), lps = Json::array(), tops = Json::array(), offsets = Json::array();
    for (const TokenLogprobText &e : *entries) {
        tokens.push_back(e.chosen.token);
        lps.push_back(e.chosen.logprob);
        Json top = Json::object();
        for (const LogprobText &t : e.top)
            top[t.token] = t.logprob;
        tops.push_back(std::move(top));
        offsets.push_back(textOffset);
        textOffset += e.chosen.token.size();
    }
    return Json{{"tokens", std::move(tokens)},
                {"token_logprobs", std::move(lps)},
                {"top_logprobs", std::move(tops)},
                {"text_offset", std::move(offsets)}};
}

Json chatChunk(const ResponseIds &ids, int index, Json delta, std::string_view finish,
               const std::vector<TokenLogprobText> *logprobs = nullptr)
{
    Json j = head(ids, "chat.completion.chunk");
    Json choice;
    choice["index"] = index;
    choice["delta"] = std::move(delta);
    choice["logprobs"] = chatLogprobs(logprobs);
    choice["finish_reason"] = nullable(finish);
    j["choices"] = Json::array({std::move(choice)});
    return j;
}

Json usageJson(const Usage &u)
{
    Json j;
    j["prompt_tokens"] = u.promptTokens;
    j["completion_tokens"] = u.completionTokens;
    j["total_tokens"] = u.promptTokens + u.completionTokens;
    j["prompt_tokens_details"] = Json{{"cached_tokens", u.cachedTokens}};
    // Speculative decoding's drafts under OpenAI's names for predicted tokens.
    j["completion_tokens_details"] = Json{{"reasoning_tokens", u.reasoningTokens},
                                          {"accepted_prediction_tokens", u.acceptedTokens},
                                          {"rejected_prediction_tokens", u.draftedTokens - u.acceptedTokens}};
    return j;
}

} // namespace

const char *finishReason(StopReason reason)
{
    switch (reason) {
    case StopReason::STOP_REASON_MAX_TOKENS:
    case StopReason::STOP_REASON_CONTEXT_FULL: return "length";
    default: return "stop";
    }
}

std::string newResponseId(const char *prefix)
{
    // Unique within the process (a counter) and across runs (a random base).
    static const uint64_t base = [] {
        std::random_device rd;
        return (uint64_t{rd()} << 32) ^ rd() ^
               static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    }();
    static std::atomic<uint64_t> counter{0};
    std::mt19937_64 mix(base + counter.fetch_add(1));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016llx%08llx", static_cast<unsigned long long>(mix()),
                  static_cast<unsigned long long>(mix() & 0xFFFFFFFFull));
    return std::string(prefix) + buf;
}

std::string sseEvent(std::string_view json)
{
    std::string out;
    out.reserve(json.size() + 8);
    out += "data: ";
    out += json;
    out += "\n\n";
    return out;
}

std::string sseDone()
{
    return "data: [DONE]\n\n";
}

std::string sseKeepAlive()
{
    return ": keep-alive\n\n";
}

std::string chatRoleChunk(const ResponseIds &ids, int index)
{
    return dump(chatChunk(ids, index, Json{{"role", "assistant"}, {"content", ""}}, {}));
}

std::string chatDeltaChunk(const ResponseIds &ids, int index, std::string_view field, std::string_view text,
                           const std::vector<TokenLogprobText> *logprobs)
{
    Json delta;
    delta[std::string(field)] = std::string(text);
    return dump(chatChunk(ids, index, std::move(delta), {}, logprobs));
}

std::string chatFinishChunk(const ResponseIds &ids, int index, std::string_view finishReason,
                            const std::vector<TokenLogprobText> *logprobs)
{
    return dump(chatChunk(ids, index, Json::object(), finishReason, logprobs));
}

std::string chatToolCallStartChunk(const ResponseIds &ids, int index, int callIndex, const ToolCallOut &call)
{
    Json fn;
    fn["name"] = call.name;
    fn["arguments"] = "";
    Json tc;
    tc["index"] = callIndex;
    tc["id"] = call.id;
    tc["type"] = "function";
    tc["function"] = std::move(fn);
    Json delta;
    delta["tool_calls"] = Json::array({std::move(tc)});
    return dump(chatChunk(ids, index, std::move(delta), {}));
}

std::string chatToolCallArgumentsChunk(const ResponseIds &ids, int index, int callIndex, std::string_view piece)
{
    Json tc;
    tc["index"] = callIndex;
    tc["function"] = Json{{"arguments", std::string(piece)}};
    Json delta;
    delta["tool_calls"] = Json::array({std::move(tc)});
    return dump(chatChunk(ids, index, std::move(delta), {}));
}

std::string completionChunk(const ResponseIds &ids, int index, std::string_view text, std::string_view finishReason,
                            const std::vector<TokenLogprobText> *logprobs)
{
    Json j = head(ids, "text_completion");
    Json choice;
    choice["text"] = std::string(text);
    choice["index"] = index;
    choice["logprobs"] = completionLogprobs(logprobs, 0);
    choice["finish_reason"] = nullable(finishReason);
    j["choices"] = Json::array({std::move(choice)});
    return dump(j);
}

std::string usageChunk(const ResponseIds &ids, Endpoint endpoint, const Usage &usage)
{
    Json j = head(ids, endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS ? "chat.completion.chunk" : "text_completion");
    j["choices"] = Json::array();
    j["usage"] = usageJson(usage);
    return dump(j);
}

std::string chatResponse(const ResponseIds &ids, const std::vector<ChoiceResult> &choices, const Usage &usage)
{
    Json j = head(ids, "chat.completion");
    Json list = Json::array();
    for (size_t i = 0; i < choices.size(); ++i) {
        Json message;
        message["role"] = "assistant";
        message["content"] = choices[i].text.empty() && !choices[i].toolCalls.empty() ? Json() : Json(choices[i].text);
        if (!choices[i].reasoning.empty())
            message["reasoning_content"] = choices[i].reasoning;
        if (!choices[i].toolCalls.empty()) {
            Json calls = Json::array();
            for (const ToolCallOut &c : choices[i].toolCalls)
                calls.push_back(Json{{"id", c.id},
                                     {"type", "function"},
                                     {"function", Json{{"name", c.name}, {"arguments", c.arguments}}}});
            message["tool_calls"] = std::move(calls);
        }
        Json choice;
        choice["index"] = i;
        choice["message"] = std::move(message);
        choice["logprobs"] = choices[i].logprobs ? chatLogprobs(&choices[i].tokenLogprobs) : Json();
        if (choices[i].logprobs && choice["logprobs"].is_null())
            choice["logprobs"] = Json{{"content", Json::array()}};
        choice["finish_reason"] = choices[i].finishReason;
        list.push_back(std::move(choice));
    }
    j["choices"] = std::move(list);
    j["usage"] = usageJson(usage);
    return dump(j);
}

std::string completionResponse(const ResponseIds &ids, const std::vector<ChoiceResult> &choices, const Usage &usage)
{
    Json j = head(ids, "text_completion");
    Json list = Json::array();
    for (size_t i = 0; i < choices.size(); ++i) {
        Json choice;
        choice["text"] = choices[i].text;
        choice["index"] = i;
        choice["logprobs"] = choices[i].logprobs ? completionLogprobs(&choices[i].tokenLogprobs, 0) : Json();
        choice["finish_reason"] = choices[i].finishReason;
        list.push_back(std::move(choice));
    }
    j["choices"] = std::move(list);
    j["usage"] = usageJson(usage);
    return dump(j);
}

std::string modelObject(const std::string &id, int64_t created)
{
    Json j;
    j["id"] = id;
    j["object"] = "model";
    j["created"] = created;
    j["owned_by"] = "burrow";
    return dump(j);
}

std::string modelList(const std::string &id, int64_t created)
{
    Json j;
    j["object"] = "list";
    j["data"] = Json::array({Json::parse(modelObject(id, created))});
    return dump(j);
}

} // namespace burrow::server
