#include "model/synthetic_model.h"

#include "model/architectures.h"
#include "common/checked.h"
#include "gguf/gguf_stream_writer.h"
#include "quant/quant_traits.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace burrow::model {

namespace {

using gguf::ValueType;

// What the generator varies per architecture (mirrors model/arch_*.cpp and
// the tensor binding in model/weights.cpp).
struct ArchRules {
    const char *name;
    bool moe;                  // every FFN is a mixture of experts
    bool qkNorm;               // attn_q_norm / attn_k_norm
    bool postNorms;            // post_attention_norm, post_ffw_norm
    bool fusedQkv;             // attn_qkv
    bool fusedGateUp;          // ffn_up [E, 2F], no ffn_gate
    bool qkvBias;              // attn_q/k/v.bias (required by qwen2; gpt-oss has them)
    bool gptOss;               // sinks, attn_output.bias, expert and router biases, FFN norm named post_attention_norm
    bool outputNever;          // gemma2: the output is always token_embd
    bool outputAlways;         // gpt-oss: output.weight required
    int sliding;               // 0: no window key; 1: window required (gemma2, gpt-oss); 2: optional (gemma3)
    bool writeHeadDims;        // key_length / value_length always written (as real files do)
    float rmsEps;
    float ropeBase;
    bool hybrid = false;       // qwen35*: Gated DeltaNet layers, gated attention (attn_q 2x), IMROPE sections
    bool sharedExpert = false; // qwen35moe: ffn_*_shexp beside the experts
    bool gemma4 = false;       // per-layer sliding flags and head sizes, V norm, per-layer inputs,
                               // shared KV, optional experts beside a dense MLP (gemma4Tensors)
    bool assistant = false;    // gemma4-assistant: queries only, nextn projections, no K/V
};

constexpr ArchRules kRules[] = {
    //  name       moe    qkN    post   fQkv   fGU    bias   oss    noOut  out    swa hd     eps    base
    {"llama",    false, false, false, false, false, false, false, false, false, 0, false, 1e-5f, 10000.0f},
    {"qwen2",    false, false, false, false, false, true,  false, false, false, 0, false, 1e-6f, 1000000.0f},
    {"phi3",     false, false, false, true,  true,  false, false, false, false, 0, false, 1e-5f, 10000.0f},
    {"gemma2",   false, false, true,  false, false, false, false, true,  false, 1, true,  1e-6f, 10000.0f},
    {"qwen3",    false, true,  false, false, false, false, false, false, false, 0, true,  1e-6f, 1000000.0f},
    {"qwen3moe", true,  true,  false, false, false, false, false, false, false, 0, true,  1e-6f, 1000000.0f},
    {"gemma3",   false, true,  true,  false, false, false, false, false, false, 2, true,  1e-6f, 1000000.0f},
    {"gpt-oss",  true,  false, false, false, false, true,  true,  false, true,  1, true,  1e-5f, 150000.0f},
    {"qwen35",   false, true,  false, false, false, false, false, false, false, 0, true,  1e-6f, 10000000.0f, true},
    {"qwen35moe", true, true,  false, false, false, false, false, false, false, 0, true,  1e-6f, 10000000.0f, true, true},
    {"gemma4",   false, true,  true,  false, false, false, false, false, false, 1, true,  1e-6f, 1000000.0f, false, false, true},
    {"gemma4-assistant", false, true, true, false, false, false, false, true, false, 1, true, 1e-6f, 1000000.0f, false, false,
     true, true},
};

const ArchRules *rulesFor(const std::string &arch)
{
    for (const ArchRules &r : kRules)
        if (arch == r.name)
            return &r;
    return nullptr;
}

uint32_t headDimOf(const SyntheticShape &s) { return s.headDim != 0 ? s.headDim : s.nEmbd / std::max(1u, s.nHead); }

bool hasOutput(const ArchRules &r, const SyntheticShape &s) { return r.outputAlways || (!r.outputNever && !s.tiedOutput); }

uint32_t attentionIntervalOf(const SyntheticShape &s) { return s.attentionInterval != 0 ? s.attentionInterval : 4; }

// qwen35*: layer il is a Gated DeltaNet layer (as model/arch_qwen35.cpp reads the interval).
bool recurrentLayer(const ArchRules &r, const SyntheticShape &s, uint32_t il)
{
    return r.hybrid && (il + 1) % attentionIntervalOf(s) != 0;
}

// qwen35*: rotated dims per head (a quarter, as Qwen3.5's 64 of 256), at least one pair.
uint32_t hybridRopeDims(uint32_t headDim) { return std::max(2u, headDim / 4 / 2 * 2); }

// gemma4: the layer kinds and sizes (as model/arch_gemma4.cpp reads them back).
uint32_t gemma4Period(const SyntheticShape &s) { return s.slidingPattern != 0 ? s.slidingPattern : 6; }
bool gemma4Sliding(const SyntheticShape &s, uint32_t il)
{
    const uint32_t p = gemma4Period(s);
    return il % p < p - 1;
}
uint32_t gemma4HeadDim(const SyntheticShape &s, uint32_t il)
{
    return gemma4Sliding(s, il) && s.headDimSwa != 0 ? s.headDimSwa : headDimOf(s);
}
uint32_t gemma4KvHeads(const SyntheticShape &s, uint32_t il)
{
    return !gemma4Sliding(s, il) && s.nHeadKvGlobal != 0 ? s.nHeadKvGlobal : s.nHeadKv;
}
bool gemma4SharedKv(const SyntheticShape &s, uint32_t il) { return il + s.sharedKvLayers >= s.nLayer; }
uint32_t gemma4Ff(const SyntheticShape &s, uint32_t il)
{
    return s.doubleWideMlp && gemma4SharedKv(s, il) ? 2 * s.nFf : s.nFf;
}

Status range(const char *field, uint64_t value, uint64_t lo, uint64_t hi)
{
    if (value < lo || value > hi)
        return Status::error(std::string(field) + " is " + std::to_string(value) + ", expected " + std::to_string(lo) +
                             ".." + std::to_string(hi));
    return {};
}

// --- random numbers: splitmix64 streams, one per (seed, tensor, row) ---

uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t nameHash(const std::string &name)
{
    uint64_t h = 0xcbf29ce484222325ull;   // FNV-1a
    for (unsigned char c : name)
        h = (h ^ c) * 0x100000001b3ull;
    return h;
}

// N(0, 1) by table: kNormalTable[i] is the (i + 1/2) / 2^16 quantile of the
// standard normal, so a uniform 16-bit index gives a deviate (65536 levels,
// tails cut at 4.3 sigma, variance 1 - 2e-4). Built once by Newton's method
// on Phi(x) = erfc(-x / sqrt 2) / 2, symmetric by construction.
constexpr int kNormalBits = 16;
constexpr size_t kNormalLevels = size_t(1) << kNormalBits;

const std::vector<float> &normalTable()
{
    static const std::vector<float> table = [] {
        std::vector<float> t(kNormalLevels);
        double x = 0.0;
        for (size_t i = kNormalLevels / 2; i < kNormalLevels; ++i) {
            const double p = (static_cast<double>(i) + 0.5) / static_cast<double>(kNormalLevels);
            for (int it = 0; it < 50; ++it) {   // from the previous quantile: a few steps suffice
                const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
                const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2.0 * 3.14159265358979323846);
                const double step = (cdf - p) / pdf;
                x -= step;
                if (std::fabs(step) < 1e-12)
                    break;
            }
            t[i] = static_cast<float>(x);
            t[kNormalLevels - 1 - i] = static_cast<float>(-x);
        }
        return t;
    }();
    return table;
}

