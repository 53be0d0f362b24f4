// A queue of items between one producer (a program thread, in its hooks)
// and one consumer (the writer thread), lock-free, that grows rather than
// drops. Its memory comes straight from the kernel: the producer may be
// inside the program's own malloc or a signal handler, where the C
// library's allocator must not be called.
#pragma once
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace sprof {

// Zeroed memory from mmap (munmap with unmap_zeroed).
template <typename T>
T* map_zeroed(size_t n) {
    void* p = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
}

template <typename T>
void unmap_zeroed(T* p, size_t n) {
    if (p) munmap(p, n * sizeof(T));
}

// Zeroed memory from mmap, or nullptr: for the producer's side, which may
// run in a signal handler, where nothing may throw.
template <typename T>
T* try_map_zeroed(size_t n) noexcept {
    void* p = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<T*>(p);
}

// A queue of segments, each a ring: a full segment is not a reason to drop
// an item (a writer that fell behind lost 29,903 allocations of a program
// filling a std::map and a std::unordered_map from two threads, with one
// ring of 2^16), nor to wait for the consumer (the producer may be in a
// signal handler, or in a forked child without a consumer, or at exit
// while the consumer waits for it). The producer maps a segment twice the
// last one's size (up to kMaxSegment items) and goes on there; the
// consumer frees a segment once it has emptied it and the producer has
// moved on. An item is dropped only when the kernel gives no memory.
template <typename T>
class SpscRing {
public:
    explicit SpscRing(size_t n) : read_(new_segment(n)), write_(read_) {
        if (!read_) throw std::bad_alloc();
    }
    ~SpscRing() {
        for (Segment* s = read_; s;) {
            Segment* next = s->next.load(std::memory_order_relaxed);
            free_segment(s);
            s = next;
        }
    }
    SpscRing(const SpscRing&) = delete;
    SpscRing& operator=(const SpscRing&) = delete;

    // The producer: false only when a full segment could not be followed
    // by a new one (no memory; the item is dropped).
    bool push(const T& v) noexcept {
        Segment* s = write_;
        uint64_t h = s->head.load(std::memory_order_relaxed);
        if (h - s->tail.load(std::memory_order_acquire) >= s->size) {
            Segment* grown = new_segment(std::min(s->size * 2, std::max(kMaxSegment, s->size)));
            if (!grown) return false;
            s->next.store(grown, std::memory_order_release);  // after s's last item: the consumer may free s
            write_ = s = grown;
            h = 0;
        }
        s->items[h % s->size] = v;
        s->head.store(h + 1, std::memory_order_release);
        return true;
    }
    // The producer: whether the segment it fills is half full (time to call the consumer).
    bool half_full() const {
        const Segment* s = write_;
        return s->head.load(std::memory_order_relaxed) - s->tail.load(std::memory_order_acquire) >= s->size / 2;
    }
    // The consumer: appends every item pushed so far.
    void pop_all(std::vector<T>& out) {
        for (;;) {
            Segment* s = read_;
            // `next` before `head`: once the producer has moved on, s's head is final.
            Segment* next = s->next.load(std::memory_order_acquire);
            const uint64_t h = s->head.load(std::memory_order_acquire);
            uint64_t t = s->tail.load(std::memory_order_relaxed);
            for (; t != h; ++t) out.push_back(s->items[t % s->size]);
            s->tail.store(t, std::memory_order_release);
            if (!next) return;
            read_ = next;
            free_segment(s);
        }
    }

private:
    static constexpr size_t kMaxSegment = size_t{1} << 22;  // items: a larger one is no faster to fill or drain
    struct Segment {
        T* items;
        size_t size;
        std::atomic<uint64_t> head{0}, tail{0};
        std::atomic<Segment*> next{nullptr};
    };
    static Segment* new_segment(size_t n) noexcept {
        Segment* s = try_map_zeroed<Segment>(1);
        if (!s) return nullptr;
        T* items = try_map_zeroed<T>(n);
        if (!items) {
            unmap_zeroed(s, 1);
            return nullptr;
        }
        s = new (s) Segment;
        s->items = items;
        s->size = n;
        return s;
    }
    static void free_segment(Segment* s) {
        unmap_zeroed(s->items, s->size);
        s->~Segment();
        unmap_zeroed(s, 1);
    }

    Segment* read_;   // the consumer's
    Segment* write_;  // the producer's
};

// The producer's call for the consumer, once per filling: a consumer that
// drains on a period may sleep while a fast producer fills the ring. Given
// after each push whether the producer's rings are half full, says when to
// wake the consumer: the first time they are, not again until they were not.
class FillingAlarm {
public:
    bool rings(bool half_full) {
        const bool wake = half_full && !called_;
        called_ = half_full;
        return wake;
    }

private:
    bool called_ = false;
};

}  // namespace sprof
