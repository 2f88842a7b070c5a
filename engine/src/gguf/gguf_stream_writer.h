// GGUF stream writer: writes a GGUF file tensor by tensor, for files too
// large to build in memory (burrow-cli synth's multi-gigabyte models,
// burrow-cli quantize). The layout is GgufWriter's: header, metadata in
// insertion order, tensor infos in declaration order, zero padding to the
// alignment, then each tensor's data in declaration order, each padded to the
// alignment.
//
// Use: add metadata to metadata(), declare every tensor (declareTensor), then
// begin(), then write each tensor's bytes in declaration order (writeData, in
// as many pieces as convenient), then finish(). The file is written to
// `path + ".part"` and renamed to `path` by finish() only when every declared
// byte was written; on any failure, or when the writer is destroyed before
// finish(), the .part file is removed.
//
// Sizes: every size and offset is computed with checked arithmetic; a tensor
// whose geometry is invalid or whose data would overflow 64 bits is refused
// by declareTensor with a message naming it.
// Memory: the header only (metadata and tensor infos); data passes through.
#pragma once

#include "common/ggml_types.h"
#include "gguf/gguf_writer.h"
#include "burrow/status.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace burrow::gguf {

class GgufStreamWriter {
public:
    explicit GgufStreamWriter(uint32_t alignment = GGUF_DEFAULT_ALIGNMENT);
    ~GgufStreamWriter();
    GgufStreamWriter(const GgufStreamWriter &) = delete;
    GgufStreamWriter &operator=(const GgufStreamWriter &) = delete;

    // Metadata (typed adders of GgufWriter); changes after begin() are not written.
    GgufWriter &metadata() { return m_meta; }
    // Writes general.alignment (u32) as well; 0 or a non-power of two is refused by begin().
    void setAlignment(uint32_t alignment, bool writeKey = true);

    // Declares the next tensor: dims ne[0] (row length) first, 1..4 of them,
    // each >= 0. Error when the geometry is invalid (ne[0] not a whole number
    // of blocks, an unknown type, sizes overflowing) or after begin().
    Status declareTensor(const std::string &name, GgmlType type, const std::vector<int64_t> &dims);
    // Bytes of tensor k's data (declared order) and the total of the data section.
    uint64_t tensorBytes(size_t k) const { return m_tensors[k].bytes; }
    size_t tensorCount() const { return m_tensors.size(); }
    uint64_t dataBytes() const { return m_cursor; }
    // Header bytes (metadata, tensor infos, padding) and the whole file, once
    // every tensor is declared.
    uint64_t headerBytes() const;
    uint64_t fileBytes() const { return headerBytes() + m_cursor; }

    // Creates path.part and writes the header.
    Status begin(const std::string &path);
    // The next bytes of the current tensor (its declared size in total; a
    // piece may not run into the next tensor). Padding is written by the writer.
    Status writeData(const void *data, size_t n);
    // Index of the tensor the next writeData() bytes belong to (tensorCount() when done).
    size_t currentTensor() const { return m_current; }
    // Checks that every tensor was written, closes and renames.
    Status finish();

private:
    struct Declared {
        std::string name;
        uint64_t bytes = 0;
        uint64_t offset = 0;   // relative to the data section
    };
    Status writeRaw(const void *data, size_t n);
    Status advance();   // past every complete tensor, writing its padding
    Status fail(const Status &s);

    GgufWriter m_meta;
    uint32_t m_alignment;
    std::vector<Declared> m_tensors;
    uint64_t m_cursor = 0;          // end of the declared data (aligned)
    std::string m_path, m_partPath;
    std::FILE *m_file = nullptr;
    size_t m_current = 0;           // tensor being written
    uint64_t m_writtenInCurrent = 0;
    bool m_begun = false, m_done = false, m_failed = false;
};

} // namespace burrow::gguf
