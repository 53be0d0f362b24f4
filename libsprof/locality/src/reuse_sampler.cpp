#include "sprof/reuse_sampler.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <new>
#include <stdexcept>

#include "sprof/splitmix.hpp"
#include "sprof/spsc_ring.hpp"

namespace sprof {
namespace {

// The smallest filter: 2^20 granules, 64 MiB of memory before a granule's
// byte comes round again. Two lines that share a byte make every access to
// the one a slow call while the other is watched, and lines a power of two
// apart are common (a hot static variable and a line of a large block: with
// 4,096 granules bzip2 sent 280,000 accesses down the slow path in vain at
// 1 in 10^5, sqlite3 27,000; with 2^20, none). The filter costs address
// space, not memory: a page of it is mapped (the zero page) when a probe
// first reads it, one per 256 KiB of the program's memory, and written only
// where a line is watched.
constexpr size_t kMinFilter = size_t{1} << 20;

// The table's slot of a line: the top bits of its product with 2^64 / golden
// ratio (Fibonacci hashing), `shift` = 64 − log2(slots).
constexpr uint64_t kLineHashFactor = 0x9e3779b97f4a7c15ull;
size_t table_slot(uint64_t line, uint32_t shift) { return (line * kLineHashFactor) >> shift; }

constexpr size_t kMinCapacity = 64;
// Filter granules per table slot and granule of a line, once the table
// outgrows the smallest filter (16,384 slots): it is at most half full, so
// at most one granule in 128 holds a watched line. (With 16 per slot, and
// a filter that small, a sweep whose every reuse is 10^5 accesses long,
// following ~300 lines at 1 sample in 10^4, sent 2 % of its accesses down
// the slow path.) Only the granules of the memory a program touches are
// read, so a larger filter costs no more cache.
constexpr size_t kBucketsPerSlot = 64;
constexpr size_t kWindowRing = 256;
constexpr size_t kTenureRing = size_t{1} << 14;  // tenures end at most as often as samples start
constexpr size_t kMinFollows = 64;

// ln(x), 0 < x ≤ 1, without a call into libm: the sampler's time must stay
// in the runtime's own code. With log1p from libm at every sample point, a
// program sampled at 1 in 1000 spent 9 % of its CPU time in libm.so.6, and
// the views named libm as the program's code whose accesses were not seen.
// x87's FYL2X gives y · log2(x), here ln 2 · log2(x), in extended precision.
double natural_log(double x) {
#if defined(__x86_64__) || defined(__i386__)
    long double r;
    __asm__("fldln2\n\tfxch\n\tfyl2x" : "=t"(r) : "0"(static_cast<long double>(x)) : "st(1)");
    return static_cast<double>(r);
#else
    return std::log(x);
#endif
}

}  // namespace

// A watched line: an open sample (follow == 0), waiting since access n for
// the line's next access; or a followed line (follow = its slot + 1).
struct ReuseSampler::Watch {
    uint64_t n;  // 0: the slot is free (accesses count from 1)
    uint64_t line;
    uint64_t pc;
    uint64_t address;
    uint64_t epoch;
    uint32_t window;
    uint32_t follow;
    uint8_t size;
    bool write;
};

// A line followed from a trigger: what its tenure holds so far.
struct ReuseSampler::Follow {
    uint64_t position;  // of the sample; free slots: the next free slot + 1
    uint64_t last;      // the latest access to the line
    uint64_t longest;   // the longest gap so far (0 before the first)
    uint64_t bytes;     // weighted, as accesses
    uint64_t used;
    uint32_t accesses;  // weighted: each access counts `weight`
    uint64_t followed;  // accesses followed
    uint32_t weight;    // 2^(roulettes survived)
    uint8_t n_steps;
    TenureStep steps[kTenureSteps];
};

ReuseSampler::ReuseSampler(const SamplerSettings& s, uint32_t tid, uint64_t seed)
    : tid_(tid),
      line_size_(s.line_size),
      // A trigger at reuse distance d saw at most d − 1 other lines: it can
      // miss in a cache of C lines only when d > C, and the smallest cache
      // of every curve is 1 KiB.
      follow_from_(std::max<uint64_t>(1024 / std::max<uint32_t>(s.line_size, 1), 1) + 1),
      period_(std::max<uint64_t>(s.period, 1)),
      window_accesses_(std::max<uint64_t>(s.window_accesses, 1)),
      gap_scale_(period_ > 1 ? 1.0 / std::log1p(-1.0 / static_cast<double>(period_)) : 0.0),
      random_(seed),
      roulette_(seed ^ 0x5851f42d4c957f2dull),
      window_end_(window_accesses_),
      samples_(new SpscRing<RawReuse>(kSampleRing)),
      windows_(new SpscRing<LocalityWindow>(kWindowRing)),
      tenures_(new SpscRing<RawTenure>(kTenureRing)),
      starts_(new SpscRing<SampleStart>(kSampleRing)) {
    capacity_ = kMinCapacity;
    table_ = map_zeroed<Watch>(capacity_);
    map_filter();
    next_sample_ = gap();
}

// A zeroed filter for the table's capacity (lines larger than a granule cover several).
void ReuseSampler::map_filter() {
    const size_t granules_per_line = std::max<size_t>(line_size_ >> kFilterGranuleShift, 1);
    filter_size_ = std::max(kMinFilter, capacity_ * kBucketsPerSlot * granules_per_line);
    filter_ = map_zeroed<uint8_t>(filter_size_ + kFilterPad);
}

ReuseSampler::~ReuseSampler() {
    unmap_zeroed(table_, capacity_);
    unmap_zeroed(filter_, filter_size_ + kFilterPad);
    for (size_t i = 0; i < retired_count_; ++i) unmap_zeroed(retired_[i].filter, retired_[i].size + kFilterPad);
    unmap_zeroed(follows_, follow_capacity_);
    delete samples_;
    delete windows_;
    delete tenures_;
    delete starts_;
}

// Accesses to the next sample point: geometric with mean period_ (each
// access is a sample point with probability 1/period_, independently).
uint64_t ReuseSampler::gap() {
    if (period_ == 1) return 1;
    const double u = static_cast<double>(splitmix64(random_) >> 11) * 0x1p-53;  // [0, 1)
    const double failures = std::floor(natural_log(1.0 - u) * gap_scale_);  // 1 − u: exact in [2^−53, 1]
    return failures >= 0x1p62 ? uint64_t{1} << 62 : 1 + static_cast<uint64_t>(failures);
}

void ReuseSampler::arm(HotPath& h) const {
    const uint64_t event = finished_ ? counted(h) + kNoEvent : std::min(next_sample_, window_end_);
    if (event != h.next_event) set_next_event(h, event);  // a locked add: only when it moves
    h.filter = filter_;
    h.filter_mask = filter_size_ - 1;
    h.line_mask = ~(uint64_t{line_size_} - 1);
}

size_t ReuseSampler::home(uint64_t line) const {
    return table_slot(line, 64 - std::countr_zero(capacity_));
}

void ReuseSampler::mark(uint64_t line, int delta) {
    const uint64_t first = line * line_size_, last = first + line_size_ - 1;
    for (uint64_t granule = first >> kFilterGranuleShift; granule <= last >> kFilterGranuleShift; ++granule) {
        const size_t b = filter_bucket(granule << kFilterGranuleShift, filter_size_ - 1);
        if (filter_[b] != 255) filter_[b] = static_cast<uint8_t>(filter_[b] + delta);
        if (b < kFilterPad) filter_[filter_size_ + b] = filter_[b];
    }
}

void ReuseSampler::erase(Watch* w) {
    mark(w->line, -1);
    // Backward shift: later entries of the probe run move into the hole
    // unless they already sit at or after their home slot.
    const size_t mask = capacity_ - 1;
    size_t hole = static_cast<size_t>(w - table_);
    for (size_t i = (hole + 1) & mask; table_[i].n != 0; i = (i + 1) & mask) {
        const size_t at = home(table_[i].line);
        if (((i - at) & mask) >= ((i - hole) & mask)) {
            table_[hole] = table_[i];
            hole = i;
        }
    }
    table_[hole] = Watch{};
    --open_;
}

void ReuseSampler::insert(const Watch& w) {
    if ((open_ + 1) * 2 > capacity_) grow();
    size_t i = home(w.line);
    while (table_[i].n != 0) i = (i + 1) & (capacity_ - 1);
    table_[i] = w;
    mark(w.line, +1);
    ++open_;
}

void ReuseSampler::watch(uint64_t n, uint64_t line, const Access& a) {
    if (!starts_->push(SampleStart{n, a.address, a.epoch})) lost_.fetch_add(1, std::memory_order_relaxed);
    insert(Watch{n, line, a.pc, a.address, a.epoch, window_, 0, static_cast<uint8_t>(std::min<uint32_t>(a.size, 255)),
                 a.write});
}

// Twice the table, a filter to match, both rebuilt from the open samples.
void ReuseSampler::grow() {
    Watch* old = table_;
    const size_t old_capacity = capacity_;
    uint8_t* old_filter = filter_;
    const size_t old_filter_size = filter_size_;
    capacity_ *= 2;
    table_ = map_zeroed<Watch>(capacity_);
    map_filter();
    open_ = 0;
    for (size_t i = 0; i < old_capacity; ++i)
        if (old[i].n != 0) insert(old[i]);  // fits: the new table is twice the old
    unmap_zeroed(old, old_capacity);
    // The old filter stays mapped as long as the sampler: the program's
    // code may hold its address in a register, and a signal handler's slow
    // path may grow the filter under it. (Each filter is twice the last, so
    // all the old ones together are smaller than the new one.)
    retired_[retired_count_++] = Retired{old_filter, old_filter_size};
}

void ReuseSampler::emit(const RawReuse& r) {
    if (!samples_->push(r)) lost_.fetch_add(1, std::memory_order_relaxed);
}

// A line whose trigger may have missed: it becomes a followed line, the
// trigger the first access of its tenure. No slot (the pool could not
// grow): the sample only.
bool ReuseSampler::start_follow(Watch& w, uint64_t n, const Access& a) {
    if (free_follow_ == 0) {
        const size_t old_capacity = follow_capacity_;
        const size_t capacity = std::max(kMinFollows, old_capacity * 2);
        Follow* grown;
        try {
            grown = map_zeroed<Follow>(capacity);
        } catch (const std::bad_alloc&) {
            return false;
        }
        if (follows_) std::copy(follows_, follows_ + old_capacity, grown);
        unmap_zeroed(follows_, old_capacity);
        follows_ = grown;
        follow_capacity_ = capacity;
        for (size_t i = capacity; i > old_capacity; --i) {  // chain the new slots, lowest first
            follows_[i - 1].position = free_follow_;
            free_follow_ = static_cast<uint32_t>(i);
        }
    }
    const uint32_t slot = free_follow_;
    Follow& f = follows_[slot - 1];
    free_follow_ = static_cast<uint32_t>(f.position);
    f = Follow{};
    f.position = w.n;
    f.last = n;
    f.accesses = f.followed = f.weight = 1;
    f.bytes = std::max<uint32_t>(a.size, 1);
    f.used = chunks_touched(a.address, a.size, line_size_);
    w.follow = slot;
    ++following_;
    return true;
}

// Access n to a followed line: a gap longer than all before closes a step.
bool ReuseSampler::step(Follow& f, uint64_t n, const Access& a) {
    // The weighted count is a u32 of the format: following ends (capped)
    // before it would overflow: some 14 roulettes won in a row. (Counted
    // on, saturated, two steps held the same count: a profile the writer
    // refused, at 1 in 100 on a std::map program.)
    if (f.accesses > UINT32_MAX - f.weight) return false;
    const uint64_t gap = n - f.last;
    if (gap > f.longest) {
        if (f.n_steps + 1 == kTenureSteps) return false;  // the last slot is for the end
        f.steps[f.n_steps++] = TenureStep{gap, f.accesses, f.bytes, f.used};
        f.longest = gap;
    }
    f.accesses += f.weight;
    f.bytes += uint64_t{f.weight} * std::max<uint32_t>(a.size, 1);
    f.used |= chunks_touched(a.address, a.size, line_size_);
    f.last = n;
    // The roulette at kTenureAccesses · 2^k accesses followed (reuse_sampler.hpp).
    ++f.followed;
    const bool roulette = f.followed % kTenureAccesses == 0 && std::has_single_bit(f.followed / kTenureAccesses);
    if (!roulette) return true;
    if (f.weight == uint32_t{1} << 31 || (splitmix64(roulette_) >> 63) != 0) return false;  // lost: capped
    f.weight *= 2;
    return true;
}

// The tenure of slot `index` (a slot number, 1-based) ends: its last step
// holds everything followed, behind `last_gap`; the slot is freed.
void ReuseSampler::end_follow(uint32_t index, TenureEnd how, uint64_t last_gap) {
    Follow& f = follows_[index - 1];
    RawTenure t;
    t.position = f.position;
    t.end = how;
    t.n_steps = f.n_steps;
    std::copy(f.steps, f.steps + f.n_steps, t.steps);
    t.steps[t.n_steps++] = TenureStep{last_gap, f.accesses, f.bytes, f.used};
    if (!tenures_->push(t)) lost_.fetch_add(1, std::memory_order_relaxed);
    f.position = free_follow_;
    free_follow_ = index;
    --following_;
}

// Access n to `line`: each watch of the line sees it. An open sample ends
// with its reuse (its trigger may start a tenure); a followed line steps.
// A watch that goes on is changed where it sits; one that ends is erased,
// and the backward shift may move a later watch of the probe run into its
// slot, so that slot is looked at again. Only watches after the slot move,
// none already seen, so each sees the access once.
void ReuseSampler::reuse(uint64_t n, uint64_t line, const Access& a) {
    for (size_t i = home(line); table_[i].n != 0;) {
        Watch& w = table_[i];
        if (w.line != line) {
            i = (i + 1) & (capacity_ - 1);
            continue;
        }
        bool goes_on;
        if (w.follow == 0) {
            const uint64_t distance = n - w.n;
            emit(RawReuse{w.window, distance, w.pc, a.pc, w.address, w.size, w.write, a.write, w.n, w.epoch});
            goes_on = distance >= follow_from_ && start_follow(w, n, a);
        } else {
            goes_on = step(follows_[w.follow - 1], n, a);
            if (!goes_on) end_follow(w.follow, TenureEnd::capped, kNoReuse);
        }
        if (goes_on)
            i = (i + 1) & (capacity_ - 1);
        else
            erase(&w);
    }
}

// Lines not touched for a whole window, longer than any gap of their tenure
// so far, end with that gap as a lower bound: they are not followed forever.
void ReuseSampler::age_followers(uint64_t n) {
    if (following_ == 0) return;
    for (size_t i = 0; i < capacity_;) {
        Watch& w = table_[i];
        if (w.n != 0 && w.follow != 0) {
            const Follow& f = follows_[w.follow - 1];
            const uint64_t idle = n - f.last;
            if (idle >= window_accesses_ && idle > f.longest) {
                end_follow(w.follow, TenureEnd::aged, idle);
                erase(&w);  // an entry from further on may move into i: look at i again
                continue;
            }
        }
        ++i;
    }
}

void ReuseSampler::close_window(uint64_t n, uint64_t unseen_words) {
    age_followers(n);
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
    if (may_watch(a.address)) reuse(n, line, a);
    if (n >= next_sample_) {
        watch(n, line, a);
        ++window_samples_;
        next_sample_ = n + gap();
    }
    if (n >= window_end_) close_window(n, h.unseen_words.load(std::memory_order_relaxed));
    arm(h);
    // Once per filling: the reader may be asleep until its next period.
    return reader_alarm_.rings(samples_->half_full() || starts_->half_full() || tenures_->half_full());
}

void ReuseSampler::drain(SamplerOutput& out) {
    samples_->pop_all(out.samples);
    windows_->pop_all(out.windows);
    tenures_->pop_all(out.tenures);
    starts_->pop_all(out.starts);
}

void ReuseSampler::finish(uint64_t n, uint64_t unseen_words, SamplerOutput& out) {
    drain(out);
    if (finished_) return;
    finished_ = true;
    for (size_t i = 0; i < capacity_; ++i) {
        const Watch& w = table_[i];
        if (w.n == 0) continue;
        if (w.follow == 0) {
            out.samples.push_back(
                RawReuse{w.window, kNoReuse, w.pc, 0, w.address, w.size, w.write, false, w.n, w.epoch});
        } else {
            end_follow(w.follow, TenureEnd::no_reuse, kNoReuse);
            tenures_->pop_all(out.tenures);  // the ring may be smaller than the lines followed
        }
    }
    if (n > window_start_ || window_samples_ > 0)
        out.windows.push_back(LocalityWindow{tid_, window_, n - window_start_, window_samples_,
                                             unseen_words - window_unseen_start_});
    open_ = following_ = 0;  // all handed out
}

}  // namespace sprof
