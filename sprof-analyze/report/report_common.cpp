// Pieces shared by all the reports.

#include <fmt/format.h>

#include "reports.hpp"

namespace sprof::analyze {

namespace {

// A column and, with confidence intervals, NAME_low and NAME_high after it.
void add_estimated_column(Table& t, Column c, bool ci) {
    t.add_column(c);
    if (!ci) return;
    const std::string name = c.name;
    for (const char* bound : {"_low", "_high"}) {
        c.name = name + bound;
        t.add_column(c);
    }
}

void put_estimated(Table& t, std::optional<double> v, std::optional<Bounds> b, bool ci) {
    t.put(v);
    if (!ci) return;
    t.put(b ? std::optional<double>(b->low) : std::nullopt);
    t.put(b ? std::optional<double>(b->high) : std::nullopt);
}

}  // namespace

void add_function_columns(Table& t) {
    t.add_column({Column::text, "function", 0, true});
    t.add_column({Column::text, "object"});
    t.add_column({Column::integer, "samples"});
    t.add_column({Column::fixed, "time_s", 3});
    t.add_column({Column::fixed, "time_pct", 2});
}

void put_function(Table& t, const Dataset& d, uint32_t f, const Counts& counts, const Counts& all) {
    t.put(d.functions[f].name);
    t.put(object_basename(d.functions[f].object));
    t.put(counts.samples);
    t.put(counts.seconds());
    t.put(all.time_ns ? std::optional<double>(100.0 * counts.time_ns / all.time_ns) : std::nullopt);
}

void add_event_and_rate_columns(Table& t, const Dataset& d, const RateSet& rates, bool ci) {
    add_event_columns(t, d, ci, {Column::integer, ""});
    add_rate_columns(t, rates, ci);
}

void add_event_columns(Table& t, const Dataset& d, bool ci, Column like) {
    for (const auto& e : d.events) {
        like.name = e.name;
        add_estimated_column(t, like, ci);
    }
}

void add_rate_columns(Table& t, const RateSet& rates, bool ci) {
    for (const auto& r : rates.rates()) add_estimated_column(t, {Column::general, r.name, 4}, ci);
}

std::vector<std::optional<EstimateSpread>> put_events(Table& t, const Counts& counts, Estimator e, bool ci) {
    const auto spreads = estimate_spreads(counts, e);
    put_events(t, counts, spreads, ci);
    return spreads;
}

void put_events(Table& t, const Counts& counts, const Estimates& estimates, bool ci) {
    const auto time_rel_sd = time_relative_sd(counts.basis());
    for (const auto& s : estimates)
        put_estimated(t, s ? std::optional<double>(s->value) : std::nullopt,
                      s && ci ? confidence_bounds(*s, time_rel_sd) : std::nullopt, ci);
}

void put_events_and_rates(Table& t, const Counts& counts, const RateSet& rates, Estimator e, bool ci) {
    put_rates(t, counts, rates, put_events(t, counts, e, ci), ci);
}

void put_events_and_rates(Table& t, const Counts& counts, const RateSet& rates, const Estimates& estimates, bool ci) {
    put_events(t, counts, estimates, ci);
    put_rates(t, counts, rates, estimates, ci);
}

void put_rates(Table& t, const Counts& counts, const RateSet& rates, Estimator e, bool ci) {
    put_rates(t, counts, rates, estimate_spreads(counts, e), ci);
}

void put_rates(Table& t, const Counts& counts, const RateSet& rates,
               const std::vector<std::optional<EstimateSpread>>& spreads, bool ci) {
    const auto values = rates.evaluate(counts, values_of(spreads));
    std::vector<std::optional<Bounds>> bounds(values.size());
    if (ci) bounds = rates.intervals(counts, spreads);
    for (size_t i = 0; i < values.size(); ++i) put_estimated(t, values[i], bounds[i], ci);
}

void write_heading(const Context& c, const Counts& all) {
    const Dataset& d = c.data;
    c.out << fmt::format("{}: {} profile{}, {} samples, {:.3f} s, estimator {}\n",
                         d.program().empty() ? "sprof" : d.program(), d.sources.size(), d.sources.size() == 1 ? "" : "s",
                         all.samples, all.seconds(), to_string(c.options.estimator));
    for (const auto& r : c.rates.rates()) c.out << fmt::format("  rate {} = {}\n", r.name, r.expression);
}

Json totals_json(const Context& c, const Counts& all) {
    Table totals;
    totals.add_column({Column::integer, "samples"});
    totals.add_column({Column::fixed, "time_s", 3});
    add_event_and_rate_columns(totals, c.data, c.rates, c.options.ci);
    totals.new_row();
    totals.put(all.samples);
    totals.put(all.seconds());
    put_events_and_rates(totals, all, c.rates, c.options.estimator, c.options.ci);
    return totals.to_json().at(0);
}

Json profiles_json(const Dataset& d) {
    Json arr = Json::array();
    for (const auto& s : d.sources) {
        const ProfileHeader& h = s.profile.header;
        Json events = Json::array();
        for (const auto& e : h.events) events.push_back(e.name);
        arr.push_back({{"path", s.path},
                       {"program", h.program},
                       {"pid", h.pid},
                       {"host", h.hostname},
                       {"collector", h.collector},
                       {"backend", h.backend},
                       {"events", events},
                       {"intervals", s.n_intervals},
                       {"samples", s.samples}});
    }
    return arr;
}

void write_table(const Context& c, const Table& t, const char* key, Json meta) {
    switch (c.options.format) {
    case Format::text: t.write_text(c.out, c.options.names); break;
    case Format::csv: t.write_csv(c.out); break;
    case Format::json: {
        Json rates = Json::array();
        for (const auto& r : c.rates.rates()) rates.push_back({{"name", r.name}, {"expression", r.expression}});
        Json doc = {{"profiles", profiles_json(c.data)},
                    {"estimator", to_string(c.options.estimator)},
                    {"events", c.data.event_names()},
                    {"rates", rates}};
        for (auto& [k, v] : meta.items()) doc[k] = v;
        doc[key] = t.to_json();
        c.out << dump_json(doc, 2) << '\n';
        break;
    }
    }
}

}  // namespace sprof::analyze
