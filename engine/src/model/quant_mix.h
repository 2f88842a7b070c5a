// Quantization mixes: which type each tensor of a model gets when the model
// is quantized to a file type ("Q4_K_M", "Q8_0", ...), following the
// reference engine's rules (llama.cpp llama_tensor_get_type, no importance
// matrix) so `burrow-cli quantize` writes the same tensor types as
// `llama-quantize`.
//
// Rules for the file types offered here (n = block_count, i = the layer):
//   - Only 2-D (and higher) tensors whose name ends in "weight" and not in
//     "_norm.weight" are quantized; 1-D tensors (norms, biases, rope_freqs)
//     and everything else are copied unchanged.
//   - F32, F16, BF16: every quantized tensor gets that type (no mix).
//   - output.weight (or token_embd.weight when the model has no output, as
//     the embeddings are then the output): Q8_0 when ne[0] is not a multiple
//     of the base type's block, else kept at Q8_0 for Q8_0 files and Q6_K
//     for every other quantized file type.
//   - "more bits" layers: i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2.
//   - Q4_K_M / Q5_K_M: attn_v and ffn_down are Q6_K on more-bits layers;
//     attn_qkv is Q5_K (Q4_K_M) or Q6_K (Q5_K_M).
//   - Q4_K_S: attn_v is Q5_K for the first 4 attn_v tensors, ffn_down is
//     Q5_K for i < n/8.
//   - Fallback when ne[0] is not a multiple of the chosen type's block:
//     Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, then F16 when even that
//     block does not divide ne[0]; for other types the tensor cannot be
//     quantized (error).
// Counters (attn_v index, ffn_down index) advance in call order, as in the
// reference, so tensorType() must be called in the output file's tensor order
// (QuantMix::sortTensorNames).
//
// Not modelled (the engine runs none of these): mixture-of-experts bumps
// (n_expert == 8), the 70B attn_v bump, Falcon's rules.
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

// The file types offered, in display order.
const std::vector<QuantFileType> &quantFileTypes();
// The row named `name` (case-insensitive), or nullptr.
const QuantFileType *findQuantFileType(std::string_view name);
// "F32, F16, BF16, Q8_0, ..." for messages.
std::string quantFileTypeNames();

class QuantMix {
public:
    // nLayer: block_count; nAttentionV: number of tensors whose name contains
    // attn_v.weight or attn_qkv.weight; hasOutput: the model has output.weight.
    QuantMix(const QuantFileType &fileType, int nLayer, int nAttentionV, bool hasOutput);

    // Whether the reference quantizes this tensor at all (name ends in
    // "weight", nDims >= 2, not a norm); others are copied as they are.
    static bool isQuantizable(std::string_view name, uint32_t nDims);

    // The type for a quantizable tensor with rows of ne0 elements. Advances
    // the layer counters; call in file order. Error when no type fits ne0.
    Result<GgmlType> tensorType(std::string_view name, int64_t ne0);

    // Sorts names into the reference's output order: tensors without a
    // "blk.N." prefix first, then by layer N, each group by name (bytewise).
    static void sortTensorNames(std::vector<std::string> &names);

    // i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2
    static bool useMoreBits(int layer, int nLayer);

private:
    const QuantFileType &m_ft;
    int m_nLayer;
    int m_nAttentionV;
    bool m_hasOutput;
    int m_iAttentionV = 0;
    int m_iFfnDown = 0;
};

} // namespace burrow::model
