// burrow-cli bench: prompt processing (pp) and generation (tg) speed, as the
// reference engine's llama-bench measures them, plus a streaming-read memory
// bandwidth test (--memory) for the bandwidth bound of generation.
//
//   pp<P>: evaluate P token ids from an empty KV cache in one call (batches
//          of up to 512 tokens, logits for the last one), tokens/s = P / time.
//   tg<N>: from an empty cache, N single-token forward passes, each fed the
//          argmax of the previous logits (greedy, no stop), tokens/s = N / time.
//   -d D:  both from a cache already holding D tokens (evaluated untimed
//          before each run; llama-bench's "@ d<D>"), so attention reads D
//          more keys per token.
// The KV cache is F16 unless -ctk/-ctv q8_0; the table shows its type and
// the bytes allocated for the session's context (the longest test).
// Each test runs once untimed (warm-up), then -r times; the table shows the
// mean and the sample standard deviation of the per-repetition tokens/s.
// Token ids: BOS then fixed pseudo-random ids (seed 42), so runs are
// repeatable.
//
// --memory: T threads each sum a slice of a buffer of S MiB (touched first;
// re-read within a run until 256 MiB are read), -r times; reports GB/s
// (10^9 bytes/s). With -m as well, it prints the
// generation bound per model: bytes of weights read per generated token
// (every tensor except the embedding table, of which one row is read; all of
// it when the output is tied to it) / bandwidth, and tg as a fraction of it;
// that bandwidth is measured on a buffer of exactly those bytes, right after
// the model's tests (on a shared machine it moves from minute to minute).
#include "cli_args.h"
#include "cli_command.h"

#include "burrow/engine.h"
#include "bench_parallel.h"
#include "bench_spec.h"
#include "common/json.h"
#include "gguf/gguf_reader.h"
#include "quant/cpu_features.h"
#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli bench -m MODEL [-m MODEL ...] [-p 512] [-n 128] [-d 0] [-t THREADS] [-r 5]\n"
                 "                        [-ctk f16|q8_0 -ctv f16|q8_0] [-fa on|off] [--no-warmup] [--json]\n"
                 "                        [--memory [--memory-size MiB]]\n\n"
                 "Measures prompt processing (pp: P tokens from an empty cache in one call) and\n"
                 "generation (tg: N tokens one by one, greedy) in tokens per second, mean and\n"
                 "standard deviation over the repetitions, like llama-bench.\n\n"
                 "options:\n"
                 "  -m, --model MODEL       a .gguf file (repeatable)\n"
                 "  -p, --n-prompt LIST     prompt lengths, comma-separated; 0 skips (default 512)\n"
                 "  -n, --n-gen LIST        generated tokens, comma-separated; 0 skips (default 128)\n"
                 "  -d, --n-depth D         tokens already in the KV cache when a test starts (default 0)\n"
                 "  -t, --threads LIST      thread counts, comma-separated (default: physical cores)\n"
                 "%s"
                 "  -fa, --flash-attn on|off  attention as the reference with or without flash attention\n"
                 "  -r, --repetitions N     timed runs per test after one warm-up (default 5)\n"
                 "  --no-warmup             skip the warm-up runs (long prompts: the warm-up is a whole run)\n"
                 "  --json                  a JSON array, one object per test (see docs/cli.md)\n"
                 "  --memory                also measure streaming read bandwidth (alone without -m)\n"
                 "  --memory-size MiB       buffer for --memory (default 1024)\n"
                 "  --parallel LIST         the scheduler: streams generating at once, comma-separated\n"
                 "                          (-n tokens each; the first -t); then a prompt of --arriving\n"
                 "                          tokens arrives while one stream generates\n"
                 "  --arriving N            that prompt's length (default 2000; 0 skips)\n"
                 "  --spec auto|mtp|ngram|draft  speculative decoding against --spec off: -n tokens (the\n"
                 "                          first) greedily from --spec-prompt, alternating, -r times\n"
                 "  --draft MODEL           the draft model of --spec draft (implies it), or with\n"
                 "                          --spec mtp a Gemma 4 model's assistant (gemma4-assistant)\n"
                 "  --draft-max N           most draft tokens per step (default 8)\n"
                 "  --spec-prompt TEXT      the prompt of --spec (default \"Once upon a time\")\n"
                 "  --spec-prompt-file FILE the prompt of --spec read from a UTF-8 file (at most 1 MiB)\n"
                 "  -h, --help              show this help\n\n"
                 "exit status: 0 ok, 1 failed (message on stderr), 2 usage error\n",
                 burrow::cli::kCacheTypeHelp);
}

