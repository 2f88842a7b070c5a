// GGUF reader: validates a whole file up front, then gives typed access to
// metadata and tensors by name. Nothing in the file is trusted.
//
// Contract: GgufFile::open()/parse() either returns a fully validated file or
// a Status whose message names the file, the section ("header", "metadata",
// "tensor infos", "tensor data"), the byte offset and what was expected. No
// exception, abort or out-of-bounds read, whatever the bytes.
//
// Cost: parsing is O(metadata + tensor infos); tensor data is never touched
// (views point into the memory map).
#pragma once

#include "common/ggml_types.h"
#include "common/mapped_file.h"
#include "burrow/status.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace burrow::gguf {

enum class ValueType : uint32_t {
    VALUE_TYPE_U8 = 0, VALUE_TYPE_I8 = 1, VALUE_TYPE_U16 = 2, VALUE_TYPE_I16 = 3,
    VALUE_TYPE_U32 = 4, VALUE_TYPE_I32 = 5, VALUE_TYPE_F32 = 6, VALUE_TYPE_BOOL = 7,
    VALUE_TYPE_STRING = 8, VALUE_TYPE_ARRAY = 9, VALUE_TYPE_U64 = 10, VALUE_TYPE_I64 = 11,
    VALUE_TYPE_F64 = 12,
};
const char *valueTypeName(ValueType t); // "u32", "string", "array", ...
// Bytes of one scalar of `t` (1, 2, 4 or 8); 0 for string and array (variable
// size) and for an unknown type. The one table of value sizes (reader,
// writer, quantizer).
size_t valueTypeSize(ValueType t);
// u8..i64 (not bool, not the floats).
bool isIntegerValueType(ValueType t);

inline constexpr uint32_t GGUF_DEFAULT_ALIGNMENT = 32;
inline constexpr uint64_t GGUF_MAX_STRING_LENGTH = 1ull << 30;
inline constexpr uint64_t GGUF_MAX_ARRAY_ELEMENTS = 1ull << 30;
inline constexpr size_t GGUF_MAX_TENSOR_NAME = 63;   // bytes, as ggml's GGML_MAX_NAME - 1
inline constexpr uint32_t GGUF_MAX_DIMS = 4;

// One metadata value. Scalars are decoded; strings and arrays are views into
// the mapped file (valid while the GgufFile lives).
struct Value {
    ValueType type = ValueType::VALUE_TYPE_U8;
    // Scalars (the one matching `type` is set; integers are also widened into i/u when they fit).
    uint64_t u = 0;
    int64_t i = 0;
    double f = 0.0;
    bool b = false;
    std::string_view str;             // VALUE_TYPE_STRING
    // VALUE_TYPE_ARRAY
    ValueType arrayType = ValueType::VALUE_TYPE_U8;
    uint64_t arrayCount = 0;
    const uint8_t *arrayData = nullptr;   // raw little-endian elements (not for strings)
    std::vector<std::string_view> arrayStrings; // element views when arrayType is STRING
};

struct KeyValue {
    std::string_view key;
    Value value;
    uint64_t offset = 0;              // file offset of the key, for messages
};

struct TensorInfo {
    std::string_view name;
    uint32_t nDims = 0;
    int64_t ne[GGUF_MAX_DIMS] = {1, 1, 1, 1}; // ne[0] = row length; unused dims are 1
    GgmlType type = GgmlType::GGML_TYPE_F32;
    uint64_t offset = 0;              // relative to the data section
    uint64_t nBytes = 0;              // checked size of the data
    int64_t nElements = 0;            // checked product of ne
    const uint8_t *data = nullptr;    // into the map; at a file offset that is a multiple of the
                                      // alignment (so aligned in memory for mmapped files)
};

class GgufFile {
public:
    // Maps and validates `path`.
    static Result<std::unique_ptr<GgufFile>> open(const std::string &path);
    // Validates an already mapped file (tests, fuzzer).
    static Result<std::unique_ptr<GgufFile>> parse(std::unique_ptr<MappedFile> file);

    const std::string &path() const;
    uint32_t version() const;
    uint32_t alignment() const;
    uint64_t dataOffset() const;      // file offset of the tensor data section
    uint64_t fileSize() const;
    const uint8_t *fileData() const;  // the whole mapped file (fileSize() bytes)

    const std::vector<KeyValue> &metadata() const;
    const KeyValue *find(std::string_view key) const;   // nullptr when absent
    const std::vector<TensorInfo> &tensors() const;
    const TensorInfo *tensor(std::string_view name) const; // nullptr when absent

    // Typed getters. Missing key -> error "...: missing metadata key 'x'".
    // Wrong declared type -> error naming the key, its type and the expected one.
    // Integer getters accept any integer type whose value fits the target.
    Status getString(std::string_view key, std::string &out) const;
    Status getU32(std::string_view key, uint32_t &out) const;
    Status getI64(std::string_view key, int64_t &out) const;
    Status getU64(std::string_view key, uint64_t &out) const;  // any non-negative integer
    Status getF32(std::string_view key, float &out) const;   // accepts f32 and f64
    Status getBool(std::string_view key, bool &out) const;
    // Arrays: checks the element type; `out` receives copies.
    Status getStringArray(std::string_view key, std::vector<std::string> &out) const;
    Status getF32Array(std::string_view key, std::vector<float> &out) const;
    Status getI32Array(std::string_view key, std::vector<int32_t> &out) const; // any integer elements that fit
    // Convenience: like the getters, but a missing key leaves `out` untouched
    // and returns ok (a present key of the wrong type is still an error).
    Status getOptionalString(std::string_view key, std::string &out) const;
    Status getOptionalU32(std::string_view key, uint32_t &out) const;
    Status getOptionalF32(std::string_view key, float &out) const;
    Status getOptionalBool(std::string_view key, bool &out) const;

    ~GgufFile();

private:
    GgufFile();
    static Result<std::unique_ptr<GgufFile>> parseUnchecked(std::unique_ptr<MappedFile> file);
    struct Private;
    std::unique_ptr<Private> d;
};

// Recognizes files that are clearly not GGUF from their first bytes and says
// what they are ("a zip archive", "a safetensors file", "a PyTorch
// checkpoint", ...); nullptr when nothing is recognized.
const char *sniffNonGguf(const uint8_t *data, size_t size);

} // namespace burrow::gguf
