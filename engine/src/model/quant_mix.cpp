#include "model/quant_mix.h"

#include "quant/quant_traits.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace burrow::model {

namespace {

using T = GgmlType;

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool endsWith(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

int64_t blockOf(GgmlType t)
{
    const GgmlTypeInfo *info = ggmlTypeInfo(t);
    return info ? info->blockSize : 1;
}

// The layer of "blk.N.<rest>", or -1 (as the reference's sscanf("blk.%d.")).
int layerOf(const std::string &name)
{
    int layer = -1;
    if (std::sscanf(name.c_str(), "blk.%d.", &layer) != 1)
        return -1;
    return layer;
}

} // namespace

const std::vector<QuantFileType> &quantFileTypes()
{
    static const std::vector<QuantFileType> types = [] {
        const std::vector<QuantFileType> all = {
            {"F32", 0, T::GGML_TYPE_F32, "32-bit float (no quantization)"},
            {"F16", 1, T::GGML_TYPE_F16, "16-bit half float"},
            {"BF16", 32, T::GGML_TYPE_BF16, "16-bit bfloat"},
            {"Q8_0", 7, T::GGML_TYPE_Q8_0, "8.5 bits per weight, every matrix Q8_0"},
            {"Q6_K", 18, T::GGML_TYPE_Q6_K, "6.56 bits per weight"},
            {"Q5_K_M", 17, T::GGML_TYPE_Q5_K, "Q5_K, attn_v/ffn_down Q6_K on some layers"},
            {"Q5_K_S", 16, T::GGML_TYPE_Q5_K, "Q5_K"},
            {"Q5_1", 9, T::GGML_TYPE_Q5_1, "6 bits per weight"},
            {"Q5_0", 8, T::GGML_TYPE_Q5_0, "5.5 bits per weight"},
            {"Q4_K_M", 15, T::GGML_TYPE_Q4_K, "Q4_K, attn_v/ffn_down Q6_K on some layers"},
            {"Q4_K_S", 14, T::GGML_TYPE_Q4_K, "Q4_K, first attn_v/ffn_down Q5_K"},
            {"Q4_1", 3, T::GGML_TYPE_Q4_1, "5 bits per weight"},
            {"Q4_0", 2, T::GGML_TYPE_Q4_0, "4.5 bits per weight"},
            {"IQ4_NL", 25, T::GGML_TYPE_IQ4_NL, "4.5 bits per weight, non-linear levels"},
            {"IQ4_XS", 30, T::GGML_TYPE_IQ4_XS, "4.25 bits per weight, non-linear levels"},
            {"MXFP4_MOE", 38, T::GGML_TYPE_MXFP4, "experts MXFP4 (4.25 bits per weight), the rest Q8_0"},
            {"Q2_0", 41, T::GGML_TYPE_Q2_0, "2.25 bits per weight, embeddings Q4_K"},
            {"TQ2_0", 37, T::GGML_TYPE_TQ2_0, "2.06 bits per weight, ternary, embeddings Q4_K"},
            {"TQ1_0", 36, T::GGML_TYPE_TQ1_0, "1.69 bits per weight, ternary, embeddings Q4_K"},
            {"Q1_0", 40, T::GGML_TYPE_Q1_0, "1.13 bits per weight (signs and a scale), embeddings too"},
            {"NVFP4", 39, T::GGML_TYPE_NVFP4, "4.5 bits per weight, FP4 with FP8 scales (not in llama-quantize)"},
            {"IQ3_S", 26, T::GGML_TYPE_IQ3_S, "3.44 bits per weight, lattice codebook (no importance matrix)"},
        };
        // Only the types the engine can write (a quantizer in the trait table).
        std::vector<QuantFileType> offered;
        for (const QuantFileType &ft : all) {
            const quant::TypeTraits *t = quant::typeTraits(ft.baseType);
            if (t && t->quantize)
                offered.push_back(ft);
        }
        return offered;
    }();
    return types;
}

const QuantFileType *findQuantFileType(std::string_view name)
{
    for (const QuantFileType &ft : quantFileTypes()) {
        const std::string_view n = ft.name;
        if (n.size() != name.size())
            continue;
        bool same = true;
        for (size_t i = 0; i < n.size() && same; ++i)
            same = std::toupper(static_cast<unsigned char>(n[i])) == std::toupper(static_cast<unsigned char>(name[i]));
        if (same)
            return &ft;
    }
    return nullptr;
}

std::string quantFileTypeNames()
{
    std::string out;
    for (const QuantFileType &ft : quantFileTypes())
        out += (out.empty() ? "" : ", ") + std::string(ft.name);
    return out;
}

QuantMix::QuantMix(const QuantFileType &fileType, const QuantMixModel &model) : m_ft(fileType), m_model(model) {}

bool QuantMix::isQuantizable(std::string_view name, uint32_t nDims)
{
    return endsWith(name, "weight") && nDims >= 2 && !contains(name, "_norm.weight") &&
           !contains(name, "ffn_gate_inp.weight") && !contains(name, "ssm_conv1d") && name != "position_embd.weight" &&
           name != "token_types.weight" && !contains(name, "attn_rel_b.weight");
}

bool QuantMix::useMoreBits(int layer, int nLayer)
{
    return layer < nLayer / 8 || layer >= 7 * nLayer / 8 || (layer - nLayer / 8) % 3 == 2;
}

Result<GgmlType> QuantMix::tensorType(std::string_view name, int64_t ne0, int64_t ne2)
{
    const GgmlType base = m_ft.baseType;
    const bool quantized = base != T::GGML_TYPE_F32 && base != T::GGML_TYPE_F16 && base != T::GGML_TYPE_BF16;
    if (!quantized)
        return base;   // the reference applies no mix (and no fallback) to float file types

    const std::string_view ft = m_ft.name;
    const bool kM = ft == "Q4_K_M" || ft == "Q5_K_M";
    const bool iq4 = ft == "IQ4_NL" || ft == "IQ4_XS";
    const bool mxfp4 = ft == "MXFP4_MOE";
    const bool lowBitEmbeddingsQ4K = ft == "TQ1_0" || ft == "TQ2_0" || ft == "Q2_0";
    const bool eightExperts = m_model.nExpert == 8;
    const bool attnV = contains(name, "attn_v.weight") || contains(name, "attn_qkv.weight") ||
                       contains(name, "attn_kv_b.weight");
    GgmlType t = base;
    if (name == "output.weight" || (!m_model.hasOutput && name == "token_embd.weight")) {
        if (mxfp4 || ne0 % blockOf(base) != 0)
            t = T::GGML_TYPE_Q8_0;
        else if (base != T::GGML_TYPE_Q8_0)
            t = T::GGML_TYPE_Q6_K;
    } else if (mxfp4) {
        t = ne2 > 1 ? T::GGML_TYPE_MXFP4 : T::GGML_TYPE_Q8_0;
    } else if (name == "token_embd.weight") {
        // the base type but for the 2-bit and ternary files (the reference
        // also bumps it for the IQ1/IQ2/IQ3 file types)
        if (lowBitEmbeddingsQ4K)
            t = T::GGML_TYPE_Q4_K;
    } else if (attnV) {
        if (iq4 && m_model.nGqa >= 4)
            t = T::GGML_TYPE_Q5_K;
        else if (kM && useMoreBits(m_iAttentionV, m_model.nAttentionV))
            t = T::GGML_TYPE_Q6_K;
        else if (ft == "Q4_K_S" && m_iAttentionV < 4)
            t = T::GGML_TYPE_Q5_K;
        else if (ft == "IQ3_S" && m_model.nGqa >= 4)
            t = T::GGML_TYPE_Q4_K;
        if (m_model.is70B && (t == T::GGML_TYPE_Q3_K || t == T::GGML_TYPE_Q4_K))
            t = T::GGML_TYPE_Q5_K;   // 8 heads share attn_v: more bits for little size
        if (eightExperts)
            t = T::GGML_TYPE_Q8_0;
        ++m_iAttentionV;
    } else if (contains(name, "attn_k.weight")) {
        if (eightExperts)
            t = T::GGML_TYPE_Q8_0;
    } else if (contains(name, "attn_q.weight")) {
        // no change for the file types offered here
    } else if (contains(name, "attn_output.weight")) {
        if (eightExperts && (ft == "Q4_K_S" || ft == "Q4_K_M" || iq4 || ft == "IQ3_S"))
            t = T::GGML_TYPE_Q5_K;
    } else if (contains(name, "ffn_down")) {
        // With experts the layer is read from the name (the reference: experts
        // need not be consecutive in a file); else the counter is the layer.
        int layer = m_iFfnDown;
        if (m_model.nExpert > 1) {
            layer = layerOf(std::string(name));
            if (layer < 0 || layer >= m_model.nLayer)
                return Status::error("tensor '" + std::string(name) + "': cannot tell its layer (expected blk.N. with N < " +
                                     std::to_string(m_model.nLayer) + ")");
        }
        const int n = m_model.nLayer;
        if (kM && useMoreBits(layer, n))
            t = T::GGML_TYPE_Q6_K;
        else if (iq4 && layer < n / 8)
            t = T::GGML_TYPE_Q5_K;
        else if (ft == "Q4_K_S" && layer < n / 8)
            t = T::GGML_TYPE_Q5_K;
        ++m_iFfnDown;
    }

    if (ne0 % blockOf(t) != 0) {
        switch (t) {
        case T::GGML_TYPE_IQ4_XS:
        case T::GGML_TYPE_IQ3_S: t = T::GGML_TYPE_IQ4_NL; break;
        case T::GGML_TYPE_Q4_K: t = T::GGML_TYPE_Q5_0; break;
        case T::GGML_TYPE_Q5_K: t = T::GGML_TYPE_Q5_1; break;
        case T::GGML_TYPE_Q6_K: t = T::GGML_TYPE_Q8_0; break;
        case T::GGML_TYPE_Q2_0:
        case T::GGML_TYPE_TQ1_0:
        case T::GGML_TYPE_TQ2_0: t = T::GGML_TYPE_Q4_0; break;
        default:
            return Status::error("tensor '" + std::string(name) + "' has rows of " + std::to_string(ne0) +
                                 " elements, not a multiple of " + std::to_string(blockOf(t)) +
                                 " as type " + ggmlTypeName(t) + " needs");
        }
        if (ne0 % blockOf(t) != 0)
            t = T::GGML_TYPE_F16;
    }
    return t;
}

void QuantMix::sortTensorNames(std::vector<std::string> &names)
{
    std::sort(names.begin(), names.end(), [](const std::string &a, const std::string &b) {
        const int la = layerOf(a), lb = layerOf(b);
        if (la != lb)
            return la < lb;
        return a < b;
    });
}

} // namespace burrow::model
