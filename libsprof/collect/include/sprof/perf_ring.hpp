// A perf_event mmap ring buffer, read by the process that mapped it. Shared
// by the counter groups that record their own samples and by sprof_pt's
// tick source, so there is one reader of the kernel's record stream.
#pragma once
#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace sprof {

class PerfRing {
public:
    // Largest record handed out whole; larger ones are skipped (none of ours is).
    static constexpr size_t kMaxRecord = 512;

    PerfRing() = default;
    ~PerfRing() { unmap(); }
    PerfRing(const PerfRing&) = delete;
    PerfRing& operator=(const PerfRing&) = delete;

    // Maps the metadata page and `data_pages` (a power of two) of event `fd`.
    // Returns 0 or -errno (EPERM: over the locked-memory limit).
    int map(int fd, size_t data_pages);
    void unmap() noexcept;
    bool mapped() const { return base_ != nullptr; }

    // Calls fn(const perf_event_header&, const unsigned char* record) for every
    // record written since the last call, in order, each copied out whole (a
    // record may wrap around the end of the buffer), then frees them for the
    // kernel. Async-signal-safe: no allocation, no locks.
    template <class Fn>
    void consume(Fn&& fn) noexcept {
        if (!base_) return;
        auto* meta = static_cast<perf_event_mmap_page*>(base_);
        const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
        uint64_t tail = meta->data_tail;
        alignas(8) unsigned char record[kMaxRecord];
        while (tail < head) {
            perf_event_header h;
            copy_out(tail, &h, sizeof h);
            if (h.size < sizeof h) break;  // never written by a sane kernel; stop rather than spin
            if (h.size <= sizeof record) {
                copy_out(tail, record, h.size);
                fn(h, record);
            }
            tail += h.size;
        }
        __atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
    }

private:
    void copy_out(uint64_t offset, void* to, size_t n) const noexcept;
    void* base_ = nullptr;
    size_t bytes_ = 0;
    const unsigned char* data_ = nullptr;
    uint64_t data_size_ = 0;
};

}  // namespace sprof
