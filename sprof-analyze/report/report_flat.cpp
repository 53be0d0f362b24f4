// The flat profile: functions by time, like prof(1).
#include "call_paths.hpp"
#include "report_callers.hpp"
#include "reports.hpp"

namespace sprof::analyze {

void report_flat(const Context& c) {
    const Dataset& d = c.data;
    auto per_function = by_function(d, all_intervals(d));
    Counts all = total(per_function, d.events.size());
    const auto estimates = function_estimates(per_function, c.options.estimator);
    auto ranked = ranked_functions(d, per_function);
    std::vector<Counts> inclusive;
    if (c.options.inclusive) {
        // As perf report --children: by inclusive time, callers never sampled themselves too.
        require_call_paths(d);
        inclusive = inclusive_totals(d, stack_totals(d));
        ranked = ranked_functions(d, inclusive);
    }
    if (c.options.top > 0 && ranked.size() > c.options.top) ranked.resize(c.options.top);

    Table t;
    add_function_columns(t);
    if (c.options.inclusive) add_inclusive_columns(t);
    add_event_and_rate_columns(t, d, c.rates, c.options.ci);
    for (uint32_t f : ranked) {
        const Counts& fc = per_function[f];
        t.new_row();
        put_function(t, d, f, fc, all);
        if (c.options.inclusive) put_inclusive(t, inclusive[f], all);
        put_events_and_rates(t, fc, c.rates, estimates[f], c.options.ci);
    }

    if (c.options.format == Format::text) {
        write_heading(c, all);
        c.out << '\n';
    }
    write_table(c, t, "functions", {{"total", totals_json(c, all)}});
}

}  // namespace sprof::analyze
