// The implementation of burrow::Scheduler (see engine.h for the contract and
// scheduler.cpp for how a step is built), and of the one generation loop the
// engine has: a Session is a SchedulerImpl with one sequence that its
// caller's thread steps (Mode::session()), so a single conversation and many
// go through the same admission, batching, sampling and text output.
#pragma once

#include "burrow/engine.h"

#include "api/model_impl.h"
#include "sampling/candidates.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace burrow::runtime {
class Forward;
class KvCache;
class ThreadPool;
struct BatchSpan;
struct MtpDraft;
}

namespace burrow::sampling {
class Chain;
}

namespace burrow::speculative {
class DraftControl;
}

namespace burrow::api {

class AssistantDrafter;
class DraftModel;
class ReplyOutput;

// A draft token and the distribution q it was drawn from (a draft model's
// sampled draft; the n-gram's and argmax drafts have none: q a point mass).
struct DraftGuess {
    Token token = 0;
    const sampling::Candidate *q = nullptr;
    size_t nq = 0;
};

using SchedulerClock = std::chrono::steady_clock;

// One request while the scheduler holds it.
struct Live {
    RequestId id = 0;
    Request req;
    uint64_t order = 0;            // submission order (first come, first served among equals)
    uint64_t admittedAt = 0;       // admission counter of the latest admission (preemption picks the newest)
    int slot = -1;                 // KV sequence while running, -1 while waiting
    std::vector<Token> tokens;     // prompt + generated so far
    uint32_t promptLength = 0;
    uint32_t evaluated = 0;        // tokens[0, evaluated) are in the slot's KV sequence
    bool reportProgress = true;    // the first evaluation of the prompt (not a recompute)
    bool started = false;          // the first token has been sampled
    Token drawn = -1;              // this step's token, drawn on the pool before afterPass's serial part (drawTokens); -1: none
    std::vector<float> *logitsOut = nullptr;   // receives the logits after the prompt (Session::evaluate)
    std::unique_ptr<sampling::Chain> chain;
    std::unique_ptr<TokenTextStream> stream;
    GenerateResult ownResult;
    GenerateResult *result = &ownResult;   // filled as the reply grows (a driven request's: the caller's)
    std::unique_ptr<ReplyOutput> out;
    SchedulerClock::time_point promptStart, generateStart;
    // Speculative decoding (null: off): the draft length's control, and this
    // step's draft tokens (verified in its pass after tokens.back()).
    std::unique_ptr<speculative::DraftControl> spec;
    std::vector<Token> draft;
    // A draft model drafts for it (SPECULATIVE_DRAFT): the model, and for a
    // sampled request the chain its drafts are drawn with and each draft's q.
    std::shared_ptr<DraftModel> drafter;
    std::unique_ptr<sampling::Chain> draftChain;
    std::vector<std::vector<sampling::Candidate>> draftQ;
    // The drafter is the model's MTP block, or Gemma 4's assistant file
    // (`assistant`; else the n-gram lookup): its spans run the block or keep
    // the hidden state (BatchSpan::mtp), its drafts come from draftMtp
    // before the batch is built.
    bool mtp = false;
    std::shared_ptr<AssistantDrafter> assistant;

    Live();
    ~Live();
    uint32_t remaining() const { return static_cast<uint32_t>(tokens.size()) - evaluated; }
};

// How the scheduler is driven and what it keeps between requests.
struct SchedulerMode {
    // Its own thread steps it; otherwise drive() on the caller's thread.
    bool threaded = true;
    // Prefix sharing between sequences by block hashes (publish / adopt).
    // Off for a Session: a sequence that shares blocks cannot shift.
    bool shareBlocks = true;
    // A finished sequence stays in its slot (parked) with its tokens, so
    // the next request continues from the longest prefix they share
    // (always so for recurrent models, whose state cannot be shared).
    bool parkFinished = false;
    // Context shift in place (ContextOverflow::CONTEXT_OVERFLOW_SHIFT): the
    // kept keys are moved and turned (KvCache::removeAndShift); needs
    // shareBlocks off. Otherwise a shift computes the kept tail again.
    bool shift = false;
    // Recurrent-state snapshots per sequence (models with recurrent layers).
    uint32_t snapshots = 1;

    static SchedulerMode session() { return {false, false, true, true, 2}; }
};

class SchedulerImpl final : public Scheduler {
public:
    using Mode = SchedulerMode;


    static Result<std::shared_ptr<SchedulerImpl>> create(std::shared_ptr<const ModelImpl> model,
                                                         const SchedulerOptions &options, Mode mode = {});
    ~SchedulerImpl() override;

