// Random-weight models: writes a valid GGUF model of any supported
// architecture and shape, for tests and benchmarks (burrow-cli synth,
// scripts/make-models.sh). Nothing is learned; the numbers only have the
// shapes, types and value spread of a real download.
//
// What a file holds:
//   - the metadata the architecture reads (model/arch_*.cpp): sizes, head
//     counts and head size, RMS epsilon, RoPE base, experts, sliding window,
//     softcaps (gemma2), YaRN (gpt-oss), the Gated DeltaNet sizes, the
//     attention interval and RoPE sections (qwen35, qwen35moe: a quarter of
//     each head rotated, as Qwen3.5), general.file_type and
//     general.quantization_version;
//   - an SPM vocabulary of nVocab tokens: <unk>, <s>, </s>, (gemma4: the
//     chat markers <|turn>, <turn|>, <|think|>, <|tool>, <tool|> as control
//     tokens and <|channel>, <channel|>, <|tool_call>, <tool_call|>,
//     <|tool_response>, <tool_response|>, <|"|> as user-defined ones, as a
//     real Gemma 4 vocabulary has them), then (when nVocab >= 259 + those)
//     the 256 byte-fallback tokens <0x00>..<0xFF>, then pieces "▁", "▁a",
//     "a", "▁b", ... "▁aa", "aa", ... with falling scores;
//   - every tensor the architecture needs (model/weights.cpp), and no other,
//     in the order llama-quantize writes them (QuantMix::sortTensorNames):
//     matrices, biases, attention sinks and the router drawn from N(0, 0.02),
//     norm weights 1 + N(0, 0.02) (gemma's stored "1 + w" too), the
//     DeltaNet decay ssm_a -1 + N(0, 0.02) (negative, as -exp(A_log) is in
//     a real file, so the state decays instead of growing), gemma4's scales
//     (layer output, router input, experts) 1 + N(0, 0.02) and its
//     proportional rope_freqs (1 for the first quarter of the pairs, 1e30
//     for the rest: a quarter of each global head turns);
//   - each tensor's type from the file type's mix (model/quant_mix.h), as
//     llama-quantize would give it, quantized with the engine's reference
//     quantizers; 1-D tensors, the router and bias tables stay F32.
//
// Values: each row of each tensor is drawn from its own generator, seeded by
// (seed, tensor name, row), so a file does not depend on the thread count.
// Normal deviates come from a table of 2^16 quantiles indexed by 16 random
// bits (tails cut at 4.3 sigma), so generating costs little next to quantizing.
//
// Scale: tensors are generated, quantized and written a chunk of rows at a
// time (at most about 64 MiB of output per chunk, split over the threads),
// so memory stays bounded however large the model (a 3B-parameter Q4_K_M
// file needs about 100 MiB). Cost: the quantizers dominate (K-quants and
// IQ4_XS search scales; Q8_0, Q4_0 and F16 are several times faster).
//
// The file is written to path.part and renamed when complete.
#pragma once

#include "model/quant_mix.h"
#include "common/ggml_types.h"
#include "burrow/status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace burrow::model {

