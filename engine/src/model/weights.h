// Weights: views into the mapped GGUF file, never copied. loadWeights() finds
// every tensor the architecture needs (ModelConfig), checks its shape and type,
// and refuses a missing tensor, a wrong shape or a type the engine cannot
// compute with, naming the tensor.
//
// Lifetime: the views point into the GgufFile's map; the GgufFile must outlive
// the Weights.
#pragma once

#include "model/model_config.h"
#include "common/ggml_types.h"
#include "burrow/status.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace burrow::gguf { class GgufFile; }
namespace burrow::quant { struct TypeTraits; struct PackedMatrix; }

namespace burrow::model {

// A 1-D or 2-D tensor in the map. For matrices, row r (ne0 elements) is the
// weight vector of output r: y[r] = dot(row(r), x). One expert of a 3-D
// expert tensor is a 2-D view like any other matrix.
struct TensorView {
    std::string_view name;                     // empty when absent
    const uint8_t *data = nullptr;
    GgmlType type = GgmlType::GGML_TYPE_F32;
    const quant::TypeTraits *traits = nullptr;
    int64_t ne0 = 0;                           // row length (input size)
    int64_t ne1 = 1;                           // rows (output size)
    size_t rowBytes = 0;
    const quant::PackedMatrix *packed = nullptr;   // 16-row interleaved copy (runtime/weight_packing.h) or null
    // The reference multiplies this matrix's outputs by its `.scale` tensor
    // (before any bias); 1 when there is none (model/weight_scales.h).
    float outScale = 1.0f;

    explicit operator bool() const { return data != nullptr; }
    const uint8_t *row(int64_t r) const { return data + static_cast<size_t>(r) * rowBytes; }
    const float *f32() const { return reinterpret_cast<const float *>(data); }   // 1-D F32 tensors
};

struct LayerWeights {
    TensorView attnNorm;        // [nEmbd]
    TensorView wq, wk, wv;      // [nEmbd] -> [nEmbdQ], [nEmbdKv], [nEmbdVKv] (absent when fusedQkv)
    TensorView wqkv;            // [nEmbd] -> [nEmbdQ + nEmbdKv + nEmbdVKv] (fusedQkv)
    TensorView bq, bk, bv;      // optional biases (required for qwen2)
    TensorView bqkv;            // optional fused bias
    TensorView wo;              // [nEmbdVOut] -> [nEmbd]
    TensorView bo;              // optional [nEmbd]
    TensorView attnPostNorm;    // [nEmbd] (postNorms)
    TensorView ffnNorm;         // [nEmbd]
    TensorView ffnGate;         // [nEmbd] -> [nFf] (absent when fusedGateUp)
    TensorView ffnUp;           // [nEmbd] -> [nFf], or [2*nFf] when fusedGateUp
    TensorView ffnDown;         // [nFf] -> [nEmbd]
    TensorView ffnPostNorm;     // [nEmbd] (postNorms)
    TensorView attnQNorm;       // [headDimK] (qkNorm)
    TensorView attnKNorm;       // [headDimK] (qkNorm)
    TensorView attnSinks;       // [nHead] (attnSinks)

    // Mixture of experts (LayerSpec::moe). The 3-D tensors
    // ffn_{gate,up}_exps [nEmbd, nFfExp, nExpert] and ffn_down_exps
    // [nFfExp, nEmbd, nExpert] (or a fused ffn_gate_up_exps [nEmbd,
    // 2 nFfExp, nExpert], gate rows first) as one view per expert.
    TensorView ffnGateInp;      // router [nEmbd] -> [nExpert]
    TensorView ffnGateInpBias;  // [nExpert] (expertBiases)
    std::vector<TensorView> gateExps, upExps, downExps;   // nExpert views each
    // Expert biases (expertBiases): F32 tables, row e = expert e's bias.
    TensorView gateExpsBias;    // [nFfExp] x nExpert
    TensorView upExpsBias;      // [nFfExp] x nExpert
    TensorView downExpsBias;    // [nEmbd] x nExpert
    // The shared expert (nFfShexp > 0): a SwiGLU FFN whose output is
    // multiplied by sigmoid(ffnGateInpShexp . h).
    TensorView ffnGateInpShexp; // [nEmbd] F32
    TensorView ffnGateShexp, ffnUpShexp;   // [nEmbd] -> [nFfShexp]
    TensorView ffnDownShexp;    // [nFfShexp] -> [nEmbd]