class RowRng {
public:
    RowRng(uint64_t seed, uint64_t tensor, uint64_t row) : m_state(mix64(mix64(seed ^ tensor) + row)) {}
    uint64_t next()
    {
        m_state += 0x9e3779b97f4a7c15ull;
        return mix64(m_state);
    }

private:
    uint64_t m_state;
};

constexpr float kSigma = 0.02f;
constexpr int64_t kSsmConvKernel = 4;   // ssm.conv_kernel, as every Qwen3.5

// n values: base + kSigma * N(0, 1), four deviates per 64 random bits.
void fillRow(float *out, int64_t n, SyntheticTensor::Fill fill, RowRng &rng)
{
    if (fill == SyntheticTensor::Fill::FILL_ROPE_QUARTER) {
        for (int64_t i = 0; i < n; ++i)
            out[i] = i < std::max<int64_t>(1, n / 4) ? 1.0f : 1e30f;
        return;
    }
    float base = 0.0f;   // FILL_WEIGHT
    if (fill == SyntheticTensor::Fill::FILL_NORM)
        base = 1.0f;
    else if (fill == SyntheticTensor::Fill::FILL_DECAY)
        base = -1.0f;
    const float *table = normalTable().data();
    for (int64_t i = 0; i < n; i += 4) {
        uint64_t z = rng.next();
        for (int64_t k = i; k < std::min(n, i + 4); ++k, z >>= kNormalBits)
            out[k] = base + kSigma * table[z & (kNormalLevels - 1)];
    }
}

// --- vocabulary ---

struct Vocab {
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<int32_t> types;   // 1 normal, 2 unknown, 3 control, 6 byte
};

Vocab buildVocab(uint32_t n, bool gemma4Markers, const std::vector<std::string> &extraTokens)
{
    Vocab v;
    v.tokens.reserve(n);
    const auto add = [&](std::string token, float score, int32_t type) {
        if (v.tokens.size() >= n)
            return;
        v.tokens.push_back(std::move(token));
        v.scores.push_back(score);
        v.types.push_back(type);
    };
    add("<unk>", 0.0f, 2);
    add("<s>", 0.0f, 3);
    add("</s>", 0.0f, 3);
    if (gemma4Markers) {
        for (const char *control : {"<|turn>", "<turn|>", "<|think|>", "<|tool>", "<tool|>"})
            add(control, 0.0f, 3);
        for (const char *shown : {"<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>", "<|tool_response>",
                                  "<tool_response|>", "<|\"|>"})
            add(shown, 0.0f, 4);
    }
    for (const std::string &extra : extraTokens)
        add(extra, 0.0f, 4);
    if (n >= v.tokens.size() + 256) {
        static const char hex[] = "0123456789ABCDEF";
        for (int b = 0; b < 256; ++b)
            add(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">", 0.0f, 6);
    }
    // Pieces over a-z of growing length, each with and without the word mark.
    const std::string mark = "\xE2\x96\x81";   // U+2581
    float score = -1.0f;
    add(mark, score, 1);   // the word mark alone (a space the pieces do not cover)
    score -= 1.0f;
    for (size_t len = 1; v.tokens.size() < n; ++len) {
        std::vector<int> digits(len, 0);
        while (v.tokens.size() < n) {
            std::string piece;
            for (int d : digits)
                piece += static_cast<char>('a' + d);
            add(mark + piece, score, 1);
            score -= 1.0f;
            add(piece, score, 1);
            score -= 1.0f;
            size_t k = len;
            while (k > 0 && ++digits[k - 1] == 26)
                digits[--k] = 0;
            if (k == 0)
                break;   // all strings of this length done
        }
    }
    return v;
}

// The vocabulary ids of a script's pieces (checkSyntheticSpec: each present
// once), or the first piece missing from the vocabulary.
Result<std::vector<uint32_t>> scriptIds(const SyntheticSpec &spec, const ArchRules &r)
{
    const Vocab vocab = buildVocab(spec.shape.nVocab, r.gemma4, spec.extraTokens);
    std::vector<uint32_t> ids;
    for (const std::string &piece : spec.script) {
        const auto it = std::find(vocab.tokens.begin(), vocab.tokens.end(), piece);
        if (it == vocab.tokens.end())
            return Status::error("script piece '" + piece + "' is not in the vocabulary");
        const auto id = static_cast<uint32_t>(it - vocab.tokens.begin());
        if (std::find(ids.begin(), ids.end(), id) != ids.end())
            return Status::error("script piece '" + piece + "' comes twice (each piece must name its one successor)");
        ids.push_back(id);
    }
    return ids;
}

// Tensors a scripted model zeroes: every path from a layer back into the
// residual stream.
bool scriptZeroed(const std::string &name)
{
    for (const char *part : {".attn_output.", ".ffn_down.", ".ffn_down_exps.", ".ffn_down_shexp.", ".ssm_out.", ".proj."})
        if (name.find(part) != std::string::npos)
            return true;
    return false;
}

// --- the tensor list ---

