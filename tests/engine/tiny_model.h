// Builds small random-weight GGUF models with the project's GGUF writer, for
// tests that must not depend on ../shared (and for broken variants: a
// dropped tensor, a wrong shape, a wrong type, a wrong metadata type).
#pragma once

#include "gguf/gguf_writer.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace burrow::test {

struct TinySpec {
    std::string arch = "llama";
    uint32_t nEmbd = 32, nLayer = 2, nHead = 4, nHeadKv = 2, nFf = 64, nCtx = 64;
    bool withVocab = true;                               // 16-token SPM vocabulary
    std::vector<std::string> controlTokens;              // appended to it as control tokens
    std::vector<std::string> userTokens;                 // then these, as user-defined tokens (text shown)
    bool tiedOutput = false;
    std::set<std::string> dropTensors;                   // names left out
    std::set<std::string> dropKeys;                      // metadata keys left out
    std::map<std::string, std::vector<int64_t>> shapes;  // name -> dims override
    std::map<std::string, GgmlType> types;               // name -> type override (zero data)
    std::map<std::string, std::vector<float>> values;    // name -> F32 values (instead of random ones)
    std::function<void(gguf::GgufWriter &)> extraKeys;   // appended after the standard keys
    uint32_t seed = 42;
};

inline const std::vector<std::string> &tinyVocab()
{
    static const std::vector<std::string> v = {"<unk>", "<s>", "</s>", "\xE2\x96\x81" "a", "\xE2\x96\x81" "b", "a", "b",
                                               "c", "d", "e", "f", "g", "h", "\xE2\x96\x81", "x", "y"};
    return v;
}

