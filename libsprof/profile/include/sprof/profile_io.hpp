// Writing and reading profile files (docs/FORMAT.md). One reader, used by
// every tool.
#pragma once
#include <sys/types.h>

#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sprof/profile.hpp"

namespace sprof {

struct ProfileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The cache sizes a thread's exact records refer to: those of its first
// EXACT_CURVE part.
struct ExactCurveShape {
    std::vector<uint64_t> lines, detail;
};

// Appends records as they become known. Each record is written with one
// write() so a process killed at any moment leaves whole records behind.
class ProfileWriter {
public:
    ProfileWriter() = default;
    ~ProfileWriter();
    ProfileWriter(const ProfileWriter&) = delete;
    ProfileWriter& operator=(const ProfileWriter&) = delete;

    // Creates (truncates) the file and writes the file header and the header record.
    void open(const std::string& path, const ProfileHeader& header);
    void add_object(const ProfileObject& obj);
    void add_function(const ProfileFunction& fn);
    void add_thread(const ProfileThread& th);
    // An interval (or a part of one) and, with the same write(), its line
    // cells (Interval::lines) and stack cells (Interval::stacks), whose
    // locations and stacks must be written before.
    void add_interval(const Interval& iv);
    // Call paths (docs/FORMAT.md): new stacks, their ids continuing those
    // written before. Their frames' functions must be written before.
    void add_stacks(const std::vector<CallStack>& batch);
    // Source lines (docs/FORMAT.md): new strings, code locations and address
    // rows; their ids continue those written before (the batch's first
    // string is the next string id, and so on). Written before the line
    // cells and records that name them.
    void add_source_lines(const SourceLines& batch);
    // Locality (docs/FORMAT.md): the LOCALITY record once, before the others.
    // Windows, exact curves and exact functions may be written in parts (a
    // reader adds up the parts of one window, thread or function), so a
    // collector can write what is new since its last write. The samples go
    // into one record; the curve of a thread comes before its functions.
    void add_locality_run(const LocalityRun& run);
    void add_locality_window(const LocalityWindow& w);
    void add_reuse_samples(std::span<const ReuseSample> samples);
    // Data objects get ids 0, 1, 2 … in the order written, before the samples
    // that refer to them; tenures come after the samples they follow.
    void add_data_object(const DataObject& object);
    void add_tenures(std::span<const Tenure> tenures);
    void add_exact_curve(const ExactCurve& c);
    void add_exact_functions(std::span<const ExactFunction> functions);
    void add_exact_instructions(std::span<const ExactInstruction> instructions);
    void finish(const ProfileEnd& end);  // END record, then close
    // The END record, keeping the file open: for an exec, which may fail and
    // leave the program running. retract_end() then cuts the END off again
    // (a record after END would make the file unreadable).
    void write_end(const ProfileEnd& end);
    void retract_end();
    bool is_open() const { return fd_ >= 0; }
    const std::string& path() const { return path_; }

private:
    void write_buffer();  // buffer_ with one write(), then clears it
    void require_open(const char* what) const;
    void require_locality(const char* what) const;
    int fd_ = -1;
    off_t end_at_ = -1;  // where the END record written by write_end() starts
    std::string path_;
    std::string buffer_;  // the record being written; reused to avoid allocations
    size_t n_events_ = 0;
    uint32_t n_objects_ = 0;
    uint32_t n_functions_ = 0;
    uint32_t n_data_ = 0;
    bool locality_ = false;                             // LOCALITY written
    std::unordered_map<uint32_t, ExactCurveShape> curve_sizes_;  // tid → sizes of its exact curve
    uint32_t n_strings_ = 0;                  // source-line strings written so far
    std::vector<uint32_t> location_function_; // the function of every code location written
    size_t n_stacks_ = 0;                     // call stacks written so far
};

enum class ByteOrder { native, swapped };

// The bytes ProfileWriter writes for this profile (header, objects, functions,
// threads, intervals, locality records when present, END when present). `swapped` produces the file a machine
// of the other byte order would write. Throws ProfileError on the same
// inconsistencies the writer rejects.
std::string encode_profile(const Profile& profile, ByteOrder order = ByteOrder::native);

// What the reader accepts at most (docs/FORMAT.md, "Limits"). A profile of a
// long run is tens of MB and has a few events (the collectors write at most
// kMaxEvents = 32); anything beyond these is not a profile, and the bounds
// keep the reader's and the analyzer's memory and time proportional to them.
constexpr uint64_t kMaxProfileBytes = uint64_t{1} << 30;
constexpr uint32_t kMaxProfileEvents = 1024;

// Reads a whole profile. Throws ProfileError (one line: "FILE: what (why)")
// for anything that is not a readable profile, a damaged record among them
// (unless options.salvage); a truncated tail is a warning in
// Profile::warnings and every complete record is kept. INTERVAL records
// with the same (tid, seq) come back merged into one Interval.
Profile read_profile(const std::string& path, ReadOptions options = {});

// Same, from bytes in memory (tests, fuzzing); `name` appears in messages.
Profile parse_profile(std::string_view bytes, const std::string& name, ReadOptions options = {});

}  // namespace sprof
