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
    if (inputs.extraContext.isObject())
        for (const auto &[k, v] : inputs.extraContext.object)
            context.set(jinja::Value(k), jsonToValue(v));
    for (const auto &[name, text] : inputs.specialTokens)
        context.set(jinja::Value(name), jinja::Value(text));
    context.set(jinja::Value("messages"), jsonToValue(messages));
    context.set(jinja::Value("add_generation_prompt"), jinja::Value(inputs.addGenerationPrompt));
    return m_template.render(context, inputs.render);
}

Result<std::string> ChatTemplate::apply(const std::vector<ChatMessage> &messages, const ChatTemplateInputs &inputs) const
{
    json::JsonValue list;
    list.type = json::JsonType::JSON_TYPE_ARRAY;
    for (const auto &m : messages) {
        json::JsonValue obj;
        obj.type = json::JsonType::JSON_TYPE_OBJECT;
        json::JsonValue role, content;
        role.type = content.type = json::JsonType::JSON_TYPE_STRING;
        role.string = m.role;
        content.string = m.content;
        obj.object.emplace_back("role", std::move(role));
        obj.object.emplace_back("content", std::move(content));
        list.array.push_back(std::move(obj));
    }
    return apply(list, inputs);
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
