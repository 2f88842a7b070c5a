// Writes the seed corpus of fuzz_vocab into DIR: small vocabulary-only GGUF
// files. Generated ones: a SentencePiece vocabulary (scores, byte tokens,
// control and user-defined tokens) and a byte-level BPE vocabulary for every
// `tokenizer.ggml.pre` Burrow knows. From SHARED (../shared, when given): each
// tokenizer*/ggml-vocab-*.gguf cut down to its first tokens, its special
// tokens and the merges among them, with the ids remapped (the files
// themselves are megabytes; the fuzzer wants kilobytes).
//
// usage: vocab_seed_corpus DIR [SHARED]
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/vocab.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

using namespace burrow;
using namespace burrow::tokenizer;

namespace {

int g_written = 0;

bool save(const std::string &dir, const std::string &name, const gguf::GgufWriter &w)
{
    const std::vector<uint8_t> bytes = w.bytes();
    const std::string path = dir + "/" + name;
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "vocab_seed_corpus: cannot create %s\n", path.c_str());
        return false;
    }
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    return std::fclose(f) == 0 && ok && ++g_written;
}

// The VocabData as tokenizer.ggml.* keys.
gguf::GgufWriter writerFor(const VocabData &v)
{
    gguf::GgufWriter w;
    w.addString("general.architecture", "llama");
    if (!v.generalName.empty())
        w.addString("general.name", v.generalName);
    w.addString("tokenizer.ggml.model", v.model);
    if (!v.pre.empty())
        w.addString("tokenizer.ggml.pre", v.pre);
    w.addStringArray("tokenizer.ggml.tokens", v.tokens);
    if (!v.scores.empty())
        w.addArray("tokenizer.ggml.scores", gguf::ValueType::VALUE_TYPE_F32, v.scores);
    if (!v.tokenTypes.empty())
        w.addArray("tokenizer.ggml.token_type", gguf::ValueType::VALUE_TYPE_I32, v.tokenTypes);
    if (!v.merges.empty())
        w.addStringArray("tokenizer.ggml.merges", v.merges);
    auto id = [&](const char *key, const std::optional<int64_t> &value) {
        if (value && *value >= 0 && *value <= 0xFFFFFFFFll)
            w.addU32(key, uint32_t(*value));
    };
    id("tokenizer.ggml.bos_token_id", v.bosId);
    id("tokenizer.ggml.eos_token_id", v.eosId);
    id("tokenizer.ggml.eot_token_id", v.eotId);
    id("tokenizer.ggml.unknown_token_id", v.unkId);
    id("tokenizer.ggml.padding_token_id", v.padId);
    if (v.addBos)
        w.addBool("tokenizer.ggml.add_bos_token", *v.addBos);
    if (v.addEos)
        w.addBool("tokenizer.ggml.add_eos_token", *v.addEos);
    if (v.addSpacePrefix)
        w.addBool("tokenizer.ggml.add_space_prefix", *v.addSpacePrefix);
    return w;
}

// A shared vocabulary cut down: the first `keep` tokens, the special ones
// (control, user-defined, unknown; at most 200), ids remapped in order;
// the merges among kept tokens (at most `maxMerges`).
VocabData cutDown(const VocabData &in, size_t keep, size_t maxMerges)
{
    const size_t n = in.tokens.size();
    std::vector<char> kept(n, 0);
    for (size_t i = 0; i < n && i < keep; ++i)
        kept[i] = 1;
    size_t specials = 0;
    for (size_t i = 0; i < n && i < in.tokenTypes.size() && specials < 200; ++i) {
        const int32_t t = in.tokenTypes[i];
        if ((t == 2 || t == 3 || t == 4) && !kept[i]) {
            kept[i] = 1;
            ++specials;
        }
    }
    for (const auto *id : {&in.bosId, &in.eosId, &in.eotId, &in.unkId, &in.padId})
        if (*id && **id >= 0 && size_t(**id) < n)
            kept[size_t(**id)] = 1;

    VocabData out;
    out.model = in.model;
    out.pre = in.pre;
    out.generalName = in.generalName;
    out.addBos = in.addBos;
    out.addEos = in.addEos;
    out.addSpacePrefix = in.addSpacePrefix;
    std::vector<int64_t> remap(n, -1);
    std::unordered_map<std::string, int> present;
    for (size_t i = 0; i < n; ++i) {
        if (!kept[i])
            continue;
        remap[i] = int64_t(out.tokens.size());
        present[in.tokens[i]] = 1;
        out.tokens.push_back(in.tokens[i]);
        if (!in.scores.empty())
            out.scores.push_back(in.scores[i]);
        if (!in.tokenTypes.empty())
            out.tokenTypes.push_back(in.tokenTypes[i]);
    }
    auto mapId = [&](const std::optional<int64_t> &id) -> std::optional<int64_t> {
        if (!id || *id < 0 || size_t(*id) >= n || remap[size_t(*id)] < 0)
            return std::nullopt;
        return remap[size_t(*id)];
    };
    out.bosId = mapId(in.bosId);
    out.eosId = mapId(in.eosId);
    out.eotId = mapId(in.eotId);
    out.unkId = mapId(in.unkId);
    out.padId = mapId(in.padId);
    for (const std::string &merge : in.merges) {
        if (out.merges.size() >= maxMerges)
            break;
        const size_t space = merge.find(' ', 1);
        if (space == std::string::npos)
            continue;
        if (present.count(merge.substr(0, space)) && present.count(merge.substr(space + 1)))
            out.merges.push_back(merge);
    }
    return out;
}

