#include "common/mapped_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace burrow {

Result<std::unique_ptr<MappedFile>> MappedFile::open(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return Status::error(path + ": cannot open: " + std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        return Status::error(path + ": is a directory, not a model file");
    if (!S_ISREG(st.st_mode))
        return Status::error(path + ": is not a regular file");
    if (st.st_size == 0)
        return Status::error(path + ": the file is empty (0 bytes)");

    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Status::error(path + ": cannot open: " + std::strerror(errno));
    void *addr = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    const int mapErrno = errno;
    ::close(fd);
    if (addr == MAP_FAILED)
        return Status::error(path + ": cannot map into memory: " + std::strerror(mapErrno));

    std::unique_ptr<MappedFile> file(new MappedFile);
    file->m_data = static_cast<const uint8_t *>(addr);
    file->m_size = static_cast<size_t>(st.st_size);
    file->m_path = path;
    file->m_mapped = true;
    return file;
}

std::unique_ptr<MappedFile> MappedFile::fromBytes(std::vector<uint8_t> bytes, std::string name)
{
    std::unique_ptr<MappedFile> file(new MappedFile);
    file->m_owned = std::move(bytes);
    file->m_data = file->m_owned.data();
    file->m_size = file->m_owned.size();
    file->m_path = std::move(name);
    return file;
}

MappedFile::~MappedFile()
{
    if (m_mapped)
        ::munmap(const_cast<uint8_t *>(m_data), m_size);
}

} // namespace burrow
