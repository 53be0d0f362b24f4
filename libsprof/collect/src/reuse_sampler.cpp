#include "sprof/reuse_sampler.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <new>
#include <stdexcept>

#include "sprof/splitmix.hpp"

namespace sprof {
namespace {

// Zeroed memory straight from the kernel: the slow path may not call malloc.
template <typename T>
T* map_zeroed(size_t n) {
    void* p = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
}

template <typename T>
void unmap(T* p, size_t n) {
    if (p) munmap(p, n * sizeof(T));
}

// The smallest filter is the disarmed one's size.
constexpr size_t kMinFilter = kNothingWatchedSize;

// The table's slot of a line: the top bits of its product with 2^64 / golden
// ratio (Fibonacci hashing), `shift` = 64 − log2(slots).
constexpr uint64_t kLineHashFactor = 0x9e3779b97f4a7c15ull;
size_t table_slot(uint64_t line, uint32_t shift) { return (line * kLineHashFactor) >> shift; }

constexpr size_t kMinCapacity = 64;
// Filter buckets per table slot: the table is at most half full, so at most
// one bucket in 32 holds a watched line, and about 3 % of accesses probe.
constexpr size_t kBucketsPerSlot = 16;
constexpr size_t kSampleRing = size_t{1} << 14;  // samples between two drains (the writer drains every 100 ms)
constexpr size_t kWindowRing = 256;

}  // namespace

// An open sample: the line watched since access n.
struct ReuseSampler::Watch {
    uint64_t n;  // 0: the slot is free (accesses count from 1)
    uint64_t line;
    uint64_t pc;
    uint64_t address;
    uint32_t window;
    uint8_t size;
    bool write;
};

// One producer (the owner thread), one consumer (the reader).
template <typename T>
struct ReuseSampler::Ring {
    explicit Ring(size_t n) : items(map_zeroed<T>(n)), size(n) {}
    ~Ring() { unmap(items, size); }
    bool push(const T& v) {
        const uint64_t h = head.load(std::memory_order_relaxed);
        if (h - tail.load(std::memory_order_acquire) >= size) return false;
        items[h % size] = v;
        head.store(h + 1, std::memory_order_release);
        return true;
    }
    bool half_full() const {
        return head.load(std::memory_order_relaxed) - tail.load(std::memory_order_acquire) >= size / 2;
    }
    void pop_all(std::vector<T>& out) {
        const uint64_t h = head.load(std::memory_order_acquire);
        uint64_t t = tail.load(std::memory_order_relaxed);
        for (; t != h; ++t) out.push_back(items[t % size]);
        tail.store(t, std::memory_order_release);
    }
    T* items;
    size_t size;
    std::atomic<uint64_t> head{0}, tail{0};
};

ReuseSampler::ReuseSampler(const SamplerSettings& s, uint32_t tid, uint64_t seed)
    : tid_(tid),
      line_shift_(static_cast<uint32_t>(std::countr_zero(s.line_size))),
      period_(std::max<uint64_t>(s.period, 1)),
      window_accesses_(std::max<uint64_t>(s.window_accesses, 1)),
      gap_scale_(period_ > 1 ? 1.0 / std::log1p(-1.0 / static_cast<double>(period_)) : 0.0),
      random_(seed),
      window_end_(window_accesses_),
      samples_(new Ring<RawReuse>(kSampleRing)),
      windows_(new Ring<LocalityWindow>(kWindowRing)) {
    capacity_ = kMinCapacity;
    table_ = map_zeroed<Watch>(capacity_);
    filter_size_ = std::max(kMinFilter, capacity_ * kBucketsPerSlot);
    filter_ = map_zeroed<uint8_t>(filter_size_);
    next_sample_ = gap();
}

ReuseSampler::~ReuseSampler() {
    unmap(table_, capacity_);
    unmap(filter_, filter_size_);
    for (size_t i = 0; i < retired_count_; ++i) unmap(retired_[i].filter, retired_[i].size);
    delete samples_;
    delete windows_;
}

// Accesses to the next sample point: geometric with mean period_ (each
// access is a sample point with probability 1/period_, independently).
uint64_t ReuseSampler::gap() {
    if (period_ == 1) return 1;
    const double u = static_cast<double>(splitmix64(random_) >> 11) * 0x1p-53;  // [0, 1)
    const double failures = std::floor(std::log1p(-u) * gap_scale_);
    return failures >= 0x1p62 ? uint64_t{1} << 62 : 1 + static_cast<uint64_t>(failures);
}

void ReuseSampler::arm(HotPath& h) const {
    h.next_event = finished_ ? UINT64_MAX : std::min(next_sample_, window_end_);
    h.filter = filter_;
    h.filter_mask = filter_size_ - 1;
    h.line_mask = ~((uint64_t{1} << line_shift_) - 1);
}

ReuseSampler::Watch* ReuseSampler::find(uint64_t line) {
    for (size_t i = table_slot(line, 64 - std::countr_zero(capacity_));; i = (i + 1) & (capacity_ - 1)) {
        Watch& w = table_[i];
        if (w.n == 0) return nullptr;
        if (w.line == line) return &w;
    }
}

void ReuseSampler::erase(Watch* w) {
    uint8_t& count = filter_[bucket(w->line)];
    if (count != 255) --count;
    // Backward shift: later entries of the probe run move into the hole
    // unless they already sit at or after their home slot.
    const size_t mask = capacity_ - 1;
    const uint32_t table_shift = 64 - std::countr_zero(capacity_);
    size_t hole = static_cast<size_t>(w - table_);
    for (size_t i = (hole + 1) & mask; table_[i].n != 0; i = (i + 1) & mask) {
        const size_t home = table_slot(table_[i].line, table_shift);
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            table_[hole] = table_[i];
            hole = i;
        }
    }
    table_[hole] = Watch{};
    --open_;
}

