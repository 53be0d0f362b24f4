// --timeline: how the profile changes over time. Rates in a row come from
// that row's own counts, never from running totals.
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
    const Estimator est = c.options.estimator;
    auto rows = time_rows(d);
    Table t;
    add_span_columns(t);
    if (c.options.by_function) {
        t.add_column({Column::text, "function"});
        t.add_column({Column::text, "object"});
    }
    t.add_column({Column::integer, "samples"});
    t.add_column({Column::fixed, "time_s", 3});
    if (!c.options.by_function) t.add_column({Column::text, "top_function"});
    add_event_and_rate_columns(t, d, c.rates, c.options.ci);

    for (const TimeRow& r : rows) {
        auto functions = occurring_functions(d, std::span<const uint32_t>(r.intervals));
        if (!c.options.by_function) {
            Counts all = total(d, std::span<const uint32_t>(r.intervals));
            t.new_row();
            put_span(t, r);
            t.put(all.samples);
            t.put(all.seconds());
            t.put_value(functions.empty() ? Value() : Value(d.functions[functions.front().function].name));
            put_events_and_rates(t, all, c.rates, est, c.options.ci);
            continue;
        }
        if (c.options.top > 0 && functions.size() > c.options.top) functions.resize(c.options.top);
        for (const auto& [f, counts] : functions) {
            t.new_row();
            put_span(t, r);
            t.put(d.functions[f].name);
            t.put(object_basename(d.functions[f].object));
            t.put(counts.samples);
            t.put(counts.seconds());
            put_events_and_rates(t, counts, c.rates, est, c.options.ci);
        }
    }
    write_table(c, t, "intervals");
}

}  // namespace sprof::analyze
