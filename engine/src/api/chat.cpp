// burrow::renderChat(): the model's chat template (or the fallback format the
// chat layer picks, or a format the caller forces by name) applied to a
// conversation. The format is chosen once per model (ModelImpl::chatState)
// and reused; each forced format is parsed once per model and kept.
//
// Contract: the returned text is meant to be tokenized with addSpecial = true
// and parseSpecial = true. When the template writes the BOS text at the start
// and the vocabulary adds BOS itself, that leading BOS text is removed so the
// prompt does not begin with two BOS tokens.
#include "api/chat_state.h"
#include "api/model_impl.h"

#include "chat/chat_gguf.h"
#include "tokenizer/tokenizer.h"

#include <cctype>
#include <optional>

namespace burrow::api {

Result<std::shared_ptr<const ChatState>> makeChatState(const gguf::GgufFile &file)
{
    auto facts = chat::readChatFacts(file);
    if (!facts)
        return facts.status();
    auto state = std::make_shared<ChatState>();
    state->facts = std::move(facts.value());
    auto choice = chat::chooseChatFormat(state->facts.formatInputs());
    if (!choice)
        return choice.status();
    state->choice = std::move(choice.value());
    return std::shared_ptr<const ChatState>(std::move(state));
}

Result<std::shared_ptr<const chat::ChatFormatChoice>> ChatState::forcedChoice(chat::ChatFormatKind kind) const
{
    std::lock_guard<std::mutex> lock(m_forcedMutex);
    auto it = m_forced.find(kind);
    if (it != m_forced.end())
        return it->second;
    chat::ChatFormatInputs inputs = facts.formatInputs();
    inputs.forced = kind;
    auto made = chat::chooseChatFormat(inputs);
    if (!made)
        return made.status();
    auto shared = std::make_shared<const chat::ChatFormatChoice>(std::move(made.value()));
    m_forced.emplace(kind, shared);
    return shared;
}

Result<std::shared_ptr<const ChatState>> ModelImpl::chatState() const
{
    std::call_once(m_chatOnce, [this] {
        auto made = makeChatState(*m_file);
        if (made)
            m_chat = std::move(made.value());
        else
            m_chatStatus = made.status();
    });
    if (!m_chat)
        return m_chatStatus;
    return m_chat;
}

} // namespace burrow::api