// gemma4's tensors (model/weights.cpp binds them): the E-shape (per-layer
// inputs, shared KV layers that still carry K/V weights, as converted files
// do) and the 26B-A4B shape (a dense MLP beside fused gate|up experts, the
// router's input scale, per-expert output scales, no attn_v on global
// layers) from one shape.
void gemma4Tensors(const ArchRules &r, const SyntheticShape &s, std::vector<SyntheticTensor> &t)
{
    using Fill = SyntheticTensor::Fill;
    const auto add = [&](std::string name, std::vector<int64_t> dims, Fill fill = Fill::FILL_WEIGHT) {
        t.push_back({std::move(name), std::move(dims), fill});
    };
    const int64_t E = s.nEmbd, V = s.nVocab, P = s.nEmbdPerLayer, X = s.nExpert, FE = s.nFfExp;
    add("token_embd.weight", {E, V});
    add("output_norm.weight", {E}, Fill::FILL_NORM);
    if (hasOutput(r, s))
        add("output.weight", {E, V});
    add("rope_freqs.weight", {static_cast<int64_t>(headDimOf(s)) / 2}, Fill::FILL_ROPE_QUARTER);
    if (r.assistant) {
        const int64_t Et = s.nEmbdTarget;
        add("nextn.pre_projection.weight", {2 * Et, E});
        add("nextn.post_projection.weight", {E, Et});
    }
    if (P > 0) {
        add("per_layer_token_embd.weight", {P * s.nLayer, V});
        add("per_layer_model_proj.weight", {E, P * s.nLayer});
        add("per_layer_proj_norm.weight", {P}, Fill::FILL_NORM);
    }
    for (uint32_t l = 0; l < s.nLayer; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        const int64_t Dh = gemma4HeadDim(s, l), Q = Dh * s.nHead, KV = Dh * gemma4KvHeads(s, l), F = gemma4Ff(s, l);
        add(b + "attn_norm.weight", {E}, Fill::FILL_NORM);
        add(b + "attn_q.weight", {E, Q});
        if (!r.assistant)
            add(b + "attn_k.weight", {E, KV});
        if (!r.assistant && !(s.valueFromKeyGlobal && !gemma4Sliding(s, l)))
            add(b + "attn_v.weight", {E, KV});
        add(b + "attn_output.weight", {Q, E});
        add(b + "attn_q_norm.weight", {Dh}, Fill::FILL_NORM);
        if (!r.assistant)
            add(b + "attn_k_norm.weight", {Dh}, Fill::FILL_NORM);
        add(b + "post_attention_norm.weight", {E}, Fill::FILL_NORM);
        add(b + "ffn_norm.weight", {E}, Fill::FILL_NORM);
        add(b + "ffn_gate.weight", {E, F});
        add(b + "ffn_up.weight", {E, F});
        add(b + "ffn_down.weight", {F, E});
        add(b + "post_ffw_norm.weight", {E}, Fill::FILL_NORM);
        add(b + "layer_output_scale.weight", {1}, Fill::FILL_NORM);
        if (X > 0) {
            add(b + "ffn_gate_inp.weight", {E, X});
            add(b + "ffn_gate_inp.scale", {E}, Fill::FILL_NORM);
            add(b + "ffn_gate_up_exps.weight", {E, 2 * FE, X});
            add(b + "ffn_down_exps.weight", {FE, E, X});
            add(b + "ffn_down_exps.scale", {X}, Fill::FILL_NORM);
            add(b + "pre_ffw_norm_2.weight", {E}, Fill::FILL_NORM);
            add(b + "post_ffw_norm_1.weight", {E}, Fill::FILL_NORM);
            add(b + "post_ffw_norm_2.weight", {E}, Fill::FILL_NORM);
        }
        if (P > 0) {
            add(b + "inp_gate.weight", {E, P});
            add(b + "proj.weight", {P, E});
            add(b + "post_norm.weight", {E}, Fill::FILL_NORM);
        }
    }
}

// The scale tensors of an NVFP4 "scale2" file, for every layer matrix (not
// the embeddings, the output, the router).
void addTensorScales(std::vector<SyntheticTensor> &t)
{
    const size_t n = t.size();
    for (size_t i = 0; i < n; ++i) {
        const std::string name = t[i].name;
        const std::vector<int64_t> dims = t[i].dims;
        if (name.rfind("blk.", 0) != 0 || dims.size() < 2 || !name.ends_with(".weight") ||
            name.find("ffn_gate_inp") != std::string::npos || name.find("ssm_conv1d") != std::string::npos)
            continue;
        const std::string base = name.substr(0, name.size() - 7);
        const int64_t count = dims.size() >= 3 ? dims[2] : 1;
        t.push_back({base + ".scale", {count}, SyntheticTensor::Fill::FILL_NORM});
        t.push_back({base + ".input_scale", {count}, SyntheticTensor::Fill::FILL_NORM});
    }
}

