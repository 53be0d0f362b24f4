// Sampled reuse distances of one thread's access stream, as StatCache takes
// them: random sample points with geometric gaps, the sampled cache line
// watched until the thread's next access to it. Each thread is its own
// stream (a private cache): another thread's access to a watched line does
// not end the sample.
//
// The work is split so the common access costs a few instructions:
//  * the fast path (count_access in sprof/hot_path.hpp, inline in the
//    program's code) counts the access and looks the line up in a small
//    filter of watched lines;
//  * the slow path (ReuseSampler::access) runs only at a sample point, at
//    the end of a window, or when the filter says the line may be watched.
// The slow path allocates nothing from the C library (its tables are mapped
// with mmap), since it runs inside whatever the program was doing (its own
// malloc, a signal handler).
//
// Tenures (SIP): a sample whose reuse is long enough to miss in a cache of
// 1 KiB or more has its trigger bring the line in; from the trigger on the
// sampler follows the line (profile.hpp, Tenure): each later access to it
// ends a gap, and every gap longer than all before it closes a step with what
// the line's tenure held until then. Following ends when the steps run out,
// when the line goes a whole window untouched, when the stream ends, or by
// Russian roulette: after kTenureAccesses accesses, and again after twice,
// four times … as many, it goes on with probability ½, and the accesses
// and bytes after each such point count twice as much as before it. The
// counts of a tenure of any length are then right on average over tenures
// (a line used 49 times a stay counts 49, not the first 32), at an expected
// kTenureAccesses · (1 + log2(N / kTenureAccesses) / 2) slow-path calls for
// a stay of N accesses.
//
// Windows: the stream is cut into windows of `window_accesses` accesses;
// a window (LocalityWindow) tells how many accesses and samples it had, the
// denominators of StatCache's equation. A sample belongs to the window of
// its sample access; its distance may run into later windows. Windows are
// contiguous and equally long, so consecutive ones nest into coarser windows
// (2, 4, 8 … of them): the hierarchy a model may solve at.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "sprof/hot_path.hpp"
#include "sprof/profile.hpp"
#include "sprof/spsc_ring.hpp"

namespace sprof {

// One access, as the slow path needs it.
struct Access {
    uint64_t address = 0;
    uint64_t pc = 0;    // the instruction (run-time address)
    uint32_t size = 0;  // bytes, within one line
    bool write = false;
    uint64_t epoch = 0; // the process's allocation count when it happened (sample: to find its data object)
};

// A finished sample, code addresses as run-time PCs.
struct RawReuse {
    uint32_t window = 0;
    uint64_t distance = kNoReuse;
    uint64_t sample_pc = 0, trigger_pc = 0;
    uint64_t address = 0;
    uint8_t size = 0;
    bool sample_write = false, trigger_write = false;
    uint64_t position = 0;  // the sampled access's number in the stream
    uint64_t epoch = 0;     // Access::epoch of the sampled access
};

// A line followed from a sample's trigger (profile.hpp, Tenure).
struct RawTenure {
    uint64_t position = 0;  // of the sample
    TenureEnd end = TenureEnd::no_reuse;
    uint8_t n_steps = 0;
    TenureStep steps[kTenureSteps];
};

// A sample as it starts: what its data object is found from while the
// allocations it may lie in are those of its moment (RawReuse comes only
// when the line is next accessed, any time later).
struct SampleStart {
    uint64_t position = 0;
    uint64_t address = 0;
    uint64_t epoch = 0;
};

// What a drain hands over.
struct SamplerOutput {
    std::vector<RawReuse> samples;
    std::vector<LocalityWindow> windows;
    std::vector<RawTenure> tenures;
    std::vector<SampleStart> starts;
    void clear() {
        samples.clear();
        windows.clear();
        tenures.clear();
        starts.clear();
    }
};

// The chunks of a line an access touches (TenureStep::used): bit i for bytes
// [i·chunk, (i+1)·chunk) of the line, chunk = max(1, line size / 64).
inline uint64_t chunks_touched(uint64_t address, uint32_t size, uint32_t line_size) {
    const uint32_t chunk = line_size > 64 ? line_size / 64 : 1;
    const uint64_t offset = address & (line_size - 1);
    const uint64_t first = offset / chunk, last = (offset + (size ? size : 1) - 1) / chunk;
    const uint64_t upto = last >= 63 ? ~uint64_t{0} : (uint64_t{2} << last) - 1;
    return upto & ~((uint64_t{1} << first) - 1);
}

struct SamplerSettings {
    uint32_t line_size = 64;               // a power of two
    uint64_t period = 10'000;              // mean accesses between sample points
    uint64_t window_accesses = 100'000'000;
};

class ReuseSampler {
public:
    // Samples (and sample starts) between two drains. The writer drains every
    // 100 ms, but it can stall longer while it opens a large separate debug
    // file for source lines (libc6-dbg: ~100 ms on a busy machine): the ring
    // holds a dense rate's samples (1 in 1000 of a sweep) over such a stall.
    static constexpr size_t kSampleRing = size_t{1} << 16;

