// GGUF reader: one validating pass over header, metadata and tensor infos.
//
// Every read goes through Cursor, which checks the bytes that remain before
// touching memory; every size derived from the file uses checked arithmetic.
// Errors are built by Parser::fail() so that all messages share one shape:
//   "<file>: <section>: <subject> at offset <N>: <problem>, expected <what>"
#include "gguf/gguf_reader.h"

#include "common/checked.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

namespace burrow::gguf {

size_t valueTypeSize(ValueType t)
{
    switch (t) {
    case ValueType::VALUE_TYPE_U8:
    case ValueType::VALUE_TYPE_I8:
    case ValueType::VALUE_TYPE_BOOL:
        return 1;
    case ValueType::VALUE_TYPE_U16:
    case ValueType::VALUE_TYPE_I16:
        return 2;
    case ValueType::VALUE_TYPE_U32:
    case ValueType::VALUE_TYPE_I32:
    case ValueType::VALUE_TYPE_F32:
        return 4;
    case ValueType::VALUE_TYPE_U64:
    case ValueType::VALUE_TYPE_I64:
    case ValueType::VALUE_TYPE_F64:
        return 8;
    case ValueType::VALUE_TYPE_STRING:
    case ValueType::VALUE_TYPE_ARRAY:
        return 0;
    }
    return 0;
}

bool isIntegerValueType(ValueType t)
{
    switch (t) {
    case ValueType::VALUE_TYPE_U8:
    case ValueType::VALUE_TYPE_I8:
    case ValueType::VALUE_TYPE_U16:
    case ValueType::VALUE_TYPE_I16:
    case ValueType::VALUE_TYPE_U32:
    case ValueType::VALUE_TYPE_I32:
    case ValueType::VALUE_TYPE_U64:
    case ValueType::VALUE_TYPE_I64:
        return true;
    default:
        return false;
    }
}

namespace {

constexpr uint32_t kValueTypeCount = 13;

bool isSigned(ValueType t)
{
    return t == ValueType::VALUE_TYPE_I8 || t == ValueType::VALUE_TYPE_I16 || t == ValueType::VALUE_TYPE_I32
        || t == ValueType::VALUE_TYPE_I64;
}

template <typename T>
T loadLE(const uint8_t *p)
{
    T v;
    std::memcpy(&v, p, sizeof v); // the engine targets little-endian hosts only
    return v;
}

// Decodes the integer at `p` of integer type `t` into a (negative, magnitude)
// pair expressed as i64/u64 widening: sets *isNeg, *mag.
void decodeInteger(ValueType t, const uint8_t *p, bool *isNeg, uint64_t *u, int64_t *i)
{
    *isNeg = false;
    switch (t) {
    case ValueType::VALUE_TYPE_U8: *u = p[0]; break;
    case ValueType::VALUE_TYPE_U16: *u = loadLE<uint16_t>(p); break;
    case ValueType::VALUE_TYPE_U32: *u = loadLE<uint32_t>(p); break;
    case ValueType::VALUE_TYPE_U64: *u = loadLE<uint64_t>(p); break;
    case ValueType::VALUE_TYPE_I8: *i = static_cast<int8_t>(p[0]); break;
    case ValueType::VALUE_TYPE_I16: *i = loadLE<int16_t>(p); break;
    case ValueType::VALUE_TYPE_I32: *i = loadLE<int32_t>(p); break;
    case ValueType::VALUE_TYPE_I64: *i = loadLE<int64_t>(p); break;
    default: *u = 0; *i = 0; return;
    }
    if (isSigned(t)) {
        *isNeg = *i < 0;
        *u = *isNeg ? 0 : static_cast<uint64_t>(*i);
    } else {
        *i = *u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? static_cast<int64_t>(*u) : 0;
    }
}

std::string quoted(std::string_view s)
{
    // Names come from the file: show at most 80 bytes, escape control bytes.
    std::string out = "'";
    const size_t n = std::min<size_t>(s.size(), 80);
    for (size_t k = 0; k < n; ++k) {
        const unsigned char c = static_cast<unsigned char>(s[k]);
        if (c < 0x20 || c == 0x7f) {
            static const char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    if (s.size() > n)
        out += "...";
    out += "'";
    return out;
}

bool isPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Expected declared types of the metadata keys the engine reads. Checked at
// parse time so that a later getter never meets a surprise. `{arch}` keys are
// matched by suffix after the architecture prefix.
enum class Expect { EXPECT_STRING, EXPECT_INTEGER, EXPECT_NUMBER, EXPECT_BOOL,
                    EXPECT_STRING_ARRAY, EXPECT_NUMBER_ARRAY, EXPECT_INTEGER_ARRAY,
                    EXPECT_INTEGER_OR_INTEGER_ARRAY };

struct KnownKey {
    const char *key;
    Expect expect;
};

constexpr KnownKey kKnownKeys[] = {
    {"general.architecture", Expect::EXPECT_STRING},
    {"general.name", Expect::EXPECT_STRING},
    {"general.file_type", Expect::EXPECT_INTEGER},
    {"general.quantization_version", Expect::EXPECT_INTEGER},
    {"tokenizer.ggml.model", Expect::EXPECT_STRING},
    {"tokenizer.ggml.pre", Expect::EXPECT_STRING},
    {"tokenizer.ggml.tokens", Expect::EXPECT_STRING_ARRAY},
    {"tokenizer.ggml.scores", Expect::EXPECT_NUMBER_ARRAY},
    {"tokenizer.ggml.token_type", Expect::EXPECT_INTEGER_ARRAY},
    {"tokenizer.ggml.merges", Expect::EXPECT_STRING_ARRAY},
    {"tokenizer.ggml.bos_token_id", Expect::EXPECT_INTEGER},
    {"tokenizer.ggml.eos_token_id", Expect::EXPECT_INTEGER},
    {"tokenizer.ggml.eot_token_id", Expect::EXPECT_INTEGER},
    {"tokenizer.ggml.eom_token_id", Expect::EXPECT_INTEGER},
    {"tokenizer.ggml.unknown_token_id", Expect::EXPECT_INTEGER},
    {"tokenizer.ggml.padding_token_id", Expect::EXPECT_INTEGER},
    {"tokenizer.ggml.seperator_token_id", Expect::EXPECT_INTEGER},
    {"tokenizer.ggml.cls_token_id", Expect::EXPECT_INTEGER},
    {"tokenizer.ggml.mask_token_id", Expect::EXPECT_INTEGER},
    {"tokenizer.ggml.add_bos_token", Expect::EXPECT_BOOL},
    {"tokenizer.ggml.add_eos_token", Expect::EXPECT_BOOL},
    {"tokenizer.ggml.add_space_prefix", Expect::EXPECT_BOOL},
    {"tokenizer.ggml.remove_extra_whitespaces", Expect::EXPECT_BOOL},
    {"tokenizer.chat_template", Expect::EXPECT_STRING},
};

constexpr KnownKey kArchKeys[] = {
    {".context_length", Expect::EXPECT_INTEGER},
    {".embedding_length", Expect::EXPECT_INTEGER},
    {".block_count", Expect::EXPECT_INTEGER},
    {".feed_forward_length", Expect::EXPECT_INTEGER_OR_INTEGER_ARRAY},
    {".vocab_size", Expect::EXPECT_INTEGER},
    {".attention.head_count", Expect::EXPECT_INTEGER_OR_INTEGER_ARRAY},
    {".attention.head_count_kv", Expect::EXPECT_INTEGER_OR_INTEGER_ARRAY},
    {".attention.key_length", Expect::EXPECT_INTEGER},
    {".attention.value_length", Expect::EXPECT_INTEGER},
    {".attention.layer_norm_rms_epsilon", Expect::EXPECT_NUMBER},
    {".attention.layer_norm_epsilon", Expect::EXPECT_NUMBER},
    {".attention.sliding_window", Expect::EXPECT_INTEGER},
    {".rope.dimension_count", Expect::EXPECT_INTEGER},
    {".rope.freq_base", Expect::EXPECT_NUMBER},
    {".rope.scaling.type", Expect::EXPECT_STRING},
    {".rope.scaling.factor", Expect::EXPECT_NUMBER},
    {".rope.scaling.original_context_length", Expect::EXPECT_INTEGER},
    {".rope.scaling.attn_factor", Expect::EXPECT_NUMBER},
    {".attn_logit_softcapping", Expect::EXPECT_NUMBER},
    {".final_logit_softcapping", Expect::EXPECT_NUMBER},
};

bool matches(Expect e, const Value &v)
{
    const bool num = isIntegerValueType(v.type) || v.type == ValueType::VALUE_TYPE_F32 || v.type == ValueType::VALUE_TYPE_F64;
    const bool isArr = v.type == ValueType::VALUE_TYPE_ARRAY;
    const ValueType at = v.arrayType;
    switch (e) {
    case Expect::EXPECT_STRING: return v.type == ValueType::VALUE_TYPE_STRING;
    case Expect::EXPECT_INTEGER: return isIntegerValueType(v.type);
    case Expect::EXPECT_NUMBER: return num;
    case Expect::EXPECT_BOOL: return v.type == ValueType::VALUE_TYPE_BOOL;
    case Expect::EXPECT_STRING_ARRAY: return isArr && at == ValueType::VALUE_TYPE_STRING;
    case Expect::EXPECT_NUMBER_ARRAY:
        return isArr && (at == ValueType::VALUE_TYPE_F32 || at == ValueType::VALUE_TYPE_F64);
    case Expect::EXPECT_INTEGER_ARRAY: return isArr && isIntegerValueType(at);
    case Expect::EXPECT_INTEGER_OR_INTEGER_ARRAY: return isIntegerValueType(v.type) || (isArr && isIntegerValueType(at));
    }
    return false;
}

const char *expectName(Expect e)
{
    switch (e) {
    case Expect::EXPECT_STRING: return "string";
    case Expect::EXPECT_INTEGER: return "an integer (u32)";
    case Expect::EXPECT_NUMBER: return "a number (f32)";
    case Expect::EXPECT_BOOL: return "bool";
    case Expect::EXPECT_STRING_ARRAY: return "array of string";
    case Expect::EXPECT_NUMBER_ARRAY: return "array of f32";
    case Expect::EXPECT_INTEGER_ARRAY: return "array of i32";
    case Expect::EXPECT_INTEGER_OR_INTEGER_ARRAY: return "an integer or an array of integers";
    }
    return "?";
}

std::string describeType(const Value &v)
{
    if (v.type == ValueType::VALUE_TYPE_ARRAY)
        return std::string("array of ") + valueTypeName(v.arrayType);
    return valueTypeName(v.type);
}

} // namespace

const char *valueTypeName(ValueType t)
{
    switch (t) {
    case ValueType::VALUE_TYPE_U8: return "u8";
    case ValueType::VALUE_TYPE_I8: return "i8";
    case ValueType::VALUE_TYPE_U16: return "u16";
    case ValueType::VALUE_TYPE_I16: return "i16";
    case ValueType::VALUE_TYPE_U32: return "u32";
    case ValueType::VALUE_TYPE_I32: return "i32";
    case ValueType::VALUE_TYPE_F32: return "f32";
    case ValueType::VALUE_TYPE_BOOL: return "bool";
    case ValueType::VALUE_TYPE_STRING: return "string";
    case ValueType::VALUE_TYPE_ARRAY: return "array";
    case ValueType::VALUE_TYPE_U64: return "u64";
    case ValueType::VALUE_TYPE_I64: return "i64";
    case ValueType::VALUE_TYPE_F64: return "f64";
    }
    return "unknown";
}

struct GgufFile::Private {
    std::unique_ptr<MappedFile> file;
    std::string path;
    uint32_t version = 0;
    uint32_t alignment = GGUF_DEFAULT_ALIGNMENT;
    uint64_t dataOffset = 0;
    std::vector<KeyValue> metadata;
    std::unordered_map<std::string_view, size_t> keyIndex;
    std::vector<TensorInfo> tensors;
    std::unordered_map<std::string_view, size_t> tensorIndex;
    std::vector<uint64_t> tensorInfoOffsets; // file offset of each tensor info (messages)
};

namespace {

// Bounds-checked reading over the mapped bytes, plus the message builder.
class Parser {
public:
    Parser(const uint8_t *data, uint64_t size, const std::string &path) : m_data(data), m_size(size), m_path(path) {}

    uint64_t pos() const { return m_pos; }
    uint64_t remaining() const { return m_size - m_pos; }
    void setSection(const char *section) { m_section = section; }
    // What is being read ("key 'x'", "tensor #3"), for messages.
    void setSubject(std::string subject) { m_subject = std::move(subject); }

    Status fail(uint64_t offset, const std::string &problem) const
    {
        std::string msg = m_path + ": " + m_section + ": ";
        if (!m_subject.empty())
            msg += m_subject + " ";
        msg += "at offset " + std::to_string(offset) + ": " + problem;
        return Status::error(std::move(msg));
    }

    Status truncated(uint64_t need, const char *what) const
    {
        return fail(m_pos, std::string("the file is truncated: ") + what + " needs " + std::to_string(need)
                               + " bytes but only " + std::to_string(remaining()) + " remain (file size "
                               + std::to_string(m_size) + "), expected a complete " + m_section + " section");
    }

    Status bytes(uint64_t n, const uint8_t **out, const char *what)
    {
        if (n > remaining())
            return truncated(n, what);
        *out = m_data + m_pos;
        m_pos += n;
        return {};
    }

    template <typename T>
    Status read(T *out, const char *what)
    {
        const uint8_t *p = nullptr;
        if (Status s = bytes(sizeof(T), &p, what); !s)
            return s;
        *out = loadLE<T>(p);
        return {};
    }

    // A GGUF string: u64 length + bytes. `maxLen` caps the length on top of
    // the bytes remaining.
    Status string(std::string_view *out, const char *what, uint64_t maxLen = GGUF_MAX_STRING_LENGTH)
    {
        const uint64_t at = m_pos;
        uint64_t len = 0;
        if (Status s = read(&len, what); !s)
            return s;
        if (len > maxLen)
            return fail(at, std::string(what) + " has length " + std::to_string(len) + ", expected at most "
                                + std::to_string(maxLen) + " bytes");
        if (len > remaining())
            return fail(at, std::string("the file is truncated: ") + what + " has length " + std::to_string(len)
                                + " but only " + std::to_string(remaining())
                                + " bytes remain, expected the string to end inside the file");
        *out = std::string_view(reinterpret_cast<const char *>(m_data + m_pos), static_cast<size_t>(len));
        m_pos += len;
        return {};
    }

private:
    const uint8_t *m_data;
    uint64_t m_size;
    uint64_t m_pos = 0;
    const std::string &m_path;
    const char *m_section = "header";
    std::string m_subject;
};

Status readValue(Parser &p, ValueType type, Value *v, uint64_t typeOffset)
{
    v->type = type;
    const size_t sz = valueTypeSize(type);
    if (type == ValueType::VALUE_TYPE_STRING)
        return p.string(&v->str, "string value");
    if (type == ValueType::VALUE_TYPE_ARRAY) {
        const uint64_t at = p.pos();
        uint32_t elemRaw = 0;
        if (Status s = p.read(&elemRaw, "array element type"); !s)
            return s;
        if (elemRaw == static_cast<uint32_t>(ValueType::VALUE_TYPE_ARRAY))
            return p.fail(at, "nested arrays are not supported, expected an array of scalars or strings");
        if (elemRaw >= kValueTypeCount)
            return p.fail(at, "unknown array element type " + std::to_string(elemRaw) + ", expected 0..12");
        v->arrayType = static_cast<ValueType>(elemRaw);
        const uint64_t countAt = p.pos();
        uint64_t count = 0;
        if (Status s = p.read(&count, "array element count"); !s)
            return s;
        if (count > GGUF_MAX_ARRAY_ELEMENTS)
            return p.fail(countAt, "array has " + std::to_string(count) + " elements, expected at most "
                                       + std::to_string(GGUF_MAX_ARRAY_ELEMENTS));
        const size_t esz = valueTypeSize(v->arrayType);
        // Every string element takes at least its 8-byte length.
        const uint64_t minElem = esz ? esz : 8;
        if (count > p.remaining() / minElem)
            return p.fail(countAt, "the file is truncated: array of " + std::to_string(count) + " "
                                       + valueTypeName(v->arrayType) + " elements needs at least "
                                       + std::to_string(count) + " x " + std::to_string(minElem) + " bytes but only "
                                       + std::to_string(p.remaining())
                                       + " remain, expected the array to end inside the file");
        v->arrayCount = count;
        if (esz) {
            const uint8_t *data = nullptr;
            if (Status s = p.bytes(count * esz, &data, "array data"); !s)
                return s;
            v->arrayData = data;
        } else {
            v->arrayStrings.reserve(static_cast<size_t>(count));
            for (uint64_t k = 0; k < count; ++k) {
                std::string_view sv;
                if (Status s = p.string(&sv, "array string element"); !s)
                    return s;
                v->arrayStrings.push_back(sv);
            }
        }
        return {};
    }
    if (sz == 0)
        return p.fail(typeOffset, "unknown value type, expected 0..12");
    const uint8_t *b = nullptr;
    const uint64_t at = p.pos();
    if (Status s = p.bytes(sz, &b, "value"); !s)
        return s;
    if (isIntegerValueType(type)) {
        bool neg = false;
        decodeInteger(type, b, &neg, &v->u, &v->i);
    } else if (type == ValueType::VALUE_TYPE_F32) {
        v->f = loadLE<float>(b);
    } else if (type == ValueType::VALUE_TYPE_F64) {
        v->f = loadLE<double>(b);
    } else if (type == ValueType::VALUE_TYPE_BOOL) {
        if (b[0] > 1)
            return p.fail(at, "bool value is " + std::to_string(b[0]) + ", expected 0 or 1");
        v->b = b[0] != 0;
        v->u = b[0];
        v->i = b[0];
    }
    return {};
}

// Checks the declared types of the keys the engine reads (see kKnownKeys).
Status checkKnownKeys(Parser &p, const std::vector<KeyValue> &metadata,
                      const std::unordered_map<std::string_view, size_t> &keyIndex)
{
    std::string_view arch;
    if (auto it = keyIndex.find("general.architecture"); it != keyIndex.end()) {
        const Value &v = metadata[it->second].value;
        if (v.type == ValueType::VALUE_TYPE_STRING)
            arch = v.str;
    }
    for (const KeyValue &kv : metadata) {
        const KnownKey *known = nullptr;
        for (const KnownKey &k : kKnownKeys) {
            if (kv.key == k.key) {
                known = &k;
                break;
            }
        }
        if (!known && !arch.empty() && kv.key.size() > arch.size() && kv.key.substr(0, arch.size()) == arch) {
            const std::string_view suffix = kv.key.substr(arch.size());
            for (const KnownKey &k : kArchKeys) {
                if (suffix == k.key) {
                    known = &k;
                    break;
                }
            }
        }
        if (known && !matches(known->expect, kv.value)) {
            p.setSubject("key " + quoted(kv.key));
            return p.fail(kv.offset, "declared type is " + describeType(kv.value) + ", expected "
                                         + expectName(known->expect));
        }
    }
    // Per-token arrays must match the token list (the reference indexed them
    // by the token count without checking).
    auto find = [&](std::string_view key) -> const KeyValue * {
        auto it = keyIndex.find(key);
        return it == keyIndex.end() ? nullptr : &metadata[it->second];
    };
    if (const KeyValue *tokens = find("tokenizer.ggml.tokens")) {
        for (const char *key : {"tokenizer.ggml.scores", "tokenizer.ggml.token_type"}) {
            const KeyValue *kv = find(key);
            if (kv && kv->value.arrayCount != tokens->value.arrayCount) {
                p.setSubject("key " + quoted(kv->key));
                return p.fail(kv->offset, "has " + std::to_string(kv->value.arrayCount) + " elements, expected "
                                              + std::to_string(tokens->value.arrayCount)
                                              + " (one per entry of tokenizer.ggml.tokens)");
            }
        }
    }
    return {};
}

} // namespace

const char *sniffNonGguf(const uint8_t *data, size_t size)
{
    if (size == 0)
        return "an empty file";
    auto starts = [&](const char *magic, size_t n) { return size >= n && std::memcmp(data, magic, n) == 0; };
    auto contains = [&](const char *needle, size_t limit) {
        const size_t n = std::strlen(needle);
        const size_t end = std::min(size, limit);
        if (end < n)
            return false;
        for (size_t k = 0; k + n <= end; ++k)
            if (std::memcmp(data + k, needle, n) == 0)
                return true;
        return false;
    };
    if (starts("GGUF", 4))
        return nullptr;
    if (starts("PK\x03\x04", 4) || starts("PK\x05\x06", 4)) {
        // PyTorch's torch.save() writes a zip with <name>/data.pkl.
        if (contains("data.pkl", 1 << 16))
            return "a PyTorch checkpoint (a zip archive holding data.pkl)";
        return "a zip archive";
    }
    if (size >= 2 && data[0] == 0x80 && data[1] >= 2 && data[1] <= 5)
        return "a PyTorch checkpoint (a Python pickle)";
    if (starts("\x1f\x8b", 2))
        return "a gzip-compressed file";
    if (starts("\xfd" "7zXZ\x00", 6))
        return "an xz-compressed file";
    if (starts("\x28\xb5\x2f\xfd", 4))
        return "a zstd-compressed file";
    if (starts("BZh", 3))
        return "a bzip2-compressed file";
    if (starts("7z\xbc\xaf\x27\x1c", 6))
        return "a 7-Zip archive";
    if (size >= 262 && std::memcmp(data + 257, "ustar", 5) == 0)
        return "a tar archive";
    if (size >= 10) {
        uint64_t headerLen = 0;
        std::memcpy(&headerLen, data, 8);
        if (headerLen >= 2 && headerLen <= size - 8 && data[8] == '{')
            return "a safetensors file";
    }
    if (starts("lmgg", 4) || starts("fmgg", 4) || starts("tjgg", 4))
        return "a model in the old GGML/GGJT format that predates GGUF";
    if (starts("version https://git-lfs", 23))
        return "a Git LFS pointer file, not the model itself";
    if (starts("<!DOCTYPE", 9) || starts("<!doctype", 9) || starts("<html", 5) || starts("<HTML", 5))
        return "an HTML page (the download saved a web page, not the model)";
    if (starts("\x7f" "ELF", 4))
        return "an executable (ELF) file";
    return nullptr;
}

GgufFile::GgufFile() : d(std::make_unique<Private>()) {}
GgufFile::~GgufFile() = default;

Result<std::unique_ptr<GgufFile>> GgufFile::open(const std::string &path)
{
    Result<std::unique_ptr<MappedFile>> mapped = MappedFile::open(path);
    if (!mapped)
        return mapped.status();
    return parse(std::move(mapped.value()));
}

Result<std::unique_ptr<GgufFile>> GgufFile::parse(std::unique_ptr<MappedFile> file)
{
    // The tables built here are bounded by the file size (a few bytes of index
    // per byte of header at worst), but a huge hostile file can still exhaust
    // memory: that is a refusal, not an exception crossing the API.
    if (!file)
        return Status::error("gguf: no file to parse");
    const std::string path = file->path();
    try {
        return parseUnchecked(std::move(file));
    } catch (const std::bad_alloc &) {
        return Status::error(path + ": header: out of memory while indexing the metadata and tensor infos");
    }
}

Result<std::unique_ptr<GgufFile>> GgufFile::parseUnchecked(std::unique_ptr<MappedFile> file)
{
    std::unique_ptr<GgufFile> g(new GgufFile);
    Private &d = *g->d;
    d.path = file->path();
    const uint8_t *base = file->data();
    const uint64_t size = file->size();
    d.file = std::move(file);
    Parser p(base, size, d.path);

    // ---- header
    p.setSection("header");
    if (const char *what = sniffNonGguf(base, static_cast<size_t>(size)))
        return p.fail(0, std::string("this is ") + what + ", expected a GGUF model file (starting with \"GGUF\")");
    const uint8_t *magic = nullptr;
    if (Status s = p.bytes(4, &magic, "the magic \"GGUF\""); !s)
        return s;
    if (std::memcmp(magic, "GGUF", 4) != 0)
        return p.fail(0, "the magic bytes are " + quoted(std::string_view(reinterpret_cast<const char *>(magic), 4))
                             + ", expected \"GGUF\" (this is not a GGUF model file)");
    if (Status s = p.read(&d.version, "the version"); !s)
        return s;
    if (d.version == 1)
        return p.fail(4, "GGUF version 1 is not supported (it predates the 64-bit counts of versions 2 and 3); "
                         "re-convert the model with a current converter, expected version 2 or 3");
    if (d.version == 0x02000000u || d.version == 0x03000000u)
        return p.fail(4, "this is a big-endian GGUF file, expected a little-endian one");
    if (d.version != 2 && d.version != 3)
        return p.fail(4, "GGUF version " + std::to_string(d.version)
                             + " is not supported, expected version 2 or 3");
    int64_t nTensors = 0, nKv = 0;
    if (Status s = p.read(&nTensors, "the tensor count"); !s)
        return s;
    if (Status s = p.read(&nKv, "the metadata count"); !s)
        return s;
    // Lower bounds on the bytes one entry takes: a metadata entry is at least
    // key length (8) + key (1) + type (4) + value (1); a tensor info at least
    // name length (8) + name (1) + n_dims (4) + one dim (8) + type (4) + offset (8).
    constexpr uint64_t kMinKv = 14, kMinTensor = 33;
    // (The tensor count is bounded again by what remains after the metadata.)
    if (nTensors < 0 || static_cast<uint64_t>(nTensors) > p.remaining() / kMinTensor)
        return p.fail(8, "tensor count " + std::to_string(nTensors) + " cannot fit in the "
                             + std::to_string(p.remaining()) + " bytes that remain, expected 0.."
                             + std::to_string(p.remaining() / kMinTensor));
    if (nTensors > std::numeric_limits<int32_t>::max())
        return p.fail(8, "tensor count " + std::to_string(nTensors) + " is too large, expected at most "
                             + std::to_string(std::numeric_limits<int32_t>::max()));
    if (nKv < 0 || static_cast<uint64_t>(nKv) > p.remaining() / kMinKv)
        return p.fail(16, "metadata count " + std::to_string(nKv) + " cannot fit in the "
                              + std::to_string(p.remaining()) + " bytes that remain, expected 0.."
                              + std::to_string(p.remaining() / kMinKv));

    // ---- metadata
    p.setSection("metadata");
    d.metadata.reserve(static_cast<size_t>(nKv));
    d.keyIndex.reserve(static_cast<size_t>(nKv));
    for (int64_t k = 0; k < nKv; ++k) {
        KeyValue kv;
        kv.offset = p.pos();
        p.setSubject("key #" + std::to_string(k));
        if (Status s = p.string(&kv.key, "key", 65535); !s)
            return s;
        if (kv.key.empty())
            return p.fail(kv.offset, "the key is empty, expected a name such as 'general.architecture'");
        p.setSubject("key " + quoted(kv.key));
        if (auto it = d.keyIndex.find(kv.key); it != d.keyIndex.end())
            return p.fail(kv.offset, "duplicate key (first defined at offset "
                                         + std::to_string(d.metadata[it->second].offset) + "), expected unique keys");
        const uint64_t typeAt = p.pos();
        uint32_t typeRaw = 0;
        if (Status s = p.read(&typeRaw, "the value type"); !s)
            return s;
        if (typeRaw >= kValueTypeCount)
            return p.fail(typeAt, "unknown value type " + std::to_string(typeRaw) + ", expected 0..12");
        if (Status s = readValue(p, static_cast<ValueType>(typeRaw), &kv.value, typeAt); !s)
            return s;
        d.keyIndex.emplace(kv.key, d.metadata.size());
        d.metadata.push_back(std::move(kv));
    }
    p.setSubject({});
    if (auto it = d.keyIndex.find("general.alignment"); it != d.keyIndex.end()) {
        const KeyValue &kv = d.metadata[it->second];
        p.setSubject("key 'general.alignment'");
        if (kv.value.type != ValueType::VALUE_TYPE_U32)
            return p.fail(kv.offset, "declared type is " + describeType(kv.value) + ", expected u32");
        if (!isPowerOfTwo(kv.value.u))
            return p.fail(kv.offset, "alignment is " + std::to_string(kv.value.u)
                                         + ", expected a power of two");
        d.alignment = static_cast<uint32_t>(kv.value.u);
    }
    if (Status s = checkKnownKeys(p, d.metadata, d.keyIndex); !s)
        return s;

    // ---- tensor infos
    p.setSection("tensor infos");
    if (static_cast<uint64_t>(nTensors) > p.remaining() / kMinTensor)
        return p.fail(p.pos(), "the file is truncated: " + std::to_string(nTensors) + " tensor infos need at least "
                                   + std::to_string(nTensors) + " x " + std::to_string(kMinTensor) + " bytes but only "
                                   + std::to_string(p.remaining()) + " remain, expected the tensor infos inside the file");
    d.tensors.reserve(static_cast<size_t>(nTensors));
    d.tensorInfoOffsets.reserve(static_cast<size_t>(nTensors));
    d.tensorIndex.reserve(static_cast<size_t>(nTensors));
    for (int64_t k = 0; k < nTensors; ++k) {
        TensorInfo t;
        const uint64_t infoAt = p.pos();
        p.setSubject("tensor #" + std::to_string(k));
        if (Status s = p.string(&t.name, "tensor name"); !s)
            return s;
        if (t.name.empty())
            return p.fail(infoAt, "the tensor name is empty, expected a name such as 'token_embd.weight'");
        p.setSubject("tensor " + quoted(t.name));
        if (t.name.size() > GGUF_MAX_TENSOR_NAME)
            return p.fail(infoAt, "the name is " + std::to_string(t.name.size()) + " bytes long, expected at most "
                                      + std::to_string(GGUF_MAX_TENSOR_NAME));
        if (auto it = d.tensorIndex.find(t.name); it != d.tensorIndex.end())
            return p.fail(infoAt, "duplicate tensor name (first defined at offset "
                                      + std::to_string(d.tensorInfoOffsets[it->second]) + "), expected unique names");
        const uint64_t dimsAt = p.pos();
        if (Status s = p.read(&t.nDims, "the dimension count"); !s)
            return s;
        if (t.nDims == 0 || t.nDims > GGUF_MAX_DIMS)
            return p.fail(dimsAt, "n_dims is " + std::to_string(t.nDims) + ", expected 1..4");
        int64_t elements = 1;
        for (uint32_t dim = 0; dim < t.nDims; ++dim) {
            const uint64_t at = p.pos();
            if (Status s = p.read(&t.ne[dim], "a dimension"); !s)
                return s;
            if (t.ne[dim] < 1)
                return p.fail(at, "dimension " + std::to_string(dim) + " is " + std::to_string(t.ne[dim])
                                      + ", expected >= 1");
            if (!checkedMul<int64_t>(elements, t.ne[dim], &elements))
                return p.fail(at, "the element count overflows at dimension " + std::to_string(dim)
                                      + ", expected a product of dimensions that fits in 64 bits");
        }
        t.nElements = elements;
        const uint64_t typeAt = p.pos();
        uint32_t typeRaw = 0;
        if (Status s = p.read(&typeRaw, "the tensor type"); !s)
            return s;
        const GgmlTypeInfo *info = ggmlTypeInfo(typeRaw);
        if (!info)
            return p.fail(typeAt, "unknown tensor type " + std::to_string(typeRaw)
                                      + ", expected a ggml type id (F32 = 0, F16 = 1, Q4_K = 12, ...)");
        t.type = static_cast<GgmlType>(typeRaw);
        if (t.ne[0] % info->blockSize != 0)
            return p.fail(dimsAt, "row length ne[0] = " + std::to_string(t.ne[0]) + " is not a multiple of "
                                      + info->name + "'s block size, expected a multiple of "
                                      + std::to_string(info->blockSize));
        uint64_t nb = 0;
        if (!checkedMul<uint64_t>(static_cast<uint64_t>(elements / info->blockSize), info->typeSize, &nb))
            return p.fail(dimsAt, "the data size overflows, expected a size that fits in 64 bits");
        t.nBytes = nb;
        const uint64_t offAt = p.pos();
        if (Status s = p.read(&t.offset, "the data offset"); !s)
            return s;
        if (t.offset % d.alignment != 0)
            return p.fail(offAt, "data offset " + std::to_string(t.offset) + " is misaligned, expected a multiple of "
                                     + std::to_string(d.alignment) + " (the file's alignment)");
        d.tensorIndex.emplace(t.name, d.tensors.size());
        d.tensorInfoOffsets.push_back(infoAt);
        d.tensors.push_back(t);
    }
    p.setSubject({});

    // ---- tensor data
    p.setSection("tensor data");
    uint64_t dataOffset = 0;
    if (!checkedAlignUp<uint64_t>(p.pos(), d.alignment, &dataOffset))
        return p.fail(p.pos(), "padding to the alignment overflows, expected a data offset inside the file");
    d.dataOffset = dataOffset;
    if (!d.tensors.empty()) {
        if (dataOffset > size)
            return p.fail(p.pos(), "the data section would start at " + std::to_string(dataOffset)
                                       + ", past the end of the file (" + std::to_string(size)
                                       + " bytes), expected tensor data after the tensor infos");
        const uint64_t dataSize = size - dataOffset;
        std::vector<size_t> order(d.tensors.size());
        for (size_t k = 0; k < order.size(); ++k)
            order[k] = k;
        for (size_t k : order) {
            TensorInfo &t = d.tensors[k];
            p.setSubject("tensor " + quoted(t.name));
            uint64_t end = 0;
            if (!checkedAdd<uint64_t>(t.offset, t.nBytes, &end) || end > dataSize)
                return p.fail(d.tensorInfoOffsets[k],
                              "data at offset " + std::to_string(t.offset) + " + " + std::to_string(t.nBytes)
                                  + " bytes runs past the end of the file (the data section holds "
                                  + std::to_string(dataSize) + " bytes), expected the data inside the file");
            t.data = base + dataOffset + t.offset;
        }
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return d.tensors[a].offset < d.tensors[b].offset
                || (d.tensors[a].offset == d.tensors[b].offset && a < b);
        });
        for (size_t k = 1; k < order.size(); ++k) {
            const TensorInfo &prev = d.tensors[order[k - 1]];
            const TensorInfo &cur = d.tensors[order[k]];
            if (cur.offset < prev.offset + prev.nBytes) {
                p.setSubject("tensor " + quoted(cur.name));
                return p.fail(d.tensorInfoOffsets[order[k]],
                              "data bytes " + std::to_string(cur.offset) + ".." + std::to_string(cur.offset + cur.nBytes)
                                  + " overlap tensor " + quoted(prev.name) + " (bytes " + std::to_string(prev.offset)
                                  + ".." + std::to_string(prev.offset + prev.nBytes)
                                  + "), expected tensors that do not overlap");
            }
        }
    }
    return g;
}

const std::string &GgufFile::path() const { return d->path; }
uint32_t GgufFile::version() const { return d->version; }
uint32_t GgufFile::alignment() const { return d->alignment; }
uint64_t GgufFile::dataOffset() const { return d->dataOffset; }
uint64_t GgufFile::fileSize() const { return d->file->size(); }
const uint8_t *GgufFile::fileData() const { return d->file->data(); }
const std::vector<KeyValue> &GgufFile::metadata() const { return d->metadata; }
const std::vector<TensorInfo> &GgufFile::tensors() const { return d->tensors; }

const KeyValue *GgufFile::find(std::string_view key) const
{
    auto it = d->keyIndex.find(key);
    return it == d->keyIndex.end() ? nullptr : &d->metadata[it->second];
}

const TensorInfo *GgufFile::tensor(std::string_view name) const
{
    auto it = d->tensorIndex.find(name);
    return it == d->tensorIndex.end() ? nullptr : &d->tensors[it->second];
}

// ---- typed getters

namespace {

Status missing(const std::string &path, std::string_view key)
{
    return Status::error(path + ": metadata: missing metadata key " + quoted(key));
}

Status wrongType(const std::string &path, const KeyValue &kv, const char *expected)
{
    return Status::error(path + ": metadata: key " + quoted(kv.key) + " at offset " + std::to_string(kv.offset)
                         + ": declared type is " + describeType(kv.value) + ", expected " + expected);
}

// Integer value of `kv` as a signed 128-bit-free pair: fits check helpers.
bool integerFits(const Value &v, int64_t lo, uint64_t hi, int64_t *asSigned, uint64_t *asUnsigned)
{
    if (isSigned(v.type)) {
        if (v.i < lo || (v.i >= 0 && static_cast<uint64_t>(v.i) > hi))
            return false;
        *asSigned = v.i;
        *asUnsigned = v.i >= 0 ? static_cast<uint64_t>(v.i) : 0;
        return true;
    }
    if (v.u > hi)
        return false;
    *asUnsigned = v.u;
    *asSigned = static_cast<int64_t>(v.u); // hi <= INT64_MAX for signed targets
    return true;
}

} // namespace

Status GgufFile::getString(std::string_view key, std::string &out) const
{
    const KeyValue *kv = find(key);
    if (!kv)
        return missing(d->path, key);
    if (kv->value.type != ValueType::VALUE_TYPE_STRING)
        return wrongType(d->path, *kv, "string");
    out.assign(kv->value.str);
    return {};
}

Status GgufFile::getU32(std::string_view key, uint32_t &out) const
{
    const KeyValue *kv = find(key);
    if (!kv)
        return missing(d->path, key);
    if (!isIntegerValueType(kv->value.type))
        return wrongType(d->path, *kv, "u32");
    int64_t s = 0;
    uint64_t u = 0;
    if (!integerFits(kv->value, 0, std::numeric_limits<uint32_t>::max(), &s, &u))
        return Status::error(d->path + ": metadata: key " + quoted(key) + " at offset " + std::to_string(kv->offset)
                             + ": value does not fit, expected 0..4294967295");
    out = static_cast<uint32_t>(u);
    return {};
}

Status GgufFile::getU64(std::string_view key, uint64_t &out) const
{
    const KeyValue *kv = find(key);
    if (!kv)
        return missing(d->path, key);
    if (!isIntegerValueType(kv->value.type))
        return wrongType(d->path, *kv, "u64");
    if (isSigned(kv->value.type) && kv->value.i < 0)
        return Status::error(d->path + ": metadata: key " + quoted(key) + " at offset " + std::to_string(kv->offset)
                             + ": value is negative, expected >= 0");
    out = kv->value.u;
    return {};
}

Status GgufFile::getI64(std::string_view key, int64_t &out) const
{
    const KeyValue *kv = find(key);
    if (!kv)
        return missing(d->path, key);
    if (!isIntegerValueType(kv->value.type))
        return wrongType(d->path, *kv, "i64");
    int64_t s = 0;
    uint64_t u = 0;
    if (!integerFits(kv->value, std::numeric_limits<int64_t>::min(),
                     static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), &s, &u))
        return Status::error(d->path + ": metadata: key " + quoted(key) + " at offset " + std::to_string(kv->offset)
                             + ": value does not fit, expected a value that fits in i64");
    out = s;
    return {};
}

