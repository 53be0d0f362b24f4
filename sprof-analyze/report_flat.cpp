// The flat profile: functions by time, like prof(1).
#include "reports.hpp"

namespace sprof::analyze {

void report_flat(const Context& c) {
    const Dataset& d = c.data;
    auto per_function = by_function(d, all_intervals(d));
    Counts all = total(per_function, d.events.size());
    auto ranked = ranked_functions(d, per_function);
    if (c.options.top > 0 && ranked.size() > c.options.top) ranked.resize(c.options.top);

    Table t;
    t.add_column({Column::text, "function"});
    t.add_column({Column::text, "object"});
    add_share_columns(t, c);
    for (uint32_t f : ranked) {
        t.new_row();
        t.put(d.functions[f].name);
        t.put(object_basename(d.functions[f].object));
        put_share(t, c, per_function[f], all);
    }

    if (c.options.format == Format::text) {
        write_heading(c, all);
        c.out << '\n';
    }
    write_table(c, t, "functions", {{"total", totals_json(c, all)}});
}

}  // namespace sprof::analyze