    Result<RequestId> submit(Request request) override;
    void cancel(RequestId id) override;
    void setPriority(RequestId id, int32_t priority) override;
    SchedulerStats stats() const override;
    const SchedulerOptions &options() const override { return m_options; }

    // ---- the caller-driven mode (a Session's) -------------------------------
    // Runs `request` on this thread: steps until it is done (its onDone has
    // been called). `result` (may be null) is filled as the reply grows, as
    // GenerateResult promises a Session's caller; logitsOut (may be null)
    // receives the logits after its prompt. Errors as submit(), without
    // onDone.
    Status drive(Request request, GenerateResult *result = nullptr, std::vector<float> *logitsOut = nullptr);
    // Read by every cancel check of a driven request (between steps and
    // between the layers of a forward pass), besides its own token.
    void setExternalCancel(std::function<bool()> check) { m_externalCancel = std::move(check); }
    // Slot 0's tokens in the KV cache when nothing runs (a parked sequence).
    const std::vector<Token> &heldTokens() const { return m_parked[0]; }
    // Forgets every parked sequence (their blocks are freed).
    void forgetParked();
    // Context shift of the parked slot 0: keeps its first nKeep tokens (BOS
    // always), drops half of the rest; false when nothing can be dropped (or
    // the model has recurrent layers).
    bool shiftParked(int32_t nKeep);
    // The logits of the last row sampled in a step of one sequence [nVocab].
    const float *lastLogits() const { return m_logits.data(); }
    const runtime::KvCache &kvCache() const { return *m_cache; }
    uint32_t contextSize() const { return m_options.contextSize; }

private:
    SchedulerImpl();
    // Checks a request and makes its live state (the reply written into
    // `result` when given, else its own).
    Result<std::unique_ptr<Live>> prepare(Request request, GenerateResult *result = nullptr);
    void run();
    // Scheduler thread (or the driving caller) only.
    void takeNew(std::vector<std::unique_ptr<Live>> &incoming, std::vector<RequestId> &cancels,
                 std::vector<std::pair<RequestId, int32_t>> &priorities);
    // Takes what other threads queued (requests, cancels, priority changes).
    void takeQueued();
    void admit();
    bool step();
    // After a step's forward pass: each span's sequence moves on (its
    // evaluated count, blocks published, progress), then is sampled or has
    // its drafts verified; finished ones end.
    void afterPass();
    // Before afterPass's serial part: the token of every span that samples
    // one (not a verification's, not a grammar's), each into its Live's
    // `drawn`, the sequences spread over the pool's threads. Each draw
    // reads only its own chain and logits row, so the tokens are those of
    // drawing one by one. O(spans x V) split over the threads.
    void drawTokens();
    void preempt(Live &victim);
    void finish(std::unique_ptr<Live> &live, const Status &status);
    // park: keep the sequence's tokens (and state) in its slot for the next
    // request (a finished one; not a preempted one, whose blocks are needed).
    void releaseSlot(Live &live, bool park = false);
    // Gives the least recently parked slot's blocks back; false when no slot is parked.
    bool evictParked();
    // The free slot to admit `live` into and the position its sequence can
    // start from there (0 when none fits).
    std::pair<size_t, uint32_t> pickSlot(const Live &live) const;
    // Samples the next token of `live` from `logits` (against a draft drawn
    // from q when `guess` has one); false when it ended.
    bool sampleNext(Live &live, const float *logits, const DraftGuess *guess = nullptr);
    // The draft model of `path`, loaded and checked on first use (any thread).
    Result<std::shared_ptr<DraftModel>> draftModelFor(const std::string &path);
    // The Gemma 4 assistant of `path` bound to this model and cache, loaded
    // and checked on first use (any thread); an error when the file is not
    // one or does not fit the model.
    Result<std::shared_ptr<AssistantDrafter>> assistantFor(const std::string &path);
    // Whether the request drafts with a Gemma 4 assistant (its draftModel
    // names a gemma4-assistant file under mtp, auto or draft).
    // (An error when its header cannot be read.)
    Result<bool> namesAssistant(const SpeculativeOptions &spec);
    // Drafts with the draft models for every generating sequence that has
    // one, all of a model's in the same passes (before a step's batch).
    void draftWithModels();
    // Draft tokens for a generating sequence's step into live.draft (at most
    // maxTokens, fewer where the context, the reply's length or the drafter
    // stop it); their count.
    int planDraft(Live &live, int maxTokens);
    // The most tokens `live` may draft this step (its allowance, the room
    // left in the context and the reply; counts a back-off step).
    int draftLimit(Live &live, int maxTokens);
    // MTP drafts of every generating MTP sequence among `order` (at most 4
    // each), in one batched run of the block per draft position
    // (Forward::mtpDraft), into their `draft`. A sequence whose block state is not complete (a slot
    // computed without it) drafts by n-gram lookup from then on.
    void draftMtp(const std::vector<Live *> &order);
    // After a verification pass of 1 + k rows (span at sequence `seq`,
    // logits: its k + 1 rows): accepts drafts while the sampler picks them,
    // keeps the token it picked instead (or after all), rolls the KV cache
    // (and a recurrent state) back to what was accepted. False when the
    // reply ended.
    bool verifyDrafts(Live &live, uint32_t seq, const float *logits);
    // Drops tokens[keep, keep + half of the rest) of sequence `seq` (see
    // shiftParked); the number dropped (0: none).
    uint32_t shiftSequence(uint32_t seq, std::vector<Token> &tokens, uint32_t length, int32_t nKeep);
    // The tokens a shift keeps at the start of `tokens` (nKeep, BOS always, at most length).
    uint32_t shiftKeep(const std::vector<Token> &tokens, uint32_t length, int32_t nKeep) const;
    // A full context of a running request, shifted (false: it cannot be,
    // the reply stops). In place: the cache's keys move (Mode::shift). By
    // recompute: the dropped tokens leave `tokens`, the cache keeps the head
    // up to a block boundary, and the tail is evaluated again like a
    // preempted sequence's (a recurrent model cannot).
    bool shiftInPlace(Live &live);
    bool shiftByRecompute(Live &live);
    // A request's cancel: its token, or the external check (driven mode).
    bool cancelled(const Live &live) const;
    // The forward pass's check between layers: shutting down, or every
    // sequence of the batch is cancelled.
    bool batchCancelled();
    void publishStats();
    void eraseFinished();

