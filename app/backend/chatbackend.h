// ChatBackend: the engine as the app sees it. A small interface that
// EngineWorker drives on the engine thread; the app's is RoutingBackend:
// EngineBackend for a model file (burrow::Model + burrow::Scheduler: many
// replies at once), RemoteBackend for a model an OpenAI-compatible server
// serves (Settings → Servers). Tests substitute fakes that need exact timing. Everything here is plain data: no QObject
// crosses threads.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <QList>
#include <QMetaType>
#include <QString>

#include "burrow/engine.h"
#include "backend/modelcard.h"
#include "replysettings.h"
#include "serverconfig.h"

// burrow::Request priorities: the chat shown runs first, then chats in the
// background, then the local server's requests (ServerOptions::priority).
namespace ReplyPriority {
constexpr int ShownChat = 20;
constexpr int BackgroundChat = 10;
constexpr int Server = 0;
}

// A running reply's priority, changed from the GUI thread (the user switched
// chats: the chat shown rises, the one left goes to the background) and
// applied by the backend that runs the reply. Thread-safe.
class ReplyPriorityCell {
public:
    explicit ReplyPriorityCell(int priority) : m_priority(priority) {}
    int get() const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_priority;
    }
    // Any thread; calls the attached backend's apply (under the cell's lock,
    // so it must be quick: burrow::Scheduler::setPriority is).
    void set(int priority)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (priority == m_priority)
            return;
        m_priority = priority;
        if (m_apply)
            m_apply(priority);
    }
    // The backend's, once the reply was submitted at `submitted`: `apply`
    // gets each later change, and at once the value set since, if any.
    void attach(int submitted, std::function<void(int)> apply)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_apply = std::move(apply);
        if (m_apply && m_priority != submitted)
            m_apply(m_priority);
    }

private:
    mutable std::mutex m_mutex;
    int m_priority;
    std::function<void(int)> m_apply;
};

// One reply to generate.
struct ChatRequest {
    quint64 id = 0;
    // The conversation, oldest first; the reply continues after the last.
    // (The system prompt is settings.systemPrompt, not a message here.)
    std::vector<burrow::ChatMessage> messages;
    QList<int> rows;                 // the MessageModel row of each message
    ReplySettings settings;
    // burrow::Request::priority: higher runs first (the chat shown above
    // chats in the background, both above the local server's requests).
    int priority = 0;
    // Its priority from then on (set by the engine bridge from `priority`;
    // EngineBridge::setPriority changes it while the reply runs).
    std::shared_ptr<ReplyPriorityCell> priorityCell;
    // This request's cancel token (set by the engine bridge; never shared
    // with another request, so a cancel cannot leak into the next one).
    std::shared_ptr<burrow::CancelToken> cancel;
    // The tools the model may call (OpenAI function tools, a JSON array;
    // "" for none): the template's `tools`, and the reply's calls are read
    // out of its text into GenerationOutcome::toolCalls (engine backend;
    // a remote model gets none).
    std::string toolsJson;
};

// A tool call the model made (burrow::ToolCallRequest).
struct ModelToolCall {
    QString name;
    QString argumentsJson;   // a JSON object, compact
};

// How the prompt fit into the context (reported before the first token).
struct PromptPlan {
    int firstRow = -1;               // row of the oldest message the model sees after a gap (-1: every one)
    int keptEndRow = 0;              // rows before it stay in view too (the first exchange, kept under "shift")
    int promptTokens = 0;            // tokens of the whole prompt
    QString chatFormat;              // the format that wrote it (burrow::ChatFormat::name: "template", "chatml", ..., "plain")
};

