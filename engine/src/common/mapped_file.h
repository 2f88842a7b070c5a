// A read-only memory map of a whole file (or an owned in-memory buffer with
// the same interface, for tests and the fuzzer).
//
// Cost: open() is O(1) in the file size; pages are read on first touch.
#pragma once

#include "burrow/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace burrow {

class MappedFile {
public:
    // Maps `path` read-only. Fails with a message for: missing file, a
    // directory, an empty file, unreadable file, mmap failure.
    static Result<std::unique_ptr<MappedFile>> open(const std::string &path);
    // Wraps a copy of `bytes` (tests, fuzzing). `name` is used in messages.
    static std::unique_ptr<MappedFile> fromBytes(std::vector<uint8_t> bytes, std::string name);

    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    const uint8_t *data() const { return m_data; }
    size_t size() const { return m_size; }
    const std::string &path() const { return m_path; }

private:
    MappedFile() = default;
    const uint8_t *m_data = nullptr;
    size_t m_size = 0;
    std::string m_path;
    bool m_mapped = false;          // true: munmap in the destructor
    std::vector<uint8_t> m_owned;   // fromBytes() storage
};

} // namespace burrow