// The text of a prompt file (at most 1 MiB); false with a message.
bool readPromptFile(const std::string &path, std::string *out)
{
    constexpr std::streamsize kMax = 1 << 20;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "burrow-cli bench: cannot read %s\n", path.c_str());
        return false;
    }
    std::string text(static_cast<size_t>(kMax) + 1, '\0');
    in.read(text.data(), kMax + 1);
    text.resize(static_cast<size_t>(in.gcount()));
    if (text.size() > static_cast<size_t>(kMax)) {
        std::fprintf(stderr, "burrow-cli bench: %s is larger than 1 MiB\n", path.c_str());
        return false;
    }
    if (text.empty()) {
        std::fprintf(stderr, "burrow-cli bench: %s is empty\n", path.c_str());
        return false;
    }
    *out = std::move(text);
    return true;
}

bool parseList(const std::string &s, long minValue, std::vector<long> *out)
{
    out->clear();
    size_t start = 0;
    while (start <= s.size()) {
        const size_t comma = s.find(',', start);
        const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        char *end = nullptr;
        const long v = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || !end || *end != '\0' || v < minValue || v > 1000000)
            return false;
        out->push_back(v);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return !out->empty();
}

struct Stats {
    double mean = 0;
    double stddev = 0;   // sample standard deviation (n - 1); 0 for one sample
};

Stats stats(const std::vector<double> &v)
{
    Stats s;
    if (v.empty())
        return s;
    for (double x : v)
        s.mean += x;
    s.mean /= static_cast<double>(v.size());
    if (v.size() > 1) {
        double sq = 0;
        for (double x : v)
            sq += (x - s.mean) * (x - s.mean);
        s.stddev = std::sqrt(sq / static_cast<double>(v.size() - 1));
    }
    return s;
}

using burrow::json::jsonString;

std::string fileName(const std::string &path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string cpuModelName()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const size_t colon = line.find(':');
            if (colon != std::string::npos) {
                size_t b = colon + 1;
                while (b < line.size() && line[b] == ' ')
                    ++b;
                return line.substr(b);
            }
        }
    }
    return "unknown";
}

// Bytes of weights one generated token reads: every tensor but the
// embedding table (one row of it, or all of it when the output is tied to
// it) and gemma4's per-layer embedding table (one row), with the expert
// tensors of a mixture of experts (3-D, one slice per expert) counted for
// the experts a token runs (expert_used_count of expert_count).
burrow::Result<uint64_t> weightBytesPerToken(const std::string &path)
{
    auto f = burrow::gguf::GgufFile::open(path);
    if (!f)
        return f.status();
    std::string arch;
    uint32_t experts = 0, used = 0;
    if (burrow::Status st = f.value()->getOptionalString("general.architecture", arch); !st)
        return st;
    if (!arch.empty()) {
        if (burrow::Status st = f.value()->getOptionalU32(arch + ".expert_count", experts); !st)
            return st;
        if (burrow::Status st = f.value()->getOptionalU32(arch + ".expert_used_count", used); !st)
            return st;
    }
    uint64_t total = 0;
    const burrow::gguf::TensorInfo *embd = nullptr;
    bool hasOutput = false;
    for (const burrow::gguf::TensorInfo &t : f.value()->tensors()) {
        uint64_t bytes = t.nBytes;
        if (t.name == "per_layer_token_embd.weight" && t.ne[1] > 0)
            bytes /= static_cast<uint64_t>(t.ne[1]);   // one row per token
        else if (experts > 0 && used > 0 && used <= experts && t.nDims == 3 && t.ne[2] == experts)
            bytes = bytes / experts * used;            // the experts a token runs
        total += bytes;
        if (t.name == "token_embd.weight")
            embd = &t;
        if (t.name == "output.weight")
            hasOutput = true;
    }
    if (embd && hasOutput && embd->ne[1] > 0)
        total -= embd->nBytes - embd->nBytes / static_cast<uint64_t>(embd->ne[1]);
    return total;
}

