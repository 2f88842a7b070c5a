#include "model/weights.h"

#include "model/tensor_names.h"
#include "model/weight_scales.h"
#include "gguf/gguf_reader.h"
#include "quant/block_checks.h"
#include "quant/quant_traits.h"

#include <string>

namespace burrow::model {
namespace {

enum class Need { NEED_REQUIRED, NEED_OPTIONAL };

std::string shapeText(int64_t ne0, int64_t ne1)
{
    return ne1 == 0 ? "[" + std::to_string(ne0) + "]"
                    : "[" + std::to_string(ne0) + ", " + std::to_string(ne1) + "]";
}

std::string shapeOf(const gguf::TensorInfo &t)
{
    std::string s = "[";
    for (uint32_t d = 0; d < t.nDims; ++d)
        s += (d ? ", " : "") + std::to_string(t.ne[d]);
    return s + "]";
}

class Binder {
public:
    explicit Binder(const gguf::GgufFile &file) : m_file(file) {}

    // Binds the tensor `kind` (layer `il`) with the expected shape; ne1 == 0
    // means a 1-D F32 vector of ne0 elements, otherwise a weight matrix with
    // rows of ne0 elements and ne1 rows.
    Status bind(TensorView &view, TensorKind kind, int il, int64_t ne0, int64_t ne1, Need need)
    {
        const std::string name = tensorName(kind, il);
        const gguf::TensorInfo *t = m_file.tensor(name);
        if (!t) {
            if (need == Need::NEED_OPTIONAL)
                return Status::ok();
            return Status::error("missing tensor '" + name + "' (expected shape " + shapeText(ne0, ne1) + ")");
        }
        const bool vector = ne1 == 0;
        const bool shapeOk = vector ? (t->nDims == 1 && t->ne[0] == ne0)
                                    : (t->nDims == 2 && t->ne[0] == ne0 && t->ne[1] == ne1);
        if (!shapeOk)
            return Status::error("tensor '" + name + "' has shape " + shapeOf(*t) + ", expected " +
                                 shapeText(ne0, ne1));
        if (vector) {
            if (t->type != GgmlType::GGML_TYPE_F32)
                return Status::error("tensor '" + name + "' has type " + ggmlTypeName(t->type) +
                                     ", expected F32 for a 1-D tensor");
        } else if (!quant::isSupportedWeightType(t->type) || !quant::typeTraits(t->type)) {
            return Status::error("tensor '" + name + "' has type " + ggmlTypeName(t->type) +
                                 ", which Burrow cannot compute with (supported: " +
                                 quant::supportedWeightTypesText() + ")");
        }
        view.name = t->name;
        view.data = t->data;
        view.type = t->type;
        view.traits = quant::typeTraits(t->type);
        view.ne0 = t->ne[0];
        view.ne1 = vector ? 1 : t->ne[1];
        size_t rowBytes = 0;
        if (!ggmlRowBytes(t->type, t->ne[0], &rowBytes))
            return Status::error("tensor '" + name + "': row of " + std::to_string(t->ne[0]) +
                                 " elements is not a whole number of " + ggmlTypeName(t->type) + " blocks");
        view.rowBytes = rowBytes;
        if (Status s = quant::checkBlocks(t->type, t->data, t->nBytes, name); !s)
            return s;
        m_bytes += t->nBytes;
        return Status::ok();
    }