Status GgufFile::getF32(std::string_view key, float &out) const
{
    const KeyValue *kv = find(key);
    if (!kv)
        return missing(d->path, key);
    if (kv->value.type != ValueType::VALUE_TYPE_F32 && kv->value.type != ValueType::VALUE_TYPE_F64)
        return wrongType(d->path, *kv, "f32");
    out = static_cast<float>(kv->value.f);
    return {};
}

Status GgufFile::getBool(std::string_view key, bool &out) const
{
    const KeyValue *kv = find(key);
    if (!kv)
        return missing(d->path, key);
    if (kv->value.type != ValueType::VALUE_TYPE_BOOL)
        return wrongType(d->path, *kv, "bool");
    out = kv->value.b;
    return {};
}

Status GgufFile::getStringArray(std::string_view key, std::vector<std::string> &out) const
{
    const KeyValue *kv = find(key);
    if (!kv)
        return missing(d->path, key);
    if (kv->value.type != ValueType::VALUE_TYPE_ARRAY || kv->value.arrayType != ValueType::VALUE_TYPE_STRING)
        return wrongType(d->path, *kv, "array of string");
    out.assign(kv->value.arrayStrings.begin(), kv->value.arrayStrings.end());
    return {};
}

Status GgufFile::getF32Array(std::string_view key, std::vector<float> &out) const
{
    const KeyValue *kv = find(key);
    if (!kv)
        return missing(d->path, key);
    const Value &v = kv->value;
    if (v.type != ValueType::VALUE_TYPE_ARRAY
        || (v.arrayType != ValueType::VALUE_TYPE_F32 && v.arrayType != ValueType::VALUE_TYPE_F64))
        return wrongType(d->path, *kv, "array of f32");
    out.resize(static_cast<size_t>(v.arrayCount));
    for (uint64_t k = 0; k < v.arrayCount; ++k)
        out[k] = v.arrayType == ValueType::VALUE_TYPE_F32 ? loadLE<float>(v.arrayData + 4 * k)
                                                          : static_cast<float>(loadLE<double>(v.arrayData + 8 * k));
    return {};
}

