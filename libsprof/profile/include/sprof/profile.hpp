// The profile: data model shared by every tool. Written by ProfileWriter and
// read by read_profile (both in profile_io.hpp); the byte
// layout is specified in docs/FORMAT.md.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace sprof {

constexpr uint16_t kFormatMajor = 1;
// Minor 1: INTERVAL records with the same (tid, seq) are parts of one
// interval (docs/FORMAT.md). Readers of 1.0 still read such files.
// Minor 2: the HEADER ends with the process's place in a job (rank, ranks,
// job id, launcher).
// Minor 3: locality records (Profile::locality); older readers skip them.
// Minor 4: the spread of the sampled deltas and the samples that entered a
// function, after an INTERVAL's cells (for confidence intervals and the
// boundary-free coverage estimate); the HEADER ends with the rotation.
// Minor 5: locality detail — each reuse sample's position in its stream and
// data object, tenures of the lines samples bring in, data objects, exact
// counts per instruction (docs/FORMAT.md); older readers skip them.
// Minor 6: source lines (Profile::lines, Interval::lines); older readers skip them.
// Minor 7: an OBJECT ends with its build-id; collectors leave source lines to
// the reader (one unknown location per address, SourceLines::resolved false),
// which reads them from the objects, as perf report does.
// Minor 8: HEADER ends with the tick dither (ProfileHeader::tick_dither).
// Minor 9: an event's flags say whether it was attributed by its own
// overflow samples (ProfileEvent::self_sampled); its cells then hold what
// those samples attributed (docs/FORMAT.md). Older readers ignore the flag.
// Minor 10: LOCALITY_WINDOW ends with what the runtime dropped (LocalityWindow::lost_records, lost_allocations);
// tenures are followed past 32 accesses, weighted (TenureStep), those in TENURES_WEIGHTED (older readers skip it).
// Minor 11: HEADER ends with the attached flag (sprof_pt -p); END's how may be detached.
// Minor 12: every record's payload ends with the CRC32C of the record (a
// damaged file is told from a cut-short one); HEADER ends with the file
// header's minor again. Older readers take the checksum for appended fields.
// Minor 13: call paths (Profile::stacks, Interval::stacks): STACKS and
// STACK_CELLS records; older readers skip them.
constexpr uint16_t kFormatMinor = 13;

// How a profile is read. `salvage`: damaged records (minor 12 on, their
// checksum fails) are passed over and named in a warning instead of being
// an error (sprof --salvage).
struct ReadOptions {
    bool salvage = false;
};

struct ProfileEvent {
    std::string name;
    bool time_like = false;
    bool user_only = false;  // kernel space excluded (the user may not count it): perf's ":u"
    // Attributed by its own overflow samples: each of its records charged
    // the events since the thread's previous record (tick or event) to the
    // function at the record's PC. Otherwise counted: a tick's delta goes to
    // the function at the tick.
    bool self_sampled = false;
};

struct ProfileHeader {
    std::string collector;            // "sprof_lib" or "sprof_pt"
    std::string backend;              // "perf" or "cmdev"
    std::string program;              // path of the profiled executable
    std::vector<std::string> argv;    // its command line
    std::string hostname;
    uint32_t pid = 0;
    uint64_t start_unix_ns = 0;       // wall-clock start (CLOCK_REALTIME)
    std::string clock = "cpu";        // sampling clock: "cpu" (thread CPU time) or "wall"
    uint64_t sample_interval_ns = 0;
    uint32_t hist_samples = 0;        // samples per histogram interval (0 when time-based)
    uint64_t hist_interval_ns = 0;    // histogram interval length (0 when sample-based)
    uint32_t slots = 0;               // K: events live at once
    std::vector<ProfileEvent> events; // N events; cells are indexed like this vector
    // The process's place in a parallel job (MPI, Slurm), from its launcher's
    // environment; rank -1 outside a job.
    int32_t rank = -1;
    uint32_t ranks = 0;               // ranks in the job; 0 when unknown
    std::string job_id;               // the launcher's id of the job
    std::string launcher;             // "openmpi", "pmix", "pmi", "slurm"
    // The order of the live sets (docs/FORMAT.md): "round-robin", or
    // "shuffled" (each round of the rotation in its own random order, drawn
    // per thread from rotation_seed). Profiles before format 1.4: round-robin.
    std::string rotation = "round-robin";
    uint64_t rotation_seed = 0;
    // The spread of the tick period: each period drawn uniformly from
    // [x(1 − d), x(1 + d)] around the sampling interval x, so that no program
    // rhythm stays in step with the ticks (docs/FORMAT.md). 0: a fixed period
    // (before format 1.8, or --tick-dither 0).
    double tick_dither = 0;
    // The collector attached to the process while it ran (sprof_pt -p, --tid):
    // the profile begins after the process began. False before format 1.11.
    bool attached = false;
};

