#include "profile_info.hpp"

#include <cstring>
#include <ctime>

#include <fmt/format.h>

namespace sprof::analyze {

namespace {

std::string utc_time(uint64_t unix_ns) {
    std::time_t t = static_cast<std::time_t>(unix_ns / 1'000'000'000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// How the image ended, as its END record says.
std::string ended(const ProfileEnd& e) {
    if (!e.present) return "unknown (no END record: killed?)";
    switch (e.how) {
    case EndHow::exit: return fmt::format("exit {}", e.exit_status);
    case EndHow::exit_now: return fmt::format("exit {} (_exit)", e.exit_status);
    case EndHow::signal: {
        const char* abbrev = sigabbrev_np(e.signal);
        return abbrev ? fmt::format("killed by SIG{}", abbrev) : fmt::format("killed by signal {}", e.signal);
    }
    case EndHow::exec: return "exec (the process went on as another program)";
    default: return "unknown (not recorded by this collector)";
    }
}

}  // namespace

ProfileInfo profile_info(const Source& s) {
    const Profile& p = s.profile;
    ProfileInfo i;
    i.path = s.path;
    i.format = fmt::format("{}.{}", p.version_major, p.version_minor);
    i.foreign_byte_order = p.foreign_byte_order;
    i.header = p.header;
    i.start = utc_time(p.header.start_unix_ns);
    i.threads = p.threads;
    i.intervals = s.n_intervals;
    i.samples = s.samples;
    if (p.end.present) {
        i.exit_status = p.end.exit_status;
        i.lost_samples = p.end.lost_samples;
    }
    i.ended = ended(p.end);
    if (p.locality.run.present) {
        LocalityInfo l{.run = p.locality.run, .samples = p.locality.samples.size()};
        for (const LocalityWindow& w : p.locality.windows) {
            l.accesses += w.accesses;
            l.unseen_accesses += w.unseen_accesses;
        }
        i.locality = l;
    }
    i.warnings = p.warnings;
    return i;
}

}  // namespace sprof::analyze