std::vector<SyntheticTensor> allTensors(const ArchRules &r, const SyntheticShape &s)
{
    using Fill = SyntheticTensor::Fill;
    if (r.gemma4) {
        std::vector<SyntheticTensor> g;
        gemma4Tensors(r, s, g);
        return g;
    }
    const int64_t E = s.nEmbd, V = s.nVocab, Dh = headDimOf(s);
    const int64_t Q = Dh * s.nHead, KV = Dh * s.nHeadKv, F = s.nFf, X = s.nExpert, FE = s.nFfExp;
    std::vector<SyntheticTensor> t;
    const auto add = [&](std::string name, std::vector<int64_t> dims, Fill fill = Fill::FILL_WEIGHT) {
        t.push_back({std::move(name), std::move(dims), fill});
    };
    add("token_embd.weight", {E, V});
    add("output_norm.weight", {E}, Fill::FILL_NORM);
    if (hasOutput(r, s))
        add("output.weight", {E, V});
    const int64_t SS = s.ssmStateSize, SK = int64_t(s.ssmGroups) * SS, SV = int64_t(s.ssmHeads) * SS, SH = s.ssmHeads;
    for (uint32_t l = 0; l < s.nLayer + s.nextnLayers; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        const bool recurrent = l < s.nLayer && recurrentLayer(r, s, l);
        add(b + "attn_norm.weight", {E}, Fill::FILL_NORM);
        if (recurrent) {
            // Gated DeltaNet: q|k|v into a 4-tap convolution, the gate, the
            // decay (ssm_a, ssm_alpha, ssm_dt.bias) and step (ssm_beta) terms.
            add(b + "attn_qkv.weight", {E, 2 * SK + SV});
            add(b + "attn_gate.weight", {E, SV});
            add(b + "ssm_conv1d.weight", {kSsmConvKernel, 2 * SK + SV});
            add(b + "ssm_dt.bias", {SH});
            add(b + "ssm_a", {SH}, Fill::FILL_DECAY);
            add(b + "ssm_beta.weight", {E, SH});
            add(b + "ssm_alpha.weight", {E, SH});
            add(b + "ssm_norm.weight", {SS}, Fill::FILL_NORM);
            add(b + "ssm_out.weight", {SV, E});
        } else if (r.hybrid) {
            add(b + "attn_q.weight", {E, 2 * Q});   // query and gate per head
            add(b + "attn_k.weight", {E, KV});
            add(b + "attn_v.weight", {E, KV});
        } else if (r.fusedQkv) {
            add(b + "attn_qkv.weight", {E, Q + 2 * KV});
        } else {
            add(b + "attn_q.weight", {E, Q});
            add(b + "attn_k.weight", {E, KV});
            add(b + "attn_v.weight", {E, KV});
        }
        if (r.qkvBias) {
            add(b + "attn_q.bias", {Q});
            add(b + "attn_k.bias", {KV});
            add(b + "attn_v.bias", {KV});
        }
        if (!recurrent)
            add(b + "attn_output.weight", {Q, E});
        if (r.gptOss) {
            add(b + "attn_output.bias", {E});
            add(b + "attn_sinks.weight", {static_cast<int64_t>(s.nHead)});
        }
        if (r.qkNorm && !recurrent) {
            add(b + "attn_q_norm.weight", {Dh}, Fill::FILL_NORM);
            add(b + "attn_k_norm.weight", {Dh}, Fill::FILL_NORM);
        }
        add(b + (r.gptOss || r.hybrid ? "post_attention_norm.weight" : "ffn_norm.weight"), {E}, Fill::FILL_NORM);
        if (r.moe) {
            add(b + "ffn_gate_inp.weight", {E, X});
            add(b + "ffn_gate_exps.weight", {E, FE, X});
            add(b + "ffn_up_exps.weight", {E, FE, X});
            add(b + "ffn_down_exps.weight", {FE, E, X});
            if (r.gptOss) {
                add(b + "ffn_gate_inp.bias", {X});
                add(b + "ffn_gate_exps.bias", {FE, X});
                add(b + "ffn_up_exps.bias", {FE, X});
                add(b + "ffn_down_exps.bias", {E, X});
            }
            if (r.sharedExpert) {
                const int64_t FS = s.nFfShexp;
                add(b + "ffn_gate_inp_shexp.weight", {E});   // one gate row: sigmoid(w . h)
                add(b + "ffn_gate_shexp.weight", {E, FS});
                add(b + "ffn_up_shexp.weight", {E, FS});
                add(b + "ffn_down_shexp.weight", {FS, E});
            }
        } else if (r.fusedGateUp) {
            add(b + "ffn_up.weight", {E, 2 * F});
            add(b + "ffn_down.weight", {F, E});
        } else {
            add(b + "ffn_gate.weight", {E, F});
            add(b + "ffn_up.weight", {E, F});
            add(b + "ffn_down.weight", {F, E});
        }
        if (r.postNorms) {
            add(b + "post_attention_norm.weight", {E}, Fill::FILL_NORM);
            add(b + "post_ffw_norm.weight", {E}, Fill::FILL_NORM);
        }
        if (l >= s.nLayer) {   // a multi-token-prediction block's own tensors
            add(b + "nextn.eh_proj.weight", {2 * E, E});
            add(b + "nextn.enorm.weight", {E}, Fill::FILL_NORM);
            add(b + "nextn.hnorm.weight", {E}, Fill::FILL_NORM);
            add(b + "nextn.shared_head_norm.weight", {E}, Fill::FILL_NORM);
        }
    }
    if (s.tensorScales)
        addTensorScales(t);
    return t;
}

// gemma4's extra shape fields (zero for every other architecture): sizes in
// range, and shared KV layers the engine can map (block n - shared - 2
// sliding, n - shared - 1 global).
Status checkGemma4Shape(const std::string &arch, const ArchRules &r, const SyntheticShape &s)
{
    if (!r.gemma4) {
        if (s.headDimSwa != 0 || s.nHeadKvGlobal != 0 || s.nEmbdPerLayer != 0 || s.sharedKvLayers != 0 ||
            s.doubleWideMlp || s.valueFromKeyGlobal)
            return Status::error(arch + " has no per-layer head sizes, per-layer inputs or shared KV layers "
                                        "(those are gemma4's)");
    }
    if (!r.assistant && s.nEmbdTarget != 0)
        return Status::error(arch + " has no target embedding length (gemma4-assistant's)");
    if (!r.gemma4)
        return {};
    if (r.assistant) {
        if (s.nEmbdTarget < 1 || s.nEmbdTarget > 65536 || s.nEmbdTarget == s.nEmbd)
            return Status::error("target embedding length is " + std::to_string(s.nEmbdTarget) +
                                 ", expected 1..65536 and not the assistant's own " + std::to_string(s.nEmbd));
        if (s.nEmbdPerLayer != 0 || s.sharedKvLayers != 0 || s.doubleWideMlp || s.nExpert != 0 || s.valueFromKeyGlobal)
            return Status::error(arch + " has no per-layer inputs, shared KV layers or experts");
    }
    if (s.headDimSwa != 0 && (s.headDimSwa < 2 || s.headDimSwa > 4096 || s.headDimSwa % 2 != 0))
        return Status::error("sliding head size is " + std::to_string(s.headDimSwa) + ", expected an even number 2..4096");
    if (s.nHeadKvGlobal != 0 && (s.nHeadKvGlobal > s.nHead || s.nHead % s.nHeadKvGlobal != 0))
        return Status::error("head count " + std::to_string(s.nHead) + " is not a multiple of the global KV head count " +
                             std::to_string(s.nHeadKvGlobal));
    if (Status st = range("per-layer input length", s.nEmbdPerLayer, 0, 65536); !st)
        return st;
    if (Status st = range("sliding-window pattern", s.slidingPattern, 0, s.nLayer); !st)
        return st;
    if (s.sharedKvLayers != 0) {
        if (s.sharedKvLayers + 2 > s.nLayer)
            return Status::error("shared KV layers: " + std::to_string(s.sharedKvLayers) + " of " + std::to_string(s.nLayer) +
                                 " (at least 2 layers must keep their own keys and values)");
        const uint32_t first = s.nLayer - s.sharedKvLayers;
        if (!gemma4Sliding(s, first - 2) || gemma4Sliding(s, first - 1))
            return Status::error("shared KV layers: layer " + std::to_string(first - 2) + " must be sliding and layer " +
                                 std::to_string(first - 1) + " global (they lend their keys and values)");
    }
    return {};
}

