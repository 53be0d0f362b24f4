// --info: what each profile says about its run.
#include <algorithm>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "reports.hpp"

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

std::string duration(uint64_t ns) {
    if (ns == 0) return "-";
    if (ns % 1'000'000'000 == 0) return fmt::format("{} s", ns / 1'000'000'000);
    if (ns % 1'000'000 == 0) return fmt::format("{} ms", ns / 1'000'000);
    if (ns % 1'000 == 0) return fmt::format("{} us", ns / 1'000);
    return fmt::format("{} ns", ns);
}

std::string exit_status(const ProfileEnd& e) {
    if (!e.present) return "unknown (the profile has no end record: the run was cut short)";
    return std::to_string(e.exit_status);
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

Json info_json(const Source& s) {
    const Profile& p = s.profile;
    const ProfileHeader& h = p.header;
    Json events = Json::array();
    for (const auto& e : h.events) events.push_back({{"name", e.name}, {"time_like", e.time_like}, {"user_only", e.user_only}});
    Json threads = Json::array();
    for (const auto& t : p.threads) threads.push_back({{"tid", t.tid}, {"name", t.name}});
    Json j = {{"path", s.path},
              {"format", fmt::format("{}.{}", p.version_major, p.version_minor)},
              {"collector", h.collector},
              {"backend", h.backend},
              {"program", h.program},
              {"argv", h.argv},
              {"pid", h.pid},
              {"host", h.hostname},
              {"start_unix_ns", h.start_unix_ns},
              {"start", utc_time(h.start_unix_ns)},
              {"clock", h.clock},
              {"sample_interval_ns", h.sample_interval_ns},
              {"hist_samples", h.hist_samples},
              {"hist_interval_ns", h.hist_interval_ns},
              {"slots", h.slots},
              {"rank", h.rank >= 0 ? Json(h.rank) : Json(nullptr)},
              {"ranks", h.ranks ? Json(h.ranks) : Json(nullptr)},
              {"job_id", h.job_id},
              {"launcher", h.launcher},
              {"events", events},
              {"threads", threads},
              {"intervals", s.n_intervals},
              {"samples", s.samples},
              {"warnings", p.warnings}};
    j["exit_status"] = p.end.present ? Json(p.end.exit_status) : Json(nullptr);
    j["lost_samples"] = p.end.present ? Json(p.end.lost_samples) : Json(nullptr);
    j["ended"] = ended(p.end);
    return j;
}

void info_text(std::ostream& out, const Source& s) {
    const Profile& p = s.profile;
    const ProfileHeader& h = p.header;
    auto line = [&](const char* key, const std::string& v) { out << fmt::format("{:<18}{}\n", key, v); };
    line("profile", s.path);
    line("format", fmt::format("{}.{}{}", p.version_major, p.version_minor,
                               p.foreign_byte_order ? " (other byte order)" : ""));
    line("collector", h.collector);
    line("backend", h.backend);
    line("program", h.program);
    line("argv", fmt::format("{}", fmt::join(h.argv, " ")));
    line("pid", std::to_string(h.pid));
    line("host", h.hostname);
    if (h.rank >= 0)
        line("job", fmt::format("rank {} of {}, job {} ({})", h.rank, h.ranks ? std::to_string(h.ranks) : "?",
                                h.job_id.empty() ? "?" : h.job_id, h.launcher));
    line("start", utc_time(h.start_unix_ns));
    line("clock", h.clock == "cpu" ? "cpu (thread CPU time)" : h.clock);
    line("sample interval", duration(h.sample_interval_ns));
    line("histogram", h.hist_samples ? fmt::format("{} samples per interval", h.hist_samples)
                                     : fmt::format("{} per interval", duration(h.hist_interval_ns)));
    line("slots", std::to_string(h.slots));
    std::vector<std::string> events;
    for (const auto& e : h.events) events.push_back(e.time_like ? e.name + " (time)" : e.name);
    line("events", fmt::format("{} ({})", h.events.size(), fmt::join(events, ", ")));
    if (std::any_of(h.events.begin(), h.events.end(), [](const ProfileEvent& e) { return e.user_only; }))
        line("counted", "user space only (the kernel was excluded: this user may not count it): "
                        "time in the kernel goes to the next user-space sample, kernel events are absent");
    std::vector<std::string> threads;
    for (const auto& t : p.threads) threads.push_back(t.name.empty() ? std::to_string(t.tid)
                                                                     : fmt::format("{} {}", t.tid, t.name));
    line("threads", fmt::format("{} ({})", p.threads.size(), fmt::join(threads, ", ")));
    line("intervals", std::to_string(s.n_intervals));
    line("samples", p.end.present ? fmt::format("{} (lost {})", s.samples, p.end.lost_samples)
                                  : std::to_string(s.samples));
    line("exit status", exit_status(p.end));
    line("ended", ended(p.end));
    for (const auto& w : p.warnings) line("warning", w);
}

}  // namespace

void report_info(const Context& c) {
    if (c.options.format == Format::json) {
        Json arr = Json::array();
        for (const auto& s : c.data.sources) arr.push_back(info_json(s));
        c.out << dump_json(Json{{"profiles", arr}}, 2) << '\n';
        return;
    }
    if (c.options.format == Format::csv) {
        Table t;
        for (const char* k : {"path", "collector", "backend", "program", "pid", "host", "start", "clock",
                              "sample_interval_ns", "slots", "events", "threads", "intervals", "samples",
                              "exit_status"})
            t.add_column({Column::text, k});
        for (const auto& s : c.data.sources) {
            Json j = info_json(s);
            t.new_row();
            for (const auto& col : t.columns()) {
                const Json& v = j[col.name];
                if (v.is_null()) t.put_value(Value());
                else if (v.is_string()) t.put(v.get<std::string>());
                else if (v.is_array()) t.put(std::to_string(v.size()));
                else t.put(v.dump());
            }
        }
        t.write_csv(c.out);
        return;
    }
    for (size_t i = 0; i < c.data.sources.size(); ++i) {
        if (i) c.out << '\n';
        info_text(c.out, c.data.sources[i]);
    }
}

}  // namespace sprof::analyze
