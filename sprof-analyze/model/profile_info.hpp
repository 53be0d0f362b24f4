// What --info tells of one profile: one value, shown as text, CSV or JSON
// by report_info.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dataset.hpp"

namespace sprof::analyze {

// A profile's locality records in brief (programs built with sprof-cc).
struct LocalityInfo {
    LocalityRun run;
    uint64_t accesses = 0;         // instrumented accesses, all threads
    uint64_t unseen_accesses = 0;  // memcpy/memset/str* traffic the compiler did not see
    uint64_t lost_records = 0;     // dropped by the runtime (LocalityWindow)
    uint64_t lost_allocations = 0;
    uint64_t samples = 0;          // reuse samples (sampled mode)
};

struct ProfileInfo {
    std::string path;
    std::string format;  // "MAJOR.MINOR"
    bool foreign_byte_order = false;
    ProfileHeader header;
    std::string start;  // header.start_unix_ns in UTC, ISO 8601
    std::vector<ProfileThread> threads;
    size_t intervals = 0;
    uint64_t samples = 0;
    std::optional<int32_t> exit_status;    // unknown without an END record, none when detached
    std::optional<uint64_t> lost_samples;  // likewise
    std::string ended;                     // how the run ended, in words
    std::optional<LocalityInfo> locality;  // none without locality records
    // Per event (like header.events): the share of the sampled time in which
    // it was counted (its coverage over the reference time; 1 when never
    // multiplexed); unknown without samples.
    std::vector<std::optional<double>> live_fraction;
    std::vector<std::string> warnings;
};

// How an image ended, as its END record says ("exit 0", "killed by SIGKILL").
std::string describe_end(const ProfileEnd& e);

// Of source `source` of the dataset.
ProfileInfo profile_info(const Dataset& d, uint32_t source);

}  // namespace sprof::analyze