// The reference's file order, with dropped tensors removed (lastTensors not applied).
std::vector<SyntheticTensor> referenceOrder(const SyntheticSpec &spec)
{
    const ArchRules &r = *rulesFor(spec.arch);
    std::vector<SyntheticTensor> all = allTensors(r, spec.shape);
    std::vector<std::string> names;
    for (const SyntheticTensor &t : all)
        if (!spec.dropTensors.count(t.name))
            names.push_back(t.name);
    QuantMix::sortTensorNames(names);
    std::vector<SyntheticTensor> out;
    out.reserve(names.size());
    for (const std::string &n : names)
        for (const SyntheticTensor &t : all)
            if (t.name == n) {
                out.push_back(t);
                if (auto it = spec.tensorShapes.find(n); it != spec.tensorShapes.end() && !it->second.empty())
                    out.back().dims = it->second;
                break;
            }
    return out;
}

struct Planned {
    SyntheticTensor tensor;
    GgmlType type = GgmlType::GGML_TYPE_F32;
};

// Rows [r0, r1) of the planned tensor, generated and quantized into `out`,
// which holds the chunk that starts at row chunkStart.
void generateRows(const SyntheticSpec &spec, const Planned &p, const quant::TypeTraits *traits, size_t rowBytes,
                  int64_t r0, int64_t r1, int64_t chunkStart, uint8_t *out)
{
    const int64_t ne0 = p.tensor.dims[0];
    std::vector<float> row(static_cast<size_t>(ne0));
    const uint64_t h = nameHash(p.tensor.name);
    const bool scripted = !spec.script.empty();
    const bool zeroed = scripted && scriptZeroed(p.tensor.name);
    // An MTP block's eh_proj passes the embedding half through (row r: 1 at
    // column r), so the block guesses what the trunk will say next.
    const bool passEmbedding = scripted && p.tensor.name.find(".nextn.eh_proj.") != std::string::npos;
    std::vector<uint32_t> ids;   // the script's successor rows of output.weight
    if (scripted && p.tensor.name == "output.weight")
        if (auto got = scriptIds(spec, *rulesFor(spec.arch)))
            ids = std::move(got.value());
    for (int64_t r = r0; r < r1; ++r) {
        RowRng rng(spec.seed, h, static_cast<uint64_t>(r));
        fillRow(row.data(), ne0, p.tensor.fill, rng);
        if (zeroed || passEmbedding)
            std::fill(row.begin(), row.end(), 0.0f);
        if (passEmbedding && r < ne0)
            row[static_cast<size_t>(r)] = 1.0f;
        for (size_t i = 1; i < ids.size(); ++i)
            if (ids[i] == static_cast<uint32_t>(r)) {   // this row follows piece i - 1: its embedding, scaled
                RowRng embd(spec.seed, nameHash("token_embd.weight"), ids[i - 1]);
                fillRow(row.data(), ne0, SyntheticTensor::Fill::FILL_WEIGHT, embd);
                for (float &v : row)
                    v *= 1000.0f / static_cast<float>(ne0);
            }
        traits->quantize(row.data(), out + static_cast<size_t>(r - chunkStart) * rowBytes, ne0);
    }
}

constexpr size_t kChunkBytes = size_t(64) << 20;

// gemma4's own keys: the sliding layers (a bool per layer, or the test's i32
// array), their head size and rotated dims, the RoPE bases, per-layer
// inputs, shared KV layers, the final softcap.
template <typename U32>
void gemma4Metadata(const ArchRules &r, const SyntheticShape &s, gguf::GgufWriter &w, const U32 &u32,
                    std::map<std::string, std::vector<int32_t>> &arrayOverrides)
{
    const std::string p = std::string(r.name) + ".";
    const std::string patternKey = p + "attention.sliding_window_pattern";
    if (auto it = arrayOverrides.find(patternKey); it != arrayOverrides.end()) {
        w.addArray(patternKey, ValueType::VALUE_TYPE_I32, it->second);
        arrayOverrides.erase(it);
    } else {
        std::vector<uint8_t> flags;
        for (uint32_t il = 0; il < s.nLayer; ++il)
            flags.push_back(gemma4Sliding(s, il) ? 1 : 0);
        w.addScalarArray(patternKey, ValueType::VALUE_TYPE_BOOL, flags.data(), flags.size());
    }
    const uint32_t swa = s.headDimSwa != 0 ? s.headDimSwa : headDimOf(s);
    u32(p + "attention.key_length_swa", swa);
    u32(p + "attention.value_length_swa", swa);
    u32(p + "rope.dimension_count_swa", swa);
    w.addF32(p + "rope.freq_base_swa", 10000.0f);
    if (r.assistant) {   // as the reference's converter: the backbone's width, every block predicting
        u32(p + "embedding_length_out", s.nEmbdTarget);
        u32(p + "nextn_predict_layers", s.nLayer);
        return;
    }
    u32(p + "embedding_length_per_layer_input", s.nEmbdPerLayer);
    u32(p + "attention.shared_kv_layers", s.sharedKvLayers);
    w.addF32(p + "final_logit_softcapping", 30.0f);
}

} // namespace