struct ProfileObject {
    uint32_t id = 0;
    std::string path;      // or a pseudo name like [vdso]
    std::string build_id;  // GNU build-id in hex; "" unknown (none, or before 1.7)
};

// A function (or an [unknown] bucket: start == end == 0).
struct ProfileFunction {
    uint32_t id = 0;
    uint32_t object = 0;  // ProfileObject id; kNoObject when unknown
    uint64_t start = 0;   // link-time address range [start, end) in the object
    uint64_t end = 0;
    std::string name;     // as in the symbol table (mangled); demangled on output
};
constexpr uint32_t kNoObject = 0xffffffffu;

struct ProfileThread {
    uint32_t tid = 0;
    std::string name;
};

// What the profile knows of one event for one function in one interval.
// A sample whose previous sample (same thread) was in another function is
// an *entry*: its sampling interval began in that other function, so its
// delta is partly the other function's; the entry_* fields are the part of
// count, coverage and sq that came from entries.
//
// An event attributed by its own samples (ProfileEvent::self_sampled) keeps
// other sums in the same fields: count = the events its records put in this
// function while live; coverage_ns = the reference time of the function's
// ticks in which it was live (the cells of an interval add up to its live
// time); sq = Σ over ticks of (events put here since the previous tick)²;
// entry_count = the events that a record charged here although its stretch
// since the previous record began elsewhere (where along it they happened
// is not known); entry_sq = the square of the events of the interval's
// stretches that began here and were charged elsewhere (a part holds the
// growth of that square since the previous part); carry unused.
// extrapolate_self_sampled (estimator.hpp) turns them into estimates.
struct EventCell {
    uint64_t count = 0;        // sum of measured deltas while live
    uint64_t coverage_ns = 0;  // reference time of the samples in which it was live
    double carry = NAN;        // carry-forward estimate; NaN = never counted yet (unknown)
    // The spread of the deltas: the sum over live samples of delta² / the
    // sample's live time (count²/ns). NaN = not recorded (before format 1.4).
    double sq = 0;
    uint64_t entry_count = 0;
    uint64_t entry_coverage_ns = 0;
    double entry_sq = 0;
    // Set by extrapolate_self_sampled when the dataset is read: count is
    // then the estimate itself, sq and entry_sq its variances (count²).
    bool self_sampled = false;
};

struct FunctionCell {
    uint32_t function = 0;
    uint64_t samples = 0;
    uint64_t time_ns = 0;          // reference time of all its samples
    std::vector<EventCell> events; // one per ProfileHeader::events
    // Samples that entered the function (see EventCell); kUnknownEntries
    // before format 1.4.
    uint64_t entries = 0;
};
constexpr uint64_t kUnknownEntries = UINT64_MAX;

// The same sums per source location (format 1.6): the line cells of a
// function's locations add up to its FunctionCell.
struct LineCell {
    uint32_t location = 0;         // CodeLocation id (SourceLines::locations)
    uint64_t samples = 0;
    uint64_t time_ns = 0;
    std::vector<EventCell> events;
};

// The same sums per call path (format 1.13): the stack cells of an interval
// add up to its function cells where every sample carried a chain.
struct StackCell {
    uint32_t stack = 0;            // CallStack id (Profile::stacks)
    uint64_t samples = 0;
    uint64_t time_ns = 0;
    std::vector<EventCell> events;
};