// ---- streaming read bandwidth ----

__attribute__((noinline)) uint64_t sumSlice(const uint64_t *p, size_t n)
{
    uint64_t a = 0, b = 0, c = 0, d = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a += p[i];
        b += p[i + 1];
        c += p[i + 2];
        d += p[i + 3];
    }
    for (; i < n; ++i)
        a += p[i];
    return a + b + c + d;
}

#if defined(__x86_64__)
constexpr size_t kPrefetchAhead = 4096;   // quant/x86/packed_avx512.cpp's distance

// The same sum with 256-bit loads (4 independent accumulators), so the read
// rate is limited by the memory system rather than by instructions, and a
// software prefetch 4 KiB ahead as the matrix kernels issue (the hardware
// prefetchers stop at every 4 KiB page).
__attribute__((target("avx2"), noinline)) uint64_t sumSliceAvx2(const uint64_t *p, size_t n)
{
    __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm_prefetch(reinterpret_cast<const char *>(p + i) + kPrefetchAhead, _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char *>(p + i) + kPrefetchAhead + 64, _MM_HINT_T0);
        a = _mm256_add_epi64(a, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i)));
        b = _mm256_add_epi64(b, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i + 4)));
        c = _mm256_add_epi64(c, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i + 8)));
        d = _mm256_add_epi64(d, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i + 12)));
    }
    alignas(32) uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), _mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d)));
    return lanes[0] + lanes[1] + lanes[2] + lanes[3] + sumSlice(p + i, n - i);
}
#endif

#if defined(__x86_64__)
// 512-bit loads where the CPU has them (as the AVX-512 matrix kernels read).
__attribute__((target("avx512f"), noinline)) uint64_t sumSliceAvx512(const uint64_t *p, size_t n)
{
    __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const char *line = reinterpret_cast<const char *>(p + i);
        _mm_prefetch(line + kPrefetchAhead, _MM_HINT_T0);
        _mm_prefetch(line + kPrefetchAhead + 64, _MM_HINT_T0);
        _mm_prefetch(line + kPrefetchAhead + 128, _MM_HINT_T0);
        _mm_prefetch(line + kPrefetchAhead + 192, _MM_HINT_T0);
        a = _mm512_add_epi64(a, _mm512_loadu_si512(p + i));
        b = _mm512_add_epi64(b, _mm512_loadu_si512(p + i + 8));
        c = _mm512_add_epi64(c, _mm512_loadu_si512(p + i + 16));
        d = _mm512_add_epi64(d, _mm512_loadu_si512(p + i + 24));
    }
    return static_cast<uint64_t>(_mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a, b), _mm512_add_epi64(c, d)))) +
           sumSlice(p + i, n - i);
}
#endif

uint64_t sumFast(const uint64_t *p, size_t n)
{
#if defined(__x86_64__)
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    if (avx512)
        return sumSliceAvx512(p, n);
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2)
        return sumSliceAvx2(p, n);
#endif
    return sumSlice(p, n);
}

struct Bandwidth {
    int threads = 1;
    uint64_t bytes = 0;
    std::vector<double> gbps;
};

