#include "sprof/perf_ring.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace sprof {

int PerfRing::map(int fd, size_t data_pages) {
    unmap();
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = page * (1 + data_pages);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return -errno;
    base_ = p;
    bytes_ = bytes;
    auto* meta = static_cast<perf_event_mmap_page*>(p);
    // data_offset/data_size are filled by kernels since 4.1; older ones put the data right after the first page.
    data_ = static_cast<const unsigned char*>(p) + (meta->data_offset ? meta->data_offset : page);
    data_size_ = meta->data_size ? meta->data_size : page * data_pages;
    return 0;
}

void PerfRing::unmap() noexcept {
    if (base_) munmap(base_, bytes_);
    base_ = nullptr;
    data_ = nullptr;
}

void PerfRing::copy_out(uint64_t offset, void* to, size_t n) const noexcept {
    auto* out = static_cast<unsigned char*>(to);
    for (size_t i = 0; i < n; ++i) out[i] = data_[(offset + i) % data_size_];
}

}  // namespace sprof