struct Interval {
    uint32_t tid = 0;
    uint32_t seq = 0;              // 0, 1, 2 … per thread
    uint64_t start_ns = 0;         // CLOCK_MONOTONIC relative to the profile start
    uint64_t end_ns = 0;
    std::vector<FunctionCell> cells;
    std::vector<LineCell> lines;   // empty in profiles without source lines
    std::vector<StackCell> stacks{};  // empty in profiles without call paths (an initializer: older code lists the fields before it)
};

// How the profiled image ended (END fields appended after lost_samples;
// profiles written before them read as `unknown`).
enum class EndHow : uint32_t {
    unknown = 0,
    exit = 1,          // exit() or a return from main
    exit_now = 2,      // _exit() / _Exit(): no atexit handlers ran
    signal = 3,        // killed by `signal`
    exec = 4,          // the process exec'd: a new image (profiled in a file of its own)
    detached = 5,      // the collector detached and the process ran on (sprof_pt -p; since 1.11)
};

struct ProfileEnd {
    bool present = false;
    int32_t exit_status = 0;  // as from waitpid: exit code, or 128+signal
    uint64_t samples = 0;
    uint64_t lost_samples = 0;
    EndHow how = EndHow::unknown;
    int32_t signal = 0;       // how == signal: the signal number
};

// ---- Locality (format 1.3): programs rebuilt with sprof-cc / sprof-c++ ----
// Terms (docs/ARCHITECTURE.md, StatCache): the reuse distance of an access is
// the number of accesses of the same thread since its previous access to the
// same cache line; every thread is its own access stream (a private cache).

constexpr uint64_t kNoReuse = UINT64_MAX;  // the sampled line was never accessed again
constexpr uint32_t kNoFunction = 0xffffffffu;
constexpr uint32_t kNoData = 0xffffffffu;      // a sample whose data object is not known

// An instruction: the function holding it and its address. The address is
// link-time (as in the object's symbol table) when the function is known,
// the run-time address otherwise.
struct CodeRef {
    uint32_t function = kNoFunction;  // ProfileFunction id
    uint64_t address = 0;
};

// How locality was collected (one LOCALITY record per image, after HEADER).
struct LocalityRun {
    bool present = false;
    std::string mode;              // "sampled" or "exact"
    uint32_t line_size = 64;       // bytes, a power of two
    uint64_t sample_period = 0;    // sampled: mean accesses between samples (geometric gaps)
    uint64_t window_accesses = 0;  // sampled: accesses per sampling window, per thread
    uint64_t seed = 0;             // of the sample points, so a run can be repeated
};

// One sampling window of one thread: what the model divides by.
struct LocalityWindow {
    uint32_t tid = 0;
    uint32_t window = 0;            // 0, 1, 2 … per thread
    uint64_t accesses = 0;          // instrumented accesses in the window
    uint64_t samples = 0;           // samples started in the window
    uint64_t unseen_accesses = 0;   // estimated accesses the compiler did not
                                    // instrument (memcpy/memset/str* in libc, in
                                    // 8-byte words), counted by the runtime's hooks
    // Since 1.9 (0 in older profiles): what the thread's collection dropped
    // (the runtime could not map more memory for its queues), written as
    // parts of the thread's window 0.
    uint64_t lost_records = 0;      // samples, sample starts, tenures and windows
    uint64_t lost_allocations = 0;  // allocations and frees: samples in their blocks may be named by older ones
};

// One sample: an access chosen at random and the next access to its line.
struct ReuseSample {
    uint32_t tid = 0;
    uint32_t window = 0;
    uint64_t distance = kNoReuse;   // accesses from the sample to the trigger
    CodeRef sample;                 // the sampled access
    CodeRef trigger;                // the next access to its line (none when kNoReuse)
    uint64_t address = 0;           // data address of the sampled access
    uint8_t size = 0;               // bytes accessed
    bool sample_write = false;
    bool trigger_write = false;
    // Since 1.5 (0 and kNoData in older profiles):
    uint64_t position = 0;          // the sampled access's number in its thread's stream (1, 2, 3 …)
    uint32_t data = kNoData;        // the DataObject holding the sampled address
};