struct SyntheticShape {
    uint32_t nEmbd = 256;          // {arch}.embedding_length
    uint32_t nLayer = 2;           // {arch}.block_count
    uint32_t nHead = 4;            // {arch}.attention.head_count
    uint32_t nHeadKv = 2;          // {arch}.attention.head_count_kv
    uint32_t headDim = 0;          // key and value length per head; 0: nEmbd / nHead
    uint32_t nFf = 512;            // {arch}.feed_forward_length (dense FFN rows; written when > 0)
    uint32_t nExpert = 0;          // qwen3moe, gpt-oss: experts per layer
    uint32_t nExpertUsed = 0;      // experts each token runs
    uint32_t nFfExp = 0;           // rows of one expert's gate/up
    uint32_t nFfShexp = 0;         // qwen35moe: rows of the shared expert's gate/up
    // qwen35, qwen35moe (Gated DeltaNet layers beside gated attention):
    uint32_t ssmStateSize = 0;     // ssm.state_size: key and value head size of the delta rule
    uint32_t ssmGroups = 0;        // ssm.group_count: key heads
    uint32_t ssmHeads = 0;         // ssm.time_step_rank: value heads (a multiple of ssmGroups)
    uint32_t attentionInterval = 0;   // full_attention_interval: layer il is attention when (il + 1) % it == 0;
                                      // 0: 4. 1: every layer attention; > nLayer: none
    // Multi-token-prediction blocks after the nLayer trunk blocks (qwen35,
    // qwen35moe; 0 or 1): block_count is then nLayer + this and
    // nextn_predict_layers is written; each such block is a gated-attention
    // block (the trunk's FFN: dense, or experts and the shared expert) plus
    // blk.N.nextn.{eh_proj [2 nEmbd, nEmbd], enorm, hnorm, shared_head_norm},
    // as the reference's converter writes Qwen3.5's mtp.* tensors.
    uint32_t nextnLayers = 0;
    uint32_t nVocab = 512;         // tokens (>= 8; >= 259 adds the byte-fallback tokens)
    uint32_t nCtx = 2048;          // {arch}.context_length
    uint32_t slidingWindow = 0;    // gemma2, gemma3, gpt-oss: {arch}.attention.sliding_window (gemma3: 0 = none)
    uint32_t slidingPattern = 0;   // 0: the architecture's default period (key not written); else written
                                   // (gemma4: always written, one bool per layer; default period 6)
    bool tiedOutput = false;       // no output.weight (gemma2 never has one, gpt-oss always does)
    // NVFP4 "scale2" files: <matrix>.scale and <matrix>.input_scale (F32, 1 +
    // N(0, 0.02); [1], or one per expert) beside every projection and FFN
    // matrix (model/weight_scales.h).
    bool tensorScales = false;
    float ropeFreqBase = 0.0f;     // 0: the architecture's usual base
    // gemma4 (headDim is then the global layers' head size):
    uint32_t headDimSwa = 0;       // head size of the sliding layers (0: headDim)
    uint32_t nHeadKvGlobal = 0;    // KV heads of the global layers (0: nHeadKv; else a per-layer array)
    uint32_t nEmbdPerLayer = 0;    // per-layer input embeddings per layer (0: none)
    uint32_t sharedKvLayers = 0;   // the last N layers reuse earlier layers' keys and values
    bool doubleWideMlp = false;    // the shared-KV layers' FFN is 2 x nFf (E2B's use_double_wide_mlp)
    bool valueFromKeyGlobal = false;   // no attn_v on the global layers (V = K, as 26B-A4B / 31B)
    // gemma4-assistant: the target's embedding length (embedding_length_out;
    // 0 for every other architecture). Its layers have attn_q only (no
    // K/V), its output is token_embd, and nextn.pre_projection [2 Et, E] and
    // nextn.post_projection [E, Et] join them (assistantSpecFor).
    uint32_t nEmbdTarget = 0;
};

struct SyntheticTensorReport {
    int index = 0;                 // 0-based position in the file
    int count = 0;
    std::string name;
    GgmlType type = GgmlType::GGML_TYPE_F32;
    std::vector<int64_t> dims;
    uint64_t bytes = 0;
};

struct SyntheticSpec {
    std::string arch = "llama";    // general.architecture: llama, qwen2, phi3, gemma2, qwen3, qwen3moe, gemma3, gpt-oss,
                                   // qwen35, qwen35moe, gemma4
    SyntheticShape shape;
    std::string fileType = "F32";  // a quantFileTypes() name: F32, F16, Q8_0, Q4_K_M, IQ4_XS, ...
    uint64_t seed = 1;
    std::string name;              // general.name; "synthetic-<arch>" when empty
    std::string chatTemplate;      // tokenizer.chat_template; none when empty (a base model)
    int threads = 0;               // 0: all hardware threads

    // For tests that need broken files (the checks of checkSyntheticSpec
    // still apply to the shape; these bypass the architecture's rules):
    std::set<std::string> dropTensors;            // tensors left out
    std::map<std::string, std::vector<int64_t>> tensorShapes;   // tensors written with these dims instead
    // u32 metadata: a key the generator writes as u32 gets this value instead;
    // any other key is added after the standard ones.
    std::map<std::string, uint32_t> u32Keys;
    // i32 array metadata (e.g. qwen35.rope.dimension_sections), likewise.
    std::map<std::string, std::vector<int32_t>> i32ArrayKeys;
    std::vector<std::string> lastTensors;         // moved to the end of the file, in this order

