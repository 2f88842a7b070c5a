// The named shapes of burrow-cli synth (model/synthetic_model.h): the
// benchmark models of docs/benchmarks.md and one small model per
// architecture for tests. Parameter counts below count every tensor element
// (as burrow-cli info does); "active" is what one token reads.
#include "model/synthetic_model.h"

namespace burrow::model {

namespace {

// {nEmbd, nLayer, nHead, nHeadKv, headDim, nFf, nExpert, nExpertUsed, nFfExp,
//  nVocab, nCtx, slidingWindow, slidingPattern, tiedOutput, ropeFreqBase}
SyntheticShape shape(uint32_t embd, uint32_t layers, uint32_t heads, uint32_t kvHeads, uint32_t headDim,
                     uint32_t ff, uint32_t vocab, uint32_t ctx)
{
    SyntheticShape s;
    s.nEmbd = embd;
    s.nLayer = layers;
    s.nHead = heads;
    s.nHeadKv = kvHeads;
    s.headDim = headDim;
    s.nFf = ff;
    s.nVocab = vocab;
    s.nCtx = ctx;
    return s;
}

SyntheticShape withExperts(SyntheticShape s, uint32_t experts, uint32_t used, uint32_t ffExp)
{
    s.nExpert = experts;
    s.nExpertUsed = used;
    s.nFfExp = ffExp;
    return s;
}

SyntheticShape withWindow(SyntheticShape s, uint32_t window)
{
    s.slidingWindow = window;
    return s;
}

SyntheticShape tied(SyntheticShape s)
{
    s.tiedOutput = true;
    return s;
}

// qwen35*: Gated DeltaNet heads (state size, key heads, value heads) and the attention interval.
SyntheticShape withDeltaNet(SyntheticShape s, uint32_t state, uint32_t keyHeads, uint32_t valueHeads,
                            uint32_t interval = 0)
{
    s.ssmStateSize = state;
    s.ssmGroups = keyHeads;
    s.ssmHeads = valueHeads;
    s.attentionInterval = interval;
    return s;
}

SyntheticShape withSharedExpert(SyntheticShape s, uint32_t ff)
{
    s.nFfShexp = ff;
    return s;
}

SyntheticShape withBase(SyntheticShape s, float base)
{
    s.ropeFreqBase = base;
    return s;
}

// gemma4: the sliding layers' head size and period, per-layer inputs, shared
// KV layers (E-shapes: with the double-wide MLP on them).
SyntheticShape gemma4(SyntheticShape s, uint32_t window, uint32_t period, uint32_t headDimSwa, uint32_t perLayer,
                      uint32_t sharedKv, bool doubleWide = false)
{
    s.slidingWindow = window;
    s.slidingPattern = period;
    s.headDimSwa = headDimSwa;
    s.nEmbdPerLayer = perLayer;
    s.sharedKvLayers = sharedKv;
    s.doubleWideMlp = doubleWide;
    return s;
}

// gemma4 26B-A4B's global layers: fewer KV heads, V = K.
SyntheticShape globalKv(SyntheticShape s, uint32_t kvHeads)
{
    s.nHeadKvGlobal = kvHeads;
    s.valueFromKeyGlobal = true;
    return s;
}

} // namespace

const std::vector<SyntheticPreset> &syntheticPresets()
{
    static const std::vector<SyntheticPreset> presets = {
        // Benchmark models (scripts/make-models.sh).
        {"llama-1.1b", "llama", shape(2048, 22, 32, 4, 0, 5632, 32000, 2048),
         "TinyLlama shape: 2048 embd, 22 layers, 32/4 heads, FFN 5632, vocab 32000 (1.10 B)"},
        {"llama-3b", "llama", withBase(tied(shape(3072, 28, 24, 8, 0, 8192, 32000, 8192)), 500000.0f),
         "Llama-3.2-3B shape: 3072 embd, 28 layers, 24/8 heads, FFN 8192, vocab 32000, tied (2.92 B)"},
        {"qwen3moe-1b", "qwen3moe", withExperts(shape(1024, 9, 16, 4, 128, 0, 32000, 32768), 64, 8, 512),
         "1024 embd, 9 layers, 16/4 heads of 128, 64 experts of 512 (8 active), vocab 32000 (1.02 B, 0.23 B active)"},
        {"dense-for-qwen3moe-1b", "qwen3", shape(1024, 9, 16, 4, 128, 4096, 32000, 32768),
         "qwen3 with qwen3moe-1b's active size: its attention, one FFN of 4096 = 8 x 512 (0.23 B)"},
        {"qwen35-1b", "qwen35", withDeltaNet(tied(shape(1536, 24, 8, 2, 256, 6144, 32000, 32768)), 128, 16, 16),
         "Qwen3.5 shape: 1536 embd, 24 layers (3 of 4 Gated DeltaNet, 16 heads of 128), 8/2 heads of 256, FFN 6144, "
         "vocab 32000, tied (1.08 B)"},
        {"qwen35-1b-recurrent", "qwen35", withDeltaNet(tied(shape(1536, 24, 8, 2, 256, 6144, 32000, 32768)), 128, 16, 16, 25),
         "qwen35-1b with every layer Gated DeltaNet (per-layer comparison)"},
        {"qwen35-1b-attention", "qwen35", withDeltaNet(tied(shape(1536, 24, 8, 2, 256, 6144, 32000, 32768)), 128, 16, 16, 1),
         "qwen35-1b with every layer gated attention (per-layer comparison)"},
        {"gemma4-e4b", "gemma4", gemma4(tied(shape(2560, 42, 8, 2, 512, 10240, 32000, 32768)), 512, 6, 256, 256, 18),
         "Gemma 4 E4B shape: 2560 embd, 42 layers (5 of 6 sliding, window 512), 8/2 heads of 256 (global 512), "
         "FFN 10240, per-layer inputs of 256, the last 18 layers sharing KV, vocab 32000, tied (4.45 B)"},
        {"gemma4-26b-a4b", "gemma4",
         globalKv(withExperts(gemma4(tied(shape(2816, 30, 16, 8, 512, 2112, 32000, 32768)), 1024, 6, 256, 0, 0), 128, 8, 704), 2),
         "Gemma 4 26B-A4B shape: 2816 embd, 30 layers (5 of 6 sliding, window 1024), 16/8 heads of 256 (global 512, "
         "2 KV heads, V = K), a dense FFN of 2112 beside 128 experts of 704 (8 active), vocab 32000, tied "
         "(24.59 B, 3.17 B active)"},
        {"gemma4-e-1b", "gemma4", gemma4(tied(shape(1536, 24, 8, 2, 256, 6144, 32000, 32768)), 512, 6, 128, 128, 6),
         "gemma4-e4b's structure at 1 B: 1536 embd, 24 layers, 8/2 heads of 128 (global 256), FFN 6144, per-layer "
         "inputs of 128, the last 6 layers sharing KV (0.95 B)"},
        {"gemma4moe-1b", "gemma4",
         globalKv(withExperts(gemma4(tied(shape(1024, 12, 8, 4, 256, 768, 32000, 32768)), 1024, 6, 128, 0, 0), 64, 8, 256), 1),
         "gemma4-26b-a4b's structure at 1 B: 1024 embd, 12 layers, 8/4 heads of 128 (global 256, 1 KV head), a dense "
         "FFN of 768 beside 64 experts of 256 (8 active) (0.71 B, 0.18 B active)"},
        // Small models for tests: 256 embd, a 512-token vocabulary.
        {"llama-tiny", "llama", shape(256, 2, 8, 4, 0, 768, 512, 512), "llama, 2 layers, 8/4 heads"},
        {"qwen2-tiny", "qwen2", shape(256, 2, 8, 4, 0, 768, 512, 512), "qwen2 (Q/K/V biases), 2 layers"},
        {"phi3-tiny", "phi3", shape(256, 2, 8, 8, 0, 768, 512, 512), "phi3 (fused QKV and gate|up), 2 layers"},
        {"gemma2-tiny", "gemma2", withWindow(shape(256, 2, 4, 2, 64, 512, 512, 1024), 16),
         "gemma2 (softcaps, post-norms), 2 layers, window 16 on layer 0"},
        {"qwen3-tiny", "qwen3", tied(shape(256, 3, 4, 2, 128, 768, 512, 1024)),
         "qwen3 (Q/K norms, 4 heads of 128 over 256 embd), 3 layers, tied"},
        {"qwen3moe-tiny", "qwen3moe", withExperts(shape(256, 2, 4, 2, 128, 768, 512, 1024), 8, 2, 256),
         "qwen3moe, 2 layers, 8 experts of 256 (2 active)"},
        {"gemma3-tiny", "gemma3", tied(withWindow(shape(256, 6, 4, 2, 128, 512, 512, 1024), 16)),
         "gemma3, 6 layers, window 16 on five of six"},
        {"gpt-oss-tiny", "gpt-oss", withExperts(withWindow(shape(256, 4, 8, 2, 64, 256, 512, 1024), 8), 8, 2, 256),
         "gpt-oss (sinks, biases, YaRN), 4 layers, window 8 on even layers, 8 experts (2 active)"},
        // The shapes of ../shared/models/synthetic-2026/qwen35*.gguf.
        {"qwen35-tiny", "qwen35", withDeltaNet(tied(shape(256, 4, 2, 1, 128, 512, 512, 1024)), 64, 2, 4),
         "qwen35, 4 layers (3 Gated DeltaNet: 2 key / 4 value heads of 64, then gated attention), tied"},
        {"qwen35moe-tiny", "qwen35moe",
         withSharedExpert(withDeltaNet(tied(withExperts(shape(256, 4, 2, 1, 128, 512, 512, 1024), 8, 2, 256)), 64, 2, 4), 256),
         "qwen35moe, 4 layers as qwen35-tiny, 8 experts of 256 (2 active) and a shared expert of 256"},
        // The shapes of ../shared/models/synthetic-2026/gemma4*.gguf.
        {"gemma4-tiny", "gemma4", gemma4(tied(shape(256, 6, 4, 2, 128, 256, 512, 1024)), 16, 3, 64, 128, 3, true),
         "gemma4 E-shape: 6 layers (S S G S S G, window 16), heads of 64 / 128 (global), per-layer inputs of 128, "
         "the last 3 layers sharing KV with a double-wide FFN, tied"},
        {"gemma4moe-tiny", "gemma4",
         globalKv(withExperts(gemma4(tied(shape(256, 5, 4, 2, 128, 256, 512, 1024)), 16, 5, 64, 0, 0), 8, 2, 256), 1),
         "gemma4 26B-A4B shape: 5 layers (the last global, 1 KV head, V = K), a dense FFN of 256 beside 8 experts of "
         "256 (2 active), tied"},
    };
    return presets;
}

const SyntheticPreset *findSyntheticPreset(const std::string &name)
{
    for (const SyntheticPreset &p : syntheticPresets())
        if (name == p.name)
            return &p;
    return nullptr;
}

} // namespace burrow::model
