#include "gguf/gguf_writer.h"

#include "common/checked.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace burrow::gguf {

namespace {

void appendBytes(std::vector<uint8_t> &out, const void *p, size_t n)
{
    if (n == 0)
        return;
    const size_t at = out.size();
    out.resize(at + n); // resize + memcpy: GCC 12 warns falsely on vector::insert here
    std::memcpy(out.data() + at, p, n);
}

template <typename T>
void appendLE(std::vector<uint8_t> &out, T v)
{
    appendBytes(out, &v, sizeof v); // little-endian hosts only, as the reader
}

void padTo(std::vector<uint8_t> &out, uint64_t alignment)
{
    if (alignment == 0)
        return;
    while (out.size() % alignment != 0)
        out.push_back(0);
}

} // namespace

std::vector<uint8_t> GgufWriter::encodeString(std::string_view s)
{
    std::vector<uint8_t> out;
    appendLE<uint64_t>(out, s.size());
    appendBytes(out, s.data(), s.size());
    return out;
}

void GgufWriter::appendU32(std::vector<uint8_t> &out, uint32_t v) { appendLE(out, v); }
void GgufWriter::appendU64(std::vector<uint8_t> &out, uint64_t v) { appendLE(out, v); }

void GgufWriter::setAlignment(uint32_t alignment, bool writeKey)
{
    m_alignment = alignment;
    if (!writeKey)
        return;
    for (Entry &e : m_entries) {
        if (e.key == "general.alignment") {
            e.typeId = static_cast<uint32_t>(ValueType::VALUE_TYPE_U32);
            e.payload.clear();
            appendLE(e.payload, alignment);
            return;
        }
    }
    addU32("general.alignment", alignment);
}

template <typename T>
void GgufWriter::addScalar(std::string key, ValueType type, T v)
{
    std::vector<uint8_t> payload;
    appendLE(payload, v);
    m_entries.push_back({std::move(key), static_cast<uint32_t>(type), std::move(payload)});
}

void GgufWriter::addU8(std::string key, uint8_t v) { addScalar(std::move(key), ValueType::VALUE_TYPE_U8, v); }
void GgufWriter::addI8(std::string key, int8_t v) { addScalar(std::move(key), ValueType::VALUE_TYPE_I8, v); }
void GgufWriter::addU16(std::string key, uint16_t v) { addScalar(std::move(key), ValueType::VALUE_TYPE_U16, v); }
void GgufWriter::addI16(std::string key, int16_t v) { addScalar(std::move(key), ValueType::VALUE_TYPE_I16, v); }
void GgufWriter::addU32(std::string key, uint32_t v) { addScalar(std::move(key), ValueType::VALUE_TYPE_U32, v); }
void GgufWriter::addI32(std::string key, int32_t v) { addScalar(std::move(key), ValueType::VALUE_TYPE_I32, v); }
void GgufWriter::addF32(std::string key, float v) { addScalar(std::move(key), ValueType::VALUE_TYPE_F32, v); }
void GgufWriter::addU64(std::string key, uint64_t v) { addScalar(std::move(key), ValueType::VALUE_TYPE_U64, v); }
void GgufWriter::addI64(std::string key, int64_t v) { addScalar(std::move(key), ValueType::VALUE_TYPE_I64, v); }
void GgufWriter::addF64(std::string key, double v) { addScalar(std::move(key), ValueType::VALUE_TYPE_F64, v); }
void GgufWriter::addBool(std::string key, bool v)
{
    addScalar(std::move(key), ValueType::VALUE_TYPE_BOOL, static_cast<uint8_t>(v ? 1 : 0));
}

void GgufWriter::addString(std::string key, std::string_view v)
{
    m_entries.push_back({std::move(key), static_cast<uint32_t>(ValueType::VALUE_TYPE_STRING), encodeString(v)});
}

void GgufWriter::addStringArray(std::string key, const std::vector<std::string> &values)
{
    std::vector<uint8_t> payload;
    appendLE(payload, static_cast<uint32_t>(ValueType::VALUE_TYPE_STRING));
    appendLE<uint64_t>(payload, values.size());
    for (const std::string &s : values) {
        appendLE<uint64_t>(payload, s.size());
        appendBytes(payload, s.data(), s.size());
    }
    m_entries.push_back({std::move(key), static_cast<uint32_t>(ValueType::VALUE_TYPE_ARRAY), std::move(payload)});
}

