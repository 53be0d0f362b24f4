// The report kinds of `sprof`, each in its own file; all read the merged
// Dataset through the aggregation layer and write a Table.
#pragma once
#include <ostream>

#include "conserved_estimates.hpp"
#include "dataset.hpp"
#include "options.hpp"
#include "rates.hpp"

namespace sprof::analyze {

struct Context {
    const Dataset& data;
    const Options& options;
    const RateSet& rates;
    std::ostream& out;
};

// Functions by time, with event estimates and rates (report_flat.cpp).
void report_flat(const Context& c);
// Functions' time per source line (report_lines.cpp).
void report_lines(const Context& c);
// The profiles' metadata (report_info.cpp).
void report_info(const Context& c);
// One row per time-line row, or per (row, function) (report_timeline.cpp).
void report_timeline(const Context& c);
// One row per phase (report_phases.cpp).
void report_phases(const Context& c);
// The miss-ratio curve (report_mrc.hpp), as a report of the table.
void report_locality(const Context& c);
// The locality views (locality_views.hpp): misses per location, spatial
// and temporal use per statement, misses and use per data structure, reuse
// pairs (report_misses.cpp, report_use.cpp, report_data.cpp, report_reuse_pairs.cpp).
void report_misses(const Context& c);
void report_use(const Context& c);
void report_data(const Context& c);
void report_reuse_pairs(const Context& c);
// A job's ranks side by side, and what holds it back (report_imbalance.cpp).
void report_imbalance(const Context& c);
// Workload vectors per function and phase as JSON (warp.cpp).
void report_warp(const Context& c);
// A rate over time as PNG or SVG through gnuplot (plot.cpp).
void write_plot(const Context& c);

// A function's columns in the flat profile, sprof --lines and sprof top's
// CSV: function, object, samples, time_s, time_pct (its share of `all`'s time).
void add_function_columns(Table& t);
void put_function(Table& t, const Dataset& d, uint32_t f, const Counts& counts, const Counts& all);

// Columns shared by the reports: one per event (named exactly as the event),
// then one per rate; and the matching values. With `ci` every estimated
// column NAME is followed by NAME_low and NAME_high, its 95 % confidence
// interval (unknown where the estimate or its spread is).
void add_event_and_rate_columns(Table& t, const Dataset& d, const RateSet& rates, bool ci);
void put_events_and_rates(Table& t, const Counts& counts, const RateSet& rates, Estimator e, bool ci);
// The same with estimates made already (a share of the flat report's,
// conserved_estimates.hpp); the counts give the confidence intervals' time
// error and the rates' other inputs.
void put_events_and_rates(Table& t, const Counts& counts, const RateSet& rates, const Estimates& estimates, bool ci);
// The event columns alone, made like `like` (its kind and precision), and
// their values; put_events returns what it put, for the rates.
void add_event_columns(Table& t, const Dataset& d, bool ci, Column like);
std::vector<std::optional<EstimateSpread>> put_events(Table& t, const Counts& counts, Estimator e, bool ci);
void put_events(Table& t, const Counts& counts, const Estimates& estimates, bool ci);
// The rate columns alone, and their values.
void add_rate_columns(Table& t, const RateSet& rates, bool ci);
void put_rates(Table& t, const Counts& counts, const RateSet& rates, Estimator e, bool ci);
void put_rates(Table& t, const Counts& counts, const RateSet& rates,
               const std::vector<std::optional<EstimateSpread>>& spreads, bool ci);

// A flat profile's first lines in text: program, profiles, samples, time,
// estimator, and the rates' definitions.
void write_heading(const Context& c, const Counts& all);

// The totals of a report as one JSON object: samples, time_s, every event
// and rate (JSON's "total").
Json totals_json(const Context& c, const Counts& all);

// Writes a table in the chosen format; JSON wraps it as {"<key>": rows, …meta}.
void write_table(const Context& c, const Table& t, const char* key, Json meta = Json::object());

// Metadata of the merged profiles, for JSON outputs.
Json profiles_json(const Dataset& d);

}  // namespace sprof::analyze
