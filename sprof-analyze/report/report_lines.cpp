// sprof --lines: the flat profile per source line, or one function's lines.
#include <fmt/format.h>

#include "reports.hpp"
#include "source_line_profile.hpp"

namespace sprof::analyze {

void report_lines(const Context& c) {
    const Dataset& d = c.data;
    const LineProfile lp = line_profile(d, {c.options.inline_mode, c.options.lines_function, c.options.estimator});
    const bool one_function = !c.options.lines_function.empty();
    const size_t shown = c.options.top > 0 && !one_function ? std::min(c.options.top, lp.rows.size()) : lp.rows.size();

    Table t;
    t.add_column({Column::text, "source"});
    add_function_columns(t);
    add_event_and_rate_columns(t, d, c.rates, c.options.ci);
    // The full path and the line as numbers, for programs; text has them in `source`.
    const bool full = c.options.format != Format::text;
    if (full) {
        t.add_column({Column::text, "file"});
        t.add_column({Column::integer, "line"});
    }
    Counts selected(d.events.size());
    for (size_t i = 0; i < shown; ++i) {
        const LineRow& r = lp.rows[i];
        selected.add(r.counts);
        t.new_row();
        t.put(d.source_text(r.frame));
        put_function(t, d, r.function, r.counts, lp.total);
        put_events_and_rates(t, r.counts, c.rates, r.estimates, c.options.ci);
        if (full) {
            t.put(d.file_path(r.frame));
            t.put_value(r.frame.line ? Value(uint64_t{r.frame.line}) : Value());
        }
    }

    const char* inline_word = c.options.inline_mode == InlineMode::callee ? "inline" : "no-inline";
    if (c.options.format == Format::text) {
        write_heading(c, lp.total);
        c.out << (c.options.inline_mode == InlineMode::callee
                      ? "  inlined code: the inlined function's, at its own line (--inline)\n"
                      : "  inlined code: the caller's, at the line of the call (--no-inline, the default)\n");
        if (one_function)
            c.out << fmt::format("  function {}: {} samples, {:.3f} s ({:.2f} % of the time)\n",
                                 c.options.lines_function, selected.samples, selected.seconds(),
                                 lp.total.time_ns ? 100.0 * selected.time_ns / lp.total.time_ns : 0.0);
        c.out << "  ??:0: code without debug information (no file or line known)\n\n";
    }
    Json meta = {{"inline", inline_word}, {"total", totals_json(c, lp.total)}};
    if (one_function) meta["function"] = c.options.lines_function;
    write_table(c, t, "lines", meta);
}

}  // namespace sprof::analyze
