// ToolCallStreamer (see tool_call_stream.h): per syntax, a head matcher
// that finds a call's name and where its arguments begin, a body reader
// (JSON canonicalized as it comes, XML per parameter, Gemma 4 per member)
// and a tail reader that finds the next call of the same capture.
#include "chat/tool_call_stream.h"

#include "chat/tool_call_markup.h"

#include <algorithm>

namespace burrow::chat {

using namespace markup;

namespace {

constexpr size_t HEAD_LIMIT = 4096;   // bytes a head may take before streaming gives up

size_t skipBlanks(std::string_view s, size_t pos)
{
    while (pos < s.size() && isBlank(s[pos]))
        ++pos;
    return pos;
}

// s[pos...] against `literal`: 1 matches (pos moved past), 0 may still
// (the bytes end inside it), -1 does not.
int literal(std::string_view s, size_t &pos, std::string_view lit)
{
    const size_t n = std::min(lit.size(), s.size() - pos);
    if (s.compare(pos, n, lit, 0, n) != 0)
        return -1;
    if (n < lit.size())
        return 0;
    pos += lit.size();
    return 1;
}

} // namespace

ToolCallStreamer::ToolCallStreamer(ToolCallSyntax syntax, const json::JsonValue &tools)
    : m_syntax(syntax), m_tools(tools)
{
}

void ToolCallStreamer::reset()
{
    m_phase = Phase::PHASE_HEAD;
    m_pos = 0;
    m_first = true;
    m_inArray = false;
    m_open = false;
    m_current = {};
    m_ended.clear();
    m_tailObject = false;
}

void ToolCallStreamer::piece(std::string text, std::vector<ToolCallItem> &out)
{
    if (text.empty())
        return;
    m_current.arguments += text;
    ToolCallItem item;
    item.kind = ToolCallItemKind::TOOL_CALL_ITEM_CALL_ARGUMENTS;
    item.content = std::move(text);
    out.push_back(std::move(item));
}

void ToolCallStreamer::start(std::string name, Phase body, std::vector<ToolCallItem> &out)
{
    if (m_open) {   // the previous call of this capture ended where this one's head began
        ToolCallItem end;
        end.isCall = true;
        end.kind = ToolCallItemKind::TOOL_CALL_ITEM_CALL;
        end.call = m_current;
        out.push_back(std::move(end));
        m_ended.push_back(std::move(m_current));
    }
    m_current = {std::move(name), {}};
    m_open = true;
    m_first = false;
    ToolCallItem item;
    item.kind = ToolCallItemKind::TOOL_CALL_ITEM_CALL_START;
    item.call.name = m_current.name;
    out.push_back(std::move(item));
    m_phase = body;
    m_firstMember = true;
    m_scan = m_pos;
    m_depth = 0;
    m_quoted = false;
    if (body == Phase::PHASE_JSON)
        m_canon = JsonCanonStream();
    if (body == Phase::PHASE_XML || body == Phase::PHASE_GEMMA)
        piece("{", out);   // XML and Gemma arguments are always an object
}

// {"name": N, "arguments" | "parameters": {   (pos: at the '{' of the arguments)
ToolCallStreamer::Head ToolCallStreamer::jsonCallHead(std::string_view s, size_t &pos, std::string &name)
{
    const auto lit = [&](std::string_view l) {
        pos = skipBlanks(s, pos);
        return literal(s, pos, l);
    };
    int r = -1;
    if ((r = lit("{")) <= 0 || (r = lit("\"name\"")) <= 0 || (r = lit(":")) <= 0 || (r = lit("\"")) <= 0)
        return r == 0 ? Head::HEAD_WAIT : Head::HEAD_NONE;
    const size_t open = pos - 1;
    size_t close = pos;
    while (close < s.size() && s[close] != '"')
        close += s[close] == '\\' ? 2 : 1;
    if (close >= s.size())
        return Head::HEAD_WAIT;
    auto parsed = json::parseJson(s.substr(open, close + 1 - open), "name");
    if (!parsed || !parsed->isString() || parsed->string.empty())
        return Head::HEAD_NONE;
    name = parsed->string;
    pos = close + 1;
    if ((r = lit(",")) <= 0)
        return r == 0 ? Head::HEAD_WAIT : Head::HEAD_NONE;
    pos = skipBlanks(s, pos);
    size_t keyPos = pos;
    r = literal(s, keyPos, "\"arguments\"");
    if (r < 0) {
        keyPos = pos;
        r = literal(s, keyPos, "\"parameters\"");
    }
    if (r <= 0)
        return r == 0 ? Head::HEAD_WAIT : Head::HEAD_NONE;
    pos = keyPos;
    if ((r = lit(":")) <= 0)
        return r == 0 ? Head::HEAD_WAIT : Head::HEAD_NONE;
    pos = skipBlanks(s, pos);
    if (pos >= s.size())
        return Head::HEAD_WAIT;
    return s[pos] == '{' ? Head::HEAD_FOUND : Head::HEAD_NONE;
}

// The head of the capture's next call, per syntax: its name and the
// reader of its body, `pos` moved to the body.
ToolCallStreamer::Head ToolCallStreamer::head(std::string_view s, size_t &pos, std::string &name, Phase &body)
{
    body = Phase::PHASE_JSON;
    const auto wait = [](int r) { return r == 0 ? Head::HEAD_WAIT : Head::HEAD_NONE; };
    const auto jsonObject = [&]() {   // blanks, then a '{' to read as JSON
        pos = skipBlanks(s, pos);
        if (pos >= s.size())
            return Head::HEAD_WAIT;
        return s[pos] == '{' ? Head::HEAD_FOUND : Head::HEAD_NONE;
    };
    int r = -1;
    switch (m_syntax) {
    case ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED: {
        if (!m_first || (r = literal(s, pos, TAG_OPEN)) < 0)
            return Head::HEAD_NONE;
        pos = skipBlanks(s, pos);
        if (r == 0 || pos >= s.size())
            return Head::HEAD_WAIT;
        if (s[pos] == '{')
            return jsonCallHead(s, pos, name);
        if ((r = literal(s, pos, F_OPEN)) <= 0)
            return wait(r);
        const size_t close = s.find('>', pos);
        if (close == std::string_view::npos)
            return Head::HEAD_WAIT;
        name = std::string(trim(s.substr(pos, close - pos)));
        pos = close + 1;
        body = Phase::PHASE_XML;
        return name.empty() ? Head::HEAD_NONE : Head::HEAD_FOUND;
    }
    case ToolCallSyntax::TOOL_CALL_SYNTAX_JSON:
    case ToolCallSyntax::TOOL_CALL_SYNTAX_MISTRAL: {
        if (m_first) {
            pos = skipBlanks(s, pos);
            std::string_view opener = m_syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_MISTRAL ? MISTRAL_OPEN : PYTHON_TAG;
            size_t at = pos;
            r = literal(s, at, opener);
            if (r == 0)
                return Head::HEAD_WAIT;
            if (r > 0)
                pos = at;
            else if (m_syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_MISTRAL)
                return Head::HEAD_NONE;
            pos = skipBlanks(s, pos);
            if (pos >= s.size())
                return Head::HEAD_WAIT;
            if (s[pos] == '[') {
                m_inArray = true;
                ++pos;
            }
        }
        if (m_syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_JSON || m_inArray)
            return jsonCallHead(s, pos, name);
        // Mistral's NAME[ARGS]{...}
        const size_t args = s.find(MISTRAL_ARGS, pos);
        if (args == std::string_view::npos)
            return Head::HEAD_WAIT;
        name = std::string(mistralName(s.substr(pos, args - pos)));
        pos = args + MISTRAL_ARGS.size();
        return name.empty() ? Head::HEAD_NONE : jsonObject();
    }
    case ToolCallSyntax::TOOL_CALL_SYNTAX_DEEPSEEK_V3: {
        pos = skipBlanks(s, pos);
        if (m_first) {
            size_t at = pos;
            if ((r = literal(s, at, DS_CALLS_OPEN)) == 0)
                return Head::HEAD_WAIT;
            if (r > 0)
                pos = skipBlanks(s, at);
        }
        if ((r = literal(s, pos, DS_CALL_OPEN)) <= 0)
            return wait(r);
        const size_t sep = s.find(DS_SEP, pos);
        if (sep == std::string_view::npos)
            return Head::HEAD_WAIT;
        const std::string_view headText = trim(s.substr(pos, sep - pos));
        pos = sep + DS_SEP.size();
        if (headText != "function") {   // V3.1: NAME<sep>ARGS
            name = std::string(headText);
            return name.empty() ? Head::HEAD_NONE : jsonObject();
        }
        const size_t line = s.find('\n', pos);   // function<sep>NAME\n```json\nARGS\n```
        if (line == std::string_view::npos)
            return Head::HEAD_WAIT;
        name = std::string(trim(s.substr(pos, line - pos)));
        pos = skipBlanks(s, line + 1);
        size_t at = pos;
        if ((r = literal(s, at, "```json")) == 0)
            return Head::HEAD_WAIT;
        if (r < 0 && (r = literal(s, at, "```")) == 0)
            return Head::HEAD_WAIT;
        if (r > 0)
            pos = at;
        return name.empty() ? Head::HEAD_NONE : jsonObject();
    }
    case ToolCallSyntax::TOOL_CALL_SYNTAX_HARMONY: {
        if (!m_first)
            pos = skipBlanks(s, pos);
        const size_t from = pos;
        if ((r = literal(s, pos, "to=")) <= 0)
            return wait(r);
        const size_t message = s.find(H_MESSAGE, pos);
        if (message == std::string_view::npos)
            return Head::HEAD_WAIT;
        std::string_view recipient = s.substr(from + 3, message - from - 3);
        if (startsWith(recipient, "functions."))
            recipient.remove_prefix(10);
        name = std::string(recipient);
        pos = message + H_MESSAGE.size();
        return name.empty() ? Head::HEAD_NONE : jsonObject();
    }
    case ToolCallSyntax::TOOL_CALL_SYNTAX_GEMMA4: {
        if (!m_first || (r = literal(s, pos, "call:")) <= 0)
            return m_first ? wait(r) : Head::HEAD_NONE;
        const size_t brace = s.find('{', pos);
        if (brace == std::string_view::npos)
            return Head::HEAD_WAIT;
        name = std::string(trim(s.substr(pos, brace - pos)));
        pos = brace + 1;
        body = Phase::PHASE_GEMMA;
        return name.empty() ? Head::HEAD_NONE : Head::HEAD_FOUND;
    }
    }
    return Head::HEAD_NONE;
}

bool ToolCallStreamer::jsonBody(std::string_view held, std::vector<ToolCallItem> &out)
{
    std::string written;
    m_pos += m_canon.feed(held.substr(m_pos), written);
    piece(std::move(written), out);
    if (m_canon.failed()) {
        m_phase = Phase::PHASE_OFF;
        return true;
    }
    if (!m_canon.done())
        return false;
    m_phase = Phase::PHASE_TAIL;
    m_tailObject = m_inArray || m_syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_JSON ||
                   m_syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED;
    if (m_tailObject)
        m_canon = JsonCanonStream::afterObjectMember();
    return true;
}

// <parameter=KEY>VALUE</parameter> ... </function>: a member per parameter.
bool ToolCallStreamer::xmlBody(std::string_view held, std::vector<ToolCallItem> &out)
{
    const size_t p = skipBlanks(held, m_pos);
    if (p >= held.size())
        return false;
    size_t at = p;
    if (literal(held, at, F_CLOSE) == 0)
        return false;
    at = p;
    const int r = literal(held, at, P_OPEN);
    if (r == 0)
        return false;
    if (r < 0) {
        m_phase = Phase::PHASE_OFF;   // </function> (the '}' comes with the call's end) or not a parameter
        return true;
    }
    const size_t keyEnd = held.find('>', at);
    if ((keyEnd == std::string_view::npos && held.size() - at > HEAD_LIMIT) ||
        (keyEnd != std::string_view::npos && keyEnd - at > HEAD_LIMIT)) {
        m_phase = Phase::PHASE_OFF;
        return true;
    }
    if (keyEnd == std::string_view::npos)
        return false;
    const size_t close = held.find(P_CLOSE, std::max(m_scan, at));
    if (close == std::string_view::npos) {
        m_scan = std::max(m_scan, held.size() - std::min(held.size(), P_CLOSE.size() - 1));
        return false;
    }
    if (close < keyEnd) {
        m_phase = Phase::PHASE_OFF;
        return true;
    }
    const std::string key(trim(held.substr(at, keyEnd - at)));
    const json::JsonValue value = xmlParameterValue(xmlProperties(m_tools, m_current.name), key, held.substr(keyEnd + 1, close - keyEnd - 1));
    std::string member = m_firstMember ? "" : ",";
    json::appendJsonString(member, key);
    member += ':';
    member += json::toJsonString(value);
    m_firstMember = false;
    piece(std::move(member), out);
    m_pos = close + P_CLOSE.size();
    m_scan = m_pos;
    return true;
}

// KEY:VALUE members at the top of a Gemma 4 object, each once the ',' or
// '}' after it is read, written as the whole object's parse would write it.
bool ToolCallStreamer::gemmaBody(std::string_view held, std::vector<ToolCallItem> &out)
{
    size_t i = m_scan;
    while (i < held.size()) {
        size_t q = i;
        const int r = literal(held, q, G_QUOTE);
        if (r == 0)
            break;
        if (r > 0) {
            m_quoted = !m_quoted;
            i = q;
            continue;
        }
        const char c = held[i];
        if (m_quoted || (c != ',' && c != '}' && c != ']' && c != '{' && c != '[')) {
            ++i;
            continue;
        }
        if (c == '{' || c == '[' || m_depth > 0) {
            m_depth += (c == '{' || c == '[') ? 1 : (c == ',' ? 0 : -1);
            ++i;
            continue;
        }
        // A member ends at i (',' or '}' at the top).
        const std::string_view member = held.substr(m_pos, i - m_pos);
        if (!(c == '}' && m_firstMember && trim(member).empty())) {
            std::string object(1, '{');
            object.append(member);
            object += '}';
            size_t read = 0;
            std::string converted;
            auto parsed = gemmaValueToJson(object, read, converted, 0) && read == object.size()
                              ? json::parseJson(converted, "arguments")
                              : Result<json::JsonValue>(Status::error("member"));
            if (c == ']' || !parsed || !parsed->isObject() || parsed->object.size() != 1) {
                m_phase = Phase::PHASE_OFF;
                return true;
            }
            const std::string text = json::toJsonString(*parsed);   // {"key":value}
            std::string written = m_firstMember ? "" : ",";
            written.append(text, 1, text.size() - 2);
            piece(std::move(written), out);
            m_firstMember = false;
        }
        m_pos = i + 1;
        if (c == '}') {
            m_phase = Phase::PHASE_OFF;   // the '}' comes with the call's end
            return true;
        }
        ++i;
    }
    m_scan = i;
    return false;
}

// After a call's arguments: the rest of its call object (JSON elements),
// then the next call's head, or nothing more to stream.
bool ToolCallStreamer::tail(std::string_view held)
{
    if (m_tailObject) {
        std::string ignored;
        m_pos += m_canon.feed(held.substr(m_pos), ignored);
        if (m_canon.failed() || (m_canon.done() && !m_inArray)) {
            m_phase = Phase::PHASE_OFF;
            return true;
        }
        if (!m_canon.done())
            return false;
        m_tailObject = false;
    }
    const size_t p = skipBlanks(held, m_pos);
    switch (m_syntax) {
    case ToolCallSyntax::TOOL_CALL_SYNTAX_JSON:
    case ToolCallSyntax::TOOL_CALL_SYNTAX_MISTRAL:
        if (p >= held.size())
            return false;
        if (m_inArray && held[p] == ',') {
            m_pos = p + 1;
            m_phase = Phase::PHASE_HEAD;
            return true;
        }
        if (!m_inArray) {   // [TOOL_CALLS]NAME[ARGS]... again
            size_t at = p;
            const int r = literal(held, at, MISTRAL_OPEN);
            if (r == 0)
                return false;
            if (r > 0) {
                m_pos = at;
                m_phase = Phase::PHASE_HEAD;
                return true;
            }
        }
        m_phase = Phase::PHASE_OFF;
        return true;
    case ToolCallSyntax::TOOL_CALL_SYNTAX_DEEPSEEK_V3: {
        const size_t end = held.find(DS_CALL_CLOSE, std::max(m_pos, m_scan));
        if (end == std::string_view::npos) {   // each byte searched once, whatever the cut
            m_scan = std::max(m_scan, held.size() - std::min(held.size(), DS_CALL_CLOSE.size() - 1));
            return false;
        }
        m_pos = end + DS_CALL_CLOSE.size();
        m_phase = Phase::PHASE_HEAD;
        return true;
    }
    case ToolCallSyntax::TOOL_CALL_SYNTAX_HARMONY:
        m_phase = Phase::PHASE_HEAD;
        return true;
    default:
        m_phase = Phase::PHASE_OFF;
        return true;
    }
}

void ToolCallStreamer::advance(std::string_view held, std::vector<ToolCallItem> &out)
{
    while (true) {
        switch (m_phase) {
        case Phase::PHASE_OFF:
            return;
        case Phase::PHASE_HEAD: {
            // A head is read from its start on every push, within HEAD_LIMIT
            // bytes whatever the cut.
            const std::string_view view = held.substr(0, std::min(held.size(), m_pos + HEAD_LIMIT));
            size_t pos = m_pos;
            std::string name;
            Phase body = Phase::PHASE_JSON;
            const Head h = head(view, pos, name, body);
            if (h == Head::HEAD_WAIT && view.size() == held.size())
                return;
            if (h != Head::HEAD_FOUND) {
                m_phase = Phase::PHASE_OFF;
                return;
            }
            m_pos = pos;
            start(std::move(name), body, out);
            break;
        }
        case Phase::PHASE_JSON:
            if (!jsonBody(held, out))
                return;
            break;
        case Phase::PHASE_XML:
            if (!xmlBody(held, out))
                return;
            break;
        case Phase::PHASE_GEMMA:
            if (!gemmaBody(held, out))
                return;
            break;
        case Phase::PHASE_TAIL:
            if (!tail(held))
                return;
            break;
        }
    }
}

bool ToolCallStreamer::endCapture(bool parsed, const std::vector<ToolCall> &calls, std::vector<ToolCallItem> &out)
{
    const size_t ended = m_ended.size();
    bool ok = parsed && calls.size() >= ended + (m_open ? 1 : 0);
    for (size_t k = 0; ok && k < ended; ++k)
        ok = calls[k].name == m_ended[k].name && calls[k].arguments == m_ended[k].arguments;
    if (ok && m_open)
        ok = calls[ended].name == m_current.name && startsWith(calls[ended].arguments, m_current.arguments);
    const auto end = [&out](const ToolCall &call, bool asItStands) {
        ToolCallItem item;
        item.isCall = true;
        item.kind = ToolCallItemKind::TOOL_CALL_ITEM_CALL;
        item.call = call;
        item.asItStands = asItStands;
        out.push_back(std::move(item));
    };
    if (!ok) {
        if (m_open)
            end(m_current, true);
        reset();
        return false;
    }
    for (size_t k = ended; k < calls.size(); ++k) {
        if (!m_open || k > ended)
            start(calls[k].name, Phase::PHASE_OFF, out);
        piece(calls[k].arguments.substr(m_current.arguments.size()), out);
        end(calls[k], false);
        m_open = false;
    }
    reset();
    return true;
}

} // namespace burrow::chat