inline std::vector<uint8_t> buildTinyModel(const TinySpec &s)
{
    using gguf::GgufWriter;
    using gguf::ValueType;
    GgufWriter w;
    const std::string p = s.arch + ".";
    const auto key = [&](const std::string &k) { return !s.dropKeys.count(k); };
    w.addString("general.architecture", s.arch);
    w.addString("general.name", "tiny-" + s.arch);
    if (key(p + "context_length")) w.addU32(p + "context_length", s.nCtx);
    if (key(p + "embedding_length")) w.addU32(p + "embedding_length", s.nEmbd);
    if (key(p + "block_count")) w.addU32(p + "block_count", s.nLayer);
    if (key(p + "feed_forward_length")) w.addU32(p + "feed_forward_length", s.nFf);
    if (key(p + "attention.head_count")) w.addU32(p + "attention.head_count", s.nHead);
    if (key(p + "attention.head_count_kv")) w.addU32(p + "attention.head_count_kv", s.nHeadKv);
    if (key(p + "attention.layer_norm_rms_epsilon")) w.addF32(p + "attention.layer_norm_rms_epsilon", 1e-5f);
    if (key(p + "rope.freq_base")) w.addF32(p + "rope.freq_base", 10000.0f);
    if (s.extraKeys)
        s.extraKeys(w);
    std::vector<std::string> vocab = tinyVocab();
    vocab.insert(vocab.end(), s.controlTokens.begin(), s.controlTokens.end());
    vocab.insert(vocab.end(), s.userTokens.begin(), s.userTokens.end());
    const uint32_t nVocab = static_cast<uint32_t>(vocab.size());
    if (s.withVocab) {
        w.addString("tokenizer.ggml.model", "llama");
        w.addStringArray("tokenizer.ggml.tokens", vocab);
        std::vector<float> scores(nVocab, 0.0f);
        std::vector<int32_t> types(nVocab, 1);
        types[0] = 2;
        types[1] = types[2] = 3;
        for (size_t i = tinyVocab().size(); i < vocab.size(); ++i)
            types[i] = i < tinyVocab().size() + s.controlTokens.size() ? 3 : 4;   // control, user-defined
        w.addArray("tokenizer.ggml.scores", ValueType::VALUE_TYPE_F32, scores);
        w.addArray("tokenizer.ggml.token_type", ValueType::VALUE_TYPE_I32, types);
        w.addU32("tokenizer.ggml.bos_token_id", 1);
        w.addU32("tokenizer.ggml.eos_token_id", 2);
        w.addU32("tokenizer.ggml.unknown_token_id", 0);
    }

    std::mt19937 rng(s.seed);
    std::normal_distribution<float> normal(0.0f, 0.2f);
    const auto add = [&](const std::string &name, std::vector<int64_t> dims, bool norm) {
        if (s.dropTensors.count(name))
            return;
        if (auto it = s.shapes.find(name); it != s.shapes.end())
            dims = it->second;
        if (auto it = s.types.find(name); it != s.types.end()) {
            w.addTensor(name, it->second, dims);
            return;
        }
        int64_t n = 1;
        for (int64_t d : dims)
            n *= d;
        std::vector<float> values(static_cast<size_t>(n));
        for (float &v : values)
            v = norm ? 1.0f + 0.1f * normal(rng) : normal(rng);
        if (auto it = s.values.find(name); it != s.values.end() && it->second.size() == values.size())
            values = it->second;
        std::vector<uint8_t> bytes(values.size() * 4);
        std::memcpy(bytes.data(), values.data(), bytes.size());
        w.addTensor(name, GgmlType::GGML_TYPE_F32, dims, std::move(bytes));
    };
    const int64_t E = s.nEmbd, hd = s.nEmbd / s.nHead, KV = hd * s.nHeadKv, F = s.nFf;
    add("token_embd.weight", {E, nVocab}, false);
    add("output_norm.weight", {E}, true);
    if (!s.tiedOutput)
        add("output.weight", {E, nVocab}, false);
    for (uint32_t l = 0; l < s.nLayer; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        add(b + "attn_norm.weight", {E}, true);
        add(b + "attn_q.weight", {E, E}, false);
        add(b + "attn_k.weight", {E, KV}, false);
        add(b + "attn_v.weight", {E, KV}, false);
        if (s.arch == "qwen2") {
            add(b + "attn_q.bias", {E}, false);
            add(b + "attn_k.bias", {KV}, false);
            add(b + "attn_v.bias", {KV}, false);
        }
        add(b + "attn_output.weight", {E, E}, false);
        add(b + "ffn_norm.weight", {E}, true);
        add(b + "ffn_gate.weight", {E, F}, false);
        add(b + "ffn_up.weight", {E, F}, false);
        add(b + "ffn_down.weight", {F, E}, false);
    }
    return w.bytes();
}

// A model whose greedy reply is scripted: every layer weight is zero (the
// residual stream stays the embedding), token t's embedding is the unit
// vector t, and the output matrix gives next[t] a high logit after t (the
// other logits are 0). Needs s.nEmbd >= the vocabulary size (16 + the extra
// tokens); nLayer is set to 1.
inline TinySpec scriptedSpec(const std::map<int32_t, int32_t> &next, TinySpec s = {})
{
    s.nLayer = 1;
    for (const char *t : {"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up",
                          "ffn_down"})
        s.types[std::string("blk.0.") + t + ".weight"] = GgmlType::GGML_TYPE_F32;   // zero data
    const size_t E = s.nEmbd, V = tinyVocab().size() + s.controlTokens.size() + s.userTokens.size();
    std::vector<float> embd(E * V, 0.0f), output(E * V, 0.0f);
    for (size_t t = 0; t < V && t < E; ++t)
        embd[t * E + t] = 1.0f;
    for (const auto &[from, to] : next)
        if (size_t(from) < E && size_t(to) < V)
            output[size_t(to) * E + size_t(from)] = 8.0f;
    s.values["token_embd.weight"] = std::move(embd);
    s.values["output.weight"] = std::move(output);
    s.values["output_norm.weight"] = std::vector<float>(E, 1.0f);
    return s;
}

// Writes buildTinyModel(s) to `path`; false when the file cannot be written.
inline bool writeTinyModel(const TinySpec &s, const std::string &path)
{
    const std::vector<uint8_t> bytes = buildTinyModel(s);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return bool(out.flush());
}

} // namespace burrow::test
