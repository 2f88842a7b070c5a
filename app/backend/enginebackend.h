// EngineBackend: ChatBackend on Burrow's own engine (burrow::Model,
// burrow::Scheduler). Lives on the engine thread; not thread-safe. The
// scheduler runs the replies on its own thread (continuous batching over a
// paged KV cache whose blocks are shared by prompts that start alike), so
// generate() only builds the prompt and queues it.
#pragma once

#include <atomic>
#include <memory>

#include "chatbackend.h"

namespace burrow {
class Model;
class Scheduler;
namespace server {
class Server;
}
}

class EngineBackend final : public ChatBackend {
public:
    EngineBackend();
    ~EngineBackend() override;

    bool load(const QString &path, int contextSize, const LoadProgress &progress, QString *error) override;
    bool hasModel() const override { return m_model != nullptr; }
    ModelCard loadedModel() const override { return m_card; }
    int contextSize() const override;
    // The KV cache type of the scheduler in use (F16 without one).
    burrow::KvCacheType kvCacheType() const;
    void generate(const ChatRequest &request, ReplySinks sinks) override;
    ServerStatus configureServer(const ServerConfig &config) override;
    ServerStatus serverStatus() const override;

    // Replies generated at once (SchedulerOptions::parallel).
    static constexpr int Parallel = 4;

    // The engine's threads in the app on a machine with `physicalCores`:
    // all of them up to four, one fewer from five on. The window's threads
    // (GUI, drawing) need some CPU while a reply streams; where the engine
    // holds every core, each of their time slices stalls all the engine's
    // threads, since an operation waits for its slowest part. With five
    // cores or more the spare core costs generation little (it is bound by
    // memory bandwidth, which a few cores already use) and prompts at most
    // a fifth.
    static int engineThreads(int physicalCores);
    // The threads of the scheduler in use (0 before a model is loaded).
    int engineThreadCount() const;

    // burrow::inspectModel() as a ModelInspector (thread-safe, header only).
    static ModelCard inspect(const QString &path, QString *error);

private:
    // Positions a chat asking for `requested` gets on the loaded model
    // (ModelCard::contextFor: ContextLimit::decide, the one place).
    int contextFor(int requested, burrow::KvCacheType kvType) const;
    // A scheduler for `model` with `contextSize` positions per reply (decided) and a
    // KV cache of `kvType`; the cache holds two such contexts when memory
    // allows, else one.
    static burrow::Result<std::shared_ptr<burrow::Scheduler>> makeScheduler(
        const std::shared_ptr<burrow::Model> &model, int contextSize,
        burrow::KvCacheType kvType = burrow::KvCacheType::KV_CACHE_F16);
    // The scheduler in use is kept unless `contextSize` is larger than its
    // own or `kvType` is not its cache's type, and no reply runs on it (then
    // it is made again; while replies run, a chat asking for more or for the
    // other type gets what is in use). When the model refuses `kvType` (a
    // Q8_0 cache needs heads of whole 32-element blocks) the scheduler is
    // made again as it was and `error` says why.
    bool ensureScheduler(int contextSize, burrow::KvCacheType kvType, QString *error);

    // The prompt of `request` in a context of `contextSize` positions (the
    // oldest exchanges left out when it does not fit; the first one kept
    // under the "shift" policy), and how it fit.
    burrow::Result<burrow::ChatPrompt> buildPrompt(const ChatRequest &request, int contextSize, PromptPlan *plan) const;

    // The local server with m_serverConfig on the model and scheduler in
    // use (none while off or without a model; m_serverError says why).
    void startServer();

    std::shared_ptr<burrow::Model> m_model;
    std::shared_ptr<burrow::Scheduler> m_scheduler;
    // Replies submitted and not yet done (decremented on the scheduler's thread).
    std::shared_ptr<std::atomic<int>> m_inFlight = std::make_shared<std::atomic<int>>(0);
    // After the scheduler: destroyed first (it serves on it).
    std::unique_ptr<burrow::server::Server> m_server;
    ServerConfig m_serverConfig;
    QString m_serverError;
    ModelCard m_card;
};