namespace burrow {

namespace {

// The names chatFormatNames() lists, joined for an error message.
std::string namesList()
{
    std::string out;
    for (const std::string &n : chatFormatNames())
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

// The model's chat state and the choice `name` asks for ("auto" or "": the
// model's own choice; else a built-in format by name).
struct ResolvedFormat {
    std::shared_ptr<const api::ChatState> state;
    std::shared_ptr<const chat::ChatFormatChoice> forced;   // null for "auto"
    const chat::ChatFormatChoice &choice() const { return forced ? *forced : state->choice; }
};

// The choice `name` asks for in a chat state (a loaded model's, or one made
// from a file's header); `where` names the file in errors.
Result<ResolvedFormat> resolveFormat(Result<std::shared_ptr<const api::ChatState>> state, const std::string &where,
                                     const std::string &name)
{
    std::string lowered = name;
    for (char &c : lowered)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    std::optional<chat::ChatFormatKind> kind;
    if (!lowered.empty() && lowered != "auto") {
        kind = chat::chatFormatFromName(name);
        if (!kind || *kind == chat::ChatFormatKind::CHAT_FORMAT_KIND_MODEL)
            return Status::error("unknown chat format '" + name + "' (expected one of: " + namesList() + ")");
    }
    if (!state)
        return state.status().withContext(where + ": chat template");
    ResolvedFormat out;
    out.state = std::move(state.value());
    if (kind) {
        auto forced = out.state->forcedChoice(*kind);
        if (!forced)
            return forced.status().withContext(where + ": chat format " + name);
        out.forced = std::move(forced.value());
    }
    return out;
}

Result<ResolvedFormat> resolveFormat(const api::ModelImpl &impl, const std::string &name)
{
    return resolveFormat(impl.chatState(), impl.info().path, name);
}

const api::ModelImpl *implOf(const Model &model)
{
    return dynamic_cast<const api::ModelImpl *>(&model);
}

ChatFormat describe(const chat::ChatFormatChoice &choice)
{
    ChatFormat f;
    f.name = choice.kind == chat::ChatFormatKind::CHAT_FORMAT_KIND_MODEL ? "template" : choice.name;
    f.stopStrings = choice.stopStrings;
    f.reason = choice.reason;
    f.fromVocabulary = choice.byVocabulary;
    f.reasoning = choice.reasoning;
    f.readsEnableThinking = choice.readsEnableThinking;
    f.readsReasoningEffort = choice.readsReasoningEffort;
    return f;
}

bool isAutoFormat(const std::string &name)
{
    std::string lowered = name;
    for (char &c : lowered)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return lowered.empty() || lowered == "auto";
}

// What a base model gets under plainTextForBaseModels.
ChatFormat plainTextFormat()
{
    ChatFormat f;
    f.name = "plain";
    f.plainText = true;
    f.reason = "the model has no chat template and no chat tokens in its vocabulary (a base model), so the "
               "conversation is given to it as plain text to continue";
    return f;
}

} // namespace

std::vector<std::string> chatFormatNames()
{
    std::vector<std::string> out{"auto"};
    for (chat::ChatFormatKind kind : chat::builtinChatFormats())
        out.emplace_back(chat::chatFormatName(kind));
    return out;
}

Result<ChatFormat> chatFormatFor(const Model &model, const std::string &chatFormat)
{
    return chatFormatFor(model, chatFormat, false);
}

// The one decision of "which format, and why": a forced name is that
// format; "auto" is the model's template, else (none, or it does not parse)
// the fallback chat/chat_format.h detects; with plainTextForBaseModels a
// model with neither a template nor chat tokens gets plain text.

namespace {

ChatFormat decideFormat(const ResolvedFormat &resolved, const std::string &chatFormat, bool plainTextForBaseModels)
{
    ChatFormat format = describe(resolved.choice());
    // A base model: "auto", no template at all (a template that does not
    // parse still says the model was tuned for chat) and no chat tokens.
    if (plainTextForBaseModels && isAutoFormat(chatFormat) && resolved.state->facts.templateText.empty() &&
        !format.fromVocabulary)
        return plainTextFormat();
    return format;
}

} // namespace

Result<ChatFormat> chatFormatFor(const Model &model, const std::string &chatFormat, bool plainTextForBaseModels)
{
    const api::ModelImpl *impl = implOf(model);
    if (!impl)
        return Status::error("chatFormatFor: the model was not loaded with Model::load");
    auto resolved = resolveFormat(*impl, chatFormat);
    if (!resolved)
        return resolved.status();
    return decideFormat(*resolved, chatFormat, plainTextForBaseModels);
}

Result<ChatFormat> chatFormatFor(const std::string &path, const std::string &chatFormat, bool plainTextForBaseModels)
{
    auto opened = gguf::GgufFile::open(path);
    if (!opened)
        return opened.status();
    auto resolved = resolveFormat(api::makeChatState(**opened), path, chatFormat);
    if (!resolved)
        return resolved.status();
    return decideFormat(*resolved, chatFormat, plainTextForBaseModels);
}

Result<std::string> renderChat(const Model &model, const std::vector<ChatMessage> &messages, bool addGenerationPrompt,
                               ChatFormat *formatUsed)
{
    RenderOptions options;
    options.addGenerationPrompt = addGenerationPrompt;
    return renderChat(model, messages, options, formatUsed);
}

Result<std::string> renderChat(const Model &model, const std::vector<ChatMessage> &messages,
                               const RenderOptions &options, ChatFormat *formatUsed)
{
    const api::ModelImpl *impl = implOf(model);
    if (!impl)
        return Status::error("renderChat: the model was not loaded with Model::load");
    auto resolved = resolveFormat(*impl, options.chatFormat);
    if (!resolved)
        return resolved.status();
    const api::ChatState &chat = *resolved->state;
    const chat::ChatFormatChoice &choice = resolved->choice();

    std::vector<chat::ChatMessage> converted;
    converted.reserve(messages.size());
    for (const ChatMessage &m : messages)
        converted.push_back({m.role, m.content, m.reasoning, m.extraJson});
    chat::ChatTemplateInputs inputs;
    inputs.addGenerationPrompt = options.addGenerationPrompt;
    inputs.specialTokens = chat.facts.specialTokens;
    auto kwargs = chat::templateKwargs(options.kwargsJson, options.enableThinking, options.reasoningEffort);
    if (!kwargs)
        return kwargs.status();
    inputs.extraContext = std::move(kwargs.value());
    if (options.cancel)
        inputs.render.cancelled = [token = options.cancel] { return token->isCancelled(); };
    auto rendered = choice.chatTemplate.apply(converted, inputs);
    if (!rendered)
        return rendered.status().withContext(impl->info().path);

    std::string text = std::move(rendered.value());
    const tokenizer::Tokenizer *tok = impl->tokenizer();
    if (tok && tok->addBos() && tok->bos() >= 0) {
        const std::string &bosText = tok->tokenText(tok->bos());
        if (!bosText.empty() && text.compare(0, bosText.size(), bosText) == 0)
            text.erase(0, bosText.size());
    }
    if (formatUsed)
        *formatUsed = describe(choice);
    return text;
}

} // namespace burrow