    // An F32 table of ne1 rows of ne0 floats (biases per expert), 2-D.
    Status bindTable(TensorView &view, TensorKind kind, int il, int64_t ne0, int64_t ne1, Need need)
    {
        const std::string name = tensorName(kind, il);
        const gguf::TensorInfo *t = m_file.tensor(name);
        if (!t) {
            if (need == Need::NEED_OPTIONAL)
                return Status::ok();
            return Status::error("missing tensor '" + name + "' (expected shape " + shapeText(ne0, ne1) + ")");
        }
        if (t->nDims != 2 || t->ne[0] != ne0 || t->ne[1] != ne1)
            return Status::error("tensor '" + name + "' has shape " + shapeOf(*t) + ", expected " + shapeText(ne0, ne1));
        if (t->type != GgmlType::GGML_TYPE_F32)
            return Status::error("tensor '" + name + "' has type " + ggmlTypeName(t->type) + ", expected F32");
        view.name = t->name;
        view.data = t->data;
        view.type = t->type;
        view.traits = quant::typeTraits(t->type);
        view.ne0 = ne0;
        view.ne1 = ne1;
        view.rowBytes = static_cast<size_t>(ne0) * sizeof(float);
        m_bytes += t->nBytes;
        return Status::ok();
    }

    // A 3-D expert tensor [ne0, ne1 * parts, nExpert] as one matrix view of
    // ne1 rows per expert and part: views[part][e] (parts 1, or 2 for a
    // fused gate|up tensor: gate rows first). Returns whether it was present.
    Status bindExperts(std::vector<TensorView> *const *views, int parts, TensorKind kind, int il, int64_t ne0,
                       int64_t ne1, int64_t nExpert, Need need, bool *present = nullptr)
    {
        const std::string name = tensorName(kind, il);
        const gguf::TensorInfo *t = m_file.tensor(name);
        if (present)
            *present = t != nullptr;
        const std::string want = "[" + std::to_string(ne0) + ", " + std::to_string(ne1 * parts) + ", " +
                                 std::to_string(nExpert) + "]";
        if (!t) {
            if (need == Need::NEED_OPTIONAL)
                return Status::ok();
            return Status::error("missing tensor '" + name + "' (expected shape " + want + ")");
        }
        if (t->nDims != 3 || t->ne[0] != ne0 || t->ne[1] != ne1 * parts || t->ne[2] != nExpert)
            return Status::error("tensor '" + name + "' has shape " + shapeOf(*t) + ", expected " + want +
                                 " (row length, rows, experts)");
        if (!quant::isSupportedWeightType(t->type) || !quant::typeTraits(t->type))
            return Status::error("tensor '" + name + "' has type " + ggmlTypeName(t->type) +
                                 ", which Burrow cannot compute with (supported: " +
                                 quant::supportedWeightTypesText() + ")");
        size_t rowBytes = 0;
        if (!ggmlRowBytes(t->type, t->ne[0], &rowBytes))
            return Status::error("tensor '" + name + "': row of " + std::to_string(t->ne[0]) +
                                 " elements is not a whole number of " + ggmlTypeName(t->type) + " blocks");
        if (Status s = quant::checkBlocks(t->type, t->data, t->nBytes, name); !s)
            return s;
        const size_t partBytes = rowBytes * static_cast<size_t>(ne1);
        for (int part = 0; part < parts; ++part) {
            std::vector<TensorView> &out = *views[part];
            out.assign(static_cast<size_t>(nExpert), TensorView{});
            for (int64_t e = 0; e < nExpert; ++e) {
                TensorView &v = out[static_cast<size_t>(e)];
                v.name = t->name;
                v.data = t->data + (static_cast<size_t>(e) * parts + static_cast<size_t>(part)) * partBytes;
                v.type = t->type;
                v.traits = quant::typeTraits(t->type);
                v.ne0 = ne0;
                v.ne1 = ne1;
                v.rowBytes = rowBytes;
            }
        }
        m_bytes += t->nBytes;
        return Status::ok();
    }

    // A tensor the model does not read (a shared-KV layer's K/V weights):
    // when present its shape must still be the one the reference checks.
    Status checkUnused(TensorKind kind, int il, int64_t ne0, int64_t ne1)
    {
        TensorView ignored;
        const uint64_t before = m_bytes;
        Status s = bind(ignored, kind, il, ne0, ne1, Need::NEED_OPTIONAL);
        m_bytes = before;
        return s;
    }

