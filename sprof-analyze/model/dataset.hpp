// The analyzer's view of one or more profiles merged into one: functions are
// matched by (object path, symbol name), events by name, so threads,
// processes and MPI ranks of one run add up. Every report reads this.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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

// Whether a user's NAME (--phases=func:NAME, --lines=func:NAME) names the
// function: its name, its symbol, or a C++ name without its parameters.
bool names_function(const FunctionInfo& f, const std::string& name);

// Where sampled code is in the source (profiles of format 1.6 on): a
// function at a line. Strings are Dataset::strings indices.
struct SourceFrame {
    uint32_t symbol = kNoString;  // the function, as the symbol table or debug info names it
    uint32_t file = kNoString;    // kNoString: unknown
    uint32_t line = 0;            // 0: unknown
};

// A source location: the code's own line and the functions inlined there,
// as pprof's Line list or addr2line -i gives them.
struct SourceLocation {
    uint32_t function = 0;  // Dataset::functions: the function (symbol) the code lies in
    // Innermost first, never empty. frames[0]: the code's own file:line, in
    // the innermost function inlined there (or `function` when none); each
    // next frame: the function the one before was inlined into, at its call
    // site. The last frame is `function` itself.
    std::vector<SourceFrame> frames;
    // Dataset::functions: the function its time goes to with --inline (that
    // of frames[0]); set by charge_inlined_code for every location a line
    // cell names, kNoFunction before.
    uint32_t callee = kNoFunction;
};

// An instruction's place: its location and column (0: unknown).
struct CodeLine {
    uint32_t location = 0;  // Dataset::locations
    uint32_t column = 0;
};

// Whether time in inlined code belongs to the function it was inlined into
// (caller: the default, the symbol holding the code, as in perf report's
// flat profile) or to the inlined function (callee: --inline, as perf
// report --inline shows inlined functions in call chains).
enum class InlineMode { callee, caller };

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
    // Source lines: Interval::lines cells name `locations`. Profiles without
    // source lines (older ones) have none.
    std::vector<std::string> strings;       // file paths and symbols of SourceFrames
    std::vector<SourceLocation> locations;
    // Instruction → place, for every code address a profile has a row for.
    struct CodeKeyHash {
        size_t operator()(const std::pair<uint32_t, uint64_t>& k) const {
            return std::hash<uint64_t>()(k.second ^ uint64_t{k.first} << 48);
        }
    };
    std::unordered_map<std::pair<uint32_t, uint64_t>, CodeLine, CodeKeyHash> code_lines;
    // Call paths (profiles of format 1.13 recorded with -g): Interval::stacks
    // cells name these; their frames' functions are `functions` indices.
    // Stacks equal across profiles are one.
    std::vector<CallStack> stacks;

    std::vector<std::string> event_names() const;
    std::string program() const;  // the first source's program ("" if none)

    // The source line of an instruction as the dataset names code (a
    // CodeRef of a locality record: its function a Dataset::functions
    // index): every address a collector sampled or handed out for a
    // locality record has one. None when its profile has no row for it
    // (older profiles).
    std::optional<CodeLine> code_line(const CodeRef& code) const;
    // The frame the reports show for a location: its innermost (callee)
    // or its outermost (caller: the function's own line); and the function
    // its time goes to (callee: as charge_inlined_code set it).
    const SourceFrame& shown_frame(const SourceLocation& l, InlineMode mode) const;
    uint32_t shown_function(const SourceLocation& l, InlineMode mode) const;
    // A frame's function as the reports name it (demangled; the last frame
    // is the location's function, with "[unknown] OBJECT"; "??" when the
    // debug info names none).
    std::string frame_function(const SourceLocation& l, const SourceFrame& f) const;
    // "file.c:123": the file's base name and line, as perf and addr2line
    // print them; "??:0" when unknown.
    std::string source_text(const SourceFrame& f) const;
    // The full path of a frame's file ("" when unknown).
    std::string file_path(const SourceFrame& f) const;
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

// Source lines of profiles merged into a Dataset: strings and locations
// equal across profiles become one, and a location becomes one of the
// dataset's only when a line cell or an address row names it, so the
// dataset grows with what the files use, never with a number in them
// (source_line_merge.cpp; declared here, where DatasetMerger holds them).

// The dataset's strings and locations by content, across the profiles merged.
struct SourceLineIndex {
    std::unordered_map<std::string, uint32_t> strings;
    std::unordered_map<std::string, uint32_t> locations;  // by their numbers, as bytes
    // A dataset function's symbol as a string id, interned once per
    // function, not per location (a symbol may be long).
    std::unordered_map<uint32_t, uint32_t> function_symbol;
};

