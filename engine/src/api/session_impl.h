// The implementation of burrow::Session (see engine.h for the contract).
#pragma once

#include "burrow/engine.h"
#include "api/model_impl.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace burrow::runtime {
class Forward;
class KvCache;
class ThreadPool;
}

namespace burrow::api {

using runtime::Forward;
using runtime::KvCache;
using runtime::ThreadPool;

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
    const std::vector<Token> &cachedTokens() const override { return m_tokens; }

    // Drops half of the cached tokens after the first nKeep (and BOS), as a
    // context shift does; false when nothing can be dropped. (Tests.)
    bool shiftContext(int32_t nKeep);
    // The KV cache (tests inspect it).
    const KvCache &kvCache() const { return *m_cache; }
    // Logits after the last evaluated token.
    const std::vector<float> &lastLogits() const { return m_logits; }

private:
    // The span of one generate() / evaluate(): Session::cancel() reaches the
    // call only while it runs, and the request's token is read by every check.
    class CallScope;

    SessionImpl();
    Status checkPrompt(const std::vector<Token> &prompt) const;
    // Cancelled: the KV cache keeps the chunks completed before the cancel;
    // timings (when given) say what was computed until then.
    Status evalPrompt(const std::vector<Token> &prompt, Timings *timings, const ProgressCallback &onProgress);
    // The running call was cancelled (Session::cancel or its token). Read
    // between prompt chunks, between the layers of a chunk (Forward's cancel
    // check) and between generated tokens: one atomic load or two.
    bool cancelRequested() const;

    std::shared_ptr<const ModelImpl> m_model;
    std::unique_ptr<ThreadPool> m_pool;
    std::unique_ptr<KvCache> m_cache;
    std::unique_ptr<Forward> m_forward;
    std::vector<Token> m_tokens;      // what the KV cache holds, position by position
    std::vector<float> m_logits;      // [nVocab] after the last evaluated token

    // Session::cancel(): sets m_cancel only while a call runs (m_busy), so a
    // cancel while idle reaches no later call. Guarded by m_callMutex.
    std::mutex m_callMutex;
    bool m_busy = false;
    std::atomic<bool> m_cancel{false};
    // The running request's token (GenerateOptions::cancel), or null; set
    // and read on the calling thread only.
    const CancelToken *m_requestCancel = nullptr;
};

} // namespace burrow::api
