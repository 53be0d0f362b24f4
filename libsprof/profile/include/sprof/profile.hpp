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
constexpr uint16_t kFormatMinor = 1;

struct ProfileEvent {
    std::string name;
    bool time_like = false;
    bool user_only = false;  // kernel space excluded (the user may not count it): perf's ":u"
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
};

struct ProfileObject {
    uint32_t id = 0;
    std::string path;  // or a pseudo name like [vdso]
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
struct EventCell {
    uint64_t count = 0;        // sum of measured deltas while live
    uint64_t coverage_ns = 0;  // reference time of the samples in which it was live
    double carry = NAN;        // carry-forward estimate; NaN = never counted yet (unknown)
};

struct FunctionCell {
    uint32_t function = 0;
    uint64_t samples = 0;
    uint64_t time_ns = 0;          // reference time of all its samples
    std::vector<EventCell> events; // one per ProfileHeader::events
};

struct Interval {
    uint32_t tid = 0;
    uint32_t seq = 0;              // 0, 1, 2 … per thread
    uint64_t start_ns = 0;         // CLOCK_MONOTONIC relative to the profile start
    uint64_t end_ns = 0;
    std::vector<FunctionCell> cells;
};

// How the profiled image ended (END fields appended after lost_samples;
// profiles written before them read as `unknown`).
enum class EndHow : uint32_t {
    unknown = 0,
    exit = 1,          // exit() or a return from main
    exit_now = 2,      // _exit() / _Exit(): no atexit handlers ran
    signal = 3,        // killed by `signal`
    exec = 4,          // the process exec'd: a new image (profiled in a file of its own)
};

struct ProfileEnd {
    bool present = false;
    int32_t exit_status = 0;  // as from waitpid: exit code, or 128+signal
    uint64_t samples = 0;
    uint64_t lost_samples = 0;
    EndHow how = EndHow::unknown;
    int32_t signal = 0;       // how == signal: the signal number
};

struct Profile {
    uint16_t version_major = kFormatMajor, version_minor = kFormatMinor;
    bool foreign_byte_order = false;  // written on a machine of the other byte order
    ProfileHeader header;
    std::vector<ProfileObject> objects;
    std::vector<ProfileFunction> functions;  // index == id
    std::vector<ProfileThread> threads;
    std::vector<Interval> intervals;          // in file order
    ProfileEnd end;
    std::vector<std::string> warnings;        // e.g. "truncated tail: …"

    const ProfileFunction& function(uint32_t id) const { return functions.at(id); }
    std::string object_name(uint32_t id) const {
        return id < objects.size() ? objects[id].path : std::string();
    }
};

}  // namespace sprof
