// A ring of items between one producer (a program thread, in its hooks) and
// one consumer (the writer thread), lock-free. Its memory comes straight
// from the kernel: the producer may be inside the program's own malloc or a
// signal handler, where the C library's allocator must not be called.
#pragma once
#include <sys/mman.h>

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

template <typename T>
class SpscRing {
public:
    explicit SpscRing(size_t n) : items_(map_zeroed<T>(n)), size_(n) {}
    ~SpscRing() { unmap_zeroed(items_, size_); }
    SpscRing(const SpscRing&) = delete;
    SpscRing& operator=(const SpscRing&) = delete;

    // The producer: false when the ring is full (the item is dropped).
    bool push(const T& v) {
        const uint64_t h = head_.load(std::memory_order_relaxed);
        if (h - tail_.load(std::memory_order_acquire) >= size_) return false;
        items_[h % size_] = v;
        head_.store(h + 1, std::memory_order_release);
        return true;
    }
    bool half_full() const {
        return head_.load(std::memory_order_relaxed) - tail_.load(std::memory_order_acquire) >= size_ / 2;
    }
    // The consumer: appends every item pushed so far.
    void pop_all(std::vector<T>& out) {
        const uint64_t h = head_.load(std::memory_order_acquire);
        uint64_t t = tail_.load(std::memory_order_relaxed);
        for (; t != h; ++t) out.push_back(items_[t % size_]);
        tail_.store(t, std::memory_order_release);
    }

private:
    T* items_;
    size_t size_;
    std::atomic<uint64_t> head_{0}, tail_{0};
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
