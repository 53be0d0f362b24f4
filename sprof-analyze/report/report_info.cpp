// --info: each profile's ProfileInfo as text, CSV or JSON.
#include <algorithm>

#include <fmt/format.h>

#include "locality_report.hpp"
#include "profile_info.hpp"
#include "reports.hpp"
#include "sprof/option_values.hpp"

namespace sprof::analyze {

namespace {

double unseen_pct(const LocalityInfo& l) {
    const uint64_t all = l.accesses + l.unseen_accesses;
    return all ? 100.0 * static_cast<double>(l.unseen_accesses) / static_cast<double>(all) : 0.0;
}

Json locality_json(const std::optional<LocalityInfo>& l) {
    if (!l) return nullptr;
    return {{"mode", l->run.mode},
            {"line_size", l->run.line_size},
            {"sample_period", l->run.sample_period},
            {"window_accesses", l->run.window_accesses},
            {"seed", l->run.seed},
            {"accesses", l->accesses},
            {"unseen_accesses", l->unseen_accesses},
            {"unseen_pct", unseen_pct(*l)},
            {"lost_records", l->lost_records},
            {"lost_allocations", l->lost_allocations},
            {"samples", l->samples}};
}

// How an event's counts were given to functions (docs/FORMAT.md): by its
// own overflow samples at the PC where it happened, or by the ticks.
std::string attribution(const ProfileEvent& e) {
    if (e.self_sampled) return "attributed by its own samples";
    return e.time_like ? "attributed by the ticks" : "counted at the ticks";
}

Json info_json(const ProfileInfo& i) {
    const ProfileHeader& h = i.header;
    Json events = Json::array();
    for (size_t k = 0; k < h.events.size(); ++k) {
        const ProfileEvent& e = h.events[k];
        const auto& live = i.live_fraction[k];
        events.push_back({{"name", e.name}, {"time_like", e.time_like}, {"user_only", e.user_only},
                          {"attribution", attribution(e)}, {"live_fraction", live ? Json(*live) : Json(nullptr)}});
    }
    Json threads = Json::array();
    for (const auto& t : i.threads) threads.push_back({{"tid", t.tid}, {"name", t.name}});
    auto or_null = [](const auto& v) { return v ? Json(*v) : Json(nullptr); };
    return {{"path", i.path},
            {"format", i.format},
            {"collector", h.collector},
            {"backend", h.backend},
            {"program", h.program},
            {"argv", h.argv},
            {"pid", h.pid},
            {"attached", h.attached},
            {"host", h.hostname},
            {"start_unix_ns", h.start_unix_ns},
            {"start", i.start},
            {"clock", h.clock},
            {"sample_interval_ns", h.sample_interval_ns},
            {"tick_dither", h.tick_dither},
            {"hist_samples", h.hist_samples},
            {"hist_interval_ns", h.hist_interval_ns},
            {"slots", h.slots},
            {"rotation", h.rotation},
            {"rotation_seed", h.rotation == "shuffled" ? Json(h.rotation_seed) : Json(nullptr)},
            {"rank", h.rank >= 0 ? Json(h.rank) : Json(nullptr)},
            {"ranks", h.ranks ? Json(h.ranks) : Json(nullptr)},
            {"job_id", h.job_id},
            {"launcher", h.launcher},
            {"events", events},
            {"threads", threads},
            {"intervals", i.intervals},
            {"samples", i.samples},
            {"warnings", i.warnings},
            {"exit_status", or_null(i.exit_status)},
            {"lost_samples", or_null(i.lost_samples)},
            {"ended", i.ended},
            {"locality", locality_json(i.locality)}};
}

void info_text(std::ostream& out, const ProfileInfo& i) {
    const ProfileHeader& h = i.header;
    auto line = [&](const char* key, const std::string& v) { out << fmt::format("{:<18}{}\n", key, v); };
    line("profile", i.path);
    line("format", i.format + (i.foreign_byte_order ? " (other byte order)" : ""));
    line("collector", h.collector);
    line("backend", h.backend);
    line("program", h.program);
    line("argv", fmt::format("{}", fmt::join(h.argv, " ")));
    line("pid", h.attached ? fmt::format("{} (attached while it ran: the profile begins then)", h.pid)
                           : std::to_string(h.pid));
    line("host", h.hostname);
    if (h.rank >= 0)
        line("job", fmt::format("rank {} of {}, job {} ({})", h.rank, h.ranks ? std::to_string(h.ranks) : "?",
                                h.job_id.empty() ? "?" : h.job_id, h.launcher));
    line("start", i.start);
    line("clock", h.clock == "cpu" ? "cpu (thread CPU time)" : h.clock);
    line("sample interval",
         h.tick_dither > 0 ? fmt::format("{} (each period drawn from ±{:.0f} %)", format_duration(h.sample_interval_ns),
                                          100 * h.tick_dither)
                           : format_duration(h.sample_interval_ns) + " (a fixed period)");
    line("histogram", h.hist_samples ? fmt::format("{} samples per interval", h.hist_samples)
                                     : fmt::format("{} per interval", format_duration(h.hist_interval_ns)));
    line("slots", std::to_string(h.slots));
    line("rotation", h.rotation == "shuffled"
                         ? fmt::format("shuffled (each round of the live sets in a random order; seed {})",
                                       h.rotation_seed)
                         : h.rotation + " (the live sets in turn)");
    std::vector<std::string> events;
    for (size_t k = 0; k < h.events.size(); ++k) {
        const ProfileEvent& e = h.events[k];
        const auto& live = i.live_fraction[k];
        std::string notes = e.time_like ? "time, " : "";
        notes += attribution(e) + ", ";
        notes += live ? fmt::format("live {:.0f} %", 100 * *live) : "never sampled";
        events.push_back(fmt::format("{} ({})", e.name, notes));
    }
    line("events", fmt::format("{}: {}", h.events.size(), fmt::join(events, ", ")));
    if (std::any_of(h.events.begin(), h.events.end(), [](const ProfileEvent& e) { return e.user_only; }))
        line("counted", "user space only (the kernel was excluded: this user may not count it): "
                        "time in the kernel goes to the next user-space sample, kernel events are absent");
    std::vector<std::string> threads;
    for (const auto& t : i.threads) threads.push_back(t.name.empty() ? std::to_string(t.tid)
                                                                     : fmt::format("{} {}", t.tid, t.name));
    line("threads", fmt::format("{} ({})", i.threads.size(), fmt::join(threads, ", ")));
    line("intervals", std::to_string(i.intervals));
    line("samples", i.lost_samples ? fmt::format("{} (lost {})", i.samples, *i.lost_samples)
                                   : std::to_string(i.samples));
    const bool ran_on = i.lost_samples && !i.exit_status;  // an END record without an exit: detached
    line("exit status", i.exit_status ? std::to_string(*i.exit_status)
                        : ran_on      ? "none (the process ran on after the collector detached)"
                                      : "unknown (the profile has no end record: the run was cut short)");
    line("ended", i.ended);
    if (const auto& l = i.locality) {
        line("locality", l->run.mode == "exact"
                             ? fmt::format("exact, {}-byte lines: every access simulated", l->run.line_size)
                             : fmt::format("sampled, {}-byte lines, 1 in {} accesses (seed {}), windows of {}",
                                           l->run.line_size, l->run.sample_period, l->run.seed,
                                           l->run.window_accesses));
        line("accesses", fmt::format("{} instrumented{}; {} more ({:.1f} %) in memcpy/memset/str*, not seen by "
                                     "the compiler and not in the cache model",
                                     l->accesses, l->run.mode == "exact" ? "" : fmt::format(", {} samples", l->samples),
                                     l->unseen_accesses, unseen_pct(*l)));
        line("locality lost", dropped_note(l->lost_records, l->lost_allocations).value_or("nothing"));
    }
    for (const auto& w : i.warnings) line("warning", w);
}

// One row per profile; lists as their lengths.
void info_csv(std::ostream& out, const std::vector<ProfileInfo>& infos) {
    Table t;
    for (const char* k : {"path", "collector", "backend", "program", "pid", "host", "start", "clock",
                          "sample_interval_ns", "slots", "events", "threads", "intervals", "samples", "exit_status"})
        t.add_column({Column::text, k});
    for (const auto& i : infos) {
        const ProfileHeader& h = i.header;
        t.new_row();
        for (const std::string& s : {i.path, h.collector, h.backend, h.program, std::to_string(h.pid), h.hostname, i.start,
                                     h.clock, std::to_string(h.sample_interval_ns), std::to_string(h.slots),
                                     std::to_string(h.events.size()), std::to_string(i.threads.size()),
                                     std::to_string(i.intervals), std::to_string(i.samples)})
            t.put(s);
        t.put_value(i.exit_status ? Value(std::to_string(*i.exit_status)) : Value());
    }
    t.write_csv(out);
}

}  // namespace

void report_info(const Context& c) {
    std::vector<ProfileInfo> infos;
    for (uint32_t s = 0; s < c.data.sources.size(); ++s) infos.push_back(profile_info(c.data, s));
    switch (c.options.format) {
    case Format::json: {
        Json arr = Json::array();
        for (const auto& i : infos) arr.push_back(info_json(i));
        c.out << dump_json(Json{{"profiles", arr}}, 2) << '\n';
        break;
    }
    case Format::csv: info_csv(c.out, infos); break;
    case Format::text:
        for (size_t i = 0; i < infos.size(); ++i) {
            if (i) c.out << '\n';
            info_text(c.out, infos[i]);
        }
        break;
    }
}

}  // namespace sprof::analyze
