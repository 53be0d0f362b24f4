// The flat profile: functions by time, like prof(1).
#include <fmt/format.h>

#include "reports.hpp"

namespace sprof::analyze {

void report_flat(const Context& c) {
    const Dataset& d = c.data;
    auto per_function = by_function(d, all_intervals(d));
    Counts all = total(per_function, d.events.size());
    auto ranked = ranked_functions(d, per_function);
    if (c.options.top > 0 && ranked.size() > c.options.top) ranked.resize(c.options.top);

    Table t;
    add_function_columns(t);
    add_event_and_rate_columns(t, d, c.rates);
    for (uint32_t f : ranked) {
        const Counts& fc = per_function[f];
        t.new_row();
        put_function(t, d, f, fc, all);
        put_events_and_rates(t, fc, c.rates, c.options.estimator);
    }

    if (c.options.format == Format::text) {
        c.out << fmt::format("{}: {} profile{}, {} samples, {:.3f} s, estimator {}\n",
                             d.program().empty() ? "sprof" : d.program(), d.sources.size(),
                             d.sources.size() == 1 ? "" : "s", all.samples, all.seconds(),
                             to_string(c.options.estimator));
        for (const auto& r : c.rates.rates()) c.out << fmt::format("  rate {} = {}\n", r.name, r.expression);
        c.out << '\n';
    }
    Table totals;
    totals.add_column({Column::integer, "samples"});
    totals.add_column({Column::fixed, "time_s", 3});
    add_event_and_rate_columns(totals, d, c.rates);
    totals.new_row();
    totals.put(all.samples);
    totals.put(all.seconds());
    put_events_and_rates(totals, all, c.rates, c.options.estimator);
    write_table(c, t, "functions", {{"total", totals.to_json().at(0)}});
}

}  // namespace sprof::analyze
