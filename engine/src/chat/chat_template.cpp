// Conversation rendering on top of the Jinja interpreter.
#include "chat/chat_template.h"

namespace burrow::chat {

jinja::Value jsonToValue(const json::JsonValue &j)
{
    using json::JsonType;
    switch (j.type) {
    case JsonType::JSON_TYPE_NULL: return jinja::Value::none();
    case JsonType::JSON_TYPE_BOOL: return jinja::Value(j.boolean);
    case JsonType::JSON_TYPE_INT: return jinja::Value(j.integer);
    case JsonType::JSON_TYPE_DOUBLE: return jinja::Value(j.number);
    case JsonType::JSON_TYPE_STRING: return jinja::Value(j.string);
    case JsonType::JSON_TYPE_ARRAY: {
        jinja::List items;
        items.reserve(j.array.size());
        for (const auto &item : j.array)
            items.push_back(jsonToValue(item));
        return jinja::Value::list(std::move(items));
    }
    case JsonType::JSON_TYPE_OBJECT: {
        jinja::Dict d;
        d.entries.reserve(j.object.size());
        for (const auto &[k, v] : j.object)
            d.entries.emplace_back(jinja::Value(k), jsonToValue(v));
        return jinja::Value::dict(std::move(d));
    }
    }
    return jinja::Value::none();
}

Result<ChatTemplate> ChatTemplate::parse(std::string_view templateText, const std::string &name)
{
    jinja::TemplateOptions options;
    options.name = name;
    auto t = jinja::Template::parse(templateText, options);
    if (!t)
        return t.status();
    ChatTemplate ct;
    ct.m_source = std::string(templateText);
    ct.m_template = std::move(*t);
    return ct;
}

Result<std::string> ChatTemplate::apply(const json::JsonValue &messages, const ChatTemplateInputs &inputs) const
{
    if (!messages.isArray())
        return Status::error("messages: expected a JSON array of {\"role\", \"content\"} objects, got "
                             + std::string(json::jsonTypeName(messages.type)));
    for (size_t i = 0; i < messages.array.size(); ++i) {
        const auto &m = messages.array[i];
        if (!m.isObject())
            return Status::error("messages[" + std::to_string(i) + "]: expected an object, got "
                                 + json::jsonTypeName(m.type));
        const auto *role = m.find("role");
        if (!role || !role->isString())
            return Status::error("messages[" + std::to_string(i) + "]: expected a string \"role\"");
    }
    jinja::Dict context;
    for (const auto &[name, text] : inputs.specialTokens)
        context.set(jinja::Value(name), jinja::Value(text));
    if (inputs.extraContext.isObject())
        for (const auto &[k, v] : inputs.extraContext.object)
            context.set(jinja::Value(k), jsonToValue(v));
    context.set(jinja::Value("messages"), jsonToValue(messages));
    context.set(jinja::Value("add_generation_prompt"), jinja::Value(inputs.addGenerationPrompt));
    return m_template.render(context, inputs.render);
}

namespace {

json::JsonValue jsonString(const std::string &s)
{
    json::JsonValue v;
    v.type = json::JsonType::JSON_TYPE_STRING;
    v.string = s;
    return v;
}

// Sets key in an object: replaces the value in place, or appends.
void setMember(json::JsonValue &object, const std::string &key, json::JsonValue value)
{
    for (auto &[k, v] : object.object)
        if (k == key) {
            v = std::move(value);
            return;
        }
    object.object.emplace_back(key, std::move(value));
}

} // namespace

Result<json::JsonValue> messagesToJson(const std::vector<ChatMessage> &messages)
{
    json::JsonValue list;
    list.type = json::JsonType::JSON_TYPE_ARRAY;
    list.array.reserve(messages.size());
    for (size_t i = 0; i < messages.size(); ++i) {
        const ChatMessage &m = messages[i];
        json::JsonValue obj;
        obj.type = json::JsonType::JSON_TYPE_OBJECT;
        obj.object.emplace_back("role", jsonString(m.role));
        obj.object.emplace_back("content", jsonString(m.content));
        if (!m.reasoning.empty()) {
            obj.object.emplace_back("reasoning_content", jsonString(m.reasoning));
            obj.object.emplace_back("thinking", jsonString(m.reasoning));
        }
        if (!m.extraJson.empty()) {
            const std::string where = "messages[" + std::to_string(i) + "] extra fields";
            auto extra = json::parseJson(m.extraJson, where);
            if (!extra)
                return extra.status();
            if (!extra->isObject())
                return Status::error(where + ": expected a JSON object, got " + json::jsonTypeName(extra->type));
            for (auto &[k, v] : extra->object)
                setMember(obj, k, std::move(v));
        }
        list.array.push_back(std::move(obj));
    }
    return list;
}

Result<json::JsonValue> templateKwargs(std::string_view kwargsJson, std::optional<bool> enableThinking,
                                       const std::string &reasoningEffort)
{
    json::JsonValue kwargs;
    kwargs.type = json::JsonType::JSON_TYPE_OBJECT;
    if (!kwargsJson.empty()) {
        auto parsed = json::parseJson(kwargsJson, "template kwargs");
        if (!parsed)
            return parsed.status();
        if (!parsed->isObject())
            return Status::error("template kwargs: expected a JSON object of variables, got " +
                                 std::string(json::jsonTypeName(parsed->type)));
        kwargs = std::move(*parsed);
        for (const char *reserved : {"messages", "add_generation_prompt"})
            if (kwargs.find(reserved))
                return Status::error(std::string("template kwargs: '") + reserved +
                                     "' is set by the conversation, not by a kwarg");
    }
    if (enableThinking) {
        json::JsonValue b;
        b.type = json::JsonType::JSON_TYPE_BOOL;
        b.boolean = *enableThinking;
        setMember(kwargs, "enable_thinking", std::move(b));
    }
    if (!reasoningEffort.empty())
        setMember(kwargs, "reasoning_effort", jsonString(reasoningEffort));
    return kwargs;
}

Result<std::string> ChatTemplate::apply(const std::vector<ChatMessage> &messages, const ChatTemplateInputs &inputs) const
{
    auto list = messagesToJson(messages);
    if (!list)
        return list.status();
    return apply(*list, inputs);
}

Result<std::string> renderChatTemplate(std::string_view templateText, const json::JsonValue &messages,
                                       const ChatTemplateInputs &inputs)
{
    auto t = ChatTemplate::parse(templateText);
    if (!t)
        return t.status();
    return t->apply(messages, inputs);
}

} // namespace burrow::chat
