#include "bench_spec.h"

#include <cmath>
#include <tuple>
#include <cstdio>
#include <vector>

namespace burrow::tools {

namespace {

struct Series {
    std::vector<double> tps;
    int32_t drafted = 0, accepted = 0;
    std::vector<Token> tokens;   // the last run's reply
};

void meanStd(const std::vector<double> &v, double *mean, double *sd)
{
    *mean = 0;
    *sd = 0;
    if (v.empty())
        return;
    for (double x : v)
        *mean += x;
    *mean /= static_cast<double>(v.size());
    if (v.size() > 1) {
        for (double x : v)
            *sd += (x - *mean) * (x - *mean);
        *sd = std::sqrt(*sd / static_cast<double>(v.size() - 1));
    }
}

Result<std::unique_ptr<Session>> openSession(const std::shared_ptr<Model> &model, const SpecBenchOptions &o,
                                             const std::vector<Token> &prompt)
{
    SessionOptions so;
    so.contextSize = static_cast<uint32_t>(prompt.size()) + static_cast<uint32_t>(o.nGen) + 1;
    so.threads = o.threads;
    so.flashAttention = o.flashAttention;
    so.kvCacheType = o.kvCacheType;
    return Session::create(model, so);
}

// One reply of `session` (the same prompt every time: its cached prefix is
// kept, the reply's positions written again).
Status runOnce(Session &session, const SpecBenchOptions &o, const std::vector<Token> &prompt,
               const SpeculativeOptions &spec, Series *out)
{
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    GenerateOptions go;
    go.maxTokens = o.nGen;
    go.overflow = ContextOverflow::CONTEXT_OVERFLOW_STOP;
    go.speculative = spec;
    GenerateResult r;
    if (Status s = session.generate(prompt, greedy, go, {}, &r); !s)
        return s;
    out->tps.push_back(r.timings.generateTokensPerSecond());
    out->drafted += r.timings.draftedTokens;
    out->accepted += r.timings.acceptedTokens;
    out->tokens = r.tokens;
    return Status::ok();
}

} // namespace

int benchSpeculative(const std::shared_ptr<Model> &model, const std::string &path, const SpecBenchOptions &o)
{
    const std::vector<Token> prompt = model->tokenize(o.prompt, true, false);
    SpeculativeOptions off;
    off.mode = SpeculativeMode::SPECULATIVE_OFF;
    Series plain, spec;
    // One session per mode for all the replies, as an app's engine lives
    // across them: the warm-up reply pays the one-time costs (the first
    // touch of the KV cache and, with drafts, of the recurrent layers'
    // per-row state copies).
    auto plainSession = openSession(model, o, prompt);
    auto specSession = openSession(model, o, prompt);
    for (auto *s : {&plainSession, &specSession})
        if (!*s) {
            std::fprintf(stderr, "burrow-cli bench: %s: %s\n", path.c_str(), s->status().message().c_str());
            return 1;
        }
    for (int k = 0; k <= o.reps; ++k) {   // k == 0: warm-up of both
        Series warm;
        Series &a = k == 0 ? warm : plain;
        Series &b = k == 0 ? warm : spec;
        for (auto [session, opts, series] : {std::tuple{plainSession.value().get(), off, &a},
                                             std::tuple{specSession.value().get(), o.speculative, &b}})
            if (Status s = runOnce(*session, o, prompt, opts, series); !s) {
                std::fprintf(stderr, "burrow-cli bench: %s: %s\n", path.c_str(), s.message().c_str());
                return 1;
            }
    }
    double pm, ps, sm, ss;
    meanStd(plain.tps, &pm, &ps);
    meanStd(spec.tps, &sm, &ss);
    const bool same = plain.tokens == spec.tokens;
    const double rate = spec.drafted > 0 ? 100.0 * spec.accepted / spec.drafted : 0.0;
    const int32_t draftMax = o.speculative.draftMax;
    if (o.json) {
        std::printf("[{\"model\": \"%s\", \"test\": \"tg%d spec\", \"prompt_tokens\": %zu, \"draft_max\": %d, "
                    "\"off_tps\": %.3f, \"off_sd\": %.3f, \"spec_tps\": %.3f, \"spec_sd\": %.3f, \"speedup\": %.4f, "
                    "\"drafted\": %d, \"accepted\": %d, \"same_tokens\": %s}]\n",
                    path.c_str(), o.nGen, prompt.size(), draftMax, pm, ps, sm, ss, pm > 0 ? sm / pm : 0.0,
                    spec.drafted, spec.accepted, same ? "true" : "false");
    } else {
        std::printf("| model | test | prompt | off t/s | spec t/s | speed-up | drafted | accepted | same tokens |\n"
                    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        std::printf("| %s | tg%d, draft-max %d | %zu | %.2f ± %.2f | %.2f ± %.2f | %.3f× | %d | %d (%.0f %%) | %s |\n",
                    path.c_str(), o.nGen, draftMax, prompt.size(), pm, ps, sm, ss, pm > 0 ? sm / pm : 0.0,
                    spec.drafted, spec.accepted, rate, same ? "yes" : "NO");
    }
    return same ? 0 : 1;
}

} // namespace burrow::tools
