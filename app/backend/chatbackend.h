// ChatBackend: the engine as the app sees it. A small synchronous interface
// that EngineWorker drives on its own thread; EngineBackend is the real one
// (burrow::Model + burrow::Session), tests substitute fakes that need exact
// timing. Everything here is plain data: no QObject crosses threads.
#pragma once

#include <functional>
#include <memory>

#include <QList>
#include <QMetaType>
#include <QString>

#include "models/modelcard.h"

// One message of the conversation as the prompt builder sees it.
struct ChatTurn {
    enum class Author { System, User, Assistant };
    Author author = Author::User;
    QString text;
    int row = -1;                    // row in the MessageModel, -1 when none
};

// Per-chat sampling and length settings, copied into each request.
struct GenerationSettings {
    double temperature = 0.8;        // <= 0: greedy
    int topK = 40;                   // <= 0: off
    double topP = 0.95;              // 1: off
    double minP = 0.05;              // 0: off
    double repeatPenalty = 1.0;      // 1: off
    int repeatLastN = 64;
    qint64 seed = -1;                // < 0: random
    int maxTokens = -1;              // -1: until the model ends its turn
    int contextSize = 4096;          // clamped to the trained context
    // The chat format: "auto" (the model's own template; a model without one
    // gets the conversation as plain text) or a built-in format that replaces
    // it ("chatml", "llama3", ...; burrow::chatFormatNames()).
    QString chatFormat = QStringLiteral("auto");
};

struct GenerationRequest {
    quint64 id = 0;
    QString systemPrompt;
    QList<ChatTurn> turns;           // oldest first; the reply continues after the last
    GenerationSettings settings;
};

// How the prompt fit into the context.
struct PromptPlan {
    int firstRow = -1;               // row of the oldest turn the model sees (-1: all / none)
    int promptTokens = 0;            // tokens of the whole prompt
    int contextSize = 0;
    bool usesTemplate = false;       // false: plain text continuation
    QString chatFormat;              // the format used: "template" (the model's own), "chatml", ...; "" for plain text
};

struct GenerationOutcome {
    enum class Stop { EndOfText, MaxTokens, StopString, Cancelled, ContextFull, Error };
    Stop stop = Stop::EndOfText;
    QString error;                   // for Stop::Error, a sentence for the user
    int promptTokens = 0;            // computed this turn (after KV prefix reuse)
    int reusedTokens = 0;            // taken from the KV cache
    int generatedTokens = 0;
    double promptMs = 0;
    double generateMs = 0;
    int contextUsed = 0;             // positions the KV cache holds at the end
    int contextSize = 0;

    double tokensPerSecond() const { return generateMs > 0 ? generatedTokens * 1000.0 / generateMs : 0; }
};

class ChatBackend {
public:
    // Return false to stop; called with UTF-8-complete pieces of the reply.
    using TextSink = std::function<bool(const QString &piece)>;
    using PromptProgress = std::function<void(int done, int total)>;
    using PlanSink = std::function<void(const PromptPlan &plan)>;
    // 0..1; return false to cancel the load.
    using LoadProgress = std::function<bool(double progress)>;

    virtual ~ChatBackend() = default;

    // Loads `path` with a session of `contextSize` positions. On failure the
    // model loaded before (if any) stays loaded and usable, and `error` says why.
    virtual bool load(const QString &path, int contextSize, const LoadProgress &progress, QString *error) = 0;
    virtual bool hasModel() const = 0;
    virtual ModelCard loadedModel() const = 0;

    // Builds the prompt (chat template or plain text; oldest turns left out
    // when the conversation does not fit), reports the plan, then streams the
    // reply. Reuses the KV cache for the prefix shared with the last call.
    virtual GenerationOutcome generate(const GenerationRequest &request, const TextSink &onText,
                                       const PromptProgress &onPromptProgress, const PlanSink &onPlan) = 0;
};

// Reads a model file's header without loading it. Must be thread-safe and
// independent of any backend instance (it runs on a pool thread). Returns an
// invalid card and sets `error` when the file cannot be used.
using ModelInspector = std::function<ModelCard(const QString &path, QString *error)>;

// How the app makes its backend; tests install fakes with ChatController::setBackendFactory().
struct BackendFactory {
    std::function<std::unique_ptr<ChatBackend>()> create;
    ModelInspector inspect;
};

// The real engine (or, in a build without it, a backend that refuses every file).
BackendFactory defaultBackendFactory();

Q_DECLARE_METATYPE(GenerationOutcome)
Q_DECLARE_METATYPE(PromptPlan)
Q_DECLARE_METATYPE(GenerationRequest)
