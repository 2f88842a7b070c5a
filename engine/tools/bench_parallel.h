// burrow-cli bench --parallel LIST: the scheduler under parallel streams.
// For each P in LIST: P streams, each a prompt of 32 random tokens then nGen
// generated tokens (end of generation ignored), all submitted at once;
// reports the aggregate generation rate (all streams' tokens / wall time
// from the first to the last generated token), the rate per stream and the
// mean time between a stream's tokens. Then, with one stream generating, a
// prompt of `longPrompt` tokens arrives: the stream's mean and largest time
// between tokens while that prompt is evaluated, against its time alone.
#pragma once

#include "burrow/engine.h"

#include <string>
#include <vector>

namespace burrow::tools {

struct ParallelBenchOptions {
    std::vector<long> parallel;   // stream counts
    int threads = 0;
    int nGen = 128;
    int longPrompt = 2000;        // 0: skip the arrival test
    bool json = false;
    bool flashAttention = true;
    KvCacheType kvCacheType = KvCacheType::KV_CACHE_F16;
};

int benchParallel(const std::shared_ptr<Model> &model, const std::string &path, const ParallelBenchOptions &o);

} // namespace burrow::tools
