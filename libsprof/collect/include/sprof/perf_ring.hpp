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
    // Largest record handed out whole; larger ones are skipped (none of
    // ours is: a group of kMaxEvents with a call chain of kMaxCallDepth
    // frames and its context markers is under 1,700 bytes).
    static constexpr size_t kMaxRecord = 2048;

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
        Reader r(*this);
        perf_event_header h;
        alignas(8) unsigned char record[kMaxRecord];
        while (r.peek(h, record)) {
            fn(h, record);
            r.take();
        }
    }

    // Reads the records one at a time, for a reader that takes only some of
    // them now (two rings merged by time): the records not taken stay for
    // the next reader. Those taken are freed for the kernel when the Reader
    // ends. Async-signal-safe.
    class Reader {
    public:
        explicit Reader(PerfRing& ring) noexcept;
        ~Reader();
        Reader(const Reader&) = delete;
        Reader& operator=(const Reader&) = delete;
        // The next record, copied out whole into `record` (kMaxRecord bytes;
        // larger records are skipped); false when none is left. The same
        // record again until take().
        bool peek(perf_event_header& h, unsigned char* record) noexcept;
        void take() noexcept;

    private:
        PerfRing& ring_;
        uint64_t head_ = 0, tail_ = 0, next_ = 0;
    };

private:
    void copy_out(uint64_t offset, void* to, size_t n) const noexcept;
    void* base_ = nullptr;
    size_t bytes_ = 0;
    const unsigned char* data_ = nullptr;
    uint64_t data_size_ = 0;
};

}  // namespace sprof