std::string byteLevel(unsigned char b)
{
    // GPT-2's byte map: printable Latin-1 bytes are themselves, the others
    // U+0100 + k in order.
    const bool direct = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
    uint32_t cp = b;
    if (!direct) {
        uint32_t k = 0;
        for (unsigned c = 0; c < b; ++c) {
            const bool d = (c >= 0x21 && c <= 0x7E) || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE);
            if (!d)
                ++k;
        }
        cp = 0x100 + k;
    }
    std::string s;
    if (cp < 0x80) {
        s += char(cp);
    } else {
        s += char(0xC0 | (cp >> 6));
        s += char(0x80 | (cp & 0x3F));
    }
    return s;
}

void generated(const std::string &dir)
{
    // SentencePiece: bytes, pieces with scores, special tokens.
    VocabData spm;
    spm.model = "llama";
    spm.generalName = "seed-spm";
    spm.tokens = {"<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>", "<think>"};
    spm.tokenTypes = {2, 3, 3, 3, 3, 4};
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        spm.tokens.emplace_back(name);
        spm.tokenTypes.push_back(6);
    }
    for (const char *piece : {"\xe2\x96\x81", "a", "b", "c", "\xe2\x96\x81" "a", "ab", "\xe2\x96\x81" "ab", "abc",
                              "\xe2\x96\x81\xe2\x96\x81", "\xe4\xbd\xa0", "\xe5\xa5\xbd", "\xe4\xbd\xa0\xe5\xa5\xbd"}) {
        spm.tokens.emplace_back(piece);
        spm.tokenTypes.push_back(1);
    }
    spm.scores.resize(spm.tokens.size());
    for (size_t i = 0; i < spm.scores.size(); ++i)
        spm.scores[i] = -float(i);
    spm.bosId = 1;
    spm.eosId = 2;
    spm.unkId = 0;
    save(dir, "gen-spm.gguf", writerFor(spm));
    spm.addSpacePrefix = false;
    save(dir, "gen-spm-no-prefix.gguf", writerFor(spm));

    // Byte-level BPE, one per pre-tokenizer.
    VocabData bpe;
    bpe.model = "gpt2";
    for (int b = 0; b < 256; ++b)
        bpe.tokens.push_back(byteLevel(static_cast<unsigned char>(b)));
    const std::string G = byteLevel(' ');
    for (const std::string &t : std::vector<std::string>{G + "t", "he", G + "the", "in", G + "a", "er", "<|endoftext|>",
                                                         "<|im_start|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>",
                                                         "<|channel|>", "<|message|>"})
        bpe.tokens.push_back(t);
    bpe.tokenTypes.assign(bpe.tokens.size(), 1);
    for (size_t i = 256 + 6; i < bpe.tokens.size(); ++i)
        bpe.tokenTypes[i] = 3;
    bpe.merges = {G + " t", "h e", G + "t he", "i n", G + " a", "e r"};
    bpe.bosId = 256 + 6;
    bpe.eosId = 256 + 6;
    for (const std::string &pre : knownPreTokenizers()) {
        bpe.pre = pre;
        bpe.generalName = "seed-" + pre;
        save(dir, "gen-bpe-" + pre + ".gguf", writerFor(bpe));
    }
}

void fromShared(const std::string &dir, const std::string &shared)
{
    namespace fs = std::filesystem;
    for (const char *folder : {"tokenizer", "tokenizer-2026"}) {
        const fs::path path = fs::path(shared) / folder;
        std::error_code ec;
        if (!fs::is_directory(path, ec))
            continue;
        for (const auto &entry : fs::directory_iterator(path, ec)) {
            const std::string name = entry.path().filename().string();
            if (name.rfind("ggml-vocab-", 0) != 0 || entry.path().extension() != ".gguf")
                continue;
            auto file = gguf::GgufFile::open(entry.path().string());
            if (!file) {
                std::fprintf(stderr, "vocab_seed_corpus: %s\n", file.message().c_str());
                continue;
            }
            VocabData data;
            if (Status s = readVocabData(*file.value(), data); !s) {
                std::fprintf(stderr, "vocab_seed_corpus: %s\n", s.message().c_str());
                continue;
            }
            const std::string stem = entry.path().stem().string();
            save(dir, "shared-" + stem + "-small.gguf", writerFor(cutDown(data, 300, 600)));
            save(dir, "shared-" + stem + "-medium.gguf", writerFor(cutDown(data, 1200, 3000)));
        }
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: vocab_seed_corpus DIR [SHARED]\n");
        return 2;
    }
    generated(argv[1]);
    if (argc == 3)
        fromShared(argv[1], argv[2]);
    std::printf("vocab_seed_corpus: %d files\n", g_written);
    return g_written > 0 ? 0 : 1;
}