Bandwidth measureBandwidth(int threads, uint64_t bytes, int reps)
{
    Bandwidth bw;
    bw.threads = threads;
    const size_t words = static_cast<size_t>(bytes / sizeof(uint64_t));
    bw.bytes = words * sizeof(uint64_t);
    std::unique_ptr<uint64_t[]> buf(new uint64_t[words]);
    for (size_t i = 0; i < words; ++i)
        buf[i] = i;   // touch every page
    std::atomic<uint64_t> sink{0};
    // Small buffers are read several times per timed pass (>= 256 MiB in all),
    // so thread start and join do not count.
    const int inner = static_cast<int>(std::max<uint64_t>(1, (256ull << 20) / std::max<uint64_t>(1, bw.bytes)));
    const auto pass = [&] {
        std::vector<std::thread> ts;
        std::atomic<int> ready{0};
        std::atomic<bool> go{false};
        for (int t = 0; t < threads; ++t) {
            ts.emplace_back([&, t] {
                const size_t b = words * static_cast<size_t>(t) / static_cast<size_t>(threads);
                const size_t e = words * static_cast<size_t>(t + 1) / static_cast<size_t>(threads);
                ready.fetch_add(1);
                while (!go.load(std::memory_order_acquire)) {
                }
                uint64_t sum = 0;
                for (int k = 0; k < inner; ++k)
                    sum += sumFast(buf.get() + b, e - b);
                sink.fetch_add(sum, std::memory_order_relaxed);
            });
        }
        while (ready.load() < threads) {
        }
        const auto t0 = Clock::now();
        go.store(true, std::memory_order_release);
        for (std::thread &th : ts)
            th.join();
        return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    pass();   // warm-up
    for (int r = 0; r < reps; ++r) {
        const double s = pass();
        bw.gbps.push_back(static_cast<double>(bw.bytes) * inner / s / 1e9);
    }
    if (sink.load() == 42)
        std::fprintf(stderr, " ");   // keeps the sums alive
    return bw;
}

// ---- model tests ----

struct TestResult {
    std::string modelPath;
    burrow::ModelInfo info;
    int threads = 0;
    int nPrompt = 0;
    int nGen = 0;
    int depth = 0;
    burrow::KvCacheType kvType = burrow::KvCacheType::KV_CACHE_F16;
    uint64_t kvBytes = 0;          // the session's KV cache
    std::vector<double> seconds;   // per repetition
    std::string name() const
    {
        return (nPrompt > 0 ? "pp" + std::to_string(nPrompt) : "tg" + std::to_string(nGen)) +
               (depth > 0 ? " @ d" + std::to_string(depth) : "");
    }
    std::vector<double> tokensPerSecond() const
    {
        std::vector<double> v;
        const int n = nPrompt > 0 ? nPrompt : nGen;
        for (double s : seconds)
            v.push_back(s > 0 ? n / s : 0.0);
        return v;
    }
};

std::vector<burrow::Token> promptTokens(const burrow::Model &model, int n)
{
    std::vector<burrow::Token> tokens;
    tokens.reserve(static_cast<size_t>(n));
    const burrow::Token bos = model.info().bosId;
    if (bos >= 0)
        tokens.push_back(bos);
    std::mt19937 rng(42);
    const uint32_t vocab = model.vocabSize();
    while (static_cast<int>(tokens.size()) < n)
        tokens.push_back(static_cast<burrow::Token>(rng() % vocab));
    return tokens;
}

// depth: tokens evaluated first, untimed (the timed call reuses them as its prefix).
burrow::Status runPrompt(burrow::Session &session, const std::vector<burrow::Token> &depth,
                         const std::vector<burrow::Token> &tokens, double *seconds)
{
    session.reset();
    std::vector<burrow::Token> all = depth;
    if (!depth.empty())
        if (burrow::Status s = session.evaluate(depth, nullptr); !s)
            return s;
    all.insert(all.end(), tokens.begin(), tokens.end());
    const auto t0 = Clock::now();
    burrow::Status s = session.evaluate(all, nullptr);
    *seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return s;
}

burrow::Status runGenerate(burrow::Session &session, const std::vector<burrow::Token> &depth, burrow::Token first, int n,
                           std::vector<burrow::Token> &seq, std::vector<float> &logits, double *seconds)
{
    session.reset();
    seq = depth;
    if (!depth.empty())
        if (burrow::Status s = session.evaluate(depth, nullptr); !s)
            return s;
    seq.push_back(first);
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
        if (burrow::Status s = session.evaluate(seq, &logits); !s)
            return s;
        const auto best = std::max_element(logits.begin(), logits.end()) - logits.begin();
        seq.push_back(static_cast<burrow::Token>(best));
    }
    *seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return {};
}

std::string humanSize(uint64_t bytes)
{
    char buf[32];
    if (bytes >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
    else
        std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1ull << 20));
    return buf;
}

std::string humanParams(uint64_t n)
{
    char buf[32];
    if (n >= 1000000000ull)
        std::snprintf(buf, sizeof buf, "%.2f B", static_cast<double>(n) / 1e9);
    else
        std::snprintf(buf, sizeof buf, "%.2f M", static_cast<double>(n) / 1e6);
    return buf;
}

