// Ctrl+C (SIGINT) for the commands that generate (`run`, `chat`): the first
// one cancels the request running now through its CancelToken (the prompt
// stops within one layer of its chunk, the reply before its next token); the
// command then says "cancelled" with the timings so far and exits with 130.
// A second Ctrl+C, or one while no request runs, ends the process at once
// (status 130).
//
// Contract: installInterruptHandler() once, then an InterruptTarget around
// each generate(). The handler only stores to lock-free atomics and calls
// _exit(), which are async-signal-safe.
#pragma once

#include "burrow/engine.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace burrow::cli {

inline constexpr int kInterruptedExitCode = 130;   // 128 + SIGINT, what a shell reports

namespace detail {
inline std::atomic<CancelToken *> g_interruptTarget{nullptr};
inline std::atomic<int> g_interrupts{0};
static_assert(std::atomic<CancelToken *>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

inline void onInterrupt(int)
{
    CancelToken *target = g_interruptTarget.load();
    if (g_interrupts.fetch_add(1) > 0 || target == nullptr)
        _exit(kInterruptedExitCode);
    target->cancel();
}
} // namespace detail

inline void installInterruptHandler()
{
    struct sigaction action {};
    action.sa_handler = detail::onInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
}

// A Ctrl+C arrived (the request was cancelled by it).
inline bool interrupted()
{
    return detail::g_interrupts.load() > 0;
}

// While it lives, Ctrl+C cancels `token`.
class InterruptTarget {
public:
    explicit InterruptTarget(const std::shared_ptr<CancelToken> &token) : m_token(token)
    {
        detail::g_interruptTarget.store(m_token.get());
    }
    ~InterruptTarget() { detail::g_interruptTarget.store(nullptr); }
    InterruptTarget(const InterruptTarget &) = delete;
    InterruptTarget &operator=(const InterruptTarget &) = delete;

private:
    std::shared_ptr<CancelToken> m_token;
};

// session.generate() with Ctrl+C wired to a new CancelToken (options.cancel
// is replaced) and the answer streamed to stdout. *interrupted: Ctrl+C
// stopped it (the result then holds what was done so far).
inline Status generateInterruptible(Session &session, const std::vector<Token> &prompt, const SamplingParams &sampling,
                                    GenerateOptions options, GenerateResult *result, bool *interrupted,
                                    const TextCallback &onText = {})
{
    auto cancel = std::make_shared<CancelToken>();
    options.cancel = cancel;
    Status status;
    {
        InterruptTarget target(cancel);
        status = session.generate(
            prompt, sampling, options,
            onText ? onText : TextCallback([](std::string_view piece) {
                std::fwrite(piece.data(), 1, piece.size(), stdout);
                std::fflush(stdout);
                return true;
            }),
            result);
    }
    std::fputc('\n', stdout);
    std::fflush(stdout);
    *interrupted = status && result->stopReason == StopReason::STOP_REASON_CANCELLED && cancel->isCancelled();
    return status;
}

// The timings of a request, to stderr.
inline void printTimings(const Timings &t)
{
    std::fprintf(stderr, "prompt:     %d tokens in %.1f ms (%.1f tokens/s)\n", t.promptTokens, t.promptMs,
                 t.promptTokensPerSecond());
    if (t.reasoningTokens > 0)
        std::fprintf(stderr, "reasoning:  %d tokens in %.1f ms\n", t.reasoningTokens, t.reasoningMs);
    std::fprintf(stderr, "generation: %d tokens in %.1f ms (%.1f tokens/s)\n", t.generatedTokens, t.generateMs,
                 t.generateTokensPerSecond());
    if (t.draftedTokens > 0)
        std::fprintf(stderr, "drafts:     %d drafted, %d accepted (%.0f %%)\n", t.draftedTokens, t.acceptedTokens,
                     100.0 * t.acceptedTokens / t.draftedTokens);
}

// After a request stopped by Ctrl+C: "cancelled" and the timings so far.
inline int reportInterrupted(const char *command, const Timings &t)
{
    std::fprintf(stderr, "\nburrow-cli %s: cancelled\n", command);
    printTimings(t);
    return kInterruptedExitCode;
}

} // namespace burrow::cli