Status checkSyntheticSpec(const SyntheticSpec &spec)
{
    const ArchRules *r = rulesFor(spec.arch);
    if (!r || !findArchitecture(spec.arch))
        return Status::error("architecture '" + spec.arch + "' is not supported (supported: " +
                             supportedArchitectureList() + ")");
    if (!findQuantFileType(spec.fileType))
        return Status::error("file type '" + spec.fileType + "' is not one of: " + quantFileTypeNames());
    const SyntheticShape &s = spec.shape;
    if (Status st = range("embedding length", s.nEmbd, 1, 65536); !st)
        return st;
    if (Status st = range("layer count", s.nLayer, 1, 512); !st)
        return st;
    if (Status st = range("head count", s.nHead, 1, 1024); !st)
        return st;
    if (Status st = range("KV head count", s.nHeadKv, 1, s.nHead); !st)
        return st;
    if (s.nHead % s.nHeadKv != 0)
        return Status::error("head count " + std::to_string(s.nHead) + " is not a multiple of the KV head count " +
                             std::to_string(s.nHeadKv));
    if (s.headDim == 0 && s.nEmbd % s.nHead != 0)
        return Status::error("embedding length " + std::to_string(s.nEmbd) + " is not a multiple of the head count " +
                             std::to_string(s.nHead) + " (give a head size)");
    const uint32_t dh = headDimOf(s);
    if (dh < 2 || dh > 4096 || dh % 2 != 0)
        return Status::error("head size is " + std::to_string(dh) + ", expected an even number 2..4096");
    if (Status st = range("vocabulary size", s.nVocab, 8, 1u << 21); !st)
        return st;
    if (Status st = range("context length", s.nCtx, 1, 1u << 24); !st)
        return st;
    if (Status st = range("FFN length", s.nFf, r->moe ? 0 : 1, 1u << 20); !st)
        return st;
    if (Status st = checkGemma4Shape(spec.arch, *r, s); !st)
        return st;
    if (r->moe || (r->gemma4 && s.nExpert != 0)) {
        if (Status st = range("expert count", s.nExpert, 1, 512); !st)
            return st;
        if (Status st = range("active expert count", s.nExpertUsed, 1, s.nExpert); !st)
            return st;
        if (Status st = range("expert FFN length", s.nFfExp, 1, 1u << 20); !st)
            return st;
    } else if (s.nExpert != 0 || s.nExpertUsed != 0 || s.nFfExp != 0) {
        return Status::error(spec.arch + " has no experts (expert count, active experts and expert FFN length must be 0)");
    }
    if (r->sharedExpert) {
        if (Status st = range("shared expert FFN length", s.nFfShexp, 1, 1u << 20); !st)
            return st;
    } else if (s.nFfShexp != 0) {
        return Status::error(spec.arch + " has no shared expert (shared expert FFN length must be 0)");
    }
    if (r->hybrid) {
        if (Status st = range("DeltaNet state size", s.ssmStateSize, 1, 1024); !st)
            return st;
        if (Status st = range("DeltaNet key head count", s.ssmGroups, 1, 1024); !st)
            return st;
        if (Status st = range("DeltaNet value head count", s.ssmHeads, 1, 1024); !st)
            return st;
        if (s.ssmHeads % s.ssmGroups != 0)
            return Status::error("DeltaNet value head count " + std::to_string(s.ssmHeads) +
                                 " is not a multiple of the key head count " + std::to_string(s.ssmGroups));
        if (Status st = range("attention interval", s.attentionInterval, 0, 1024); !st)
            return st;
        if (dh < 8)
            return Status::error("head size is " + std::to_string(dh) + ", expected 8 or more (a quarter is rotated)");
        if (Status st = range("multi-token-prediction layer count", s.nextnLayers, 0, 1); !st)
            return st;
    } else if (s.ssmStateSize != 0 || s.ssmGroups != 0 || s.ssmHeads != 0 || s.attentionInterval != 0) {
        return Status::error(spec.arch + " has no recurrent layers (DeltaNet sizes and attention interval must be 0)");
    }
    if (!r->hybrid && s.nextnLayers != 0)
        return Status::error(spec.arch + " has no multi-token-prediction layers (qwen35 and qwen35moe have)");
    if (r->sliding == 1 && s.slidingWindow == 0)
        return Status::error(spec.arch + " needs a sliding window (> 0)");
    if (r->sliding == 0 && (s.slidingWindow != 0 || s.slidingPattern != 0))
        return Status::error(spec.arch + " has no sliding-window attention (window and pattern must be 0)");
    if (Status st = range("sliding-window pattern", s.slidingPattern, 0, s.nLayer); !st)
        return st;
    if (!(s.ropeFreqBase >= 0.0f) || !std::isfinite(s.ropeFreqBase))
        return Status::error("RoPE base must be a positive number (0: the architecture's)");
    // Total elements bounded (2^40) so every size below fits comfortably.
    uint64_t total = 0;
    for (const SyntheticTensor &t : allTensors(*r, s)) {
        uint64_t n = 1;
        for (int64_t d : t.dims)
            if (!checkedMul<uint64_t>(n, static_cast<uint64_t>(d), &n))
                return Status::error("tensor '" + t.name + "' is too large");
        if (!checkedAdd<uint64_t>(total, n, &total) || total > (uint64_t(1) << 40))
            return Status::error("the model would have more than 2^40 parameters");
    }
    if (spec.extraTokens.size() > 64)
        return Status::error("at most 64 extra tokens, got " + std::to_string(spec.extraTokens.size()));
    for (size_t i = 0; i < spec.extraTokens.size(); ++i) {
        const std::string &t = spec.extraTokens[i];
        if (t.empty() || t.size() > 1024)
            return Status::error("extra token " + std::to_string(i + 1) + " is empty or longer than 1024 bytes");
        if (std::find(spec.extraTokens.begin(), spec.extraTokens.begin() + static_cast<std::ptrdiff_t>(i), t) !=
            spec.extraTokens.begin() + static_cast<std::ptrdiff_t>(i))
            return Status::error("extra token '" + t + "' comes twice");
    }
    if (!spec.script.empty()) {
        if (spec.script.size() < 2)
            return Status::error("a script needs a trigger piece and at least one piece after it");
        if (!hasOutput(*r, s))
            return Status::error("a scripted model needs its own output matrix (untied; " + spec.arch +
                                 (r->outputNever ? " has none)" : ": --untied)"));
        if (auto ids = scriptIds(spec, *r); !ids)
            return ids.status();
    }
    return {};
}

SyntheticSpec assistantSpecFor(const SyntheticSpec &target)
{
    const SyntheticShape &t = target.shape;
    SyntheticSpec a;
    a.arch = "gemma4-assistant";
    a.fileType = target.fileType;
    a.seed = target.seed * 31 + 17;
    a.threads = target.threads;
    a.extraTokens = target.extraTokens;
    a.name = (target.name.empty() ? "synthetic-" + target.arch : target.name) + "-assistant";
    SyntheticShape &s = a.shape;
    s.nEmbd = std::max(64u, (t.nEmbd / 4 + 31) / 32 * 32);
    s.nLayer = 4;
    s.slidingPattern = 4;   // S S S G
    s.nHead = t.nHead;
    s.nHeadKv = t.nHeadKv;
    s.nHeadKvGlobal = t.nHeadKvGlobal;
    s.headDim = headDimOf(t);
    s.headDimSwa = t.headDimSwa;
    s.nFf = 4 * s.nEmbd;
    s.nVocab = t.nVocab;
    s.nCtx = t.nCtx;
    s.slidingWindow = t.slidingWindow;
    s.ropeFreqBase = t.ropeFreqBase;
    s.tiedOutput = true;
    s.nEmbdTarget = t.nEmbd;
    return a;
}

