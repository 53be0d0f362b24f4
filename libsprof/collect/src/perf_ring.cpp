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

PerfRing::Reader::Reader(PerfRing& ring) noexcept : ring_(ring) {
    if (!ring_.base_) return;
    auto* meta = static_cast<perf_event_mmap_page*>(ring_.base_);
    head_ = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    tail_ = next_ = meta->data_tail;
}

PerfRing::Reader::~Reader() {
    if (ring_.base_) __atomic_store_n(&static_cast<perf_event_mmap_page*>(ring_.base_)->data_tail, tail_, __ATOMIC_RELEASE);
}

bool PerfRing::Reader::peek(perf_event_header& h, unsigned char* record) noexcept {
    while (tail_ < head_) {
        ring_.copy_out(tail_, &h, sizeof h);
        if (h.size < sizeof h) {  // never written by a sane kernel; stop rather than spin
            tail_ = next_ = head_;
            return false;
        }
        next_ = tail_ + h.size;
        if (h.size <= kMaxRecord) {
            ring_.copy_out(tail_, record, h.size);
            return true;
        }
        tail_ = next_;
    }
    return false;
}

void PerfRing::Reader::take() noexcept { tail_ = next_; }

}  // namespace sprof
