#include "gguf/gguf_stream_writer.h"

#include "common/checked.h"

#include <cerrno>
#include <cstring>

namespace burrow::gguf {

GgufStreamWriter::GgufStreamWriter(uint32_t alignment) : m_alignment(alignment)
{
    m_meta.setAlignment(alignment, false);
}

GgufStreamWriter::~GgufStreamWriter()
{
    if (m_file)
        std::fclose(m_file);
    if (m_begun && !m_done)
        std::remove(m_partPath.c_str());
}

void GgufStreamWriter::setAlignment(uint32_t alignment, bool writeKey)
{
    m_alignment = alignment;
    m_meta.setAlignment(alignment, writeKey);
}

Status GgufStreamWriter::declareTensor(const std::string &name, GgmlType type, const std::vector<int64_t> &dims)
{
    if (m_begun)
        return Status::error("tensor '" + name + "' declared after the header was written");
    if (m_alignment == 0 || (m_alignment & (m_alignment - 1)) != 0)
        return Status::error("alignment " + std::to_string(m_alignment) + " is not a power of two");
    if (!ggmlTypeInfo(type))
        return Status::error("tensor '" + name + "': unknown type " + std::to_string(static_cast<uint32_t>(type)));
    if (dims.empty() || dims.size() > GGUF_MAX_DIMS)
        return Status::error("tensor '" + name + "': " + std::to_string(dims.size()) + " dimensions, expected 1 to 4");
    uint64_t rows = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] < 0)
            return Status::error("tensor '" + name + "': dimension " + std::to_string(i) + " is " +
                                 std::to_string(dims[i]) + ", expected >= 0");
        if (i > 0 && !checkedMul<uint64_t>(rows, static_cast<uint64_t>(dims[i]), &rows))
            return Status::error("tensor '" + name + "': the element count overflows");
    }
    size_t rowBytes = 0;
    if (!ggmlRowBytes(type, dims[0], &rowBytes))
        return Status::error("tensor '" + name + "': a row of " + std::to_string(dims[0]) +
                             " elements is not a whole number of " + ggmlTypeName(type) + " blocks");
    Declared d;
    d.name = name;
    d.offset = m_cursor;
    uint64_t end = 0;
    if (!checkedMul<uint64_t>(rowBytes, rows, &d.bytes) || !checkedAdd<uint64_t>(m_cursor, d.bytes, &end) ||
        !checkedAlignUp<uint64_t>(end, m_alignment, &end))
        return Status::error("tensor '" + name + "': the data section would be larger than 2^64 bytes");
    GgufWriter::RawTensor info;
    info.name = name;
    info.typeId = static_cast<uint32_t>(type);
    info.dims = dims;
    info.offset = d.offset;
    m_meta.addTensorRaw(std::move(info));
    m_tensors.push_back(std::move(d));
    m_cursor = end;
    return {};
}

uint64_t GgufStreamWriter::headerBytes() const
{
    // The metadata writer holds no tensor data, so its output is the header
    // padded to the alignment.
    return m_meta.bytes().size();
}

Status GgufStreamWriter::fail(const Status &s)
{
    m_failed = true;
    return s;
}

Status GgufStreamWriter::writeRaw(const void *data, size_t n)
{
    if (n && std::fwrite(data, 1, n, m_file) != n)
        return fail(Status::error(m_partPath + ": cannot write " + std::to_string(n) + " bytes: " + std::strerror(errno)));
    return {};
}

Status GgufStreamWriter::begin(const std::string &path)
{
    if (m_begun)
        return Status::error(path + ": the writer was already started");
    if (m_alignment == 0 || (m_alignment & (m_alignment - 1)) != 0)
        return Status::error("alignment " + std::to_string(m_alignment) + " is not a power of two");
    m_path = path;
    m_partPath = path + ".part";
    m_file = std::fopen(m_partPath.c_str(), "wb");
    if (!m_file)
        return Status::error(m_partPath + ": cannot create: " + std::strerror(errno));
    m_begun = true;
    const std::vector<uint8_t> header = m_meta.bytes();
    if (Status s = writeRaw(header.data(), header.size()); !s)
        return s;
    return advance();   // past leading empty tensors
}

Status GgufStreamWriter::advance()
{
    static const uint8_t zeros[256] = {};
    while (m_current < m_tensors.size() && m_writtenInCurrent == m_tensors[m_current].bytes) {
        const uint64_t end = m_tensors[m_current].offset + m_tensors[m_current].bytes;
        const uint64_t next = m_current + 1 < m_tensors.size() ? m_tensors[m_current + 1].offset : m_cursor;
        for (uint64_t pad = next - end; pad > 0;) {
            const size_t piece = static_cast<size_t>(pad < sizeof zeros ? pad : sizeof zeros);
            if (Status s = writeRaw(zeros, piece); !s)
                return s;
            pad -= piece;
        }
        ++m_current;
        m_writtenInCurrent = 0;
    }
    return {};
}

Status GgufStreamWriter::writeData(const void *data, size_t n)
{
    if (!m_begun || m_done || m_failed)
        return Status::error(m_partPath + ": writeData() outside begin()..finish() or after a failure");
    if (n == 0)
        return {};
    if (m_current >= m_tensors.size())
        return fail(Status::error(m_partPath + ": " + std::to_string(n) + " bytes more than the declared tensors hold"));
    const Declared &t = m_tensors[m_current];
    const uint64_t left = t.bytes - m_writtenInCurrent;
    if (n > left)
        return fail(Status::error(m_partPath + ": tensor '" + t.name + "': " + std::to_string(n) +
                                  " bytes written where " + std::to_string(left) + " remain"));
    if (Status s = writeRaw(data, n); !s)
        return s;
    m_writtenInCurrent += n;
    return advance();
}

Status GgufStreamWriter::finish()
{
    if (!m_begun || m_done)
        return Status::error(m_partPath + ": finish() without begin() or twice");
    if (m_failed)
        return Status::error(m_partPath + ": an earlier write failed");
    if (m_current < m_tensors.size())
        return fail(Status::error(m_partPath + ": tensor '" + m_tensors[m_current].name + "' is incomplete (" +
                                  std::to_string(m_writtenInCurrent) + " of " +
                                  std::to_string(m_tensors[m_current].bytes) + " bytes written)"));
    const bool closed = std::fclose(m_file) == 0;
    m_file = nullptr;
    if (!closed)
        return fail(Status::error(m_partPath + ": cannot finish writing: " + std::strerror(errno)));
    if (std::rename(m_partPath.c_str(), m_path.c_str()) != 0)
        return fail(Status::error("cannot rename " + m_partPath + " to " + m_path + ": " + std::strerror(errno)));
    m_done = true;
    return {};
}

} // namespace burrow::gguf
