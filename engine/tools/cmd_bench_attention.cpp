// burrow-cli bench-attention [--head-dim D] [--group G] [--keys N] [--heads H] [--reps R] [--cache f16|q8_0]
// The flash-attention kernels alone (docs/benchmarks.md, "Long-context
// decode"): one KV head of N cached F16 keys and values, G query heads of
// one position against them, timed in this thread's CPU time (steadier than
// wall time on a busy machine) through attendTiled (what generation ran
// before attendDecode), attendDecode and attendOnline (the one-query recipe
// of the first 64 positions and of BURROW_BATCH_INVARIANT=0), on the active
// CPU path. attendDecode's output is checked bit for bit against attendTiled's.
// With --cache q8_0 the cache holds Q8_0 rows and the kernels are
// attendTiledQ8_0 (generation at 64 positions and on, on a path that has it)
// and attendOnlineQ8_0, the tiled one checked bit for bit against its twin.
// H distinct KV heads are cycled so the keys come from memory, not the caches.
#include "cli_command.h"

#include "ops/f16.h"
#include "ops/flash_attention.h"
#include "quant/cpu_features.h"
#include "quant/quant_traits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace burrow;

double cpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli bench-attention [--head-dim D] [--group G] [--keys N] [--heads H] [--reps R]\n"
                 "                                  [--cache f16|q8_0]\n\n"
                 "Times one position's attention over one KV head of N cached F16 keys for its\n"
                 "G query heads (head size D) in thread CPU time: attendTiled, attendDecode and\n"
                 "attendOnline, best and mean of R runs each, H distinct KV heads cycled.\n"
                 "Defaults: D 64, G 8, N 16384, H 16, R 32 (the 1.1B model's shape at 16k).\n"
                 "--cache q8_0: Q8_0 keys and values (D a multiple of 32), timing attendTiledQ8_0\n"
                 "(checked bit for bit against its scalar twin) and attendOnlineQ8_0.\n");
}

bool parseInt(const std::vector<std::string> &args, size_t &i, int lo, int hi, int &out)
{
    if (i + 1 >= args.size())
        return false;
    try {
        const int v = std::stoi(args[++i]);
        if (v < lo || v > hi)
            return false;
        out = v;
        return true;
    } catch (...) {
        return false;
    }
}

