#include "model/weight_scales.h"

#include "gguf/gguf_reader.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace burrow::model {

namespace {

// What a matrix's scale applies to: one view, or one value per expert view.
struct ScaledMatrix {
    std::string_view weightName;          // "blk.0.attn_q.weight"
    std::vector<TensorView *> views;      // 1, or one per expert
    bool applied = false;                 // the reference multiplies the outputs
};

void add(std::vector<ScaledMatrix> &out, TensorView &v, bool applied)
{
    if (v)
        out.push_back({v.name, {&v}, applied});
}

void addExperts(std::vector<ScaledMatrix> &out, std::vector<TensorView> &experts, bool applied)
{
    if (experts.empty())
        return;
    ScaledMatrix m{experts.front().name, {}, applied};
    for (TensorView &e : experts)
        m.views.push_back(&e);
    // A fused gate|up tensor is bound twice (gate views, then up views); the
    // reference loads no scale for it, so it is left out (its scale is refused).
    for (auto it = out.begin(); it != out.end(); ++it)
        if (it->weightName == m.weightName) {
            out.erase(it);
            return;
        }
    out.push_back(std::move(m));
}

std::vector<ScaledMatrix> scalableMatrices(const ModelConfig &c, Weights &w)
{
    std::vector<ScaledMatrix> out;
    for (LayerWeights &L : w.layers) {
        for (TensorView *v : {&L.wq, &L.wk, &L.wv, &L.wqkv, &L.wo, &L.attnGate, &L.ssmBeta, &L.ssmAlpha, &L.ssmOut,
                              &L.nextnEhProj, &L.nextnSharedHeadHead})
            add(out, *v, true);
        for (TensorView *v : {&L.ffnGate, &L.ffnUp, &L.ffnDown, &L.ffnGateShexp, &L.ffnUpShexp, &L.ffnDownShexp})
            add(out, *v, c.ffnScales);
        addExperts(out, L.gateExps, c.expertScales);
        addExperts(out, L.upExps, c.expertScales);
        addExperts(out, L.downExps, c.expertScales);
    }
    return out;
}

std::string text(std::string_view s) { return std::string(s); }

// The scale tensor's values (F32, shape [count]).
Status readScale(const gguf::TensorInfo &t, size_t count, bool experts, std::vector<float> &values)
{
    if (t.type != GgmlType::GGML_TYPE_F32 || t.nDims != 1 || t.ne[0] != static_cast<int64_t>(count))
        return Status::error("tensor '" + text(t.name) + "' has type " + ggmlTypeName(t.type) + " and " +
                             std::to_string(t.nElements) + " elements; a per-tensor scale must be F32 with " +
                             std::to_string(count) + (experts ? " elements (one per expert)" : " element"));
    values.resize(count);
    std::memcpy(values.data(), t.data, count * sizeof(float));
    for (float v : values)
        if (!std::isfinite(v))
            return Status::error("tensor '" + text(t.name) + "' holds a scale that is not a finite number");
    return Status::ok();
}

} // namespace

Status bindWeightScales(const gguf::GgufFile &file, const ModelConfig &c, Weights &w)
{
    std::vector<ScaledMatrix> matrices = scalableMatrices(c, w);
    // The output matrix: only an NVFP4 one that is not the embeddings.
    if (w.output && w.output.type == GgmlType::GGML_TYPE_NVFP4 && !c.tiedOutput)
        add(matrices, w.output, true);

    std::vector<float> values;
    for (const gguf::TensorInfo &t : file.tensors()) {
        const std::string_view n = t.name;
        const bool isScale = n.ends_with(".scale");
        if (!isScale && !n.ends_with(".input_scale"))
            continue;
        // gemma4's router input scale is a weight of its own (bound in weights.cpp).
        if (c.routerInputScale && n.ends_with(".ffn_gate_inp.scale"))
            continue;
        const std::string weight = text(n.substr(0, n.rfind('.'))) + ".weight";
        ScaledMatrix *m = nullptr;
        for (ScaledMatrix &candidate : matrices)
            if (candidate.weightName == weight)
                m = &candidate;
        if (!m) {
            // Multi-token prediction blocks not loaded (more than one, or no eh_proj): the reference loads their scales.
            if (n.find(".nextn.") != std::string_view::npos)
                continue;
            return Status::error("tensor '" + text(n) + "' is a per-tensor scale of '" + weight +
                                 "', a matrix that the model does not multiply with or whose scale the reference "
                                 "engine does not read");
        }
        const bool experts = m->views.size() > 1;   // one value per expert
        const size_t count = m->views.size();
        if (Status s = readScale(t, count, experts, values); !s)
            return s;
        if (!isScale || !m->applied)
            continue;   // .input_scale: never used by the reference; a scale its graph ignores
        for (size_t i = 0; i < m->views.size(); ++i)
            m->views[i]->outScale = values[i];
    }
    return Status::ok();
}

} // namespace burrow::model
