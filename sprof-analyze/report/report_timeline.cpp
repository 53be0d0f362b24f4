// --timeline: how the profile changes over time. Rates in a row come from
// that row's own counts, never from running totals; its events are its
// functions' shares of their flat estimates, so the rows add up to the flat
// report (conserved_estimates.hpp).
#include <algorithm>

#include "reports.hpp"

namespace sprof::analyze {

namespace {

void add_span_columns(Table& t) {
    t.add_column({Column::integer, "interval"});
    t.add_column({Column::fixed, "start_s", 3});
    t.add_column({Column::fixed, "end_s", 3});
}

void put_span(Table& t, const TimeRow& r) {
    t.put(uint64_t{r.seq});
    t.put(seconds(r.start_ns));
    t.put(seconds(r.end_ns));
}

}  // namespace

void report_timeline(const Context& c) {
    const Dataset& d = c.data;
    const auto rows = time_rows(d);
    Table t;
    add_span_columns(t);
    if (c.options.by_function) {
        t.add_column({Column::text, "function", 0, true});
        t.add_column({Column::text, "object"});
    }
    t.add_column({Column::integer, "samples"});
    t.add_column({Column::fixed, "time_s", 3});
    if (!c.options.by_function) t.add_column({Column::text, "top_function", 0, true});
    add_event_and_rate_columns(t, d, c.rates, c.options.ci);

    const auto estimates = row_estimates(d, rows, c.options.estimator);
    for (size_t i = 0; i < rows.size(); ++i) {
        const TimeRow& r = rows[i];
        const RowEstimates& row = estimates[i];
        if (!c.options.by_function) {
            t.new_row();
            put_span(t, r);
            t.put(row.total.samples);
            t.put(row.total.seconds());
            t.put_value(row.functions.empty() ? Value() : Value(d.functions[row.functions.front().function].name));
            put_events_and_rates(t, row.total, c.rates, row.estimates, c.options.ci);
            continue;
        }
        const size_t shown = c.options.top > 0 ? std::min(c.options.top, row.functions.size()) : row.functions.size();
        for (size_t j = 0; j < shown; ++j) {
            const auto& [f, counts] = row.functions[j];
            t.new_row();
            put_span(t, r);
            t.put(d.functions[f].name);
            t.put(object_basename(d.functions[f].object));
            t.put(counts.samples);
            t.put(counts.seconds());
            put_events_and_rates(t, counts, c.rates, row.of_function[j], c.options.ci);
        }
    }
    write_table(c, t, "intervals");
}

}  // namespace sprof::analyze