struct GenerationOutcome {
    enum class Stop { EndOfText, MaxTokens, StopString, Cancelled, ContextFull, Error };
    Stop stop = Stop::EndOfText;
    QString error;                   // for Stop::Error, a sentence for the user
    // The engine's counts and times (burrow::Timings).
    int promptTokens = 0;            // computed this turn (after KV prefix reuse)
    int reusedTokens = 0;            // taken from the KV cache
    int generatedTokens = 0;
    double promptMs = 0;
    double generateMs = 0;
    int contextUsed = 0;             // positions the KV cache holds at the end
    int reasoningTokens = 0;         // of generatedTokens, the reasoning's
    double reasoningMs = -1;         // how long the reply reasoned (-1: it did not)
    // Speculative decoding (burrow::Timings): draft tokens checked and of
    // them accepted; -1 where the backend does not say (a remote model).
    int draftedTokens = -1;
    int acceptedTokens = -1;
    QList<ModelToolCall> toolCalls;  // the calls in the reply, in order (their markup is not in the text)

    double tokensPerSecond() const { return generateMs > 0 ? generatedTokens * 1000.0 / generateMs : 0; }
};

class ChatBackend {
public:
    // Called with UTF-8-complete pieces of the reply and the number of tokens
    // generated so far (the engine's count); `reasoning`: the piece belongs to
    // the reply's reasoning (its markers removed), not to the answer. Return
    // false to stop.
    using TextSink = std::function<bool(const QString &piece, int generatedTokens, bool reasoning)>;
    using PromptProgress = std::function<void(int done, int total)>;
    using PlanSink = std::function<void(const PromptPlan &plan)>;
    // 0..1; return false to cancel the load.
    using LoadProgress = std::function<bool(double progress)>;

    // The callbacks of one reply. onPlan is called (on the engine thread)
    // before generate() returns, unless the reply fails or is cancelled
    // first; onText and onPromptProgress may be called on another thread
    // (the scheduler's) after it returned; onDone exactly once, last, on
    // either thread. They must be quick.
    struct ReplySinks {
        TextSink onText;
        PromptProgress onPromptProgress;
        PlanSink onPlan;
        std::function<void(const GenerationOutcome &outcome)> onDone;
    };

    virtual ~ChatBackend() = default;

    // Loads `path` with a session of `contextSize` positions (clamped to the
    // trained context). On failure the model loaded before (if any) stays
    // loaded and usable, and `error` says why.
    virtual bool load(const QString &path, int contextSize, const LoadProgress &progress, QString *error) = 0;
    virtual bool hasModel() const = 0;
    virtual ModelCard loadedModel() const = 0;
    // Positions one reply may use, prompt and reply (0: no model).
    // generate() may change it (a request asking for a larger size).
    virtual int contextSize() const = 0;

    // Builds the prompt (chat format, oldest exchanges left out when the
    // conversation does not fit), reports the plan, then starts the reply
    // and returns (a fake may stream it all before returning). The KV cache
    // keeps what earlier requests computed, so a conversation resent whole
    // reuses its prefix. Stops within one prompt chunk or one token once
    // request.cancel is cancelled.
    virtual void generate(const ChatRequest &request, ReplySinks sinks) = 0;

    // The local server on this backend's model (Settings → Local server):
    // applies `config` (starts, restarts or stops it; while no model is
    // loaded it starts with the next load) and says where it stands. A
    // backend without one reports that it cannot run.
    virtual ServerStatus configureServer(const ServerConfig &config)
    {
        ServerStatus status;
        status.enabled = config.enabled;
        if (config.enabled)
            status.error = QStringLiteral("this engine has no local server");
        return status;
    }
    virtual ServerStatus serverStatus() const { return {}; }
};

// Reads a model file's header without loading it. Must be thread-safe and
// independent of any backend instance (it runs on a pool thread). Returns an
// invalid card and sets `error` when the file cannot be used.
using ModelInspector = std::function<ModelCard(const QString &path, QString *error)>;

// How the app makes its backend; tests install fakes with EngineBridge::setBackendFactory().
struct BackendFactory {
    std::function<std::unique_ptr<ChatBackend>()> create;
    ModelInspector inspect;
};

// The app's: RoutingBackend over the engine and the servers the user added.
BackendFactory defaultBackendFactory();

Q_DECLARE_METATYPE(GenerationOutcome)
Q_DECLARE_METATYPE(PromptPlan)
Q_DECLARE_METATYPE(ChatRequest)
