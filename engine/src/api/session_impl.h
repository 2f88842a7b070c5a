// The implementation of burrow::Session (see engine.h for the contract): a
// view of one sequence over the scheduler (api/scheduler_impl.h) that the
// calling thread steps, so the Session and the Scheduler share one
// generation loop, one KV cache and one batch builder.
#pragma once

#include "burrow/engine.h"
#include "api/model_impl.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace burrow::runtime {
class KvCache;
}

namespace burrow::api {

class SchedulerImpl;

class SessionImpl final : public Session {
public:
    static Result<std::unique_ptr<SessionImpl>> create(std::shared_ptr<const ModelImpl> model,
                                                       const SessionOptions &options);
    ~SessionImpl() override;

    Status generate(const std::vector<Token> &prompt, const SamplingParams &sampling, const GenerateOptions &options,
                    const TextCallback &onText, GenerateResult *result,
                    const ProgressCallback &onPromptProgress = {}) override;
    Status evaluate(const std::vector<Token> &prompt, std::vector<float> *logits) override;
    void cancel() override;
    void reset() override;
    uint32_t contextSize() const override;
    const std::vector<Token> &cachedTokens() const override;

    // Drops half of the cached tokens after the first nKeep (and BOS), as a
    // context shift does; false when nothing can be dropped. (Tests.)
    bool shiftContext(int32_t nKeep);
    // The KV cache (tests inspect it; the session's sequence is 0).
    const runtime::KvCache &kvCache() const;

private:
    // The span of one generate() / evaluate(): Session::cancel() reaches the
    // call only while it runs.
    class CallScope;

    SessionImpl();
    // The running call was cancelled by Session::cancel() (its request's
    // token is the scheduler's to read).
    bool cancelRequested() const { return m_cancel.load(std::memory_order_acquire); }

    std::shared_ptr<SchedulerImpl> m_scheduler;   // one sequence, driven by the caller

    // Session::cancel(): sets m_cancel only while a call runs (m_busy), so a
    // cancel while idle reaches no later call. Guarded by m_callMutex.
    std::mutex m_callMutex;
    bool m_busy = false;
    std::atomic<bool> m_cancel{false};
};

} // namespace burrow::api