    // `seed`: of this thread's sample points. Allocates its tables (call it
    // outside the program's accesses, e.g. when the thread starts).
    ReuseSampler(const SamplerSettings& settings, uint32_t tid, uint64_t seed);
    ~ReuseSampler();
    ReuseSampler(const ReuseSampler&) = delete;
    ReuseSampler& operator=(const ReuseSampler&) = delete;

    // Points the fast path at this sampler (sample points, filter).
    void arm(HotPath& h) const;

    // The slow path of access number n to `line`: ends the line's open
    // sample (the access is its trigger), takes a sample when n is a sample
    // point, closes the window when n is its last access; then re-arms h.
    // Only the owner thread calls it, never twice at once. Returns true when
    // the reader should drain now (the samples fill half the ring: a fast
    // program at a high rate can fill it between two periodic drains).
    bool access(HotPath& h, uint64_t n, uint64_t line, const Access& a);

    // Another thread: moves the samples, windows and tenures ended so far
    // to `out` (lock-free, one reader).
    void drain(SamplerOutput& out);

    // The stream ended after `n` accesses with `unseen_words`: every open
    // sample ends without reuse, every followed line's tenure ends, the open
    // window closes with what it has. Appends them after draining; the
    // sampler then takes nothing more.
    void finish(uint64_t n, uint64_t unseen_words, SamplerOutput& out);

    size_t open_samples() const { return open_ - following_; }
    size_t followed_lines() const { return following_; }
    // Samples, sample starts, windows and tenures dropped: their queues
    // grow as the reader falls behind, so only when no memory could be
    // mapped (LocalityWindow::lost_records).
    uint64_t lost() const { return lost_.load(std::memory_order_relaxed); }

private:
    struct Watch;
    struct Follow;

    uint64_t gap();
    size_t home(uint64_t line) const;
    // Adds `delta` (±1) to the filter's count at every granule of `line`.
    void mark(uint64_t line, int delta);
    // Whether a watched line may lie in the granule of `address`.
    bool may_watch(uint64_t address) const { return filter_[filter_bucket(address, filter_size_ - 1)] != 0; }
    void map_filter();
    void erase(Watch* w);
    void insert(const Watch& w);
    void watch(uint64_t n, uint64_t line, const Access& a);
    void grow();
    void emit(const RawReuse& r);
    // The watches of `line` see access n: samples end, followed lines step.
    void reuse(uint64_t n, uint64_t line, const Access& a);
    bool start_follow(Watch& w, uint64_t n, const Access& a);
    bool step(Follow& f, uint64_t n, const Access& a);  // false: following ended (capped, or lost the roulette)
    void end_follow(uint32_t index, TenureEnd how, uint64_t last_gap);
    void age_followers(uint64_t n);
    void close_window(uint64_t n, uint64_t unseen_words);

    const uint32_t tid_;
    const uint32_t line_size_;
    const uint64_t follow_from_;  // reuse distance from which a trigger may miss in a cache of 1 KiB
    const uint64_t period_;
    const uint64_t window_accesses_;
    double gap_scale_;  // 1 / ln(1 − 1/period)
    uint64_t random_;   // splitmix64 state
    uint64_t roulette_; // splitmix64 state of the tenures' roulette (the sample points' draws stay as they were)

    uint64_t next_sample_;
    uint32_t window_ = 0;
    uint64_t window_start_ = 0;  // accesses before the window
    uint64_t window_end_;        // its last access
    uint64_t window_samples_ = 0;
    uint64_t window_unseen_start_ = 0;

    // Open samples: open addressing on the line (linear probing, deletion
    // by backward shift), at most half full; and the filter: per granule the
    // number of watched lines in it (255 sticks: only a costlier probe),
    // filter_size_ granules and kFilterPad more that repeat the first.
    Watch* table_ = nullptr;
    size_t capacity_ = 0;
    size_t open_ = 0;
    uint8_t* filter_ = nullptr;
    size_t filter_size_ = 0;
    // Filters replaced by larger ones, unmapped with the sampler (a table
    // that grows 48 times would fill any machine's memory).
    struct Retired {
        uint8_t* filter;
        size_t size;
    };
    Retired retired_[48] = {};
    size_t retired_count_ = 0;

    // Followed lines: a pool of Follow slots (a watch holds its index + 1),
    // free ones chained through Follow::position.
    Follow* follows_ = nullptr;
    size_t follow_capacity_ = 0;
    uint32_t free_follow_ = 0;  // index + 1 of the first free slot; 0: none
    size_t following_ = 0;

    SpscRing<RawReuse>* samples_;
    SpscRing<LocalityWindow>* windows_;
    SpscRing<RawTenure>* tenures_;
    SpscRing<SampleStart>* starts_;
    std::atomic<uint64_t> lost_{0};
    bool finished_ = false;
    FillingAlarm reader_alarm_;
};

}  // namespace sprof