std::vector<SyntheticTensor> syntheticTensors(const SyntheticSpec &spec)
{
    std::vector<SyntheticTensor> t = referenceOrder(spec);
    for (const std::string &last : spec.lastTensors) {
        const auto it = std::find_if(t.begin(), t.end(), [&](const SyntheticTensor &x) { return x.name == last; });
        if (it == t.end())
            continue;
        SyntheticTensor moved = *it;
        t.erase(it);
        t.push_back(std::move(moved));
    }
    return t;
}

namespace {

// Everything but the data: the types, the metadata and the tensor infos in
// `out`, the plan in file order, the summary.
Status prepare(const SyntheticSpec &spec, gguf::GgufStreamWriter &out, std::vector<Planned> &plan,
               SyntheticSummary &summary)
{
    if (Status s = checkSyntheticSpec(spec); !s)
        return s;
    const ArchRules &r = *rulesFor(spec.arch);
    const SyntheticShape &s = spec.shape;
    const QuantFileType &ft = *findQuantFileType(spec.fileType);

    // Types, from the mix in the reference's order.
    std::vector<SyntheticTensor> ordered = referenceOrder(spec);
    QuantMixModel mm;
    mm.nLayer = static_cast<int>(s.nLayer + s.nextnLayers);
    mm.hasOutput = false;
    for (const SyntheticTensor &t : ordered) {
        if (t.name.find("attn_v.weight") != std::string::npos || t.name.find("attn_qkv.weight") != std::string::npos)
            ++mm.nAttentionV;
        if (t.name == "output.weight")
            mm.hasOutput = true;
    }
    mm.nExpert = static_cast<int>(s.nExpert);
    mm.nGqa = static_cast<int>(s.nHead / s.nHeadKv);
    QuantMix mix(ft, mm);
    plan.clear();
    plan.reserve(ordered.size());
    for (const SyntheticTensor &t : ordered) {
        Planned p{t, GgmlType::GGML_TYPE_F32};
        if (QuantMix::isQuantizable(t.name, static_cast<uint32_t>(t.dims.size()))) {
            auto type = mix.tensorType(t.name, t.dims[0], t.dims.size() >= 3 ? t.dims[2] : 1);
            if (!type)
                return type.status();
            p.type = type.value();
        }
        const quant::TypeTraits *traits = quant::typeTraits(p.type);
        if (!traits || !traits->quantize)
            return Status::error("tensor '" + t.name + "': no quantizer for type " + ggmlTypeName(p.type));
        plan.push_back(std::move(p));
    }
    for (const std::string &last : spec.lastTensors) {
        const auto it = std::find_if(plan.begin(), plan.end(), [&](const Planned &x) { return x.tensor.name == last; });
        if (it == plan.end())
            continue;
        Planned moved = *it;
        plan.erase(it);
        plan.push_back(std::move(moved));
    }

    // Metadata.
    gguf::GgufWriter &w = out.metadata();
    std::map<std::string, uint32_t> overrides = spec.u32Keys;
    std::map<std::string, std::vector<int32_t>> arrayOverrides = spec.i32ArrayKeys;
    // A key the test overrides gets its value (and leaves the map: what is
    // left there is added after the standard keys).
    const auto takeOverride = [](auto &map, const std::string &key, auto &value) {
        if (auto it = map.find(key); it != map.end()) {
            value = it->second;
            map.erase(it);
        }
    };
    const auto i32Array = [&](const std::string &key, std::vector<int32_t> values) {
        takeOverride(arrayOverrides, key, values);
        w.addArray(key, ValueType::VALUE_TYPE_I32, values);
    };
    const auto u32 = [&](const std::string &key, uint32_t value) {
        takeOverride(overrides, key, value);
        w.addU32(key, value);
    };
    const std::string p = spec.arch + ".";
    const uint32_t dh = headDimOf(s);
    w.addString("general.architecture", spec.arch);
    w.addString("general.name", spec.name.empty() ? "synthetic-" + spec.arch : spec.name);
    u32(p + "context_length", s.nCtx);
    u32(p + "embedding_length", s.nEmbd);
    u32(p + "block_count", s.nLayer + s.nextnLayers);
    if (s.nextnLayers > 0)
        u32(p + "nextn_predict_layers", s.nextnLayers);
    if (r.gemma4 && s.doubleWideMlp) {
        std::vector<int32_t> ff;
        for (uint32_t il = 0; il < s.nLayer; ++il)
            ff.push_back(static_cast<int32_t>(gemma4Ff(s, il)));
        i32Array(p + "feed_forward_length", ff);
    } else if (s.nFf > 0) {
        u32(p + "feed_forward_length", s.nFf);
    }
    u32(p + "attention.head_count", s.nHead);
    if (r.gemma4 && s.nHeadKvGlobal != 0) {
        std::vector<int32_t> kv;
        for (uint32_t il = 0; il < s.nLayer; ++il)
            kv.push_back(static_cast<int32_t>(gemma4KvHeads(s, il)));
        i32Array(p + "attention.head_count_kv", kv);
    } else {
        u32(p + "attention.head_count_kv", s.nHeadKv);
    }
    if (r.writeHeadDims || dh * s.nHead != s.nEmbd) {
        u32(p + "attention.key_length", dh);
        u32(p + "attention.value_length", dh);
    }
    w.addF32(p + "attention.layer_norm_rms_epsilon", r.rmsEps);
    u32(p + "rope.dimension_count", r.hybrid ? hybridRopeDims(dh) : dh);
    w.addF32(p + "rope.freq_base", s.ropeFreqBase > 0.0f ? s.ropeFreqBase : r.ropeBase);
    if (r.hybrid) {
        // The rotated pairs over the text sections, as Qwen3.5's [11, 11, 10, 0] of 32.
        const int32_t pairs = static_cast<int32_t>(hybridRopeDims(dh) / 2);
        i32Array(p + "rope.dimension_sections", {(pairs + 2) / 3, (pairs + 1) / 3, pairs / 3, 0});
        u32(p + "full_attention_interval", attentionIntervalOf(s));
        u32(p + "ssm.conv_kernel", static_cast<uint32_t>(kSsmConvKernel));
        u32(p + "ssm.state_size", s.ssmStateSize);
        u32(p + "ssm.group_count", s.ssmGroups);
        u32(p + "ssm.time_step_rank", s.ssmHeads);
        u32(p + "ssm.inner_size", s.ssmHeads * s.ssmStateSize);
    }
    if (spec.arch == "gemma2") {
        w.addF32(p + "attn_logit_softcapping", 50.0f);
        w.addF32(p + "final_logit_softcapping", 30.0f);
    }
    if (spec.arch == "gemma3") {
        w.addString(p + "rope.scaling.type", "linear");
        w.addF32(p + "rope.scaling.factor", 8.0f);
    }
    if (spec.arch == "gpt-oss") {
        // Static YaRN as the real model (factor 32 over a 32x shorter original context).
        w.addString(p + "rope.scaling.type", "yarn");
        w.addF32(p + "rope.scaling.factor", 32.0f);
        u32(p + "rope.scaling.original_context_length", std::max(1u, s.nCtx / 32));
    }
    if (r.sliding != 0 && s.slidingWindow > 0) {
        u32(p + "attention.sliding_window", s.slidingWindow);
        if (spec.arch == "gemma3")
            w.addF32(p + "rope.freq_base_swa", 10000.0f);
    }
    if (r.gemma4)
        gemma4Metadata(r, s, w, u32, arrayOverrides);
    else if (s.slidingPattern > 0)
        u32(p + "attention.sliding_window_pattern", s.slidingPattern);
    if (r.moe || (r.gemma4 && s.nExpert > 0)) {
        u32(p + "expert_count", s.nExpert);
        u32(p + "expert_used_count", s.nExpertUsed);
        u32(p + "expert_feed_forward_length", s.nFfExp);
        if (r.sharedExpert)
            u32(p + "expert_shared_feed_forward_length", s.nFfShexp);
    }
    const Vocab vocab = buildVocab(s.nVocab, r.gemma4, spec.extraTokens);
    w.addString("tokenizer.ggml.model", "llama");
    if (!spec.chatTemplate.empty())
        w.addString("tokenizer.chat_template", spec.chatTemplate);
    w.addStringArray("tokenizer.ggml.tokens", vocab.tokens);
    w.addArray("tokenizer.ggml.scores", ValueType::VALUE_TYPE_F32, vocab.scores);
    w.addArray("tokenizer.ggml.token_type", ValueType::VALUE_TYPE_I32, vocab.types);
    u32("tokenizer.ggml.bos_token_id", 1);
    u32("tokenizer.ggml.eos_token_id", 2);
    u32("tokenizer.ggml.unknown_token_id", 0);
    u32("general.quantization_version", 2);
    u32("general.file_type", ft.id);
    for (const auto &[key, value] : overrides)   // the ones not among the standard keys
        w.addU32(key, value);
    for (const auto &[key, values] : arrayOverrides)
        w.addArray(key, ValueType::VALUE_TYPE_I32, values);

    // Tensor infos, then data.
    summary = {};
    for (const Planned &pl : plan) {
        if (Status st = out.declareTensor(pl.tensor.name, pl.type, pl.tensor.dims); !st)
            return st;
        uint64_t n = 1;
        for (int64_t d : pl.tensor.dims)
            n *= static_cast<uint64_t>(d);   // bounded by checkSyntheticSpec
        summary.parameters += n;
        ++summary.tensorTypes[ggmlTypeName(pl.type)];
    }
    summary.tensors = static_cast<int>(plan.size());
    summary.fileBytes = out.fileBytes();
    return {};
}

} // namespace