    std::shared_ptr<const ModelImpl> m_model;
    SchedulerOptions m_options;
    Mode m_mode;
    bool m_park = false;                      // parkFinished, or a recurrent model
    std::unique_ptr<runtime::ThreadPool> m_pool;
    std::unique_ptr<runtime::KvCache> m_cache;
    std::unique_ptr<runtime::Forward> m_forward;
    std::vector<float> m_logits;              // [parallel x (1 + kMaxDraft), nVocab]
    std::vector<Token> m_batchTokens;         // [batchTokens]
    std::vector<runtime::BatchSpan> m_spans;
    std::vector<Live *> m_spanLive;
    std::vector<Live *> m_order;              // a step's sequences, decode rows first
    std::vector<std::pair<Live *, const float *>> m_draws;   // drawTokens: a sequence and its logits row
    std::vector<runtime::MtpDraft> m_mtpDrafts;   // draftMtp's requests and their sequences
    std::vector<Live *> m_mtpOwners;
    std::function<bool()> m_externalCancel;
    // The draft model requests name (the latest; replaced when one names another).
    std::mutex m_draftMutex;
    std::shared_ptr<DraftModel> m_draftModel;
    std::shared_ptr<AssistantDrafter> m_assistant;   // likewise, Gemma 4's assistant

    // Scheduler thread's own state.
    std::vector<std::unique_ptr<Live>> m_running;   // holding a slot
    std::vector<std::unique_ptr<Live>> m_waiting;   // not admitted (new or preempted)
    std::vector<int> m_freeSlots;
    uint64_t m_admissions = 0;
    // Per slot, the tokens a parked sequence holds (empty: not parked) and
    // when it was parked.
    std::vector<std::vector<Token>> m_parked;
    std::vector<uint64_t> m_parkedAt;
    uint64_t m_parkings = 0;
    // Step costs, measured (exponential moving averages, ms): a step of
    // generation rows only, and each prompt row added to one.
    double m_decodeMs = 0, m_rowMs = 0;
    uint64_t m_steps = 0, m_preemptions = 0, m_reused = 0;

    // Shared with other threads.
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<std::unique_ptr<Live>> m_incoming;
    std::vector<RequestId> m_cancels;
    std::atomic<uint64_t> m_cancelCalls{0};   // cancel() calls so far (the forward pass's check reads m_cancels then)
    uint64_t m_cancelCallsSeen = 0;           // stepping thread: m_cancelCalls at its last look that found nothing
    std::vector<std::pair<RequestId, int32_t>> m_priorities;   // setPriority calls, in order
    bool m_stopping = false;
    std::atomic<bool> m_stopFlag{false};      // m_stopping for the forward pass's cancel check
    RequestId m_nextId = 1;
    uint64_t m_nextOrder = 0;
    int32_t m_queued = 0;                     // incoming + waiting (for the queue limit)
    SchedulerStats m_stats;
    std::thread m_thread;
};

} // namespace burrow::api
