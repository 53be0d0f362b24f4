// The locality records of a dataset arranged for the cache models, checked
// once here so the models can trust them. Every thread of every profile is
// its own access stream with a private cache (profile.hpp, "Locality").
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dataset.hpp"

namespace sprof::analyze {

constexpr uint32_t kNoTenure = UINT32_MAX;

// One reuse sample as the models read it.
struct StreamSample {
    uint64_t distance = kNoReuse;  // accesses from the sample to the trigger, counting the trigger
    uint64_t position = 0;         // the sampled access's number in the stream (0: not recorded, before 1.5)
    // The accesses it stands for: its window's accesses / its window's
    // samples, then each piece of the stream (reuse_pieces.hpp) holding the
    // stream's weight in proportion to the accesses it spans.
    double weight = 0;
    CodeRef sample, trigger;       // functions are Dataset::functions indices
    uint32_t record = 0;           // its ReuseSample: the source's Locality::samples[record]
    uint32_t tenure = kNoTenure;   // the tenure its trigger started: ReuseStream::tenures[tenure]
};

// A sampling window with at least one sample.
struct StreamWindow {
    uint64_t accesses = 0;
    size_t first = 0, count = 0;  // its samples: ReuseStream::samples[first, first + count)
};

struct ReuseStream {
    uint32_t source = 0;  // index into Dataset::sources
    uint32_t tid = 0;
    std::vector<StreamWindow> windows;
    std::vector<StreamSample> samples;  // grouped by window; by distance within a window
    std::vector<Tenure> tenures;        // those its samples' triggers started (sampled, format 1.5)
    // Where the distribution of its reuse distances changes (reuse_pieces.hpp):
    // the first access of each piece, ascending, the first 0; {0} for a
    // stream without positions (before format 1.5).
    std::vector<uint64_t> pieces;
    // The kind of each piece (reuse_pieces.hpp): pieces whose distributions
    // the test cannot tell apart share one, numbered in order of first
    // appearance; {0} with one piece.
    std::vector<uint32_t> piece_kinds;

    // Whether it has samples and every one its position (format 1.5 on):
    // what the time-local models need; older profiles are modelled per
    // sampling window, as one piece.
    bool positioned() const {
        return !samples.empty() &&
               std::none_of(samples.begin(), samples.end(), [](const StreamSample& x) { return x.position == 0; });
    }

    std::span<const StreamSample> samples_of(const StreamWindow& w) const {
        return std::span(samples).subspan(w.first, w.count);
    }
};

// A sample's own record (its data object, kinds of access, address).
const ReuseSample& sample_record(const Dataset& d, const ReuseStream& s, const StreamSample& x);

// Exact counts summed over every thread (each a private cache).
struct ExactTotals {
    uint64_t accesses = 0;
    std::vector<uint64_t> lines, lru_misses;        // the sizes the exact run counted
    std::vector<uint64_t> random_lines, random_misses;
    std::vector<ExactFunction> functions;           // one per Dataset function with accesses; tid unused
    std::vector<uint64_t> detail_lines;             // the sizes counted per instruction (format 1.5)
    std::vector<ExactInstruction> instructions;     // one per instruction (CodeRef); tid unused
};

struct LocalityData {
    bool exact = false;
    uint32_t line_size = 0;
    uint64_t sample_period = 0;        // sampled: mean accesses between samples
    std::vector<ReuseStream> streams;  // sampled: the threads with samples
    size_t threads = 0;                // threads with samples (sampled) or curves (exact)
    uint64_t samples = 0;
    uint64_t accesses = 0;             // instrumented accesses of every window (sampled) or thread (exact)
    uint64_t unsampled_accesses = 0;   // in windows without a sample: no part of the model
    uint64_t unseen_accesses = 0;      // not instrumented (libc's memcpy, memset, str*)
    uint64_t lost_records = 0;         // dropped by the runtime (LocalityWindow::lost_records)
    uint64_t lost_allocations = 0;     // likewise, allocations and frees
    uint64_t tenures = 0;              // sampled: samples whose trigger's tenure was followed
    bool positions = false;            // sampled: the samples have positions (format 1.5)
    ExactTotals totals;                // exact
};

// An object that took a share of the run's CPU time (the event samples of
// the same profiles) while the locality records saw none of its accesses:
// code not built with sprof-cc, such as a system library the program calls
// (Debian's bzip2 compresses in libbz2.so). Its accesses are in no curve.
struct UnseenObject {
    std::string object;        // full path
    double time_share = 0;     // of all sampled CPU time, 0 … 1
};

// Such objects with at least `min_share` of the time, most time first.
std::vector<UnseenObject> uninstrumented_objects(const Dataset& d, const LocalityData& l, double min_share = 0.05);

// Throws ProfileError for exact records, which hold no samples: "PATH: an
// exact run records no WHAT: VIEW needs a sampled run (sprof_lib --locality)".
void require_sampled(const Dataset& d, const LocalityData& l, const std::string& what, const std::string& view);

// Throws ProfileError with one line for a dataset whose locality records
// the models cannot use: none at all, mixed line sizes or modes, samples of
// windows never recorded, a line size that is not a power of two.
LocalityData locality_data(const Dataset& d);

// Fills s.pieces and s.piece_kinds and weighs s.samples by piece
// (reuse_pieces.hpp). A stream with a sample without position (profiles
// before format 1.5) is one piece, its weights left as they are.
void cut_into_pieces(ReuseStream& s);

}  // namespace sprof::analyze