// The tenure of a cache line that a sample's trigger brought in (SIP's
// spatial and temporal use). A trigger at reuse distance d misses in every
// LRU cache smaller than the stack distance of its reuse; from the trigger on
// the runtime follows its line: each later access of the thread to the line
// ends a gap (accesses since the line's previous access, as a reuse
// distance). In a cache of C lines the tenure lasts until the first gap
// whose stack distance is ≥ C. A step is written for every gap longer than
// all before it, with what the tenure held before that gap: the accesses to
// the line from the trigger on, the bytes they read or wrote (repeats
// counted) and which chunks of the line they touched (bit i: bytes
// [i·chunk, (i+1)·chunk), chunk = max(1, line size / 64)).
struct TenureStep {
    uint64_t gap = 0;         // the gap that ends this state; kNoReuse: the line was not accessed again
    uint32_t accesses = 0;    // ≥ 1: the trigger and the accesses after it, before the gap (weighted, 1.9)
    uint64_t bytes = 0;       // bytes those accesses read or wrote (weighted as accesses)
    uint64_t used = 0;        // chunks touched (nonzero)
};

// How following a line ended: its last step says why the rest is not known.
enum class TenureEnd : uint8_t {
    no_reuse = 0,   // the thread ended without touching the line again (last gap kNoReuse)
    aged = 1,       // not touched for a whole sampling window: the last gap is a lower bound
    capped = 2,     // kTenureSteps steps followed, or the roulette lost; the tenure may go on
};
// Accesses followed before a tenure's first roulette (reuse_sampler.hpp):
// at kTenureAccesses · 2^k accesses following goes on with probability ½,
// the accesses after it weighted twice as much (TenureStep's counts).
constexpr uint32_t kTenureAccesses = 32;
constexpr uint32_t kTenureSteps = 16;     // steps a tenure has at most

struct Tenure {
    uint32_t tid = 0;
    uint64_t position = 0;          // of the sample whose trigger started it (same thread)
    TenureEnd end = TenureEnd::no_reuse;
    std::vector<TenureStep> steps;  // gaps strictly ascending; at least one
};

// Where a sampled address lies: the data structure the views speak of.
enum class DataKind : uint8_t {
    heap = 0,         // a block of the allocation call at `site` (malloc & co., operator new)
    static_data = 1,  // the static variable `name` of object `object` (ELF symbol), `size` bytes
    stack = 2,        // a thread's stack
    other = 3,        // any other mapping (`name`: its path or [anon]), or nothing known
};

struct DataObject {
    uint32_t id = 0;                 // index in Locality::data
    DataKind kind = DataKind::other;
    uint32_t object = kNoObject;     // static_data: the ProfileObject holding it
    CodeRef site;                    // heap: the allocation call
    std::string name;                // static_data: symbol (mangled); other: mapping path
    uint64_t size = 0;               // static_data: the symbol's size in bytes
};

// Exact mode: every access through an exact simulator, per thread. Misses
// at each size of `lines` (cache sizes in lines, ascending): LRU, fully
// associative, from stack distances (cold misses included).
struct ExactCurve {
    uint32_t tid = 0;
    uint64_t accesses = 0;
    std::vector<uint64_t> lines;         // cache sizes, in lines
    std::vector<uint64_t> lru_misses;    // one per `lines`
    std::vector<uint64_t> random_lines;  // sizes simulated with random replacement
    std::vector<uint64_t> random_misses; // one per `random_lines`
    std::vector<uint64_t> detail_lines;  // since 1.5: sizes of the per-instruction detail (ExactInstruction)
};

// Exact mode, per function: its accesses and its LRU misses at each size
// of the thread's ExactCurve::lines.
struct ExactFunction {
    uint32_t tid = 0;
    uint32_t function = 0;
    uint64_t accesses = 0;
    std::vector<uint64_t> lru_misses;
};