    uint64_t bytes() const { return m_bytes; }

private:
    const gguf::GgufFile &m_file;
    uint64_t m_bytes = 0;
};

} // namespace

namespace {

using K = TensorKind;
constexpr Need REQ = Need::NEED_REQUIRED, OPT = Need::NEED_OPTIONAL;

// A Gated DeltaNet layer's tensors (qwen35).
Status bindRecurrent(Binder &b, const ModelConfig &c, LayerWeights &L, int il)
{
    const int64_t E = c.nEmbd, C = c.ssmConvChannels(), VD = c.ssmValueDim(), NV = c.ssmTimeStepRank;
    Status s = b.bind(L.wqkv, K::TENSOR_KIND_ATTN_QKV, il, E, C, REQ);
    if (s) s = b.bind(L.attnGate, K::TENSOR_KIND_ATTN_GATE, il, E, VD, REQ);
    if (s) s = b.bindTable(L.ssmConv1d, K::TENSOR_KIND_SSM_CONV1D, il, c.ssmConvKernel, C, REQ);
    if (s) s = b.bind(L.ssmDtBias, K::TENSOR_KIND_SSM_DT_BIAS, il, NV, 0, REQ);
    if (s) s = b.bind(L.ssmA, K::TENSOR_KIND_SSM_A, il, NV, 0, REQ);
    if (s) s = b.bind(L.ssmBeta, K::TENSOR_KIND_SSM_BETA, il, E, NV, REQ);
    if (s) s = b.bind(L.ssmAlpha, K::TENSOR_KIND_SSM_ALPHA, il, E, NV, REQ);
    if (s) s = b.bind(L.ssmNorm, K::TENSOR_KIND_SSM_NORM, il, c.ssmStateSize, 0, REQ);
    if (s) s = b.bind(L.ssmOut, K::TENSOR_KIND_SSM_OUT, il, VD, E, REQ);
    return s;
}

// An attention layer's projections, norms and sinks, with its own sizes. A
// layer that reads another's keys and values (shared KV) binds no K/V
// weights; a file may still carry them: their shapes are checked, their
// data never read.
Status bindAttention(Binder &b, const ModelConfig &c, LayerWeights &L, uint32_t l)
{
    const int il = static_cast<int>(l);
    const LayerSpec &spec = c.layers[l];
    const int64_t E = c.nEmbd, Q = c.nEmbdQ(l), KV = c.nEmbdKv(l), VKV = c.nEmbdVKv(l), VO = c.nEmbdVOut(l);
    const bool owns = c.ownsKv(l);
    Status s;
    if (c.fusedQkv) {
        s = b.bind(L.wqkv, K::TENSOR_KIND_ATTN_QKV, il, E, Q + KV + VKV, REQ);
        if (s) s = b.bind(L.bqkv, K::TENSOR_KIND_ATTN_QKV_BIAS, il, Q + KV + VKV, 0, OPT);
    } else {
        const Need biasNeed = c.qkvBiasRequired ? REQ : OPT;
        s = b.bind(L.wq, K::TENSOR_KIND_ATTN_Q, il, E, c.attnOutputGate ? 2 * Q : Q, REQ);
        if (s && owns) {
            s = b.bind(L.wk, K::TENSOR_KIND_ATTN_K, il, E, KV, REQ);
            if (s) s = b.bind(L.wv, K::TENSOR_KIND_ATTN_V, il, E, VKV, c.valueFromKey ? OPT : REQ);
            if (s) s = b.bind(L.bk, K::TENSOR_KIND_ATTN_K_BIAS, il, KV, 0, biasNeed);
            if (s) s = b.bind(L.bv, K::TENSOR_KIND_ATTN_V_BIAS, il, VKV, 0, biasNeed);
        } else if (s) {
            s = b.checkUnused(K::TENSOR_KIND_ATTN_K, il, E, KV);
            if (s) s = b.checkUnused(K::TENSOR_KIND_ATTN_V, il, E, VKV);
            if (s && c.qkNorm) s = b.checkUnused(K::TENSOR_KIND_ATTN_K_NORM, il, spec.headDimK, 0);
        }
        if (s) s = b.bind(L.bq, K::TENSOR_KIND_ATTN_Q_BIAS, il, Q, 0, biasNeed);
    }
    if (s) s = b.bind(L.wo, K::TENSOR_KIND_ATTN_OUTPUT, il, VO, E, REQ);
    if (s) s = b.bind(L.bo, K::TENSOR_KIND_ATTN_OUTPUT_BIAS, il, E, 0, c.attnOutputBiasRequired ? REQ : OPT);
    if (s && c.qkNorm) {
        s = b.bind(L.attnQNorm, K::TENSOR_KIND_ATTN_Q_NORM, il, spec.headDimK, 0, REQ);
        if (s && owns) s = b.bind(L.attnKNorm, K::TENSOR_KIND_ATTN_K_NORM, il, spec.headDimK, 0, REQ);
    }
    if (s && c.attnSinks)
        s = b.bind(L.attnSinks, K::TENSOR_KIND_ATTN_SINKS, il, c.nHead, 0, REQ);
    return s;
}

// The experts of a mixture-of-experts layer (router, 3-D expert tensors,
// biases, scales, the shared expert).
Status bindExperts(Binder &b, const ModelConfig &c, LayerWeights &L, int il)
{
    const int64_t E = c.nEmbd, X = c.nExpert, FE = c.nFfExp;
    const Need biasNeed = c.expertBiases ? REQ : OPT;
    Status s = b.bind(L.ffnGateInp, K::TENSOR_KIND_FFN_GATE_INP, il, E, X, REQ);
    if (s) s = b.bind(L.ffnGateInpBias, K::TENSOR_KIND_FFN_GATE_INP_BIAS, il, X, 0, biasNeed);
    bool fused = false;
    std::vector<TensorView> *gateUp[2] = {&L.gateExps, &L.upExps};
    if (s) s = b.bindExperts(gateUp, 2, K::TENSOR_KIND_FFN_GATE_UP_EXPS, il, E, FE, X, OPT, &fused);
    if (s && !fused) {
        std::vector<TensorView> *gate[1] = {&L.gateExps}, *up[1] = {&L.upExps};
        s = b.bindExperts(gate, 1, K::TENSOR_KIND_FFN_GATE_EXPS, il, E, FE, X, REQ);
        if (s) s = b.bindExperts(up, 1, K::TENSOR_KIND_FFN_UP_EXPS, il, E, FE, X, REQ);
    }
    std::vector<TensorView> *down[1] = {&L.downExps};
    if (s) s = b.bindExperts(down, 1, K::TENSOR_KIND_FFN_DOWN_EXPS, il, FE, E, X, REQ);
    if (s && c.expertBiases) {
        if (fused) {
            s = Status::error("tensor '" + tensorName(K::TENSOR_KIND_FFN_GATE_UP_EXPS, il) +
                              "': fused gate|up experts with biases are not supported");
        } else {
            s = b.bindTable(L.gateExpsBias, K::TENSOR_KIND_FFN_GATE_EXPS_BIAS, il, FE, X, biasNeed);
            if (s) s = b.bindTable(L.upExpsBias, K::TENSOR_KIND_FFN_UP_EXPS_BIAS, il, FE, X, biasNeed);
            if (s) s = b.bindTable(L.downExpsBias, K::TENSOR_KIND_FFN_DOWN_EXPS_BIAS, il, E, X, biasNeed);
        }
    }
    if (s && c.routerInputScale)
        s = b.bind(L.ffnGateInpScale, K::TENSOR_KIND_FFN_GATE_INP_SCALE, il, E, 0, REQ);
    if (s && c.nFfShexp > 0) {
        const int64_t FS = c.nFfShexp;
        s = b.bind(L.ffnGateInpShexp, K::TENSOR_KIND_FFN_GATE_INP_SHEXP, il, E, 0, REQ);
        if (s) s = b.bind(L.ffnGateShexp, K::TENSOR_KIND_FFN_GATE_SHEXP, il, E, FS, REQ);
        if (s) s = b.bind(L.ffnUpShexp, K::TENSOR_KIND_FFN_UP_SHEXP, il, E, FS, REQ);
        if (s) s = b.bind(L.ffnDownShexp, K::TENSOR_KIND_FFN_DOWN_SHEXP, il, FS, E, REQ);
    }
    return s;
}

// The feed-forward block of a layer: its input norm, experts and/or the
// dense FFN, post-norms.
Status bindFfn(Binder &b, const ModelConfig &c, LayerWeights &L, uint32_t l)
{
    const int il = static_cast<int>(l);
    const LayerSpec &spec = c.layers[l];
    const int64_t E = c.nEmbd, F = spec.nFf;
    const K ffnNormKind = c.ffnNormNamedPostAttention ? K::TENSOR_KIND_ATTN_POST_NORM : K::TENSOR_KIND_FFN_NORM;
    Status s = b.bind(L.ffnNorm, ffnNormKind, il, E, 0, REQ);
    if (s && spec.moe)
        s = bindExperts(b, c, L, il);
    if (s && spec.denseBesideMoe) {
        s = b.bind(L.ffnPreNorm2, K::TENSOR_KIND_FFN_PRE_NORM_2, il, E, 0, REQ);
        if (s) s = b.bind(L.ffnPostNorm1, K::TENSOR_KIND_FFN_POST_NORM_1, il, E, 0, REQ);
        if (s) s = b.bind(L.ffnPostNorm2, K::TENSOR_KIND_FFN_POST_NORM_2, il, E, 0, REQ);
    }
    if (s && (!spec.moe || spec.denseBesideMoe)) {
        if (c.fusedGateUp) {
            s = b.bind(L.ffnUp, K::TENSOR_KIND_FFN_UP, il, E, 2 * F, REQ);
        } else {
            s = b.bind(L.ffnGate, K::TENSOR_KIND_FFN_GATE, il, E, F, REQ);
            if (s) s = b.bind(L.ffnUp, K::TENSOR_KIND_FFN_UP, il, E, F, REQ);
        }
        if (s) s = b.bind(L.ffnDown, K::TENSOR_KIND_FFN_DOWN, il, F, E, REQ);
    }
    if (s && c.postNorms) {
        s = b.bind(L.attnPostNorm, K::TENSOR_KIND_ATTN_POST_NORM, il, E, 0, REQ);
        if (s) s = b.bind(L.ffnPostNorm, K::TENSOR_KIND_FFN_POST_NORM, il, E, 0, REQ);
    }
    return s;
}

// gemma4's per-layer input embeddings: the model-level table, projection and
// norm (the table is left in the map: a token reads its one row).
Status bindPerLayerInputs(Binder &b, const ModelConfig &c, Weights &w)
{
    const int64_t E = c.nEmbd, P = c.nEmbdPerLayer, PL = P * c.nLayer, V = c.nVocab;
    Status s = b.bind(w.perLayerTokenEmbd, K::TENSOR_KIND_PER_LAYER_TOKEN_EMBD, -1, PL, V, REQ);
    if (s) s = b.bind(w.perLayerModelProj, K::TENSOR_KIND_PER_LAYER_MODEL_PROJ, -1, E, PL, REQ);
    if (s) s = b.bind(w.perLayerProjNorm, K::TENSOR_KIND_PER_LAYER_PROJ_NORM, -1, P, 0, REQ);
    for (uint32_t l = 0; s && l < c.nLayer; ++l) {
        const int il = static_cast<int>(l);
        LayerWeights &L = w.layers[l];
        s = b.bind(L.plInpGate, K::TENSOR_KIND_PER_LAYER_INP_GATE, il, E, P, REQ);
        if (s) s = b.bind(L.plProj, K::TENSOR_KIND_PER_LAYER_PROJ, il, P, E, REQ);
        if (s) s = b.bind(L.plPostNorm, K::TENSOR_KIND_PER_LAYER_POST_NORM, il, E, 0, REQ);
    }
    return s;
}

// A multi-token-prediction block (qwen35): a full-attention block of the
// trunk's kind and its nextn tensors, as the reference's load_block_mtp
// reads them (embed_tokens, shared_head_head and shared_head_norm optional).
Status bindMtpBlock(Binder &b, const ModelConfig &c, LayerWeights &L, uint32_t l)
{
    const int il = static_cast<int>(l);
    const int64_t E = c.nEmbd, V = c.nVocab;
    Status s = b.bind(L.attnNorm, K::TENSOR_KIND_ATTN_NORM, il, E, 0, REQ);
    if (s) s = bindAttention(b, c, L, l);
    if (s) s = bindFfn(b, c, L, l);
    if (s) s = b.bind(L.nextnEhProj, K::TENSOR_KIND_NEXTN_EH_PROJ, il, 2 * E, E, REQ);
    if (s) s = b.bind(L.nextnEnorm, K::TENSOR_KIND_NEXTN_ENORM, il, E, 0, REQ);
    if (s) s = b.bind(L.nextnHnorm, K::TENSOR_KIND_NEXTN_HNORM, il, E, 0, REQ);
    if (s) s = b.bind(L.nextnEmbedTokens, K::TENSOR_KIND_NEXTN_EMBED_TOKENS, il, E, V, OPT);
    if (s) s = b.bind(L.nextnSharedHeadHead, K::TENSOR_KIND_NEXTN_SHARED_HEAD_HEAD, il, E, V, OPT);
    if (s) s = b.bind(L.nextnSharedHeadNorm, K::TENSOR_KIND_NEXTN_SHARED_HEAD_NORM, il, E, 0, OPT);
    return s;
}

} // namespace

Result<Weights> loadWeights(const gguf::GgufFile &file, ModelConfig &c)
{
    Weights w;
    Binder b(file);
    const auto fail = [&](const Status &s) -> Result<Weights> { return s.withContext(file.path()); };

    // The vocabulary size comes from token_embd; a vocab_size key must agree.
    const gguf::TensorInfo *embd = file.tensor(tensorName(K::TENSOR_KIND_TOKEN_EMBD));
    if (!embd)
        return fail(Status::error("missing tensor 'token_embd.weight' (expected shape [" + std::to_string(c.nEmbd) +
                                  ", n_vocab])"));
    if (embd->nDims != 2 || embd->ne[1] < 1 || embd->ne[1] > (1 << 24))
        return fail(Status::error("tensor 'token_embd.weight' has shape " + shapeOf(*embd) + ", expected [" +
                                  std::to_string(c.nEmbd) + ", n_vocab]"));
    if (c.nVocab != 0 && c.nVocab != static_cast<uint64_t>(embd->ne[1]))
        return fail(Status::error(c.archName + ".vocab_size is " + std::to_string(c.nVocab) +
                                  " but token_embd.weight has " + std::to_string(embd->ne[1]) + " rows"));
    c.nVocab = static_cast<uint32_t>(embd->ne[1]);
    const int64_t E = c.nEmbd, V = c.nVocab;

    if (Status s = b.bind(w.tokenEmbd, K::TENSOR_KIND_TOKEN_EMBD, -1, E, V, REQ); !s)
        return fail(s);
    if (Status s = b.bind(w.outputNorm, K::TENSOR_KIND_OUTPUT_NORM, -1, E, 0, REQ); !s)
        return fail(s);
    if (!c.outputAlwaysTied) {
        if (Status s = b.bind(w.output, K::TENSOR_KIND_OUTPUT, -1, E, V, c.outputRequired ? REQ : OPT); !s)
            return fail(s);
    }
    c.tiedOutput = !w.output;
    if (c.tiedOutput)
        w.output = w.tokenEmbd;
    if (Status s = b.bind(w.ropeFreqs, K::TENSOR_KIND_ROPE_FREQS, -1, c.nRot / 2, 0, c.ropeFreqsRequired ? REQ : OPT); !s)
        return fail(s);

    w.layers.resize(c.nLayer + c.nLayerMtp);
    for (uint32_t l = 0; l < c.nLayer; ++l) {
        LayerWeights &L = w.layers[l];
        const int il = static_cast<int>(l);
        Status s = b.bind(L.attnNorm, K::TENSOR_KIND_ATTN_NORM, il, E, 0, REQ);
        if (s && c.layers[l].recurrent)
            s = bindRecurrent(b, c, L, il);
        else if (s)
            s = bindAttention(b, c, L, l);
        if (s) s = bindFfn(b, c, L, l);
        if (s && c.layerOutputScale)
            s = b.bind(L.layerOutScale, K::TENSOR_KIND_LAYER_OUTPUT_SCALE, il, 1, 0, c.isAssistant() ? REQ : OPT);
        if (!s)
            return fail(s);
    }
    if (c.nLayerMtp > 0)
        if (Status s = bindMtpBlock(b, c, w.layers[c.mtpLayer()], c.mtpLayer()); !s)
            return fail(s);
    if (c.nEmbdPerLayer > 0)
        if (Status s = bindPerLayerInputs(b, c, w); !s)
            return fail(s);
    if (c.isAssistant()) {
        const int64_t Et = c.nEmbdTarget;
        Status s = b.bind(w.nextnProjPre, K::TENSOR_KIND_NEXTN_PROJ_PRE, -1, 2 * Et, E, REQ);
        if (s) s = b.bind(w.nextnProjPost, K::TENSOR_KIND_NEXTN_PROJ_POST, -1, E, Et, REQ);
        if (!s)
            return fail(s);
    }
    // Per-tensor scales (NVFP4 "scale2" files) once every matrix is bound.
    if (Status s = bindWeightScales(file, c, w); !s)
        return fail(s);
    w.bytes = b.bytes();
    return w;
}

namespace {

template <typename W, typename V>
std::vector<V *> matricesOf(W &weights)
{
    std::vector<V *> out;
    for (auto &L : weights.layers) {
        for (V *t : {&L.wq, &L.wk, &L.wv, &L.wqkv, &L.wo, &L.ffnGate, &L.ffnUp, &L.ffnDown, &L.ffnGateInp, &L.ffnGateShexp,
                     &L.ffnUpShexp, &L.ffnDownShexp, &L.attnGate, &L.ssmBeta, &L.ssmAlpha, &L.ssmOut, &L.plInpGate, &L.plProj,
                     &L.nextnEhProj, &L.nextnSharedHeadHead})
            if (*t)
                out.push_back(t);
        for (auto *experts : {&L.gateExps, &L.upExps, &L.downExps})
            for (V &t : *experts)
                out.push_back(&t);
    }
    for (V *t : {&weights.perLayerModelProj, &weights.nextnProjPre, &weights.nextnProjPost})
        if (*t)
            out.push_back(t);
    if (weights.output)
        out.push_back(&weights.output);
    return out;
}

} // namespace

std::vector<TensorView *> weightMatrices(Weights &weights)
{
    return matricesOf<Weights, TensorView>(weights);
}

std::vector<const TensorView *> weightMatrices(const Weights &weights)
{
    return matricesOf<const Weights, const TensorView>(weights);
}

} // namespace burrow::model