// One profile's source lines, mapped into the dataset as they are named.
// The profile's tables may grow between calls (a profile read while it is
// written): ids past those seen are looked up in them as they are then.
class SourceLineMerger {
public:
    // `function` maps a FUNCTION id of the profile to the dataset's; `lines`
    // must outlive the merger.
    SourceLineMerger(Dataset& d, SourceLineIndex& index, const SourceLines& lines,
                     std::function<uint32_t(uint32_t)> function);
    // The dataset location of the profile's location `id` (a valid id).
    uint32_t location(uint32_t id);
    // Rows of the profile's address table whose function the dataset
    // already has (`mapped`: the dataset id of each profile function, or
    // UINT32_MAX; functions past its end are unmapped): the only code a
    // dataset's CodeRef can name.
    void add_addresses(const std::vector<uint32_t>& mapped);

private:
    uint32_t string(uint32_t id);
    uint32_t intern(const std::string& s);

    Dataset& d_;
    SourceLineIndex& index_;
    const SourceLines& lines_;
    std::function<uint32_t(uint32_t)> function_;
    std::vector<uint32_t> strings_, locations_;  // profile id → dataset id, or UINT32_MAX
};

// The numbering of a merged dataset, made one source at a time: events are
// matched by name, functions by (object path, symbol name), so threads,
// processes and MPI ranks of one run add up. merge_profiles adds every
// source before the first interval; sprof top adds each image of a run as it
// starts and its intervals as they are read.
class DatasetMerger {
public:
    explicit DatasetMerger(Dataset& d);
    ~DatasetMerger();
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
    // cells' functions, its line cells' locations (Dataset::locations), and
    // their events in the dataset's order. `p` is the same profile at every
    // call for a source (it may grow between calls, as a live one does).
    void remap(size_t source, const Profile& p, Interval& iv, const std::string& path);
    // The source's address rows whose function the dataset has by now
    // (Dataset::code_lines): call after every record naming code is remapped.
    void add_code_lines(size_t source, const Profile& p, const std::string& path);

private:
    struct Slot {
        std::vector<size_t> events;       // the source's event e → the dataset's
        std::vector<uint32_t> functions;  // the source's function f → the dataset's, or unmapped
        std::unique_ptr<SourceLineMerger> lines;  // made when its profile first names a location
        std::vector<uint32_t> stacks;     // the source's stack s → the dataset's (those seen so far)
    };
    uint32_t stack(size_t source, const Profile& p, uint32_t s, const std::string& path);
    SourceLineMerger& lines(size_t source, const Profile& p, const std::string& path);
    Dataset& d_;
    std::unordered_map<std::string, size_t> event_index_;
    std::map<std::pair<std::string, std::string>, uint32_t> function_ids_;
    std::unique_ptr<SourceLineIndex> line_index_;
    std::map<std::vector<std::pair<uint32_t, uint64_t>>, uint32_t> stack_ids_;  // frames → Dataset::stacks index
    std::vector<Slot> slots_;
};

// How profiles are loaded. Reports that look at profiles as a whole (flat,
// imbalance) need no time line: `fold` sums each profile's intervals into
// one while it is read, so a job of a thousand ranks needs memory for its
// functions, not for its intervals.
struct LoadParams {
    bool fold = false;
    unsigned threads = 0;  // files read at once; 0 = one per CPU
    InlineMode inline_mode = InlineMode::caller;  // callee: see charge_inlined_code
    ReadOptions read;  // salvage: damaged records passed over (sprof --salvage)
};

// Charges the time of inlined code to the inlined functions (InlineMode::
// callee): each interval's line cells in inlined code move from the
// function they lie in to the innermost function inlined there (a function
// of the same object and name as an out-of-line copy is that function), so
// every report sees the inlined functions as functions; every location a
// cell names gets its SourceLocation::callee. Intervals without line cells
// stay as they are.
void charge_inlined_code(Dataset& d);

// Sums a profile's intervals into one per profile (seq 0, spanning them all);
// the source keeps the number of intervals and samples it had.
void fold_intervals(Source& s);

// Reads and merges profile files; throws ProfileError for a bad file (the
// first one in `paths` order, whatever order they were read in).
Dataset load_dataset(const std::vector<std::string>& paths, const LoadParams& params = {});

}  // namespace sprof::analyze
