// readVocabData(): the tokenizer.ggml.* keys of a GGUF file, type-checked.
#include "tokenizer/vocab.h"

#include "gguf/gguf_reader.h"

#include <cstdint>

namespace burrow::tokenizer {

namespace {

bool isIntegerType(gguf::ValueType t)
{
    return gguf::isIntegerValueType(t);
}

bool isSignedType(gguf::ValueType t)
{
    using gguf::ValueType;
    return t == ValueType::VALUE_TYPE_I8 || t == ValueType::VALUE_TYPE_I16 || t == ValueType::VALUE_TYPE_I32 ||
           t == ValueType::VALUE_TYPE_I64;
}

// A token id key: any integer type; the value is kept wide so that range
// errors can be reported with the number that is in the file.
Status readId(const gguf::GgufFile &file, const char *key, std::optional<int64_t> &out)
{
    const gguf::KeyValue *kv = file.find(key);
    if (!kv)
        return Status::ok();
    const gguf::Value &value = kv->value;
    if (!isIntegerType(value.type))
        return Status::error(file.path() + ": metadata key '" + key + "' has type " + gguf::valueTypeName(value.type) +
                             ", expected an integer token id");
    if (isSignedType(value.type))
        out = value.i;
    else
        out = value.u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(value.u);
    return Status::ok();
}

Status readOptionalBool(const gguf::GgufFile &file, const char *key, std::optional<bool> &out)
{
    if (!file.find(key))
        return Status::ok();
    bool value = false;
    if (Status s = file.getBool(key, value); !s)
        return s;
    out = value;
    return Status::ok();
}

} // namespace

Status readVocabData(const gguf::GgufFile &file, VocabData &out)
{
    out.source = file.path();
    if (Status s = file.getString("tokenizer.ggml.model", out.model); !s)
        return s;
    if (Status s = file.getOptionalString("tokenizer.ggml.pre", out.pre); !s)
        return s;
    if (Status s = file.getOptionalString("general.name", out.generalName); !s)
        return s;
    if (Status s = file.getStringArray("tokenizer.ggml.tokens", out.tokens); !s)
        return s;
    if (file.find("tokenizer.ggml.scores"))
        if (Status s = file.getF32Array("tokenizer.ggml.scores", out.scores); !s)
            return s;
    if (file.find("tokenizer.ggml.token_type"))
        if (Status s = file.getI32Array("tokenizer.ggml.token_type", out.tokenTypes); !s)
            return s;
    if (file.find("tokenizer.ggml.merges"))
        if (Status s = file.getStringArray("tokenizer.ggml.merges", out.merges); !s)
            return s;

    struct IdKey {
        const char *key;
        std::optional<int64_t> &value;
    };
    const IdKey ids[] = {
        {"tokenizer.ggml.bos_token_id", out.bosId},
        {"tokenizer.ggml.eos_token_id", out.eosId},
        {"tokenizer.ggml.eot_token_id", out.eotId},
        {"tokenizer.ggml.eom_token_id", out.eomId},
        {"tokenizer.ggml.unknown_token_id", out.unkId},
        {"tokenizer.ggml.padding_token_id", out.padId},
        {"tokenizer.ggml.seperator_token_id", out.sepId},
        {"tokenizer.ggml.mask_token_id", out.maskId},
        {"tokenizer.ggml.fim_pre_token_id", out.fimPreId},
        {"tokenizer.ggml.fim_suf_token_id", out.fimSufId},
        {"tokenizer.ggml.fim_mid_token_id", out.fimMidId},
        {"tokenizer.ggml.fim_pad_token_id", out.fimPadId},
        {"tokenizer.ggml.fim_rep_token_id", out.fimRepId},
        {"tokenizer.ggml.fim_sep_token_id", out.fimSepId},
        // Older names of the first three fill-in-the-middle ids; read last,
        // they win, as in the reference.
        {"tokenizer.ggml.prefix_token_id", out.fimPreId},
        {"tokenizer.ggml.suffix_token_id", out.fimSufId},
        {"tokenizer.ggml.middle_token_id", out.fimMidId},
    };
    for (const IdKey &k : ids)
        if (Status s = readId(file, k.key, k.value); !s)
            return s;

    if (Status s = readOptionalBool(file, "tokenizer.ggml.add_bos_token", out.addBos); !s)
        return s;
    if (Status s = readOptionalBool(file, "tokenizer.ggml.add_eos_token", out.addEos); !s)
        return s;
    if (Status s = readOptionalBool(file, "tokenizer.ggml.add_space_prefix", out.addSpacePrefix); !s)
        return s;
    return Status::ok();
}

} // namespace burrow::tokenizer
