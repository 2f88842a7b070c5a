// Quantization mixes: which type each tensor of a model gets when the model
// is quantized to a file type ("Q4_K_M", "Q8_0", ...), following the
// reference engine's rules (llama.cpp llama_tensor_get_type as of August
// 2026, no importance matrix) so `burrow-cli quantize` and `burrow-cli synth`
// write the same tensor types as `llama-quantize`.
//
// Rules for the file types offered here (n = block_count, i = the layer,
// X = expert_count, gqa = head_count / head_count_kv):
//   - Only 2-D and 3-D (expert) tensors whose name ends in "weight" and not
//     in "_norm.weight" or "ffn_gate_inp.weight" (the router), and not the
//     DeltaNet convolution ssm_conv1d, are quantized; 1-D tensors (norms,
//     biases, rope_freqs) are copied unchanged.
//   - F32, F16, BF16: every quantized tensor gets that type (no mix).
//   - output.weight (or token_embd.weight when the model has no output, as
//     the embeddings are then the output): Q8_0 when ne[0] is not a multiple
//     of the base type's block, else kept at Q8_0 for Q8_0 files and Q6_K
//     for every other quantized file type (MXFP4_MOE: Q8_0).
//   - MXFP4_MOE: 3-D tensors (ne[2] > 1: the experts) MXFP4, the other
//     quantized tensors Q8_0.
//   - "more bits" layers: i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2.
//   - attn_v, attn_qkv, attn_kv_b (one counter over them, in file order):
//     IQ4_NL / IQ4_XS with gqa >= 4: Q5_K; Q4_K_M / Q5_K_M: Q6_K on the
//     more-bits positions of that counter; Q4_K_S: Q5_K for the first 4;
//     then, when X == 8, Q8_0 whatever the above gave.
//   - attn_k: Q8_0 when X == 8.
//   - ffn_down (ffn_down_exps too; the layer is the name's "blk.N" when the
//     model has experts, else a counter): Q4_K_M / Q5_K_M: Q6_K on more-bits
//     layers; IQ4_NL / IQ4_XS: Q5_K for i < n/8; Q4_K_S: Q5_K for i < n/8.
//   - attn_output: Q5_K when X == 8 for Q4_K_S, Q4_K_M, IQ4_NL, IQ4_XS.
//   - token_embd.weight (not the output): Q4_K for TQ1_0, TQ2_0 and Q2_0
//     files; Q1_0 files keep Q1_0 there too.
//   - NVFP4 (Burrow's own: the reference's llama-quantize has the file type
//     id but no rules and refuses it): every other matrix NVFP4, the general
//     rules above (output Q6_K), no fallback.
//   - Fallback when ne[0] is not a multiple of the chosen type's block:
//     IQ4_XS -> IQ4_NL, Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, Q2_0 /
//     TQ1_0 / TQ2_0 -> Q4_0, then F16 when even that block does not divide
//     ne[0]; for other types (Q1_0 among them) the tensor cannot be
//     quantized (error).
// Counters (attn_v index, ffn_down index) advance in call order, as in the
// reference, so tensorType() must be called in the output file's tensor order
// (QuantMix::sortTensorNames).
//
// Since the reference's March 2026 rewrite, attn_qkv follows the attn_v rules
// (older versions gave it Q5_K in Q4_K_M and Q6_K in Q5_K_M files, as
// ../shared/models/synthetic/phi3-Q4_K_M.gguf still shows).
// Not modelled (the engine runs none of these): the 70B attn_v bump, Falcon's
// rules, the IQ1/IQ2/IQ3/Q2_K/Q3_K file types.
#pragma once

#include "common/ggml_types.h"
#include "burrow/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::model {

// A file type `burrow-cli quantize` can produce.
struct QuantFileType {
    const char *name;      // "Q4_K_M"
    uint32_t id;           // general.file_type (the reference's LLAMA_FTYPE_* value)
    GgmlType baseType;     // the type most tensors get
    const char *summary;   // for --help
};

// The file types offered, in display order. Only types whose quantizers the
// engine has (quant::typeTraits(t)->quantize) are listed.
const std::vector<QuantFileType> &quantFileTypes();
// The row named `name` (case-insensitive), or nullptr.
const QuantFileType *findQuantFileType(std::string_view name);
// "F32, F16, BF16, Q8_0, ..." for messages.
std::string quantFileTypeNames();

// What the mix needs to know about the model (from its metadata).
struct QuantMixModel {
    int nLayer = 0;        // {arch}.block_count
    int nAttentionV = 0;   // tensors whose name contains attn_v.weight, attn_qkv.weight or attn_kv_b.weight
    bool hasOutput = false;   // the model has output.weight
    int nExpert = 0;       // {arch}.expert_count (0: dense)
    int nGqa = 0;          // head_count / head_count_kv of layer 0 (0: unknown)
    bool is70B = false;    // the reference's LLM_TYPE_70B (llama: 80 layers and grouped KV heads; qwen2: 80 layers)
};

class QuantMix {
public:
    QuantMix(const QuantFileType &fileType, const QuantMixModel &model);

    // Whether the reference quantizes this tensor at all (name ends in
    // "weight", nDims >= 2, not a norm, not the router); others are copied.
    static bool isQuantizable(std::string_view name, uint32_t nDims);

    // The type for a quantizable tensor with rows of ne0 elements and ne2
    // matrices (experts; 1 for a 2-D tensor). Advances the counters; call in
    // file order. Error when no type fits ne0 or an expert tensor's name has
    // no valid layer.
    Result<GgmlType> tensorType(std::string_view name, int64_t ne0, int64_t ne2 = 1);

    // Sorts names into the reference's output order: tensors without a
    // "blk.N." prefix first, then by layer N, each group by name (bytewise).
    static void sortTensorNames(std::vector<std::string> &names);

    // i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2
    static bool useMoreBits(int layer, int nLayer);

private:
    const QuantFileType &m_ft;
    QuantMixModel m_model;
    int m_iAttentionV = 0;
    int m_iFfnDown = 0;
};

} // namespace burrow::model
