#include "profile_info.hpp"

#include <algorithm>
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

}  // namespace

std::string describe_end(const ProfileEnd& e) {
    if (!e.present) return "unknown (no END record: killed?)";
    switch (e.how) {
    case EndHow::exit: return fmt::format("exit {}", e.exit_status);
    case EndHow::exit_now: return fmt::format("exit {} (_exit)", e.exit_status);
    case EndHow::signal: {
        const char* abbrev = sigabbrev_np(e.signal);
        return abbrev ? fmt::format("killed by SIG{}", abbrev) : fmt::format("killed by signal {}", e.signal);
    }
    case EndHow::exec: return "exec (the process went on as another program)";
    case EndHow::detached: return "detached (the collector let the process run on)";
    default: return "unknown (not recorded by this collector)";
    }
}

ProfileInfo profile_info(const Dataset& d, uint32_t source) {
    const Source& s = d.sources.at(source);
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
        if (p.end.how != EndHow::detached) i.exit_status = p.end.exit_status;
        i.lost_samples = p.end.lost_samples;
    }
    i.ended = describe_end(p.end);
    // The source's cells are the dataset's now, its events in the dataset's order.
    std::vector<size_t> column;
    for (const ProfileEvent& e : p.header.events)
        column.push_back(static_cast<size_t>(
            std::find_if(d.events.begin(), d.events.end(), [&](const ProfileEvent& x) { return x.name == e.name; }) -
            d.events.begin()));
    std::vector<uint64_t> covered(column.size(), 0);
    uint64_t time_ns = 0;
    for (size_t iv = 0; iv < d.intervals.size(); ++iv) {
        if (d.interval_source[iv] != source) continue;
        for (const FunctionCell& c : d.intervals[iv].cells) {
            time_ns += c.time_ns;
            for (size_t k = 0; k < column.size(); ++k)
                if (column[k] < c.events.size()) covered[k] += c.events[column[k]].coverage_ns;
        }
    }
    for (uint64_t ns : covered)
        i.live_fraction.push_back(time_ns ? std::optional<double>(static_cast<double>(ns) / static_cast<double>(time_ns))
                                          : std::nullopt);
    if (p.locality.run.present) {
        LocalityInfo l{.run = p.locality.run, .samples = p.locality.samples.size()};
        for (const LocalityWindow& w : p.locality.windows) {
            l.accesses += w.accesses;
            l.unseen_accesses += w.unseen_accesses;
            l.lost_records += w.lost_records;
            l.lost_allocations += w.lost_allocations;
        }
        i.locality = l;
    }
    i.warnings = p.warnings;
    return i;
}

}  // namespace sprof::analyze