int run(const std::vector<std::string> &args)
{
    int d = 64, group = 8, keys = 16384, heads = 16, reps = 32;
    bool q8 = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        bool ok = true;
        if (a == "--head-dim")
            ok = parseInt(args, i, 16, ops::kMaxFlashHeadDim, d);
        else if (a == "--group")
            ok = parseInt(args, i, 1, ops::kMaxOnlineHeads, group);
        else if (a == "--keys")
            ok = parseInt(args, i, 1, 1 << 20, keys);
        else if (a == "--heads")
            ok = parseInt(args, i, 1, 64, heads);
        else if (a == "--reps")
            ok = parseInt(args, i, 1, 100000, reps);
        else if (a == "--cache" && i + 1 < args.size() && (args[i + 1] == "f16" || args[i + 1] == "q8_0"))
            q8 = args[++i] == "q8_0";
        else if (a == "-h" || a == "--help") {
            printHelp(stdout);
            return 0;
        } else
            ok = false;
        if (!ok) {
            std::fprintf(stderr, "bench-attention: bad argument '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        }
    }
    if (q8 && d % 32 != 0) {
        std::fprintf(stderr, "bench-attention: a Q8_0 cache needs a head size that is a multiple of 32\n");
        return 2;
    }
    // Halves per cached row: d of them, or d / 32 Q8_0 blocks of 17.
    const size_t row = q8 ? ops::q8_0RowHalves(static_cast<size_t>(d)) : static_cast<size_t>(d);
    const size_t perHead = static_cast<size_t>(keys) * row;
    std::vector<uint16_t> k(perHead * static_cast<size_t>(heads)), v(k.size());
    std::mt19937 rng(1);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    if (q8) {
        const quant::TypeTraits &t = *quant::typeTraits(GgmlType::GGML_TYPE_Q8_0);
        std::vector<float> f(static_cast<size_t>(d));
        for (std::vector<uint16_t> *cache : {&k, &v})
            for (size_t r = 0; r < cache->size() / row; ++r) {
                for (float &e : f)
                    e = nd(rng);
                t.quantize(f.data(), cache->data() + r * row, d);
            }
    } else {
        for (uint16_t &e : k)
            e = ops::f32ToF16(nd(rng));
        for (uint16_t &e : v)
            e = ops::f32ToF16(nd(rng));
    }
    std::vector<float> q(static_cast<size_t>(group) * d), out(q.size()), ref(q.size());
    for (float &e : q)
        e = nd(rng) * 0.3f;
    std::vector<float> scratch(ops::tiledScratchFloats(d, d));
    ops::TileQuery qs[ops::kMaxOnlineHeads];
    const float *qp[ops::kMaxOnlineHeads];
    float *op[ops::kMaxOnlineHeads];
    for (int g = 0; g < group; ++g) {
        qs[g].q = qp[g] = q.data() + static_cast<size_t>(g) * d;
        qs[g].first = 0;
        qs[g].last = static_cast<uint32_t>(keys - 1);
        op[g] = out.data() + static_cast<size_t>(g) * d;
    }
    const auto view = [&](int r) {
        ops::KvView kv;
        kv.k = k.data() + static_cast<size_t>(r % heads) * perHead;
        kv.v = v.data() + static_cast<size_t>(r % heads) * perHead;
        kv.kStride = kv.vStride = row;
        kv.dk = kv.dv = d;
        kv.scale = 1.0f / std::sqrt(static_cast<float>(d));
        return kv;
    };
    const auto time = [&](const char *name, int which, std::vector<float> &dst) {
        for (int g = 0; g < group; ++g)
            qs[g].out = op[g] = dst.data() + static_cast<size_t>(g) * d;
        double best = 1e30, sum = 0;
        for (int r = 0; r < reps; ++r) {
            const ops::KvView kv = view(r);
            const double t0 = cpuSeconds();
            if (which == 0)
                ops::attendTiled(kv, qs, group, scratch.data());
            else if (which == 1)
                ops::attendDecode(kv, qs, group, scratch.data());
            else if (which == 2)
                ops::attendOnline(kv, 0, static_cast<uint32_t>(keys - 1), group, qp, op, nullptr);
            else if (which == 3)
                ops::attendTiledQ8_0(kv, qs, group, scratch.data());
            else
                ops::attendOnlineQ8_0(kv, 0, static_cast<uint32_t>(keys - 1), group, qp, op, nullptr);
            const double t = cpuSeconds() - t0;
            best = std::min(best, t);
            sum += t;
        }
        const double flop = 2.0 * keys * group * 2.0 * d;
        std::printf("%-13s %8.3f ms best, %8.3f ms mean, %6.1f GFLOP/s (best)\n", name, best * 1e3, sum / reps * 1e3,
                    flop / best * 1e-9);
    };
    std::printf("path %s, %s cache, head size %d, %d query heads, %d keys, %d KV heads cycled, %d runs\n",
                quant::cpuPathName(quant::activeCpuPath()), q8 ? "Q8_0" : "F16", d, group, keys, heads, reps);
    if (q8) {
        std::printf("(attendTiledQ8_0: %s)\n", ops::hasTiledQ8_0() ? "this path's kernel" : "no kernel on this path: the scalar twin");
        time("attendTiledQ8_0", 3, out);
        time("attendOnlineQ8_0", 4, ref);
        for (int g = 0; g < group; ++g)
            qs[g].out = ref.data() + static_cast<size_t>(g) * d;
        ops::attendTiledQ8_0Scalar(view(reps - 1), qs, group, scratch.data());
        const bool same = std::memcmp(out.data(), ref.data(), out.size() * sizeof(float)) == 0;
        std::printf("attendTiledQ8_0 %s its scalar twin bit for bit\n", same ? "equals" : "DIFFERS FROM");
        return same ? 0 : 1;
    }
    time("attendTiled", 0, ref);
    time("attendDecode", 1, out);
    const bool same = std::memcmp(out.data(), ref.data(), out.size() * sizeof(float)) == 0;
    std::vector<float> online(q.size());
    time("attendOnline", 2, online);
    std::printf("attendDecode %s attendTiled bit for bit\n", same ? "equals" : "DIFFERS FROM");
    return same ? 0 : 1;
}

} // namespace

BURROW_CLI_COMMAND(bench_attention, "bench-attention", "time the flash-attention kernels alone (CPU time)", run);