std::string jsonNumbers(const std::vector<double> &v, const char *fmt)
{
    std::string out = "[";
    char buf[48];
    for (size_t i = 0; i < v.size(); ++i) {
        std::snprintf(buf, sizeof buf, fmt, v[i]);
        out += (i ? ", " : "") + std::string(buf);
    }
    return out + "]";
}

int runBench(const std::vector<std::string> &args)
{
    std::vector<std::string> models;
    std::vector<long> prompts = {512}, gens = {128}, threadList, parallelList;
    long reps = 5, memoryMiB = 1024, arriving = 2000, depth = 0;
    bool json = false, memory = false, flash = true, warmup = true, specBench = false;
    bool specGiven = false;   // --spec (else --draft implies --spec draft)
    burrow::tools::SpecBenchOptions specOptions;
    std::string cacheTypeK = "f16", cacheTypeV = "f16";
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        const auto value = [&](std::string *out) {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "burrow-cli bench: %s needs a value\n", a.c_str());
                return false;
            }
            *out = args[++i];
            return true;
        };
        const auto list = [&](std::vector<long> *out, long minValue) {
            std::string v;
            if (!value(&v))
                return false;
            if (!parseList(v, minValue, out)) {
                std::fprintf(stderr, "burrow-cli bench: %s expects comma-separated integers >= %ld, got '%s'\n",
                             a.c_str(), minValue, v.c_str());
                return false;
            }
            return true;
        };
        std::vector<long> one;
        if (a == "-h" || a == "--help") {
            printHelp(stdout);
            return 0;
        } else if (a == "-m" || a == "--model") {
            std::string v;
            if (!value(&v)) return 2;
            models.push_back(v);
        } else if (a == "-p" || a == "--n-prompt") {
            if (!list(&prompts, 0)) return 2;
        } else if (a == "-n" || a == "--n-gen") {
            if (!list(&gens, 0)) return 2;
        } else if (a == "-t" || a == "--threads") {
            if (!list(&threadList, 1)) return 2;
        } else if (a == "-d" || a == "--n-depth") {
            if (!list(&one, 0) || one.size() != 1) return 2;
            depth = one[0];
        } else if (burrow::cli::isCacheTypeOption(a)) {
            std::string v;
            if (!value(&v)) return 2;
            (a == "-ctk" || a == "--cache-type-k" ? cacheTypeK : cacheTypeV) = v;
        } else if (a == "-fa" || a == "--flash-attn") {
            std::string v;
            if (!value(&v)) return 2;
            if (!burrow::cli::parseOnOff(v, &flash)) {
                std::fprintf(stderr, "burrow-cli bench: %s expects on or off, got '%s'\n", a.c_str(), v.c_str());
                return 2;
            }
        } else if (a == "-r" || a == "--repetitions") {
            if (!list(&one, 1) || one.size() != 1) return 2;
            reps = one[0];
        } else if (a == "--memory-size") {
            if (!list(&one, 1) || one.size() != 1) return 2;
            memoryMiB = one[0];
        } else if (a == "--parallel") {
            if (!list(&parallelList, 1)) return 2;
        } else if (a == "--arriving") {
            if (!list(&one, 0) || one.size() != 1) return 2;
            arriving = one[0];
        } else if (a == "--spec") {
            std::string v;
            if (!value(&v) || !burrow::cli::parseSpeculativeMode(v, &specOptions.speculative.mode)) return 2;
            specBench = true;
            specGiven = true;
        } else if (a == "--draft") {
            if (!value(&specOptions.speculative.draftModel)) return 2;
            specBench = true;
        } else if (a == "--spec-prompt-file") {
            std::string file;
            if (!value(&file)) return 2;
            if (!readPromptFile(file, &specOptions.prompt)) return 1;
        } else if (a == "--draft-max") {
            if (!list(&one, 0) || one.size() != 1 || one[0] > 16) return 2;
            specOptions.speculative.draftMax = static_cast<int32_t>(one[0]);
        } else if (a == "--spec-prompt") {
            if (!value(&specOptions.prompt)) return 2;
        } else if (a == "--json") {
            json = true;
        } else if (a == "--no-warmup") {
            warmup = false;
        } else if (a == "--memory") {
            memory = true;
        } else {
            std::fprintf(stderr, "burrow-cli bench: unknown option '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        }
    }
    if (specBench && !burrow::cli::checkSpeculativeOptions("bench", specGiven, &specOptions.speculative))
        return 2;
    if (models.empty() && !memory) {
        std::fprintf(stderr, "burrow-cli bench: -m MODEL (or --memory) is required\n");
        printHelp(stderr);
        return 2;
    }
    if (threadList.empty())
        threadList.push_back(burrow::runtime::ThreadPool::defaultThreadCount());
    burrow::KvCacheType kvType = burrow::KvCacheType::KV_CACHE_F16;
    if (!burrow::cli::parseKvCacheTypes("bench", cacheTypeK, cacheTypeV, &kvType))
        return 2;

    const std::string cpu = cpuModelName();
    const char *path = burrow::quant::cpuPathName(burrow::quant::activeCpuPath());

    // Memory bandwidth first (before the models are mapped and warm).
    std::vector<Bandwidth> bandwidths;
    if (memory) {
        for (long t : threadList)
            bandwidths.push_back(measureBandwidth(static_cast<int>(t), static_cast<uint64_t>(memoryMiB) << 20,
                                                  static_cast<int>(reps)));
    }

    if (specBench) {
        for (const std::string &path : models) {
            auto model = burrow::Model::load(path);
            if (!model) {
                std::fprintf(stderr, "burrow-cli bench: %s\n", model.message().c_str());
                return 1;
            }
            specOptions.threads = static_cast<int>(threadList.front());
            specOptions.nGen = gens.empty() || gens.front() <= 0 ? 128 : static_cast<int>(gens.front());
            specOptions.reps = static_cast<int>(reps);
            specOptions.json = json;
            specOptions.flashAttention = flash;
            specOptions.kvCacheType = kvType;
            if (int rc = burrow::tools::benchSpeculative(model.value(), path, specOptions); rc != 0)
                return rc;
        }
        return 0;
    }

    if (!parallelList.empty()) {
        for (const std::string &path : models) {
            auto model = burrow::Model::load(path);
            if (!model) {
                std::fprintf(stderr, "burrow-cli bench: %s\n", model.message().c_str());
                return 1;
            }
            burrow::tools::ParallelBenchOptions po;
            po.parallel = parallelList;
            po.threads = static_cast<int>(threadList.front());
            po.nGen = gens.empty() || gens.front() <= 0 ? 128 : static_cast<int>(gens.front());
            po.longPrompt = static_cast<int>(arriving);
            po.json = json;
            po.flashAttention = flash;
            po.kvCacheType = kvType;
            if (int rc = burrow::tools::benchParallel(model.value(), path, po); rc != 0)
                return rc;
        }
        return 0;
    }

    std::vector<TestResult> results;
    std::vector<std::pair<std::string, uint64_t>> bytesPerToken;   // model path -> bytes
    std::vector<std::pair<std::string, Bandwidth>> modelBandwidths; // model path -> read of bytesPerToken
    for (const std::string &path : models) {
        auto model = burrow::Model::load(path);
        if (!model) {
            std::fprintf(stderr, "burrow-cli bench: %s\n", model.message().c_str());
            return 1;
        }
        auto perToken = weightBytesPerToken(path);
        if (!perToken) {
            std::fprintf(stderr, "burrow-cli bench: %s\n", perToken.message().c_str());
            return 1;
        }
        bytesPerToken.emplace_back(path, perToken.value());
        const burrow::Model &m = *model.value();
        long maxTokens = 1;
        for (long p : prompts)
            maxTokens = std::max(maxTokens, p);
        for (long n : gens)
            maxTokens = std::max(maxTokens, n + 1);
        maxTokens += depth;
        if (maxTokens > static_cast<long>(m.info().contextLength)) {
            std::fprintf(stderr, "burrow-cli bench: %s: a test needs %ld positions, the model's context is %u\n",
                         path.c_str(), maxTokens, m.info().contextLength);
            return 1;
        }
        for (long threads : threadList) {
            burrow::SessionOptions so;
            so.contextSize = static_cast<uint32_t>(maxTokens);
            so.threads = static_cast<int32_t>(threads);
            so.flashAttention = flash;
            so.kvCacheType = kvType;
            auto session = burrow::Session::create(model.value(), so);
            if (!session) {
                std::fprintf(stderr, "burrow-cli bench: %s\n", session.message().c_str());
                return 1;
            }
            burrow::Session &s = *session.value();
            std::vector<burrow::Token> seq;
            seq.reserve(static_cast<size_t>(maxTokens) + 1);
            std::vector<float> logits(m.vocabSize());
            // Depth tokens: the prompt's ids (BOS first), as llama-bench fills its depth.
            const std::vector<burrow::Token> depthTokens = depth > 0 ? promptTokens(m, static_cast<int>(depth))
                                                                     : std::vector<burrow::Token>{};
            const uint64_t kvBytes = m.info().kvCacheBytes(s.contextSize(), kvType);
            for (long p : prompts) {
                if (p == 0)
                    continue;
                TestResult r{path, m.info(), static_cast<int>(threads), static_cast<int>(p), 0,
                             static_cast<int>(depth), kvType, kvBytes, {}};
                const std::vector<burrow::Token> tokens = promptTokens(m, static_cast<int>(p));
                for (long k = warmup ? 0 : 1; k <= reps; ++k) {
                    double sec = 0;
                    if (burrow::Status st = runPrompt(s, depthTokens, tokens, &sec); !st) {
                        std::fprintf(stderr, "burrow-cli bench: %s: %s\n", path.c_str(), st.message().c_str());
                        return 1;
                    }
                    if (k > 0)   // k == 0: warm-up
                        r.seconds.push_back(sec);
                }
                results.push_back(std::move(r));
            }
            for (long n : gens) {
                if (n == 0)
                    continue;
                TestResult r{path, m.info(), static_cast<int>(threads), 0, static_cast<int>(n),
                             static_cast<int>(depth), kvType, kvBytes, {}};
                const burrow::Token first = promptTokens(m, 1)[0];
                for (long k = warmup ? 0 : 1; k <= reps; ++k) {
                    double sec = 0;
                    // The warm-up generates one token, as llama-bench's.
                    const int count = k == 0 ? 1 : static_cast<int>(n);
                    if (burrow::Status st = runGenerate(s, depthTokens, first, count, seq, logits, &sec); !st) {
                        std::fprintf(stderr, "burrow-cli bench: %s: %s\n", path.c_str(), st.message().c_str());
                        return 1;
                    }
                    if (k > 0)
                        r.seconds.push_back(sec);
                }
                results.push_back(std::move(r));
            }
        }
        // The bound of this model's generation: a read of as many bytes as a
        // token reads, measured right after its tests (this machine's
        // bandwidth moves with the host's load, so a figure from another
        // minute says little).
        if (memory && !gens.empty())
            for (long t : threadList)
                modelBandwidths.emplace_back(path, measureBandwidth(static_cast<int>(t), perToken.value(),
                                                                    static_cast<int>(reps)));
    }

    if (json) {
        std::string out = "[\n";
        bool first = true;
        for (const Bandwidth &b : bandwidths) {
            const Stats st = stats(b.gbps);
            char buf[512];
            std::snprintf(buf, sizeof buf,
                          "  {\"test\": \"memory\", \"cpu_info\": %s, \"n_threads\": %d, \"buffer_bytes\": %llu, "
                          "\"avg_gbps\": %.3f, \"stddev_gbps\": %.3f, \"samples_gbps\": %s}",
                          jsonString(cpu).c_str(), b.threads, static_cast<unsigned long long>(b.bytes), st.mean,
                          st.stddev, jsonNumbers(b.gbps, "%.3f").c_str());
            out += (first ? "" : ",\n") + std::string(buf);
            first = false;
        }
        for (const TestResult &r : results) {
            const std::vector<double> ts = r.tokensPerSecond();
            const Stats st = stats(ts);
            std::vector<double> ns;
            for (double s : r.seconds)
                ns.push_back(s * 1e9);
            const Stats sn = stats(ns);
            uint64_t perToken = 0;
            for (const auto &[p, b] : bytesPerToken)
                if (p == r.modelPath)
                    perToken = b;
            std::string o = "  {\"test\": " + jsonString(r.name()) + ", \"model_filename\": " +
                             jsonString(fileName(r.modelPath)) + ", \"model_name\": " + jsonString(r.info.name) +
                             ", \"model_type\": " + jsonString(r.info.fileType) +
                             ", \"model_size\": " + std::to_string(r.info.weightBytes) +
                             ", \"model_n_params\": " + std::to_string(r.info.parameterCount) +
                             ", \"weight_bytes_per_token\": " + std::to_string(perToken) +
                             ", \"cpu_info\": " + jsonString(cpu) + ", \"cpu_path\": " + jsonString(path) +
                             ", \"n_threads\": " + std::to_string(r.threads) +
                             ", \"n_prompt\": " + std::to_string(r.nPrompt) + ", \"n_gen\": " + std::to_string(r.nGen) +
                             ", \"n_depth\": " + std::to_string(r.depth) +
                             ", \"type_k\": " + jsonString(burrow::kvCacheTypeName(r.kvType)) +
                             ", \"type_v\": " + jsonString(burrow::kvCacheTypeName(r.kvType)) +
                             ", \"kv_cache_bytes\": " + std::to_string(r.kvBytes) +
                             ", \"repetitions\": " + std::to_string(r.seconds.size());
            char buf[160];
            std::snprintf(buf, sizeof buf, ", \"avg_ns\": %.0f, \"stddev_ns\": %.0f, \"avg_ts\": %.3f, \"stddev_ts\": %.3f",
                          sn.mean, sn.stddev, st.mean, st.stddev);
            o += buf;
            o += ", \"samples_ns\": " + jsonNumbers(ns, "%.0f") + ", \"samples_ts\": " + jsonNumbers(ts, "%.3f") + "}";
            out += (first ? "" : ",\n") + o;
            first = false;
        }
        out += "\n]\n";
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }

    if (!bandwidths.empty()) {
        std::printf("memory: streaming read, %s\n\n", cpu.c_str());
        std::printf("| threads | buffer | read GB/s |\n| ---: | ---: | ---: |\n");
        for (const Bandwidth &b : bandwidths) {
            const Stats st = stats(b.gbps);
            std::printf("| %d | %s | %.2f ± %.2f |\n", b.threads, humanSize(b.bytes).c_str(), st.mean, st.stddev);
        }
        std::printf("\n");
    }
    if (!results.empty()) {
        std::printf("| model | size | params | type | path | threads | kv | kv size | test | t/s |\n");
        std::printf("| --- | ---: | ---: | --- | --- | ---: | --- | ---: | ---: | ---: |\n");
        for (const TestResult &r : results) {
            const Stats st = stats(r.tokensPerSecond());
            std::printf("| %s | %s | %s | %s | %s | %d | %s | %s | %s | %.2f ± %.2f |\n", r.info.name.c_str(),
                        humanSize(r.info.weightBytes).c_str(), humanParams(r.info.parameterCount).c_str(),
                        r.info.fileType.c_str(), path, r.threads, burrow::kvCacheTypeName(r.kvType),
                        humanSize(r.kvBytes).c_str(), r.name().c_str(), st.mean, st.stddev);
        }
    }
    if (!modelBandwidths.empty()) {
        bool header = false;
        for (const TestResult &r : results) {
            if (r.nGen == 0)
                continue;
            for (const auto &[bwPath, b] : modelBandwidths) {
                if (b.threads != r.threads || bwPath != r.modelPath)
                    continue;
                uint64_t perToken = 0;
                for (const auto &[p, bytes] : bytesPerToken)
                    if (p == r.modelPath)
                        perToken = bytes;
                const double gbps = stats(b.gbps).mean;
                const double bound = gbps * 1e9 / static_cast<double>(perToken);
                const double tg = stats(r.tokensPerSecond()).mean;
                if (!header) {
                    std::printf("\nbound: a streaming read of the bytes a token reads, right after the model's tests\n\n"
                                "| model | type | threads | weights read per token | bandwidth | bound t/s | %s | of bound |\n"
                                "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
                                r.name().c_str());
                    header = true;
                }
                std::printf("| %s | %s | %d | %s | %.2f GB/s | %.1f | %.2f | %.0f%% |\n", r.info.name.c_str(),
                            r.info.fileType.c_str(), r.threads, humanSize(perToken).c_str(), gbps, bound, tg,
                            100.0 * tg / bound);
            }
        }
    }
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(bench, "bench", "prompt and generation speed (tokens/s) like llama-bench; --memory bandwidth", runBench);
