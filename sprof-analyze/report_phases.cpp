// --phases: one row per phase with the phase's momentary rates (over the
// whole phase, not per interval). A job's ranks side by side: each rank's
// phases, found in its own profiles, with a rank column first.
#include "phases.hpp"
#include "reports.hpp"

namespace sprof::analyze {

namespace {

// The phases of `d` as rows of `t`, after `rank` when it is given.
void add_phases(Table& t, const Dataset& d, const Context& c, std::optional<int> rank) {
    auto rows = time_rows(d);
    auto phases = find_phases(d, rows, c.rates, phase_params(c.options));
    for (size_t i = 0; i < phases.size(); ++i) {
        const Phase& p = phases[i];
        std::span<const TimeRow> span(rows.begin() + p.first, rows.begin() + p.last);
        auto per_function = by_function(d, span);
        auto ranked = ranked_functions(d, per_function);
        t.new_row();
        if (rank) t.put(static_cast<uint64_t>(*rank));
        t.put(uint64_t{i + 1});
        t.put(p.label);
        t.put(seconds(span.front().start_ns));
        t.put(seconds(span.back().end_ns));
        t.put(uint64_t{p.last - p.first});
        t.put_value(ranked.empty() ? Value() : Value(d.functions[ranked.front()].name));
        put_rates(t, total(per_function, d.events.size()), c.rates, c.options.estimator, c.options.ci);
    }
}

}  // namespace

void report_phases(const Context& c) {
    const Dataset& d = c.data;
    const auto ranks = job_ranks(d);
    Table t;
    if (!ranks.empty()) t.add_column({Column::integer, "rank"});
    t.add_column({Column::integer, "phase"});
    t.add_column({Column::text, "label"});
    t.add_column({Column::fixed, "start_s", 3});
    t.add_column({Column::fixed, "end_s", 3});
    t.add_column({Column::integer, "intervals"});
    t.add_column({Column::text, "dominant_function"});
    add_rate_columns(t, c.rates, c.options.ci);
    if (ranks.empty()) add_phases(t, d, c, std::nullopt);
    for (const RankSources& r : ranks) add_phases(t, subset(d, r.sources), c, r.rank);
    Json meta = {{"method", c.options.phases.function.empty() ? "auto" : "func:" + c.options.phases.function}};
    write_table(c, t, "phases", meta);
}

}  // namespace sprof::analyze
