// The analyzer's view of one or more profiles merged into one: functions are
// matched by (object path, symbol name), events by name, so threads,
// processes and MPI ranks of one run add up. Every report reads this.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sprof/profile.hpp"

namespace sprof::analyze {

// The object file's base name, or "" when unknown.
std::string object_basename(const std::string& path);

struct FunctionInfo {
    std::string name;    // demangled; "[unknown] OBJECT" for a PC in no known function of OBJECT
    std::string symbol;  // as in the symbol table
    std::string object;  // full path ("" when unknown)
    uint64_t start = 0;  // link-time address of its first byte (0 for the [unknown] bucket)
};

struct Source {
    std::string path;
    Profile profile;  // metadata and locality: its intervals live in Dataset::intervals;
                      // its locality records name functions by Dataset::functions index
    size_t n_intervals = 0;
    uint64_t samples = 0;
    bool folded = false;  // its intervals were summed into one (see LoadParams)
};

struct Dataset {
    std::vector<Source> sources;
    std::vector<ProfileEvent> events;     // union over sources, first-seen order
    std::vector<FunctionInfo> functions;  // merged; cells refer to these indices
    // Every interval of every source: FunctionCell::function is an index into
    // `functions`, FunctionCell::events is indexed like `events`.
    std::vector<Interval> intervals;
    std::vector<uint32_t> interval_source;  // index into `sources` per interval

    std::vector<std::string> event_names() const;
    std::string program() const;  // the first source's program ("" if none)
};

// The sources of each rank of a parallel job, ascending rank: a rank's own
// profile and those of the images and processes it started (same rank in
// their header). A profile outside a job is a rank of its own, numbered by
// its position among the sources.
struct RankSources {
    int rank = 0;
    std::vector<uint32_t> sources;  // indices into Dataset::sources
};
std::vector<RankSources> group_by_rank(const Dataset& d);
// The ranks of a job, when the dataset holds at least two ranks of one (some
// profile's header names a rank); else none: the reports that show ranks
// side by side (phases, WARP, prediction, the Chrome trace) show one process.
std::vector<RankSources> job_ranks(const Dataset& d);

// The intervals of the given sources only (a copy; functions and events as in d).
Dataset subset(const Dataset& d, const std::vector<uint32_t>& sources);

// Merges profiles already in memory (the sources' intervals are moved out).
Dataset merge_profiles(std::vector<Source> sources);

// The numbering of a merged dataset, made one source at a time: events are
// matched by name, functions by (object path, symbol name), so threads,
// processes and MPI ranks of one run add up. merge_profiles adds every
// source before the first interval; sprof top adds each image of a run as it
// starts and its intervals as they are read.
class DatasetMerger {
public:
    explicit DatasetMerger(Dataset& d) : d_(d) {}
    DatasetMerger(const DatasetMerger&) = delete;
    DatasetMerger& operator=(const DatasetMerger&) = delete;

    // A new source with these events (new names join the dataset's); returns
    // its number for the calls below.
    size_t add_source(const ProfileHeader& h);
    // The dataset's index of function f of the source's profile `p` (its
    // functions so far); throws ProfileError naming `path` and `what` when p
    // has no function f.
    uint32_t function(size_t source, const Profile& p, uint32_t f, const std::string& path, const char* what);
    // An interval of the source's profile in the dataset's numbering: its
    // cells' functions, and their events in the dataset's order.
    void remap(size_t source, const Profile& p, Interval& iv, const std::string& path);

private:
    struct Slot {
        std::vector<size_t> events;       // the source's event e → the dataset's
        std::vector<uint32_t> functions;  // the source's function f → the dataset's, or unmapped
    };
    Dataset& d_;
    std::unordered_map<std::string, size_t> event_index_;
    std::map<std::pair<std::string, std::string>, uint32_t> function_ids_;
    std::vector<Slot> slots_;
};

// How profiles are loaded. Reports that look at profiles as a whole (flat,
// imbalance) need no time line: `fold` sums each profile's intervals into
// one while it is read, so a job of a thousand ranks needs memory for its
// functions, not for its intervals.
struct LoadParams {
    bool fold = false;
    unsigned threads = 0;  // files read at once; 0 = one per CPU
};

// Sums a profile's intervals into one per profile (seq 0, spanning them all);
// the source keeps the number of intervals and samples it had.
void fold_intervals(Source& s);

// Reads and merges profile files; throws ProfileError for a bad file (the
// first one in `paths` order, whatever order they were read in).
Dataset load_dataset(const std::vector<std::string>& paths, const LoadParams& params = {});

}  // namespace sprof::analyze