void GgufWriter::addScalarArray(std::string key, ValueType elemType, const void *data, uint64_t count)
{
    std::vector<uint8_t> payload;
    appendLE(payload, static_cast<uint32_t>(elemType));
    appendLE<uint64_t>(payload, count);
    appendBytes(payload, data, static_cast<size_t>(count * valueTypeSize(elemType)));
    m_entries.push_back({std::move(key), static_cast<uint32_t>(ValueType::VALUE_TYPE_ARRAY), std::move(payload)});
}

void GgufWriter::addRaw(std::string key, uint32_t typeId, std::vector<uint8_t> payload)
{
    m_entries.push_back({std::move(key), typeId, std::move(payload)});
}

bool GgufWriter::addTensor(std::string name, GgmlType type, std::vector<int64_t> dims, std::vector<uint8_t> data)
{
    const GgmlTypeInfo *info = ggmlTypeInfo(type);
    if (!info || dims.empty() || dims.size() > GGUF_MAX_DIMS)
        return false;
    int64_t elements = 1;
    for (int64_t d : dims)
        if (d < 1 || !checkedMul<int64_t>(elements, d, &elements))
            return false;
    size_t rowBytes = 0;
    if (!ggmlRowBytes(type, dims[0], &rowBytes))
        return false;
    size_t nBytes = 0;
    if (!checkedMul<size_t>(rowBytes, static_cast<size_t>(elements / dims[0]), &nBytes))
        return false;
    if (data.empty())
        data.assign(nBytes, 0);
    if (data.size() != nBytes)
        return false;
    m_tensors.push_back({std::move(name), static_cast<uint32_t>(type), std::move(dims), std::move(data), std::nullopt});
    return true;
}

void GgufWriter::addTensorRaw(RawTensor tensor) { m_tensors.push_back(std::move(tensor)); }

std::vector<uint8_t> GgufWriter::bytes(GgufLayout *layout) const
{
    GgufLayout l;
    std::vector<uint8_t> out;
    appendBytes(out, "GGUF", 4);
    appendLE(out, m_version);
    appendLE<int64_t>(out, static_cast<int64_t>(m_tensors.size()));
    appendLE<int64_t>(out, static_cast<int64_t>(m_entries.size()));
    l.headerEnd = out.size();
    for (const Entry &e : m_entries) {
        l.kvOffsets.push_back(out.size());
        appendLE<uint64_t>(out, e.key.size());
        appendBytes(out, e.key.data(), e.key.size());
        appendLE(out, e.typeId);
        l.kvValueOffsets.push_back(out.size());
        appendBytes(out, e.payload.data(), e.payload.size());
    }
    l.metadataEnd = out.size();
    // Sequential data offsets, each padded to the alignment.
    std::vector<uint64_t> relOffsets;
    uint64_t cursor = 0;
    for (const RawTensor &t : m_tensors) {
        relOffsets.push_back(cursor);
        cursor += t.data.size();
        if (m_alignment)
            cursor = (cursor + m_alignment - 1) / m_alignment * m_alignment;
    }
    for (size_t k = 0; k < m_tensors.size(); ++k) {
        const RawTensor &t = m_tensors[k];
        l.tensorInfoOffsets.push_back(out.size());
        appendLE<uint64_t>(out, t.name.size());
        appendBytes(out, t.name.data(), t.name.size());
        appendLE<uint32_t>(out, static_cast<uint32_t>(t.dims.size()));
        for (int64_t d : t.dims)
            appendLE(out, d);
        appendLE(out, t.typeId);
        appendLE<uint64_t>(out, t.offset ? *t.offset : relOffsets[k]);
    }
    l.tensorInfosEnd = out.size();
    padTo(out, m_alignment);
    l.dataOffset = out.size();
    for (size_t k = 0; k < m_tensors.size(); ++k) {
        l.tensorDataOffsets.push_back(out.size());
        appendBytes(out, m_tensors[k].data.data(), m_tensors[k].data.size());
        padTo(out, m_alignment);
    }
    l.fileSize = out.size();
    if (layout)
        *layout = std::move(l);
    return out;
}

Status GgufWriter::writeFile(const std::string &path) const
{
    const std::vector<uint8_t> data = bytes();
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (!f)
        return Status::error(path + ": cannot create: " + std::strerror(errno));
    const size_t written = data.empty() ? 0 : std::fwrite(data.data(), 1, data.size(), f);
    const bool closed = std::fclose(f) == 0;
    if (written != data.size() || !closed)
        return Status::error(path + ": cannot write " + std::to_string(data.size()) + " bytes");
    return {};
}

} // namespace burrow::gguf