    // Gated DeltaNet (LayerSpec::recurrent); wqkv is then
    // [nEmbd] -> [ssmConvChannels()] (q | k | v before the convolution).
    TensorView attnGate;        // z: [nEmbd] -> [ssmValueDim()]
    TensorView ssmConv1d;       // F32 table: row c = the ssmConvKernel taps of channel c, [ssmConvChannels()] rows
    TensorView ssmDtBias;       // [value heads] F32
    TensorView ssmA;            // [value heads] F32: -exp(A_log), the decay rate
    TensorView ssmBeta;         // [nEmbd] -> [value heads]
    TensorView ssmAlpha;        // [nEmbd] -> [value heads]
    TensorView ssmNorm;         // [ssmStateSize] F32: the gated RMS norm of each value head
    TensorView ssmOut;          // [ssmValueDim()] -> [nEmbd]

    // gemma4. Per-layer input embeddings (nEmbdPerLayer > 0).
    TensorView plInpGate;       // [nEmbd] -> [nEmbdPerLayer]
    TensorView plProj;          // [nEmbdPerLayer] -> [nEmbd]
    TensorView plPostNorm;      // [nEmbd]
    TensorView layerOutScale;   // optional [1]: the layer's output times it (layerOutputScale)
    // The dense MLP beside the experts (LayerSpec::denseBesideMoe): ffnNorm,
    // ffnGate/Up/Down are its; the experts' input norm and the two post-norms.
    TensorView ffnPreNorm2;     // [nEmbd]
    TensorView ffnPostNorm1;    // [nEmbd] after the dense MLP
    TensorView ffnPostNorm2;    // [nEmbd] after the experts
    TensorView ffnGateInpScale; // [nEmbd] router input scale (routerInputScale)

    // A multi-token-prediction block (ModelConfig::mtpLayer(); its attention
    // and FFN tensors are the fields above). Absent optional ones fall back
    // as the reference's graph does: embedTokens to token_embd, sharedHeadNorm
    // to output_norm, sharedHeadHead to the output matrix.
    TensorView nextnEhProj;     // [2 nEmbd] -> [nEmbd]: input (enorm(embedding) | hnorm(hidden))
    TensorView nextnEnorm;      // [nEmbd]
    TensorView nextnHnorm;      // [nEmbd]
    TensorView nextnEmbedTokens;     // optional [nEmbd] x nVocab rows
    TensorView nextnSharedHeadHead;  // optional [nEmbd] -> [nVocab]
    TensorView nextnSharedHeadNorm;  // optional [nEmbd]
};

struct Weights {
    TensorView tokenEmbd;       // [nEmbd] x nVocab rows
    TensorView outputNorm;      // [nEmbd]
    TensorView output;          // [nEmbd] -> [nVocab]; == tokenEmbd when tied
    TensorView ropeFreqs;       // optional [nRot/2] frequency divisors (Llama 3.1; gemma4's global layers)
    // gemma4 per-layer input embeddings (nEmbdPerLayer > 0). The table is
    // read one row per token from the map (never densified or packed).
    TensorView perLayerTokenEmbd;   // [nEmbdPerLayer x nLayer] x nVocab rows
    TensorView perLayerModelProj;   // [nEmbd] -> [nEmbdPerLayer x nLayer]
    TensorView perLayerProjNorm;    // [nEmbdPerLayer]
    // gemma4-assistant (ModelConfig::nEmbdTarget = Et > 0).
    TensorView nextnProjPre;        // [2 Et] -> [nEmbd]: (target embedding | target hidden state)
    TensorView nextnProjPost;       // [nEmbd] -> [Et]: the next hidden state
    std::vector<LayerWeights> layers;   // nLayer + nLayerMtp (the MTP block last)
    uint64_t bytes = 0;         // mapped bytes of all used tensors
};

// Finds and checks every tensor; sets config.nVocab and config.tiedOutput.
Result<Weights> loadWeights(const gguf::GgufFile &file, ModelConfig &config);

// Every weight matrix of the model that a matrix multiply reads (projections,
// FFN matrices, each expert, the router, the output matrix; the output once
// when tied), for packing and scratch sizing. Pointers into `weights`.
std::vector<TensorView *> weightMatrices(Weights &weights);
std::vector<const TensorView *> weightMatrices(const Weights &weights);

} // namespace burrow::model
