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

namespace sprof {

// One access, as the slow path needs it.
struct Access {
    uint64_t address = 0;
    uint64_t pc = 0;    // the instruction (run-time address)
    uint32_t size = 0;  // bytes, within one line
    bool write = false;
};

// A finished sample, code addresses as run-time PCs.
struct RawReuse {
    uint32_t window = 0;
    uint64_t distance = kNoReuse;
    uint64_t sample_pc = 0, trigger_pc = 0;
    uint64_t address = 0;
    uint8_t size = 0;
    bool sample_write = false, trigger_write = false;
};

struct SamplerSettings {
    uint32_t line_size = 64;               // a power of two
    uint64_t period = 10'000;              // mean accesses between sample points
    uint64_t window_accesses = 100'000'000;
};

class ReuseSampler {
public:
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

    // Another thread: moves the samples and windows ended so far to the
    // vectors (lock-free, one reader).
    void drain(std::vector<RawReuse>& samples, std::vector<LocalityWindow>& windows);

    // The stream ended after `n` accesses with `unseen_words`: every open
    // sample ends without reuse, the open window closes with what it has.
    // Appends them after draining; the sampler then takes nothing more.
    void finish(uint64_t n, uint64_t unseen_words, std::vector<RawReuse>& samples,
                std::vector<LocalityWindow>& windows);

    size_t open_samples() const { return open_; }
    // Samples and windows dropped because the reader fell a whole ring behind.
    uint64_t lost() const { return lost_.load(std::memory_order_relaxed); }

private:
    struct Watch;
    template <typename T> struct Ring;

    uint64_t gap();
    size_t bucket(uint64_t line) const { return filter_bucket(line << line_shift_, filter_size_ - 1); }
    Watch* find(uint64_t line);
    void erase(Watch* w);
    void insert(const Watch& w);
    void watch(uint64_t n, uint64_t line, const Access& a);
    void grow();
    void emit(const RawReuse& r);
    void close_window(uint64_t n, uint64_t unseen_words);

    const uint32_t tid_;
    const uint32_t line_shift_;
    const uint64_t period_;
    const uint64_t window_accesses_;
    double gap_scale_;  // 1 / ln(1 − 1/period)
    uint64_t random_;   // splitmix64 state

    uint64_t next_sample_;
    uint32_t window_ = 0;
    uint64_t window_start_ = 0;  // accesses before the window
    uint64_t window_end_;        // its last access
    uint64_t window_samples_ = 0;
    uint64_t window_unseen_start_ = 0;

    // Open samples: open addressing on the line (linear probing, deletion
    // by backward shift), at most half full; and the filter: per bucket the
    // number of watched lines in it (255 sticks: only a costlier probe).
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

    Ring<RawReuse>* samples_;
    Ring<LocalityWindow>* windows_;
    std::atomic<uint64_t> lost_{0};
    bool finished_ = false;
    bool reader_called_ = false;  // since the ring last became half full
};

}  // namespace sprof
