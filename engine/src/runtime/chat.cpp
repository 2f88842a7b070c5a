// burrow::renderChat(): the model's chat template (or the fallback format the
// chat layer picks) applied to a conversation. The format is chosen once per
// model (ModelImpl::chatState) and reused.
//
// Contract: the returned text is meant to be tokenized with addSpecial = true
// and parseSpecial = true. When the template writes the BOS text at the start
// and the vocabulary adds BOS itself, that leading BOS text is removed so the
// prompt does not begin with two BOS tokens.
#include "runtime/chat_state.h"
#include "runtime/model_impl.h"

#include "chat/chat_gguf.h"
#include "tokenizer/tokenizer.h"

namespace burrow::runtime {

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

} // namespace burrow::runtime

namespace burrow {

Result<std::string> renderChat(const Model &model, const std::vector<ChatMessage> &messages, bool addGenerationPrompt,
                               ChatFormat *formatUsed)
{
    const auto *impl = dynamic_cast<const runtime::ModelImpl *>(&model);
    if (!impl)
        return Status::error("renderChat: the model was not loaded with Model::load");
    auto state = impl->chatState();
    if (!state)
        return state.status().withContext(impl->info().path + ": chat template");
    const runtime::ChatState &chat = *state.value();

    std::vector<chat::ChatMessage> converted;
    converted.reserve(messages.size());
    for (const ChatMessage &m : messages)
        converted.push_back({m.role, m.content});
    chat::ChatTemplateInputs inputs;
    inputs.addGenerationPrompt = addGenerationPrompt;
    inputs.specialTokens = chat.facts.specialTokens;
    auto rendered = chat.choice.chatTemplate.apply(converted, inputs);
    if (!rendered)
        return rendered.status().withContext(impl->info().path);

    std::string text = std::move(rendered.value());
    const tokenizer::Tokenizer *tok = impl->tokenizer();
    if (tok && tok->addBos() && tok->bos() >= 0) {
        const std::string &bosText = tok->tokenText(tok->bos());
        if (!bosText.empty() && text.compare(0, bosText.size(), bosText) == 0)
            text.erase(0, bosText.size());
    }
    if (formatUsed) {
        formatUsed->name = chat.choice.kind == chat::ChatFormatKind::CHAT_FORMAT_KIND_MODEL ? "template"
                                                                                           : chat.choice.name;
        formatUsed->stopStrings = chat.choice.stopStrings;
    }
    return text;
}

} // namespace burrow