Status GgufFile::getI32Array(std::string_view key, std::vector<int32_t> &out) const
{
    const KeyValue *kv = find(key);
    if (!kv)
        return missing(d->path, key);
    const Value &v = kv->value;
    if (v.type != ValueType::VALUE_TYPE_ARRAY || !isIntegerValueType(v.arrayType))
        return wrongType(d->path, *kv, "array of i32");
    const size_t esz = valueTypeSize(v.arrayType);
    out.resize(static_cast<size_t>(v.arrayCount));
    for (uint64_t k = 0; k < v.arrayCount; ++k) {
        bool neg = false;
        uint64_t u = 0;
        int64_t i = 0;
        decodeInteger(v.arrayType, v.arrayData + esz * k, &neg, &u, &i);
        const bool fits = isSigned(v.arrayType)
            ? (i >= std::numeric_limits<int32_t>::min() && i <= std::numeric_limits<int32_t>::max())
            : u <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
        if (!fits)
            return Status::error(d->path + ": metadata: key " + quoted(key) + " at offset "
                                 + std::to_string(kv->offset) + ": element " + std::to_string(k)
                                 + " does not fit, expected values that fit in i32");
        out[k] = static_cast<int32_t>(isSigned(v.arrayType) ? i : static_cast<int64_t>(u));
    }
    return {};
}

Status GgufFile::getOptionalString(std::string_view key, std::string &out) const
{
    return find(key) ? getString(key, out) : Status::ok();
}

Status GgufFile::getOptionalU32(std::string_view key, uint32_t &out) const
{
    return find(key) ? getU32(key, out) : Status::ok();
}

Status GgufFile::getOptionalF32(std::string_view key, float &out) const
{
    return find(key) ? getF32(key, out) : Status::ok();
}

Status GgufFile::getOptionalBool(std::string_view key, bool &out) const
{
    return find(key) ? getBool(key, out) : Status::ok();
}

} // namespace burrow::gguf
