// --export chrome-trace: Chrome trace-event JSON (opens in Perfetto UI and
// chrome://tracing): a counter track per rate, the phases and each row's top
// function as spans. Timestamps are microseconds since the profile start.
#include <fstream>

#include "phases.hpp"
#include "reports.hpp"

namespace sprof::analyze {

void export_chrome_trace(const Context& c) {
    const Dataset& d = c.data;
    const Estimator est = c.options.estimator;
    auto rows = time_rows(d);
    auto phases = find_phases(d, rows, c.rates, phase_params(c.options));
    const int pid = static_cast<int>(d.sources.empty() ? 1 : d.sources.front().profile.header.pid);
    const int phase_track = 1, function_track = 2;
    auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };

    Json events = Json::array();
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", d.program()}}}});
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
                          {"ts", us(first.start_ns)},
                          {"dur", us(last.end_ns - first.start_ns)},
                          {"args", {{"phase", i + 1}, {"intervals", phases[i].last - phases[i].first}}}});
    }
    for (const TimeRow& r : rows) {
        auto functions = occurring_functions(d, std::span<const uint32_t>(r.intervals));
        Counts all = total(d, std::span<const uint32_t>(r.intervals));
        auto values = c.rates.evaluate(all, est);
        for (size_t k = 0; k < values.size(); ++k)
            if (values[k])
                events.push_back({{"name", c.rates.rates()[k].name},
                                  {"ph", "C"},
                                  {"pid", pid},
                                  {"ts", us(r.start_ns)},
                                  {"args", {{c.rates.rates()[k].name, *values[k]}}}});
        if (!functions.empty())
            events.push_back({{"name", d.functions[functions.front().function].name},
                              {"ph", "X"},
                              {"pid", pid},
                              {"tid", function_track},
                              {"ts", us(r.start_ns)},
                              {"dur", us(r.end_ns - r.start_ns)},
                              {"args", {{"samples", all.samples}}}});
    }
    std::ofstream out(c.options.export_file);
    out << dump_json(Json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}) << '\n';
    out.close();
    if (!out) throw std::runtime_error("cannot write " + c.options.export_file);
}

}  // namespace sprof::analyze
