#include "report_callers.hpp"

#include "call_paths.hpp"

namespace sprof::analyze {
namespace {

void report_neighbours(const Context& c, Neighbour side) {
    const Dataset& d = c.data;
    require_call_paths(d);
    const Neighbours n = neighbours(d, stack_totals(d), c.options.path_function, side);
    const bool callers = side == Neighbour::callers;
    Table t;
    t.add_column({Column::text, callers ? "caller" : "callee", 0, true});
    t.add_column({Column::integer, "samples"});
    t.add_column({Column::fixed, "time_s", 3});
    t.add_column({Column::fixed, "pct", 2});
    add_event_columns(t, d, c.options.ci, {Column::integer, ""});
    for (const NeighbourRow& r : n.rows) {
        t.new_row();
        t.put(r.function != kNoFunction ? d.functions[r.function].name : callers ? "[root]" : "[self]");
        t.put(r.counts.samples);
        t.put(r.counts.seconds());
        t.put(n.inclusive.time_ns ? std::optional<double>(100.0 * r.counts.time_ns / n.inclusive.time_ns)
                                  : std::nullopt);
        put_events(t, r.counts, c.options.estimator, c.options.ci);
    }
    if (c.options.format == Format::text)
        c.out << (callers ? "Callers of " : "Callees of ") << c.options.path_function << ": "
              << n.inclusive.samples << " samples, " << n.inclusive.seconds() << " s inclusive\n\n";
    write_table(c, t, callers ? "callers" : "callees");
}

}  // namespace

void report_callers(const Context& c) { report_neighbours(c, Neighbour::callers); }
void report_callees(const Context& c) { report_neighbours(c, Neighbour::callees); }

void add_inclusive_columns(Table& t) {
    t.add_column({Column::integer, "incl_samples"});
    t.add_column({Column::fixed, "incl_time_s", 3});
    t.add_column({Column::fixed, "incl_time_pct", 2});
}

void put_inclusive(Table& t, const Counts& inclusive, const Counts& all) {
    t.put(inclusive.samples);
    t.put(inclusive.seconds());
    t.put(all.time_ns ? std::optional<double>(100.0 * inclusive.time_ns / all.time_ns) : std::nullopt);
}

}  // namespace sprof::analyze
