// GGUF writer: builds a GGUF file in memory (tests, tools, the fuzzer's seed
// corpus). It writes what it is told, including invalid values on purpose
// (addRaw, addTensorRaw), so tests can make corrupt files; with the typed
// adders it produces files the reader accepts and round-trips.
//
// Layout written: header, metadata in insertion order, tensor infos in
// insertion order, zero padding to the alignment, then each tensor's data in
// insertion order, each padded to the alignment (as the reference writer).
//
// Cost: bytes() copies every value and tensor once into the output buffer.
#pragma once

#include "common/ggml_types.h"
#include "gguf/gguf_reader.h"
#include "burrow/status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::gguf {

// Where things landed in the last bytes() output (file offsets), so tests can
// truncate inside a section or patch a field.
struct GgufLayout {
    uint64_t headerEnd = 0;                    // first byte after n_kv (24)
    std::vector<uint64_t> kvOffsets;           // start of each metadata entry (its key length)
    std::vector<uint64_t> kvValueOffsets;      // start of each value (after the type)
    uint64_t metadataEnd = 0;
    std::vector<uint64_t> tensorInfoOffsets;   // start of each tensor info (its name length)
    uint64_t tensorInfosEnd = 0;
    uint64_t dataOffset = 0;                   // start of the data section
    std::vector<uint64_t> tensorDataOffsets;   // file offset of each tensor's data
    uint64_t fileSize = 0;
};

class GgufWriter {
public:
    explicit GgufWriter(uint32_t version = 3) : m_version(version) {}

    void setVersion(uint32_t version) { m_version = version; }
    // Padding used for the data section. With writeKey, also stores
    // general.alignment as u32 (replacing an earlier one).
    void setAlignment(uint32_t alignment, bool writeKey = true);

    // Typed metadata (appended in call order; duplicates are written as given).
    void addU8(std::string key, uint8_t v);
    void addI8(std::string key, int8_t v);
    void addU16(std::string key, uint16_t v);
    void addI16(std::string key, int16_t v);
    void addU32(std::string key, uint32_t v);
    void addI32(std::string key, int32_t v);
    void addF32(std::string key, float v);
    void addBool(std::string key, bool v);
    void addString(std::string key, std::string_view v);
    void addU64(std::string key, uint64_t v);
    void addI64(std::string key, int64_t v);
    void addF64(std::string key, double v);
    void addStringArray(std::string key, const std::vector<std::string> &values);
    // `count` scalar elements of `elemType`, raw little-endian (count * size bytes).
    void addScalarArray(std::string key, ValueType elemType, const void *data, uint64_t count);
    template <typename T>
    void addArray(std::string key, ValueType elemType, const std::vector<T> &values)
    {
        addScalarArray(std::move(key), elemType, values.data(), values.size());
    }
    // Any type id and any payload (the bytes after the type), for corrupt files.
    void addRaw(std::string key, uint32_t typeId, std::vector<uint8_t> payload);

    // A tensor with consistent geometry; `data` empty means zeros of the right size.
    // Returns false (and adds nothing) when the geometry is invalid.
    bool addTensor(std::string name, GgmlType type, std::vector<int64_t> dims, std::vector<uint8_t> data = {});
    // Any fields, for corrupt files: `dims.size()` is written as n_dims; the
    // offset written is `offset` when set, else the sequential one.
    struct RawTensor {
        std::string name;
        uint32_t typeId = 0;
        std::vector<int64_t> dims;
        std::vector<uint8_t> data;
        std::optional<uint64_t> offset;
    };
    void addTensorRaw(RawTensor tensor);

    std::vector<uint8_t> bytes(GgufLayout *layout = nullptr) const;
    Status writeFile(const std::string &path) const;

    // Encoders for addRaw payloads.
    static std::vector<uint8_t> encodeString(std::string_view s);
    static void appendU32(std::vector<uint8_t> &out, uint32_t v);
    static void appendU64(std::vector<uint8_t> &out, uint64_t v);

private:
    struct Entry {
        std::string key;
        uint32_t typeId;
        std::vector<uint8_t> payload;
    };
    template <typename T>
    void addScalar(std::string key, ValueType type, T v);

    uint32_t m_version;
    uint32_t m_alignment = GGUF_DEFAULT_ALIGNMENT;
    std::vector<Entry> m_entries;
    std::vector<RawTensor> m_tensors;
};

} // namespace burrow::gguf
