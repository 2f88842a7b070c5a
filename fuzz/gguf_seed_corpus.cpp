// Writes the generated part of the fuzzer's seed corpus into DIR: small valid
// GGUF files covering every value type, several tensor types and alignments,
// and corrupt variants of them (truncated inside every section, counts,
// lengths, types, dimensions and offsets set to edge values).
//
// usage: gguf_seed_corpus DIR
#include "gguf/gguf_writer.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace burrow;
using namespace burrow::gguf;

namespace {

int g_written = 0;

bool save(const std::string &dir, const std::string &name, const std::vector<uint8_t> &bytes)
{
    const std::string path = dir + "/" + name;
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "gguf_seed_corpus: cannot create %s\n", path.c_str());
        return false;
    }
    const bool ok = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    return std::fclose(f) == 0 && ok && ++g_written;
}

void put32(std::vector<uint8_t> &b, uint64_t at, uint32_t v)
{
    if (at + 4 <= b.size())
        std::memcpy(b.data() + at, &v, 4);
}

void put64(std::vector<uint8_t> &b, uint64_t at, uint64_t v)
{
    if (at + 8 <= b.size())
        std::memcpy(b.data() + at, &v, 8);
}

GgufWriter modelLike()
{
    GgufWriter w;
    w.addString("general.architecture", "llama");
    w.addString("general.name", "seed");
    w.addU32("general.file_type", 15);
    w.addU32("llama.context_length", 128);
    w.addU32("llama.embedding_length", 32);
    w.addU32("llama.block_count", 1);
    w.addU32("llama.attention.head_count", 4);
    w.addU32("llama.attention.head_count_kv", 2);
    w.addF32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
    w.addString("tokenizer.ggml.model", "llama");
    w.addStringArray("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a", "b", "\xe2\x96\x81" "c"});
    w.addArray("tokenizer.ggml.scores", ValueType::VALUE_TYPE_F32, std::vector<float>{0, 0, 0, -1, -2, -3});
    w.addArray("tokenizer.ggml.token_type", ValueType::VALUE_TYPE_I32, std::vector<int32_t>{2, 3, 3, 1, 1, 1});
    w.addU32("tokenizer.ggml.bos_token_id", 1);
    w.addU32("tokenizer.ggml.eos_token_id", 2);
    w.addBool("tokenizer.ggml.add_bos_token", true);
    w.addString("tokenizer.chat_template", "{% for m in messages %}{{ m.content }}{% endfor %}");
    w.addTensor("token_embd.weight", GgmlType::GGML_TYPE_Q8_0, {32, 6});
    w.addTensor("blk.0.attn_norm.weight", GgmlType::GGML_TYPE_F32, {32});
    w.addTensor("blk.0.attn_q.weight", GgmlType::GGML_TYPE_F16, {32, 32});
    w.addTensor("blk.0.ffn_down.weight", GgmlType::GGML_TYPE_Q4_K, {256, 2});
    return w;
}

GgufWriter everyType()
{
    GgufWriter w(2);
    w.setAlignment(64);
    w.addU8("u8", 1);
    w.addI8("i8", -1);
    w.addU16("u16", 2);
    w.addI16("i16", -2);
    w.addU32("u32", 3);
    w.addI32("i32", -3);
    w.addF32("f32", 0.5f);
    w.addBool("bool", true);
    w.addString("string", "text");
    w.addU64("u64", 4);
    w.addI64("i64", -4);
    w.addF64("f64", 0.25);
    w.addArray("arr.u16", ValueType::VALUE_TYPE_U16, std::vector<uint16_t>{1, 2, 3});
    w.addArray("arr.f64", ValueType::VALUE_TYPE_F64, std::vector<double>{1.0});
    w.addStringArray("arr.str", {"x", "", "yz"});
    w.addTensor("q4_0", GgmlType::GGML_TYPE_Q4_0, {32, 2, 1, 2});
    w.addTensor("iq4_xs", GgmlType::GGML_TYPE_IQ4_XS, {256});
    w.addTensor("bf16", GgmlType::GGML_TYPE_BF16, {3, 3, 3});
    return w;
}

