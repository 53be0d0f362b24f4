// --export chrome-trace: Chrome trace-event JSON (opens in Perfetto UI and
// chrome://tracing): counter tracks per event and per rate (the flat
// report's: the defaults and every --rate), the phases and each row's top
// function as spans. Timestamps are microseconds since the profile start.
#include <algorithm>

#include <fmt/format.h>

#include "export_file.hpp"
#include "exports.hpp"
#include "phases.hpp"
#include "reports.hpp"

namespace sprof::analyze {

namespace {

// Trace events written as they are made: a long profile, or a hostile one of
// a hundred thousand rows, gives millions of events, which as one JSON value
// in memory would take gigabytes.
class TraceWriter {
public:
    explicit TraceWriter(std::ostream& out) : out_(out) { out_ << "{\"traceEvents\": [\n"; }
    void push_back(const Json& event) {
        out_ << (first_ ? "" : ",\n") << dump_json(event);
        first_ = false;
    }
    void finish() { out_ << "\n], \"displayTimeUnit\": \"ms\"}\n"; }

private:
    std::ostream& out_;
    bool first_ = true;
};

// The tracks of one process (a rank of a job, or the whole dataset):
// phases, top function per row, two counters per event (its estimate in each
// histogram interval, and that per second of the interval's reference time)
// and one per rate; its times shifted by `offset_ns` onto the common time line.
// `whole`: the process's share of the flat report's estimates (a rank of a
// job), or none: the dataset's own.
void add_process(TraceWriter& events, const Dataset& d, const Context& c, int pid, const std::string& name,
                 uint64_t offset_ns, const std::vector<Estimates>* whole = nullptr) {
    const Estimator est = c.options.estimator;
    auto rows = time_rows(d);
    auto phases = find_phases(d, rows, c.rates, phase_params(c.options));
    const int phase_track = 1, function_track = 2;
    auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };  // a duration
    auto at = [&](uint64_t ns) { return us(ns + offset_ns); };                 // a time stamp

    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}});
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", phase_track},
                      {"args", {{"name", "phases"}}}});
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", function_track},
                      {"args", {{"name", "top function"}}}});
    for (size_t i = 0; i < phases.size(); ++i) {
        const TimeRow& first = rows[phases[i].first];
        const TimeRow& last = rows[phases[i].last - 1];
        events.push_back({{"name", "phase " + phases[i].label},
                          {"ph", "X"},
                          {"pid", pid},
                          {"tid", phase_track},
                          {"ts", at(first.start_ns)},
                          {"dur", us(last.end_ns - first.start_ns)},
                          {"args", {{"phase", i + 1}, {"intervals", phases[i].last - phases[i].first}}}});
    }
    const auto row_values = row_estimates(d, rows, est, whole);  // the rows add up to the flat report
    const auto names = d.event_names();
    for (size_t i = 0; i < rows.size(); ++i) {
        const TimeRow& r = rows[i];
        const auto& functions = row_values[i].functions;
        const Counts& all = row_values[i].total;
        const auto counts = values_of(row_values[i].estimates);
        auto counter = [&](const std::string& track, double value) {
            events.push_back({{"name", track}, {"ph", "C"}, {"pid", pid}, {"ts", at(r.start_ns)},
                              {"args", {{track, value}}}});
        };
        for (size_t k = 0; k < counts.size(); ++k) {
            if (!counts[k]) continue;  // unknown: no point on the track, never a 0
            counter(names[k], *counts[k]);
            if (all.time_ns > 0) counter(names[k] + " per s", *counts[k] / all.seconds());
        }
        auto values = c.rates.evaluate(all, counts);
        for (size_t k = 0; k < values.size(); ++k)
            if (values[k])
                events.push_back({{"name", c.rates.rates()[k].name},
                                  {"ph", "C"},
                                  {"pid", pid},
                                  {"ts", at(r.start_ns)},
                                  {"args", {{c.rates.rates()[k].name, *values[k]}}}});
        if (!functions.empty())
            events.push_back({{"name", d.functions[functions.front().function].name},
                              {"ph", "X"},
                              {"pid", pid},
                              {"tid", function_track},
                              {"ts", at(r.start_ns)},
                              {"dur", us(r.end_ns - r.start_ns)},
                              {"args", {{"samples", all.samples}}}});
    }
}

// One process, or a job's ranks as processes on one time line (the ranks'
// wall-clock starts, relative to the first).
void add_processes(TraceWriter& events, const Context& c) {
    const Dataset& d = c.data;
    const auto ranks = job_ranks(d);
    if (ranks.empty()) {
        const int pid = static_cast<int>(d.sources.empty() ? 1 : d.sources.front().profile.header.pid);
        add_process(events, d, c, pid, d.program(), 0);
        return;
    }
    uint64_t t0 = UINT64_MAX;
    for (const Source& s : d.sources) t0 = std::min(t0, s.profile.header.start_unix_ns);
    std::vector<std::vector<uint32_t>> groups;
    for (const RankSources& r : ranks) groups.push_back(r.sources);
    const auto shares = group_estimates(d, groups, c.options.estimator);
    for (size_t i = 0; i < ranks.size(); ++i) {
        const RankSources& r = ranks[i];
        const ProfileHeader& h = d.sources[r.sources.front()].profile.header;
        const std::string name = fmt::format("rank {} ({}, pid {})", r.rank, h.hostname, h.pid);
        add_process(events, subset(d, r.sources), c, r.rank + 1, name, h.start_unix_ns - t0, &shares[i]);
    }
}

}  // namespace

void export_chrome_trace(const Context& c) {
    write_export_file(c.options.export_files.at("chrome-trace"), [&](std::ostream& out) {
        TraceWriter events(out);
        add_processes(events, c);
        events.finish();
    });
}

}  // namespace sprof::analyze
