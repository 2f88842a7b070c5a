// ToolCallParser: content scanned for a syntax's opening marker (a tail
// that may still become one held back), a call held from its marker to its
// end, then parsed into calls or given back as content.
#include "chat/tool_calls.h"

#include "chat/tool_call_markup.h"
#include "chat/tool_call_stream.h"

#include <algorithm>
#include <initializer_list>

namespace burrow::chat {

using namespace markup;

std::string_view markup::trim(std::string_view s)
{
    while (!s.empty() && isBlank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isBlank(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string_view markup::mistralName(std::string_view head)
{
    return trim(head.substr(0, head.find(MISTRAL_CALL_ID)));
}

namespace {

// Length of the longest suffix of `s` that is a proper prefix of a marker.
size_t heldTail(std::string_view s, std::initializer_list<std::string_view> markers)
{
    size_t best = 0;
    for (const std::string_view m : markers)
        for (size_t k = std::min(s.size(), m.size() - 1); k > best; --k)
            if (s.compare(s.size() - k, k, m, 0, k) == 0) {
                best = k;
                break;
            }
    return best;
}

// The opening markers of a syntax's calls in the answer (none for the two
// the splitter keeps apart; JSON is decided at the start instead).
std::vector<std::string_view> openers(ToolCallSyntax syntax)
{
    switch (syntax) {
    case ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED: return {TAG_OPEN};
    case ToolCallSyntax::TOOL_CALL_SYNTAX_MISTRAL: return {MISTRAL_OPEN};
    case ToolCallSyntax::TOOL_CALL_SYNTAX_DEEPSEEK_V3: return {DS_CALLS_OPEN, DS_CALL_OPEN};
    case ToolCallSyntax::TOOL_CALL_SYNTAX_JSON: return {PYTHON_TAG};
    default: return {};
    }
}

// {"name": N, "arguments" | "parameters": {...} | "{...}"} -> a call.
bool callFromObject(const json::JsonValue &v, ToolCall &call)
{
    if (!v.isObject())
        return false;
    const json::JsonValue *name = v.find("name");
    if (!name) {
        // {"function": {"name", "arguments"}} and {"tool_call": {...}} wrappers.
        for (const char *wrapper : {"function", "tool_call"})
            if (const json::JsonValue *inner = v.find(wrapper); inner && inner->isObject())
                return callFromObject(*inner, call);
        return false;
    }
    if (!name->isString() || name->string.empty())
        return false;
    const json::JsonValue *args = v.find("arguments");
    if (!args)
        args = v.find("parameters");
    call.name = name->string;
    if (!args || args->isNull()) {
        call.arguments = "{}";
        return true;
    }
    if (args->isString()) {
        auto parsed = json::parseJson(args->string, "arguments");
        if (!parsed || !parsed->isObject())
            return false;
        call.arguments = json::toJsonString(*parsed);
        return true;
    }
    if (!args->isObject())
        return false;
    call.arguments = json::toJsonString(*args);
    return true;
}

bool callsFromJsonText(std::string_view text, std::vector<ToolCall> &calls)
{
    auto parsed = json::parseJson(trim(text), "tool call");
    if (!parsed)
        return false;
    if (parsed->isArray()) {
        if (parsed->array.empty())
            return false;
        for (const json::JsonValue &item : parsed->array) {
            ToolCall c;
            if (!callFromObject(item, c))
                return false;
            calls.push_back(std::move(c));
        }
        return true;
    }
    ToolCall c;
    if (!callFromObject(*parsed, c))
        return false;
    calls.push_back(std::move(c));
    return true;
}

} // namespace

bool markup::gemmaValueToJson(std::string_view s, size_t &pos, std::string &out, int depth)
{
    if (depth > 64 || pos >= s.size())
        return false;
    if (startsWith(s.substr(pos), G_QUOTE)) {
        const size_t end = s.find(G_QUOTE, pos + G_QUOTE.size());
        if (end == std::string_view::npos)
            return false;
        json::appendJsonString(out, s.substr(pos + G_QUOTE.size(), end - pos - G_QUOTE.size()));
        pos = end + G_QUOTE.size();
        return true;
    }
    const char open = s[pos];
    if (open == '{' || open == '[') {
        const char close = open == '{' ? '}' : ']';
        out += open;
        ++pos;
        bool first = true;
        while (true) {
            while (pos < s.size() && isBlank(s[pos]))
                ++pos;
            if (pos >= s.size())
                return false;
            if (s[pos] == close) {
                out += close;
                ++pos;
                return true;
            }
            if (!first) {
                if (s[pos] != ',')
                    return false;
                out += ',';
                ++pos;
                while (pos < s.size() && isBlank(s[pos]))
                    ++pos;
            }
            first = false;
            if (open == '{') {
                size_t keyEnd = pos;
                if (startsWith(s.substr(pos), G_QUOTE)) {
                    std::string key;
                    if (!gemmaValueToJson(s, keyEnd, key, depth + 1))
                        return false;
                    out += key;
                } else {
                    while (keyEnd < s.size() && s[keyEnd] != ':' && s[keyEnd] != close)
                        ++keyEnd;
                    json::appendJsonString(out, trim(s.substr(pos, keyEnd - pos)));
                }
                if (keyEnd >= s.size() || s[keyEnd] != ':')
                    return false;
                out += ':';
                pos = keyEnd + 1;
            }
            if (!gemmaValueToJson(s, pos, out, depth + 1))
                return false;
        }
    }
    // A bare scalar (number, true, false, null) up to a delimiter.
    size_t end = pos;
    while (end < s.size() && s[end] != ',' && s[end] != '}' && s[end] != ']')
        ++end;
    const std::string_view bare = trim(s.substr(pos, end - pos));
    auto parsed = json::parseJson(bare, "value");
    if (bare.empty() || !parsed || parsed->isArray() || parsed->isObject())
        json::appendJsonString(out, bare);   // an unquoted word: a string
    else
        out += json::toJsonString(*parsed);
    pos = end;
    return true;
}

const json::JsonValue *markup::xmlProperties(const json::JsonValue &tools, std::string_view name)
{
    const json::JsonValue *properties = nullptr;
    if (tools.isArray())
        for (const json::JsonValue &tool : tools.array) {
            const json::JsonValue *fn = tool.find("function");
            const json::JsonValue *n = fn ? fn->find("name") : nullptr;
            if (n && n->isString() && n->string == name)
                if (const json::JsonValue *params = fn->find("parameters"))
                    properties = params->find("properties");
        }
    return properties;
}

json::JsonValue markup::xmlParameterValue(const json::JsonValue *properties, const std::string &key,
                                          std::string_view value)
{
    if (!value.empty() && value.front() == '\n')
        value.remove_prefix(1);
    if (!value.empty() && value.back() == '\n')
        value.remove_suffix(1);
    const json::JsonValue *schema = properties ? properties->find(key) : nullptr;
    const json::JsonValue *type = schema ? schema->find("type") : nullptr;
    const bool isString = type && type->isString() && type->string == "string";
    json::JsonValue v;
    auto parsed = isString ? Result<json::JsonValue>(Status::error("")) : json::parseJson(value, "value");
    if (parsed) {
        v = std::move(*parsed);
    } else {
        v.type = json::JsonType::JSON_TYPE_STRING;
        v.string = std::string(value);
    }
    return v;
}

ToolCallSyntax toolCallSyntaxForTemplate(std::string_view source)
{
    const auto has = [&](std::string_view m) { return source.find(m) != std::string_view::npos; };
    if (has("<|channel|>"))
        return ToolCallSyntax::TOOL_CALL_SYNTAX_HARMONY;
    if (has("<|tool_call>"))
        return ToolCallSyntax::TOOL_CALL_SYNTAX_GEMMA4;
    if (has("<tool_call>"))
        return ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED;
    if (has("[TOOL_CALLS]"))
        return ToolCallSyntax::TOOL_CALL_SYNTAX_MISTRAL;
    if (has("tool▁calls▁begin") || has("tool▁call▁begin"))
        return ToolCallSyntax::TOOL_CALL_SYNTAX_DEEPSEEK_V3;
    return ToolCallSyntax::TOOL_CALL_SYNTAX_JSON;
}

const char *toolCallSyntaxName(ToolCallSyntax syntax)
{
    switch (syntax) {
    case ToolCallSyntax::TOOL_CALL_SYNTAX_JSON: return "json";
    case ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED: return "tagged";
    case ToolCallSyntax::TOOL_CALL_SYNTAX_HARMONY: return "harmony";
    case ToolCallSyntax::TOOL_CALL_SYNTAX_GEMMA4: return "gemma4";
    case ToolCallSyntax::TOOL_CALL_SYNTAX_MISTRAL: return "mistral";
    case ToolCallSyntax::TOOL_CALL_SYNTAX_DEEPSEEK_V3: return "deepseek-v3";
    }
    return "json";
}

std::vector<std::string> toolCallControlTokens(ToolCallSyntax syntax)
{
    switch (syntax) {
    case ToolCallSyntax::TOOL_CALL_SYNTAX_JSON: return {std::string(PYTHON_TAG)};
    case ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED: return {std::string(TAG_OPEN), std::string(TAG_CLOSE)};
    case ToolCallSyntax::TOOL_CALL_SYNTAX_MISTRAL:
        return {std::string(MISTRAL_OPEN), std::string(MISTRAL_ARGS), std::string(MISTRAL_CALL_ID)};
    case ToolCallSyntax::TOOL_CALL_SYNTAX_DEEPSEEK_V3:
        return {std::string(DS_CALLS_OPEN), std::string(DS_CALLS_CLOSE), std::string(DS_CALL_OPEN),
                std::string(DS_CALL_CLOSE), std::string(DS_SEP)};
    case ToolCallSyntax::TOOL_CALL_SYNTAX_GEMMA4: return {"<|tool_call>", "<tool_call|>", std::string(G_QUOTE)};
    case ToolCallSyntax::TOOL_CALL_SYNTAX_HARMONY: return {};
    }
    return {};
}

bool toolCallArgumentsAsObject(ToolCallSyntax syntax)
{
    return syntax != ToolCallSyntax::TOOL_CALL_SYNTAX_DEEPSEEK_V3;
}

bool toolCallContentIsNone(ToolCallSyntax syntax)
{
    return syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_DEEPSEEK_V3;
}

ToolCallParser::ToolCallParser(ToolCallSyntax syntax, const json::JsonValue *tools, size_t maxCallBytes)
    : ToolCallParser(syntax, tools, Options{maxCallBytes, false})
{
}

ToolCallParser::ToolCallParser(ToolCallSyntax syntax, const json::JsonValue *tools, Options options)
    : m_syntax(syntax), m_maxCallBytes(options.maxCallBytes)
{
    if (tools)
        m_tools = *tools;
    if (syntax != ToolCallSyntax::TOOL_CALL_SYNTAX_JSON)
        m_state = State::STATE_CONTENT;
    if (options.streamArguments)
        m_streamer = std::make_unique<ToolCallStreamer>(syntax, m_tools);
}

ToolCallParser::~ToolCallParser() = default;
ToolCallParser::ToolCallParser(const ToolCallParser &other)
    : m_syntax(other.m_syntax), m_tools(other.m_tools), m_maxCallBytes(other.m_maxCallBytes), m_state(other.m_state),
      m_pending(other.m_pending), m_captured(other.m_captured), m_toolText(other.m_toolText),
      m_toolTextPlain(other.m_toolTextPlain), m_blank(other.m_blank), m_sawCall(other.m_sawCall),
      m_streamer(other.m_streamer ? std::make_unique<ToolCallStreamer>(*other.m_streamer) : nullptr)
{
}

ToolCallParser &ToolCallParser::operator=(const ToolCallParser &other)
{
    if (this != &other)
        *this = ToolCallParser(other);
    return *this;
}

ToolCallParser::ToolCallParser(ToolCallParser &&) noexcept = default;
ToolCallParser &ToolCallParser::operator=(ToolCallParser &&) noexcept = default;

bool ToolCallParser::endCapture(bool parsed, std::vector<ToolCall> &calls, std::vector<ToolCallItem> &out)
{
    if (!m_streamer) {
        if (!parsed)
            return false;
        for (ToolCall &c : calls)
            call(std::move(c), out);
        return true;
    }
    if (!m_streamer->endCapture(parsed, calls, out))
        return false;
    m_blank.clear();
    m_sawCall = true;
    return true;
}

void ToolCallParser::content(std::string_view text, std::vector<ToolCallItem> &out)
{
    if (text.empty())
        return;
    // Trailing white space waits: dropped when a call follows, kept when text does.
    size_t body = text.size();
    while (body > 0 && isBlank(text[body - 1]))
        --body;
    if (body == 0) {
        m_blank.append(text);
        return;
    }
    std::string piece = std::move(m_blank);
    piece.append(text.substr(0, body));
    m_blank.assign(text.substr(body));
    if (!out.empty() && !out.back().isCall)
        out.back().content.append(piece);
    else
        out.push_back({false, std::move(piece), {}});
}

void ToolCallParser::call(ToolCall &&c, std::vector<ToolCallItem> &out)
{
    m_blank.clear();
    m_sawCall = true;
    out.push_back({true, {}, std::move(c), ToolCallItemKind::TOOL_CALL_ITEM_CALL});
}

void ToolCallParser::giveBack(std::vector<ToolCallItem> &out)
{
    if (m_streamer)
        m_streamer->endCapture(false, {}, out);
    content(m_captured, out);
    m_captured.clear();
    m_state = State::STATE_PLAIN;
}

std::vector<ToolCallItem> ToolCallParser::pushAnswer(std::string_view piece)
{
    std::vector<ToolCallItem> out;
    if (m_state == State::STATE_DONE)
        return out;
    m_pending.append(piece);
    processAnswer(false, out);
    return out;
}

std::vector<ToolCallItem> ToolCallParser::pushToolText(std::string_view piece)
{
    std::vector<ToolCallItem> out;
    if (m_state == State::STATE_DONE)
        return out;
    m_toolText.append(piece);
    processToolText(false, out);
    return out;
}

std::vector<ToolCallItem> ToolCallParser::finish()
{
    std::vector<ToolCallItem> out;
    if (m_state == State::STATE_DONE)
        return out;
    processAnswer(true, out);
    processToolText(true, out);
    if (!m_sawCall && !m_blank.empty()) {
        // No call after all: the reply's own trailing white space.
        if (!out.empty() && !out.back().isCall)
            out.back().content.append(m_blank);
        else
            out.push_back({false, std::move(m_blank), {}});
    }
    m_blank.clear();
    m_state = State::STATE_DONE;
    return out;
}

void ToolCallParser::processAnswer(bool final, std::vector<ToolCallItem> &out)
{
    const std::vector<std::string_view> open = openers(m_syntax);
    while (true) {
        const std::string_view p = m_pending;
        switch (m_state) {
        case State::STATE_DONE:
            return;
        case State::STATE_PLAIN:
            content(p, out);
            m_pending.clear();
            return;
        case State::STATE_START: {
            // JSON: a reply that opens with "{" or "<|python_tag|>" may be a call.
            size_t blank = 0;
            while (blank < p.size() && isBlank(p[blank]))
                ++blank;
            const std::string_view rest = p.substr(blank);
            if (rest.empty() && !final)
                return;
            if (startsWith(rest, "{") || startsWith(rest, PYTHON_TAG)) {
                m_state = State::STATE_CALL;
                continue;
            }
            if (!final && PYTHON_TAG.compare(0, rest.size(), rest) == 0)
                return;
            m_state = State::STATE_CONTENT;
            continue;
        }
        case State::STATE_CONTENT: {
            size_t at = std::string_view::npos;
            for (const std::string_view m : open)
                at = std::min(at, p.find(m));
            if (at != std::string_view::npos) {
                content(p.substr(0, at), out);
                m_pending.erase(0, at);
                m_state = State::STATE_CALL;
                continue;
            }
            size_t keep = p.size();
            if (!final)
                for (const std::string_view m : open)
                    keep = std::min(keep, p.size() - heldTail(p, {m}));
            content(p.substr(0, keep), out);
            m_pending.erase(0, keep);
            return;
        }
        case State::STATE_CALL: {
            // Held from the opening marker; TAGGED and DEEPSEEK_V3 close, the
            // others run to the end of the reply.
            m_captured.append(p);
            m_pending.clear();
            std::string_view close;
            if (m_syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED)
                close = TAG_CLOSE;
            else if (m_syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_DEEPSEEK_V3)
                close = DS_CALLS_CLOSE;
            const size_t end = close.empty() ? std::string::npos : m_captured.find(close);
            const size_t length = end == std::string::npos ? m_captured.size() : end + close.size();
            if (m_streamer)
                m_streamer->advance(std::string_view(m_captured).substr(0, length), out);
            if (end == std::string::npos && !final) {
                if (m_captured.size() > m_maxCallBytes)
                    giveBack(out);
                return;
            }
            std::vector<ToolCall> calls;
            const bool parsed = parseCalls(std::string_view(m_captured).substr(0, length), calls);
            if (!endCapture(parsed, calls, out)) {
                giveBack(out);
                continue;
            }
            m_pending = m_captured.substr(length);
            m_captured.clear();
            m_state = State::STATE_CONTENT;
            if (m_pending.empty())
                return;
            continue;
        }
        }
    }
}

void ToolCallParser::processToolText(bool final, std::vector<ToolCallItem> &out)
{
    if (m_toolText.empty() || m_toolTextPlain) {
        content(m_toolText, out);
        m_toolText.clear();
        return;
    }
    // Not a call after all: what is held (and all that follows) is content.
    const auto plain = [&](std::string_view t) {
        std::vector<ToolCall> none;
        endCapture(false, none, out);
        m_toolTextPlain = true;
        content(t, out);
        m_toolText.clear();
    };
    if (m_streamer)
        m_streamer->advance(m_toolText, out);
    if (m_toolText.size() > m_maxCallBytes) {
        plain(m_toolText);
        return;
    }
    if (m_syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_GEMMA4) {
        // "call:NAME{...}" after "call:NAME{...}": each as soon as it closes.
        while (!m_toolText.empty()) {
            const std::string_view t = m_toolText;
            const size_t brace = t.find('{');
            if (!startsWith(t, "call:") && !(final || t.size() >= 5)) // wait for "call:"
                return;
            if (!startsWith(t, "call:") || brace == std::string_view::npos) {
                if (!final && startsWith(t, "call:"))
                    return;
                plain(t);
                return;
            }
            size_t pos = brace;
            std::string args;
            if (!gemmaValueToJson(t, pos, args, 0)) {
                if (!final)
                    return;
                plain(t);
                return;
            }
            std::vector<ToolCall> calls(1);
            calls[0].name = std::string(trim(t.substr(5, brace - 5)));
            auto parsed = json::parseJson(args, "arguments");
            if (calls[0].name.empty() || !parsed || !parsed->isObject()) {
                plain(t);
                return;
            }
            calls[0].arguments = json::toJsonString(*parsed);
            if (!endCapture(true, calls, out)) {
                plain(t);
                return;
            }
            m_toolText.erase(0, pos);
            if (m_streamer)
                m_streamer->advance(m_toolText, out);
        }
        return;
    }
    // HARMONY: "to=RECIPIENT<|message|>BODY", parsed at the end (a body runs
    // until the next head, which only the end makes certain).
    if (!final)
        return;
    std::vector<ToolCall> calls;
    std::string_view t = m_toolText;
    bool ok = startsWith(t, "to=");
    while (ok && !t.empty()) {
        const size_t message = t.find(H_MESSAGE);
        if (message == std::string_view::npos) {
            ok = false;
            break;
        }
        std::string_view recipient = t.substr(3, message - 3);
        // The body ends where "to=X<|message|>" (X without blanks) begins.
        size_t bodyEnd = t.size();
        for (size_t next = t.find(H_MESSAGE, message + H_MESSAGE.size()); next != std::string_view::npos;
             next = t.find(H_MESSAGE, next + 1)) {
            const size_t head = t.rfind("to=", next);
            if (head != std::string_view::npos && head > message &&
                t.substr(head, next - head).find_first_of(" \n\t\"") == std::string_view::npos) {
                bodyEnd = head;
                break;
            }
        }
        const std::string_view body = trim(t.substr(message + H_MESSAGE.size(), bodyEnd - message - H_MESSAGE.size()));
        if (startsWith(recipient, "functions."))
            recipient.remove_prefix(10);
        auto parsed = json::parseJson(body.empty() ? std::string_view("{}") : body, "arguments");
        if (recipient.empty() || !parsed || !parsed->isObject()) {
            ok = false;
            break;
        }
        calls.push_back({std::string(recipient), json::toJsonString(*parsed)});
        t.remove_prefix(bodyEnd);
    }
    if (!endCapture(ok, calls, out))
        content(m_toolText, out);
    m_toolText.clear();
}

bool ToolCallParser::parseXmlFunction(std::string_view body, ToolCall &call) const
{
    // <function=NAME> (<parameter=P> VALUE </parameter>)* </function>
    body = trim(body);
    if (!startsWith(body, F_OPEN))
        return false;
    const size_t nameEnd = body.find('>');
    if (nameEnd == std::string_view::npos)
        return false;
    call.name = std::string(trim(body.substr(F_OPEN.size(), nameEnd - F_OPEN.size())));
    if (call.name.empty())
        return false;
    const json::JsonValue *properties = xmlProperties(m_tools, call.name);
    json::JsonValue args;
    args.type = json::JsonType::JSON_TYPE_OBJECT;
    std::string_view rest = body.substr(nameEnd + 1);
    while (true) {
        rest = trim(rest);
        if (startsWith(rest, F_CLOSE) || rest.empty())
            break;
        if (!startsWith(rest, P_OPEN))
            return false;
        const size_t keyEnd = rest.find('>');
        const size_t close = rest.find(P_CLOSE);
        if (keyEnd == std::string_view::npos || close == std::string_view::npos || close < keyEnd)
            return false;
        const std::string key(trim(rest.substr(P_OPEN.size(), keyEnd - P_OPEN.size())));
        json::JsonValue v = xmlParameterValue(properties, key, rest.substr(keyEnd + 1, close - keyEnd - 1));
        args.object.emplace_back(key, std::move(v));
        rest = rest.substr(close + P_CLOSE.size());
    }
    call.arguments = json::toJsonString(args);
    return true;
}

bool ToolCallParser::parseCalls(std::string_view captured, std::vector<ToolCall> &calls) const
{
    switch (m_syntax) {
    case ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED: {
        if (!startsWith(captured, TAG_OPEN))
            return false;
        std::string_view body = captured.substr(TAG_OPEN.size());
        if (body.size() >= TAG_CLOSE.size() && body.substr(body.size() - TAG_CLOSE.size()) == TAG_CLOSE)
            body.remove_suffix(TAG_CLOSE.size());
        if (startsWith(trim(body), "<function=")) {
            ToolCall c;
            if (!parseXmlFunction(body, c))
                return false;
            calls.push_back(std::move(c));
            return true;
        }
        return callsFromJsonText(body, calls) && calls.size() == 1;
    }
    case ToolCallSyntax::TOOL_CALL_SYNTAX_JSON: {
        std::string_view body = captured;
        if (startsWith(body, PYTHON_TAG))
            body.remove_prefix(PYTHON_TAG.size());
        return callsFromJsonText(body, calls);
    }
    case ToolCallSyntax::TOOL_CALL_SYNTAX_MISTRAL: {
        std::string_view body = captured.substr(MISTRAL_OPEN.size());
        if (startsWith(trim(body), "["))
            return callsFromJsonText(body, calls);
        // NAME[ARGS]{...} ([TOOL_CALLS]NAME[ARGS]{...})*
        while (!body.empty()) {
            const size_t args = body.find(MISTRAL_ARGS);
            if (args == std::string_view::npos)
                return false;
            size_t next = body.find(MISTRAL_OPEN, args);
            const std::string_view json = body.substr(args + MISTRAL_ARGS.size(),
                                                      next == std::string_view::npos ? std::string_view::npos
                                                                                     : next - args - MISTRAL_ARGS.size());
            auto parsed = json::parseJson(trim(json), "arguments");
            const std::string name(mistralName(body.substr(0, args)));
            if (name.empty() || !parsed || !parsed->isObject())
                return false;
            calls.push_back({name, json::toJsonString(*parsed)});
            body = next == std::string_view::npos ? std::string_view() : body.substr(next + MISTRAL_OPEN.size());
        }
        return !calls.empty();
    }
    case ToolCallSyntax::TOOL_CALL_SYNTAX_DEEPSEEK_V3: {
        std::string_view body = captured;
        if (startsWith(body, DS_CALLS_OPEN))
            body.remove_prefix(DS_CALLS_OPEN.size());
        while (true) {
            body = trim(body);
            if (body.empty() || startsWith(body, DS_CALLS_CLOSE))
                break;
            if (!startsWith(body, DS_CALL_OPEN))
                return false;
            body.remove_prefix(DS_CALL_OPEN.size());
            const size_t end = body.find(DS_CALL_CLOSE);
            const std::string_view one = body.substr(0, end);
            const size_t sep = one.find(DS_SEP);
            if (sep == std::string_view::npos)
                return false;
            std::string_view head = one.substr(0, sep), rest = one.substr(sep + DS_SEP.size());
            std::string name;
            std::string_view args;
            const size_t line = rest.find('\n');
            if (trim(head) == "function" && line != std::string_view::npos) {
                // function<sep>NAME\n```json\nARGS\n```
                name = std::string(trim(rest.substr(0, line)));
                args = trim(rest.substr(line + 1));
                if (startsWith(args, "```json"))
                    args.remove_prefix(7);
                else if (startsWith(args, "```"))
                    args.remove_prefix(3);
                args = trim(args);
                if (args.size() >= 3 && args.substr(args.size() - 3) == "```")
                    args.remove_suffix(3);
            } else {
                name = std::string(trim(head));   // V3.1: NAME<sep>ARGS
                args = rest;
            }
            auto parsed = json::parseJson(trim(args), "arguments");
            if (name.empty() || !parsed || !parsed->isObject())
                return false;
            calls.push_back({name, json::toJsonString(*parsed)});
            if (end == std::string_view::npos)
                break;
            body.remove_prefix(end + DS_CALL_CLOSE.size());
        }
        return !calls.empty();
    }
    default:
        return false;
    }
}

} // namespace burrow::chat
