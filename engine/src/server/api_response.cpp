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

Json chatChunk(const ResponseIds &ids, int index, Json delta, std::string_view finish)
{
    Json j = head(ids, "chat.completion.chunk");
    Json choice;
    choice["index"] = index;
    choice["delta"] = std::move(delta);
    choice["logprobs"] = nullptr;
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

std::string chatDeltaChunk(const ResponseIds &ids, int index, std::string_view field, std::string_view text)
{
    Json delta;
    delta[std::string(field)] = std::string(text);
    return dump(chatChunk(ids, index, std::move(delta), {}));
}

std::string chatFinishChunk(const ResponseIds &ids, int index, std::string_view finishReason)
{
    return dump(chatChunk(ids, index, Json::object(), finishReason));
}

std::string completionChunk(const ResponseIds &ids, int index, std::string_view text, std::string_view finishReason)
{
    Json j = head(ids, "text_completion");
    Json choice;
    choice["text"] = std::string(text);
    choice["index"] = index;
    choice["logprobs"] = nullptr;
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
        message["content"] = choices[i].text;
        if (!choices[i].reasoning.empty())
            message["reasoning_content"] = choices[i].reasoning;
        Json choice;
        choice["index"] = i;
        choice["message"] = std::move(message);
        choice["logprobs"] = nullptr;
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
        choice["logprobs"] = nullptr;
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
