// burrow-cli bench --spec MODE: speculative decoding against plain
// decoding. Per repetition, alternating (plain first): a fresh session
// generates nGen tokens greedily from `prompt` (text, BOS added) with
// drafting off, then with MODE; reports generation tokens/s of each (mean
// and standard deviation), the speed-up, drafted and accepted tokens, and
// whether the two replies are the same tokens (they must be: the engine is
// batch-invariant and a draft is kept only when greedy picks it).
//
// What it is for (docs/benchmarks.md): the copy-heavy task (stories260K
// shown a story, then asked to continue it from its first sentence), the
// zero-acceptance cost (a random-weight model, whose drafts are rejected),
// both against --spec off.
#pragma once

#include "burrow/engine.h"

#include <string>

namespace burrow::tools {

struct SpecBenchOptions {
    SpeculativeOptions speculative;
    int threads = 0;
    int nGen = 128;
    int reps = 5;
    std::string prompt = "Once upon a time";
    bool json = false;
    bool flashAttention = true;
    KvCacheType kvCacheType = KvCacheType::KV_CACHE_F16;
};

int benchSpeculative(const std::shared_ptr<Model> &model, const std::string &path, const SpecBenchOptions &o);

} // namespace burrow::tools