void variants(const std::string &dir, const std::string &stem, const GgufWriter &w)
{
    GgufLayout l;
    const std::vector<uint8_t> base = w.bytes(&l);
    save(dir, stem + "-valid.gguf", base);

    // Truncated at and just inside every section boundary.
    std::vector<uint64_t> cuts = {3, 6, 12, 20, 24, l.metadataEnd, l.tensorInfosEnd, l.dataOffset, l.fileSize - 1};
    for (uint64_t o : l.kvOffsets)
        cuts.insert(cuts.end(), {o + 4, o + 10});
    for (uint64_t o : l.kvValueOffsets)
        cuts.push_back(o + 2);
    for (uint64_t o : l.tensorInfoOffsets)
        cuts.insert(cuts.end(), {o + 5, o + 20});
    for (uint64_t c : cuts)
        if (c < base.size())
            save(dir, stem + "-cut-" + std::to_string(c) + ".gguf", {base.begin(), base.begin() + long(c)});

    const uint64_t edges64[] = {0, 1, 0x7fffffffffffffffull, ~0ull, 1ull << 32, 1ull << 40};
    auto patched = [&](const std::string &name, auto fn) {
        std::vector<uint8_t> b = base;
        fn(b);
        save(dir, stem + "-" + name + ".gguf", b);
    };
    patched("version1", [](auto &b) { put32(b, 4, 1); });
    patched("version4", [](auto &b) { put32(b, 4, 4); });
    for (uint64_t e : edges64) {
        const std::string s = std::to_string(e);
        patched("ntensors-" + s, [&](auto &b) { put64(b, 8, e); });
        patched("nkv-" + s, [&](auto &b) { put64(b, 16, e); });
        if (!l.kvOffsets.empty())
            patched("keylen-" + s, [&](auto &b) { put64(b, l.kvOffsets.back(), e); });
        if (!l.tensorInfoOffsets.empty())
            patched("namelen-" + s, [&](auto &b) { put64(b, l.tensorInfoOffsets.back(), e); });
    }
    for (size_t k = 0; k < l.kvValueOffsets.size(); ++k) {
        const uint64_t typeAt = l.kvValueOffsets[k] - 4;
        for (uint32_t t : {9u, 13u, 0xffffffffu})
            patched("kv" + std::to_string(k) + "-type-" + std::to_string(t), [&](auto &b) { put32(b, typeAt, t); });
        patched("kv" + std::to_string(k) + "-len-huge", [&](auto &b) { put64(b, l.kvValueOffsets[k], 1ull << 62); });
        patched("kv" + std::to_string(k) + "-elem-array", [&](auto &b) { put32(b, l.kvValueOffsets[k], 9); });
    }
    for (size_t k = 0; k < l.tensorInfoOffsets.size(); ++k) {
        // Field positions need the name length, read back from the bytes.
        uint64_t nameLen = 0;
        std::memcpy(&nameLen, base.data() + l.tensorInfoOffsets[k], 8);
        const uint64_t nDimsAt = l.tensorInfoOffsets[k] + 8 + nameLen;
        uint32_t nDims = 0;
        std::memcpy(&nDims, base.data() + nDimsAt, 4);
        const uint64_t typeAt = nDimsAt + 4 + 8ull * nDims;
        const std::string t = "t" + std::to_string(k);
        for (uint32_t n : {0u, 5u, 0xffffffffu})
            patched(t + "-ndims-" + std::to_string(n), [&](auto &b) { put32(b, nDimsAt, n); });
        for (uint64_t e : {0ull, ~0ull, 1ull << 32, 33ull})
            patched(t + "-dim0-" + std::to_string(e), [&](auto &b) { put64(b, nDimsAt + 4, e); });
        for (uint32_t ty : {4u, 31u, 39u, 200u})
            patched(t + "-type-" + std::to_string(ty), [&](auto &b) { put32(b, typeAt, ty); });
        for (uint64_t off : {1ull, 32ull, 1ull << 20, ~0ull - 31})
            patched(t + "-offset-" + std::to_string(off), [&](auto &b) { put64(b, typeAt + 4, off); });
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: gguf_seed_corpus DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    variants(dir, "model", modelLike());
    variants(dir, "types", everyType());

    GgufWriter dup;
    dup.addU32("a", 1);
    dup.addU32("a", 2);
    save(dir, "dup-key.gguf", dup.bytes());
    GgufWriter align;
    align.addI32("general.alignment", 32);
    save(dir, "align-i32.gguf", align.bytes());
    GgufWriter align3;
    align3.addU32("general.alignment", 3);
    save(dir, "align-3.gguf", align3.bytes());
    GgufWriter dupTensor;
    dupTensor.addTensor("x", GgmlType::GGML_TYPE_F32, {4});
    dupTensor.addTensor("x", GgmlType::GGML_TYPE_F32, {4});
    save(dir, "dup-tensor.gguf", dupTensor.bytes());
    save(dir, "zip.bin", {'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0});
    save(dir, "gzip.bin", {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3});
    save(dir, "empty.bin", {});
    std::printf("gguf_seed_corpus: wrote %d files to %s\n", g_written, dir.c_str());
    return 0;
}
