// burrow::inspectModel(): the facts `burrow-cli info` and the app's model
// list show, read from the GGUF header only (no tensor data is touched).
#include "burrow/engine.h"

#include "common/checked.h"
#include "model/model_config.h"
#include "api/model_info.h"

#include <algorithm>
#include <limits>

namespace burrow {

namespace {

// llama.cpp's LLAMA_FTYPE_* names for general.file_type (ids 4-6 and 33-35
// were removed upstream).
const char *fileTypeName(uint32_t ftype)
{
    switch (ftype) {
    case 0: return "F32";
    case 1: return "F16";
    case 2: return "Q4_0";
    case 3: return "Q4_1";
    case 7: return "Q8_0";
    case 8: return "Q5_0";
    case 9: return "Q5_1";
    case 10: return "Q2_K";
    case 11: return "Q3_K_S";
    case 12: return "Q3_K_M";
    case 13: return "Q3_K_L";
    case 14: return "Q4_K_S";
    case 15: return "Q4_K_M";
    case 16: return "Q5_K_S";
    case 17: return "Q5_K_M";
    case 18: return "Q6_K";
    case 19: return "IQ2_XXS";
    case 20: return "IQ2_XS";
    case 21: return "Q2_K_S";
    case 22: return "IQ3_XS";
    case 23: return "IQ3_XXS";
    case 24: return "IQ1_S";
    case 25: return "IQ4_NL";
    case 26: return "IQ3_S";
    case 27: return "IQ3_M";
    case 28: return "IQ2_S";
    case 29: return "IQ2_M";
    case 30: return "IQ4_XS";
    case 31: return "IQ1_M";
    case 32: return "BF16";
    case 36: return "TQ1_0";
    case 37: return "TQ2_0";
    case 38: return "MXFP4_MOE";
    case 39: return "NVFP4";
    case 40: return "Q1_0";
    case 41: return "Q2_0";
    default: return nullptr;
    }
}

// A scalar integer key, or the largest element of an integer array (per-layer
// head counts); `out` untouched when absent.
Status getCountOrMax(const gguf::GgufFile &f, const std::string &key, uint32_t &out)
{
    const gguf::KeyValue *kv = f.find(key);
    if (!kv)
        return {};
    if (kv->value.type != gguf::ValueType::VALUE_TYPE_ARRAY)
        return f.getU32(key, out);
    std::vector<int32_t> values;
    if (Status s = f.getI32Array(key, values); !s)
        return s;
    int32_t best = 0;
    for (int32_t v : values)
        best = std::max(best, v);
    out = static_cast<uint32_t>(best);
    return {};
}

// Sum over layers of the per-layer value (scalar: value * nLayers).
Status sumPerLayer(const gguf::GgufFile &f, const std::string &key, uint32_t fallback, uint32_t nLayers,
                   uint64_t &out)
{
    const gguf::KeyValue *kv = f.find(key);
    if (kv && kv->value.type == gguf::ValueType::VALUE_TYPE_ARRAY) {
        std::vector<int32_t> values;
        if (Status s = f.getI32Array(key, values); !s)
            return s;
        out = 0;
        for (int32_t v : values)
            out += static_cast<uint64_t>(std::max(v, 0)); // <= 2^30 elements of < 2^31: fits
        return {};
    }
    uint32_t v = fallback;
    if (kv)
        if (Status s = f.getU32(key, v); !s)
            return s;
    out = static_cast<uint64_t>(v) * nLayers;
    return {};
}

Status tokenId(const gguf::GgufFile &f, const char *key, Token &out)
{
    uint32_t v = 0;
    if (!f.find(key))
        return {};
    if (Status s = f.getU32(key, v); !s)
        return s;
    if (v > static_cast<uint32_t>(std::numeric_limits<Token>::max()))
        return Status::error(f.path() + ": metadata: key '" + key + "': token id " + std::to_string(v)
                             + " is out of range, expected 0.." + std::to_string(std::numeric_limits<Token>::max()));
    out = static_cast<Token>(v);
    return {};
}

} // namespace

Result<ModelInfo> inspectModel(const std::string &path)
{
    auto opened = gguf::GgufFile::open(path);
    if (!opened)
        return opened.status();
    return api::inspectGguf(**opened);
}

Result<ModelInfo> api::inspectGguf(const gguf::GgufFile &f)
{
    const std::string &path = f.path();
    ModelInfo info;
    info.path = path;
    info.fileSize = f.fileSize();
    if (Status s = f.getString("general.architecture", info.architecture); !s)
        return s;
    const size_t slash = path.find_last_of('/');
    info.name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (Status s = f.getOptionalString("general.name", info.name); !s)
        return s;

    const std::string &arch = info.architecture;
    if (Status s = f.getOptionalU32(arch + ".context_length", info.contextLength); !s)
        return s;
    if (Status s = f.getOptionalU32(arch + ".embedding_length", info.embeddingLength); !s)
        return s;
    if (Status s = f.getOptionalU32(arch + ".block_count", info.blockCount); !s)
        return s;
    if (Status s = getCountOrMax(f, arch + ".attention.head_count", info.headCount); !s)
        return s;
    info.headCountKv = info.headCount;
    if (Status s = getCountOrMax(f, arch + ".attention.head_count_kv", info.headCountKv); !s)
        return s;
    if (info.headCount > 0)
        info.headDim = info.embeddingLength / info.headCount;
    if (Status s = f.getOptionalU32(arch + ".attention.key_length", info.headDim); !s)
        return s;
    uint32_t valueDim = info.headDim;
    if (Status s = f.getOptionalU32(arch + ".attention.value_length", valueDim); !s)
        return s;

    // KV cache: F16 (2 bytes) K (key_length per head) and V (value_length per
    // head) for every KV head of every layer.
    uint64_t kvHeads = 0;
    if (Status s = sumPerLayer(f, arch + ".attention.head_count_kv", info.headCountKv, info.blockCount, kvHeads); !s)
        return s;
    uint64_t perHead = 0, perToken = 0;
    if (!checkedMul<uint64_t>(2, static_cast<uint64_t>(info.headDim) + valueDim, &perHead)
        || !checkedMul<uint64_t>(perHead, kvHeads, &perToken))
        return Status::error(path + ": metadata: the KV cache size per token overflows, expected sane head counts");
    info.kvBytesPerToken = perToken;

    // What only the architecture knows (which layers slide, the experts):
    // from the model config when Burrow supports the architecture; the
    // header facts above stand either way.
    if (auto config = model::loadModelConfig(f)) {
        const model::ModelConfig &c = config.value();
        info.slidingWindow = c.slidingWindow;
        info.slidingLayerCount = c.slidingLayerCount();
        info.expertCount = c.nExpert;
        info.expertUsedCount = c.nExpertUsed;
        info.recurrentLayerCount = c.recurrentLayerCount();
        if (info.recurrentLayerCount > 0)
            info.recurrentStateBytes = c.ssmStateFloats() * info.recurrentLayerCount * sizeof(float);
        if (c.isAssistant()) {
            info.draftsFor = "gemma4";
            info.drafters.clear();
        }
        info.mtpLayerCount = c.nextnDeclared;
        info.mtpDrafting = c.nLayerMtp > 0;
        if (info.mtpDrafting)
            info.drafters.insert(info.drafters.begin(), "mtp");
        // Keys and values (F16) of the layers that keep their own: not the
        // recurrent ones, not those that share an earlier layer's (gemma4);
        // the multi-token-prediction block Burrow runs has its own; each
        // layer with its own KV heads and head sizes.
        uint64_t full = 0, sliding = 0;
        for (uint32_t il = 0; il < c.layers.size(); ++il) {
            if (!c.ownsKv(il))
                continue;
            const model::LayerSpec &l = c.layers[il];
            const uint64_t bytes = 2ull * l.nHeadKv * (static_cast<uint64_t>(l.headDimK) + l.headDimV);
            (l.sliding && c.slidingWindow != 0 ? sliding : full) += bytes;
        }
        info.kvBytesPerToken = full;
        info.kvBytesPerTokenSliding = sliding;
        info.sharedKvLayerCount = c.nSharedKvLayers;
        for (const model::LayerSpec &l : c.layers)
            if (l.sliding && c.slidingWindow != 0 && !l.recurrent && l.headDimK != c.headDimK)
                info.headDimSliding = l.headDimK;
        info.perLayerEmbeddingLength = c.nEmbdPerLayer;
        if (c.nEmbdPerLayer > 0)
            if (const gguf::TensorInfo *t = f.tensor("per_layer_token_embd.weight"))
                info.perLayerEmbeddingBytes = t->nBytes;
    }

    if (Status s = f.getOptionalString("tokenizer.ggml.model", info.vocabType); !s)
        return s;
    if (const gguf::KeyValue *tokens = f.find("tokenizer.ggml.tokens")) {
        // The reader checked the declared type (array of string) and caps arrays at 2^30.
        info.vocabSize = static_cast<uint32_t>(tokens->value.arrayCount);
    }
    if (Status s = tokenId(f, "tokenizer.ggml.bos_token_id", info.bosId); !s)
        return s;
    if (Status s = tokenId(f, "tokenizer.ggml.eos_token_id", info.eosId); !s)
        return s;
    if (Status s = f.getOptionalString("tokenizer.chat_template", info.chatTemplate); !s)
        return s;
    info.hasChatTemplate = !info.chatTemplate.empty();

    std::map<std::string, uint64_t> elementsByType;
    uint64_t expertElements = 0;   // in the 3-D expert tensors (and their biases)
    for (const gguf::TensorInfo &t : f.tensors()) {
        const std::string type = ggmlTypeName(t.type);
        ++info.tensorTypeCounts[type];
        elementsByType[type] += static_cast<uint64_t>(t.nElements);
        // Sums are bounded by the file size (bytes) and by bytes * 256 / 2 (elements).
        info.parameterCount += static_cast<uint64_t>(t.nElements);
        info.weightBytes += t.nBytes;
        if (t.name.find("_exps.") != std::string_view::npos)
            expertElements += static_cast<uint64_t>(t.nElements);
    }
    // A token reads expertUsedCount of expertCount experts.
    info.activeParameterCount = info.parameterCount;
    if (info.expertCount > 0 && info.expertUsedCount <= info.expertCount)
        info.activeParameterCount = info.parameterCount - expertElements +
                                    expertElements / info.expertCount * info.expertUsedCount;

    uint32_t ftype = 0;
    const char *ftypeName = nullptr;
    if (f.find("general.file_type")) {
        if (Status s = f.getU32("general.file_type", ftype); !s)
            return s;
        ftypeName = fileTypeName(ftype);
    }
    if (ftypeName) {
        info.fileType = ftypeName;
    } else {
        uint64_t best = 0;
        for (const auto &[type, elements] : elementsByType) {
            if (elements > best) {
                best = elements;
                info.fileType = type;
            }
        }
    }
    return info;
}

} // namespace burrow