Result<SyntheticSummary> planSyntheticModel(const SyntheticSpec &spec)
{
    gguf::GgufStreamWriter out;
    std::vector<Planned> plan;
    SyntheticSummary summary;
    if (Status s = prepare(spec, out, plan, summary); !s)
        return s;
    return summary;
}

Result<SyntheticSummary> writeSyntheticModel(const SyntheticSpec &spec, const std::string &path)
{
    gguf::GgufStreamWriter out;
    std::vector<Planned> plan;
    SyntheticSummary summary;
    if (Status s = prepare(spec, out, plan, summary); !s)
        return s;
    if (Status st = out.begin(path); !st)
        return st;

    int threads = spec.threads > 0 ? spec.threads : static_cast<int>(std::thread::hardware_concurrency());
    threads = std::max(1, std::min(threads, 256));
    std::vector<uint8_t> buffer;
    for (size_t k = 0; k < plan.size(); ++k) {
        const Planned &pl = plan[k];
        const quant::TypeTraits *traits = quant::typeTraits(pl.type);
        const int64_t ne0 = pl.tensor.dims[0];
        int64_t rows = 1;
        for (size_t d = 1; d < pl.tensor.dims.size(); ++d)
            rows *= pl.tensor.dims[d];
        size_t rowBytes = 0;
        if (!ggmlRowBytes(pl.type, ne0, &rowBytes) || rowBytes == 0)
            return Status::error(path + ": tensor '" + pl.tensor.name + "': bad row size");
        const int64_t chunkRows = std::max<int64_t>(1, std::min<int64_t>(rows, static_cast<int64_t>(kChunkBytes / rowBytes)));
        buffer.resize(static_cast<size_t>(chunkRows) * rowBytes);
        for (int64_t c0 = 0; c0 < rows; c0 += chunkRows) {
            const int64_t c1 = std::min(rows, c0 + chunkRows);
            const int64_t n = c1 - c0;
            const int64_t nt = std::min<int64_t>(threads, std::max<int64_t>(1, n / 4));
            std::vector<std::thread> workers;
            for (int64_t t = 1; t < nt; ++t)
                workers.emplace_back(generateRows, std::cref(spec), std::cref(pl), traits, rowBytes, c0 + n * t / nt,
                                     c0 + n * (t + 1) / nt, c0, buffer.data());
            generateRows(spec, pl, traits, rowBytes, c0, c0 + n / nt, c0, buffer.data());
            for (std::thread &wk : workers)
                wk.join();
            if (Status st = out.writeData(buffer.data(), static_cast<size_t>(n) * rowBytes); !st)
                return st;
        }
        if (spec.onTensor) {
            SyntheticTensorReport rep;
            rep.index = static_cast<int>(k);
            rep.count = summary.tensors;
            rep.name = pl.tensor.name;
            rep.type = pl.type;
            rep.dims = pl.tensor.dims;
            rep.bytes = out.tensorBytes(k);
            spec.onTensor(rep);
        }
    }
    if (Status st = out.finish(); !st)
        return st;
    return summary;
}

} // namespace burrow::model
