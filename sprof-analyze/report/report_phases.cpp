// --phases: one row per phase with its samples, time, events (the sum of
// its time-line rows', so the phases add up to the flat report) and its
// momentary rates (over the whole phase, not per interval). A job's ranks side by side: each rank's
// phases, found in its own profiles, with a rank column first.
#include <iostream>

#include <fmt/format.h>

#include "phases.hpp"
#include "reports.hpp"

namespace sprof::analyze {

namespace {

// A time line too short for two automatic phases (each at least
// --min-phase rows) has one: a note that says so and how to get more rows,
// or "" when it is long enough.
std::string short_run_note(size_t rows, const Context& c, std::optional<int> rank) {
    const size_t min_phase = c.options.min_phase;
    if (!c.options.phases.function.empty() || rows >= 2 * min_phase) return {};
    return fmt::format("only {} histogram interval{}{}: two phases need {} (--min-phase {} each), so this is one "
                       "phase; profile with shorter intervals for more (-H N samples per interval, or "
                       "--hist-interval DUR)",
                       rows, rows == 1 ? "" : "s", rank ? fmt::format(" in rank {}", *rank) : "", 2 * min_phase,
                       min_phase);
}

// The phases of `d` as rows of `t`, after `rank` when it is given; a note
// when its time line is too short for phases. `whole`: what its phases
// share (a rank's part of the flat estimates), none: its own flat estimates.
void add_phases(Table& t, const Dataset& d, const Context& c, std::optional<int> rank, std::vector<std::string>& notes,
                const std::vector<Estimates>* whole = nullptr) {
    const auto rows = time_rows(d);
    const auto phases = find_phases(d, rows, c.rates, phase_params(c.options));
    const auto row_values = row_estimates(d, rows, c.options.estimator, whole);
    if (std::string note = short_run_note(rows.size(), c, rank); !note.empty()) notes.push_back(std::move(note));
    for (size_t i = 0; i < phases.size(); ++i) {
        const Phase& p = phases[i];
        std::span<const TimeRow> span(rows.begin() + p.first, rows.begin() + p.last);
        auto per_function = by_function(d, span);
        auto ranked = ranked_functions(d, per_function);
        const Counts all = total(per_function, d.events.size());
        EventSums sums(d.events.size());
        for (uint32_t r = p.first; r < p.last; ++r) add_estimates(sums, row_values[r].estimates);
        t.new_row();
        if (rank) t.put(static_cast<uint64_t>(*rank));
        t.put(uint64_t{i + 1});
        t.put(p.label);
        t.put(seconds(span.front().start_ns));
        t.put(seconds(span.back().end_ns));
        t.put(uint64_t{p.last - p.first});
        t.put_value(ranked.empty() ? Value() : Value(d.functions[ranked.front()].name));
        t.put(all.samples);
        t.put(all.seconds());
        put_events_and_rates(t, all, c.rates, as_estimates(sums, estimate_spreads(all, c.options.estimator)),
                             c.options.ci);
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
    t.add_column({Column::text, "dominant_function", 0, true});
    t.add_column({Column::integer, "samples"});
    t.add_column({Column::fixed, "time_s", 3});
    add_event_and_rate_columns(t, d, c.rates, c.options.ci);
    std::vector<std::string> notes;
    if (ranks.empty()) add_phases(t, d, c, std::nullopt, notes);
    // Each rank's phases share its part of the flat report's estimates.
    std::vector<std::vector<uint32_t>> groups;
    for (const RankSources& r : ranks) groups.push_back(r.sources);
    const auto shares = group_estimates(d, groups, c.options.estimator);
    for (size_t i = 0; i < ranks.size(); ++i) add_phases(t, subset(d, ranks[i].sources), c, ranks[i].rank, notes, &shares[i]);
    Json meta = {{"method", c.options.phases.function.empty() ? "auto" : "func:" + c.options.phases.function}};
    // Text: the notes above the table; CSV: on stderr, the table left as
    // scripts read it; JSON: a field.
    if (c.options.format == Format::text)
        for (const auto& n : notes) c.out << n << "\n\n";
    if (c.options.format == Format::csv)
        for (const auto& n : notes) std::cerr << "sprof: " << n << '\n';
    if (!notes.empty()) meta["notes"] = notes;
    write_table(c, t, "phases", meta);
}

}  // namespace sprof::analyze