void ReuseSampler::insert(const Watch& w) {
    size_t i = table_slot(w.line, 64 - std::countr_zero(capacity_));
    while (table_[i].n != 0) i = (i + 1) & (capacity_ - 1);
    table_[i] = w;
    uint8_t& count = filter_[bucket(w.line)];
    if (count != 255) ++count;
    ++open_;
}

void ReuseSampler::watch(uint64_t n, uint64_t line, const Access& a) {
    if ((open_ + 1) * 2 > capacity_) grow();
    insert(Watch{n, line, a.pc, a.address, window_, static_cast<uint8_t>(std::min<uint32_t>(a.size, 255)), a.write});
}

// Twice the table, a filter to match, both rebuilt from the open samples.
void ReuseSampler::grow() {
    Watch* old = table_;
    const size_t old_capacity = capacity_;
    uint8_t* old_filter = filter_;
    const size_t old_filter_size = filter_size_;
    capacity_ *= 2;
    table_ = map_zeroed<Watch>(capacity_);
    filter_size_ = std::max(kMinFilter, capacity_ * kBucketsPerSlot);
    filter_ = map_zeroed<uint8_t>(filter_size_);
    open_ = 0;
    for (size_t i = 0; i < old_capacity; ++i)
        if (old[i].n != 0) insert(old[i]);
    unmap(old, old_capacity);
    // The old filter stays mapped as long as the sampler: the program's
    // code may hold its address in a register, and a signal handler's slow
    // path may grow the filter under it. (Each filter is twice the last, so
    // all the old ones together are smaller than the new one.)
    retired_[retired_count_++] = Retired{old_filter, old_filter_size};
}

void ReuseSampler::emit(const RawReuse& r) {
    if (!samples_->push(r)) lost_.fetch_add(1, std::memory_order_relaxed);
}

void ReuseSampler::close_window(uint64_t n, uint64_t unseen_words) {
    LocalityWindow w{tid_, window_, n - window_start_, window_samples_, unseen_words - window_unseen_start_};
    if (!windows_->push(w)) lost_.fetch_add(1, std::memory_order_relaxed);
    ++window_;
    window_start_ = n;
    window_end_ = n + window_accesses_;
    window_samples_ = 0;
    window_unseen_start_ = unseen_words;
}

bool ReuseSampler::access(HotPath& h, uint64_t n, uint64_t line, const Access& a) {
    if (finished_) return false;
    if (filter_[bucket(line)])
        if (Watch* w = find(line)) {
            emit(RawReuse{w->window, n - w->n, w->pc, a.pc, w->address, w->size, w->write, a.write});
            erase(w);
        }
    if (n >= next_sample_) {
        watch(n, line, a);
        ++window_samples_;
        next_sample_ = n + gap();
    }
    if (n >= window_end_) close_window(n, h.unseen_words.load(std::memory_order_relaxed));
    arm(h);
    // Once per filling: the reader may be asleep until its next period.
    const bool half = samples_->half_full();
    const bool wake = half && !reader_called_;
    reader_called_ = half;
    return wake;
}

void ReuseSampler::drain(std::vector<RawReuse>& samples, std::vector<LocalityWindow>& windows) {
    samples_->pop_all(samples);
    windows_->pop_all(windows);
}

void ReuseSampler::finish(uint64_t n, uint64_t unseen_words, std::vector<RawReuse>& samples,
                          std::vector<LocalityWindow>& windows) {
    drain(samples, windows);
    if (finished_) return;
    finished_ = true;
    for (size_t i = 0; i < capacity_; ++i)
        if (const Watch& w = table_[i]; w.n != 0)
            samples.push_back(RawReuse{w.window, kNoReuse, w.pc, 0, w.address, w.size, w.write, false});
    if (n > window_start_ || window_samples_ > 0)
        windows.push_back(LocalityWindow{tid_, window_, n - window_start_, window_samples_,
                                         unseen_words - window_unseen_start_});
}

}  // namespace sprof
