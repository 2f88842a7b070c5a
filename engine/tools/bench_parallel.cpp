#include "bench_parallel.h"

#include "common/json.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <random>

namespace burrow::tools {

namespace {

using burrow::json::jsonString;
using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

std::vector<Token> randomPrompt(const Model &model, int n, uint32_t seed)
{
    std::vector<Token> tokens;
    if (model.info().bosId >= 0)
        tokens.push_back(model.info().bosId);
    std::mt19937 rng(seed);
    while (static_cast<int>(tokens.size()) < n)
        tokens.push_back(static_cast<Token>(rng() % model.vocabSize()));
    return tokens;
}

// One stream's token times (taken in onText, which the scheduler calls for
// every token whose text is complete; empty pieces are not delivered, so a
// few tokens may share a time).
struct Stream {
    std::vector<Clock::time_point> times;
    GenerateResult result;
    Status status;
    bool done = false;
};

class Waiter {
public:
    void notify()
    {
        std::lock_guard<std::mutex> lock(mutex);
        cv.notify_all();
    }
    template <typename P>
    bool wait(P pred, int seconds = 3600)
    {
        std::unique_lock<std::mutex> lock(mutex);
        return cv.wait_for(lock, std::chrono::seconds(seconds), pred);
    }
    std::mutex mutex;
    std::condition_variable cv;
};

Request streamRequest(std::vector<Token> prompt, int nGen, Stream &s, Waiter &w)
{
    Request r;
    r.prompt = std::move(prompt);
    r.sampling.temperature = 0.0f;
    r.options.maxTokens = nGen;
    r.options.overflow = ContextOverflow::CONTEXT_OVERFLOW_STOP;   // a full context ends the stream
    r.ignoreEndOfGeneration = true;
    r.onText = [&s, &w](std::string_view) {
        std::lock_guard<std::mutex> lock(w.mutex);
        s.times.push_back(Clock::now());
        w.cv.notify_all();
        return true;
    };
    r.onDone = [&s, &w](const GenerateResult &res, const Status &st) {
        std::lock_guard<std::mutex> lock(w.mutex);
        s.result = res;
        s.status = st;
        s.done = true;
        w.cv.notify_all();
    };
    return r;
}

struct Gaps {
    double mean = 0, max = 0;
    int count = 0;
};

// Gaps between consecutive token times within [from, to].
Gaps gapsWithin(const std::vector<Clock::time_point> &t, Clock::time_point from, Clock::time_point to)
{
    Gaps g;
    double sum = 0;
    for (size_t i = 1; i < t.size(); ++i) {
        if (t[i - 1] < from || t[i] > to)
            continue;
        const double d = msBetween(t[i - 1], t[i]);
        sum += d;
        g.max = std::max(g.max, d);
        ++g.count;
    }
    g.mean = g.count > 0 ? sum / g.count : 0.0;
    return g;
}

} // namespace

int benchParallel(const std::shared_ptr<Model> &model, const std::string &path, const ParallelBenchOptions &o)
{
    long maxP = 1;
    for (long p : o.parallel)
        maxP = std::max(maxP, p);
    SchedulerOptions so;
    so.parallel = static_cast<int32_t>(maxP);
    so.threads = o.threads;
    so.flashAttention = o.flashAttention;
    so.kvCacheType = o.kvCacheType;
    so.contextSize = static_cast<uint32_t>(std::max(o.longPrompt + o.nGen + 64, 32 + o.nGen + 16));
    so.batchTokens = std::max<int32_t>(512, so.parallel);
    auto scheduler = Scheduler::create(model, so);
    if (!scheduler) {
        std::fprintf(stderr, "burrow-cli bench: %s\n", scheduler.status().message().c_str());
        return 1;
    }
    Scheduler &s = *scheduler.value();
    if (o.json)
        std::printf("[\n");
    else
        std::printf("| model | threads | streams | aggregate t/s | per stream t/s | ms between tokens |\n"
                    "| --- | --- | --- | --- | --- | --- |\n");
    bool first = true;
    uint32_t seed = 1;
    for (long p : o.parallel) {
        Waiter w;
        std::vector<Stream> streams(static_cast<size_t>(p));
        for (long i = 0; i < p; ++i) {
            auto id = s.submit(streamRequest(randomPrompt(*model, 32, seed++), o.nGen, streams[static_cast<size_t>(i)], w));
            if (!id) {
                std::fprintf(stderr, "burrow-cli bench: %s\n", id.status().message().c_str());
                return 1;
            }
        }
        if (!w.wait([&] { return std::all_of(streams.begin(), streams.end(), [](const Stream &x) { return x.done; }); })) {
            std::fprintf(stderr, "burrow-cli bench: the streams did not finish within an hour\n");
            return 1;
        }
        Clock::time_point t0 = Clock::time_point::max(), t1 = Clock::time_point::min();
        long tokens = 0;
        double perStream = 0, between = 0;
        for (const Stream &x : streams) {
            if (!x.status) {
                std::fprintf(stderr, "burrow-cli bench: %s\n", x.status.message().c_str());
                return 1;
            }
            if (x.times.empty())
                continue;
            t0 = std::min(t0, x.times.front());
            t1 = std::max(t1, x.times.back());
            tokens += static_cast<long>(x.result.tokens.size()) - 1;   // after the first token
            const double ms = msBetween(x.times.front(), x.times.back());
            const double n = static_cast<double>(x.result.tokens.size() - 1);
            perStream += ms > 0 ? n / ms * 1000.0 : 0.0;
            between += n > 0 ? ms / n : 0.0;
        }
        const double wall = msBetween(t0, t1);
        const double aggregate = wall > 0 ? static_cast<double>(tokens) / wall * 1000.0 : 0.0;
        perStream /= static_cast<double>(p);
        between /= static_cast<double>(p);
        if (o.json)
            std::printf("%s  {\"model\": %s, \"threads\": %d, \"streams\": %ld, \"n_gen\": %d, \"aggregate_tps\": %.3f, "
                        "\"per_stream_tps\": %.3f, \"ms_between_tokens\": %.3f}",
                        first ? "" : ",\n", jsonString(path).c_str(), o.threads, p, o.nGen, aggregate, perStream, between);
        else
            std::printf("| %s | %d | %ld | %.1f | %.1f | %.2f |\n", path.c_str(), o.threads, p, aggregate, perStream,
                        between);
        std::fflush(stdout);
        first = false;
    }

    if (o.longPrompt > 0) {
        // One stream generating; a long prompt arrives halfway.
        Waiter w;
        Stream running, arriving;
        const int gen = std::max(o.nGen, 64);
        auto id = s.submit(streamRequest(randomPrompt(*model, 32, seed++), gen * 4, running, w));
        if (!id) {
            std::fprintf(stderr, "burrow-cli bench: %s\n", id.status().message().c_str());
            return 1;
        }
        w.wait([&] { return running.times.size() >= static_cast<size_t>(gen) || running.done; });
        const Clock::time_point arrive = Clock::now();
        auto id2 = s.submit(streamRequest(randomPrompt(*model, o.longPrompt, seed++), 4, arriving, w));
        if (!id2) {
            std::fprintf(stderr, "burrow-cli bench: %s\n", id2.status().message().c_str());
            return 1;
        }
        w.wait([&] { return !arriving.times.empty() || arriving.done; });
        Clock::time_point evaluated;
        {
            std::lock_guard<std::mutex> lock(w.mutex);
            evaluated = arriving.times.empty() ? Clock::now() : arriving.times.front();
        }
        w.wait([&] { return running.done && arriving.done; });
        const Gaps alone = gapsWithin(running.times, running.times.front(), arrive);
        const Gaps during = gapsWithin(running.times, arrive, evaluated);
        const double promptMs = msBetween(arrive, evaluated);
        if (o.json)
            std::printf("%s  {\"model\": %s, \"threads\": %d, \"arriving_prompt\": %d, \"prompt_ms\": %.1f, "
                        "\"ms_between_tokens_alone\": %.3f, \"ms_between_tokens_during\": %.3f, "
                        "\"max_ms_between_tokens_during\": %.3f}",
                        first ? "" : ",\n", jsonString(path).c_str(), o.threads, o.longPrompt, promptMs, alone.mean,
                        during.mean, during.max);
        else
            std::printf("\nA %d-token prompt arriving while one stream generates: evaluated in %.0f ms; the stream's "
                        "time between tokens %.2f ms alone, %.2f ms meanwhile (largest %.2f ms, %.1fx)\n",
                        o.longPrompt, promptMs, alone.mean, during.mean, during.max,
                        alone.mean > 0 ? during.mean / alone.mean : 0.0);
    }
    if (o.json)
        std::printf("\n]\n");
    return 0;
}

} // namespace burrow::tools