    std::function<void(const SyntheticTensorReport &)> onTensor;   // after each tensor is written

    // A scripted model, for trying the reply display (thinking, tool-call
    // markup, the end of a turn) with real weights: the pieces are distinct
    // vocabulary entries (byte tokens as "<0x0A>", the word mark as U+2581).
    // Every layer's output projections (attention output, FFN down, experts,
    // DeltaNet output, gemma4's per-layer projection, their biases) are zero,
    // so the logits of a position depend on its own token only, and row
    // script[i + 1] of output.weight is 1000 / nEmbd times the embedding of
    // script[i]: after piece i, piece i + 1 leads every other token by a
    // logit of about 20 (greedy and the usual sampling follow the script).
    // script[0] is the trigger, the last token of the prompt (a chat
    // template's generation prompt ends in it). Needs an untied output. An
    // MTP block's eh_proj passes the token's normed embedding through (its
    // hidden half zero), so the block drafts the script too.
    std::vector<std::string> script;
    // Extra vocabulary entries, user-defined tokens after the special ones
    // (shown in the text, matched whole by the tokenizer): a template's
    // markup ("<|im_start|>", "<tool_call>") or a whole tool call as one
    // piece of a script. At most 64, each 1..1024 bytes, none twice.
    std::vector<std::string> extraTokens;
};

// One tensor of a spec's model, before types are chosen.
struct SyntheticTensor {
    std::string name;
    std::vector<int64_t> dims;     // ne[0] (row length) first
    // FILL_WEIGHT N(0, 0.02), FILL_NORM 1 + N(0, 0.02), FILL_DECAY -1 + N(0, 0.02),
    // FILL_ROPE_QUARTER 1 for the first quarter of the values, 1e30 after.
    enum class Fill : uint32_t { FILL_WEIGHT, FILL_NORM, FILL_DECAY, FILL_ROPE_QUARTER } fill = Fill::FILL_WEIGHT;
};

struct SyntheticSummary {
    int tensors = 0;
    uint64_t parameters = 0;       // sum of tensor elements
    uint64_t fileBytes = 0;
    std::map<std::string, int> tensorTypes;   // "Q4_K" -> count
};

// ok when the spec describes a model of its architecture the engine would
// load: known architecture and file type, sizes in range, head counts that
// divide, experts where the architecture has them (and only there), a
// sliding window where it needs one. The message names the field.
Status checkSyntheticSpec(const SyntheticSpec &spec);

// The tensors of the spec's model in file order (dropTensors left out,
// lastTensors moved to the end). The spec must pass checkSyntheticSpec.
std::vector<SyntheticTensor> syntheticTensors(const SyntheticSpec &spec);

// What writeSyntheticModel would write (tensor count, parameters, types,
// the file's exact size), without writing anything.
Result<SyntheticSummary> planSyntheticModel(const SyntheticSpec &spec);

// Checks the spec, then writes the model to `path` (via path.part).
Result<SyntheticSummary> writeSyntheticModel(const SyntheticSpec &spec, const std::string &path);

// A gemma4-assistant that fits the gemma4 `target` (burrow-cli synth
// --assistant): the target's vocabulary, context, sliding window, head
// sizes and KV heads (each assistant layer reads the keys of the target's
// last sliding or global layer), 4 layers (3 sliding, then 1 global, as
// Gemma 4's assistants), a quarter of the target's width (at least 64,
// rounded to 32), 4x that for the FFN; the target's file type and a seed
// of its own.
SyntheticSpec assistantSpecFor(const SyntheticSpec &target);

// Named shapes (burrow-cli synth --preset): the benchmark models and a small
// one per architecture for tests.
struct SyntheticPreset {
    const char *name;              // "llama-1.1b"
    const char *arch;
    SyntheticShape shape;
    const char *summary;           // for --help
};
const std::vector<SyntheticPreset> &syntheticPresets();
// The preset named `name` (exact), or nullptr.
const SyntheticPreset *findSyntheticPreset(const std::string &name);

} // namespace burrow::model