// Exact mode (1.5), per instruction at each size of its thread's
// ExactCurve::detail_lines (LRU): its misses, which are the tenures it
// started, and what those tenures used (as in TenureStep, every access of
// a tenure counted; at most kTenureAccesses before format 1.9).
struct ExactUse {
    uint64_t misses = 0;      // cold ones included
    uint64_t used_bytes = 0;  // Σ over its tenures: bytes of the line touched (chunks × chunk size)
    uint64_t bytes = 0;       // Σ over its tenures: bytes read or written, repeats counted
};

struct ExactInstruction {
    uint32_t tid = 0;
    CodeRef pc;
    bool write = false;        // a store (or an atomic read-modify-write)
    uint64_t accesses = 0;
    std::vector<ExactUse> at;  // one per detail size
};

struct Locality {
    LocalityRun run;
    std::vector<LocalityWindow> windows;
    std::vector<ReuseSample> samples;
    std::vector<Tenure> tenures;                 // sampled, 1.5
    std::vector<DataObject> data;                // index == id, 1.5
    std::vector<ExactCurve> exact;
    std::vector<ExactFunction> exact_functions;
    std::vector<ExactInstruction> exact_instructions;  // 1.5
};

// ---- Source lines (format 1.6): where sampled code is in the source ----
// Strings (file paths, inlined functions' names) are kept once, in
// SourceLines::strings, and named by index: a location costs its numbers.

constexpr uint32_t kNoString = 0xffffffffu;  // unknown (no debug info)

// A function inlined at the code: its name and where it was inlined (the
// call site, in the function it was inlined into).
struct InlinedCall {
    uint32_t function = kNoString;   // linkage name when the debug info has one, else its name
    uint32_t call_file = kNoString;
    uint32_t call_line = 0;          // 0 = unknown
};

// A place in the source: a line of a function, and the functions inlined
// there. Cells are kept per location, not per instruction.
struct CodeLocation {
    uint32_t function = 0;           // ProfileFunction id the code lies in
    uint32_t file = kNoString;       // the code's own source file and line
    uint32_t line = 0;               // 0 = unknown
    std::vector<InlinedCall> inlined;  // innermost first; empty when not inlined
};

// An instruction's location: every code address the collector sampled or
// named in a locality record (CodeRef) has one.
struct CodeAddress {
    CodeRef code;
    uint32_t location = 0;           // CodeLocation id; its function is code.function
    uint32_t column = 0;             // 0 = unknown
};

struct SourceLines {
    std::vector<std::string> strings;
    std::vector<CodeLocation> locations;  // index == id
    std::vector<CodeAddress> addresses;
    // False in a profile of 1.7 or later as read: every address has a
    // location of its own, file and line unknown, until ProfileLineReader
    // (libsprof/debuginfo) reads them from the objects' debug info.
    bool resolved = true;
    bool empty() const { return strings.empty() && locations.empty() && addresses.empty(); }
};

// ---- Call paths (format 1.13) ----
// A distinct user call chain, stored once: frames[0] is the sampled code,
// then each caller at its call instruction (the return address less one, so
// that its function and line are the call's), outermost last. Every frame's
// address has a row in SourceLines::addresses.
struct CallStack {
    std::vector<CodeRef> frames;
};
// Frames per stack the reader accepts at most (the collectors write 128).
constexpr uint32_t kMaxStackFrames = 4096;

struct Profile {
    uint16_t version_major = kFormatMajor, version_minor = kFormatMinor;
    bool foreign_byte_order = false;  // written on a machine of the other byte order
    ProfileHeader header;
    std::vector<ProfileObject> objects;
    std::vector<ProfileFunction> functions;  // index == id
    std::vector<ProfileThread> threads;
    std::vector<Interval> intervals;          // in file order
    Locality locality;                        // empty unless built with sprof-cc
    SourceLines lines;                        // empty before format 1.6
    std::vector<CallStack> stacks;            // index == id; empty without call paths
    ProfileEnd end;
    std::vector<std::string> warnings;        // e.g. "truncated tail: …"

    const ProfileFunction& function(uint32_t id) const { return functions.at(id); }
    std::string object_name(uint32_t id) const {
        return id < objects.size() ? objects[id].path : std::string();
    }
};

}  // namespace sprof
