// sprof --compare for event profiles: the flat profile and --lines of two
// runs side by side. Functions are matched by (object, symbol), as
// DatasetMerger matches them within a run; lines by their function and
// file:line; events by name.
#include "report_compare.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "source_line_profile.hpp"

namespace sprof::analyze {

namespace {

// A row of one run: its sums and its share of the flat report's estimates;
// none when the run has no such row.
struct SideRow {
    const Counts* counts = nullptr;
    const Estimates* estimates = nullptr;
};

// What a run that lacks a row holds of it: nothing, for certain.
constexpr Bounds kNothing{0, 0};

struct SideValue {
    std::optional<double> value;
    std::optional<Bounds> bounds;
};

// The reference time, and the interval of its sampling error (estimator.hpp:
// the time's error, the one every estimate of the row shares).
SideValue time_of(const SideRow& r) {
    if (!r.counts) return {0.0, kNothing};
    const double s = r.counts->seconds();
    return {s, confidence_bounds({s, 0.0, true}, time_relative_sd(r.counts->basis()))};
}

// Event `e` of the run's dataset (none: the run did not count it).
SideValue event_of(const SideRow& r, std::optional<size_t> e) {
    if (!e) return {};
    if (!r.counts) return {0.0, kNothing};
    const auto& s = (*r.estimates)[*e];
    if (!s) return {};
    return {s->value, confidence_bounds(*s, time_relative_sd(r.counts->basis()))};
}

Change change(const SideValue& b, const SideValue& a) { return {b.value, a.value, b.bounds, a.bounds}; }

// The events of both runs by name: the before run's first.
std::vector<std::string> event_union(const Dataset& before, const Dataset& after) {
    std::vector<std::string> names = before.event_names();
    for (const auto& n : after.event_names())
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    return names;
}

std::optional<size_t> event_index(const Dataset& d, const std::string& name) {
    for (size_t e = 0; e < d.events.size(); ++e)
        if (d.events[e].name == name) return e;
    return std::nullopt;
}

// Every value of a matched row: samples, time, each event of `events`.
std::vector<Change> row_changes(const Context& before, const Context& after, const SideRow& b, const SideRow& a,
                                const std::vector<std::string>& events) {
    std::vector<Change> values;
    values.push_back({b.counts ? static_cast<double>(b.counts->samples) : 0.0,
                      a.counts ? static_cast<double>(a.counts->samples) : 0.0});
    values.push_back(change(time_of(b), time_of(a)));
    for (const auto& name : events)
        values.push_back(change(event_of(b, event_index(before.data, name)), event_of(a, event_index(after.data, name))));
    return values;
}

// Each matched row's values, and the rows shown, most changed in time first.
struct ComparedRows {
    std::vector<std::vector<Change>> values;  // indexed like the matches
    std::vector<size_t> order;                // --top: its first N
};

template <class Sides>
ComparedRows compare_rows(const Context& before, const Context& after, const std::vector<RowMatch>& matches,
                          const std::vector<std::string>& events, Sides sides) {
    ComparedRows r;
    std::vector<Change> times;
    for (const RowMatch& m : matches) {
        const auto [b, a] = sides(m);
        r.values.push_back(row_changes(before, after, b, a, events));
        times.push_back(r.values.back()[1]);
        r.order.push_back(r.order.size());
    }
    sort_by_change(r.order, times);
    const size_t top = after.options.top;
    if (top > 0 && r.order.size() > top) r.order.resize(top);
    return r;
}

// The value columns of every compared event report, and a row's values.
void add_value_columns(Table& t, const std::vector<std::string>& events, bool ci) {
    add_change_columns(t, {Column::integer, "samples"}, false, ci);
    add_change_columns(t, {Column::fixed, "time_s", 3}, true, ci);
    for (const auto& e : events) add_change_columns(t, {Column::integer, e}, true, ci);
}

// Samples are counted, not estimated: no interval to judge them by.
void put_values(Table& t, const std::vector<Change>& values, bool ci) {
    for (size_t v = 0; v < values.size(); ++v) put_change(t, values[v], v > 0, ci);
}

std::string side_line(const char* side, const Context& c, const Counts& all) {
    std::vector<std::string> paths;
    for (const auto& s : c.data.sources) paths.push_back(s.path);
    return fmt::format("{}: {}, {} samples, {:.3f} s ({})", side, c.data.program().empty() ? "sprof" : c.data.program(),
                       all.samples, all.seconds(), fmt::join(paths, " "));
}

std::vector<std::string> event_heading(const Context& before, const Context& after, const Counts& b_all,
                                       const Counts& a_all, const char* matched) {
    return {side_line("before", before, b_all), side_line("after", after, a_all),
            fmt::format("estimator {}; events matched by name, {}", to_string(before.options.estimator), matched),
            "NAME_significant: yes when the two runs' 95 % intervals do not overlap (a real change), "
            "no when they do (noise); rows by the size of the change in time"};
}

std::string function_key(const FunctionInfo& f) { return f.object + '\n' + f.symbol; }

struct RunFunctions {
    std::vector<Counts> per_function;
    std::vector<Estimates> estimates;
    std::vector<uint32_t> ranked;  // those that occur
    Counts all;
};

RunFunctions run_functions(const Context& c) {
    RunFunctions r;
    r.per_function = by_function(c.data, all_intervals(c.data));
    r.all = total(r.per_function, c.data.events.size());
    r.estimates = function_estimates(r.per_function, c.options.estimator);
    r.ranked = ranked_functions(c.data, r.per_function);
    return r;
}

}  // namespace

void add_change_columns(Table& t, Column like, bool judged, bool ci) {
    const std::string name = like.name;
    for (const char* side : {"_before", "_after", "_delta"}) {
        like.name = name + side;
        t.add_column(like);
    }
    t.add_column({Column::fixed, name + "_ratio", 3});
    if (!judged) return;
    t.add_column({Column::text, name + "_significant"});
    if (!ci) return;
    for (const char* bound : {"_before_low", "_before_high", "_after_low", "_after_high", "_delta_low", "_delta_high"}) {
        like.name = name + bound;
        t.add_column(like);
    }
}

void put_change(Table& t, const Change& c, bool judged, bool ci) {
    t.put(c.before);
    t.put(c.after);
    t.put(delta(c));
    t.put(ratio(c));
    if (!judged) return;
    const auto sig = significant(c);
    t.put_value(sig ? Value(std::string(*sig ? "yes" : "no")) : Value());
    if (!ci) return;
    const auto d = delta_bounds(c);
    for (const auto& b : {c.before_bounds, c.after_bounds, d}) {
        t.put(b ? std::optional<double>(b->low) : std::nullopt);
        t.put(b ? std::optional<double>(b->high) : std::nullopt);
    }
}

void sort_by_change(std::vector<size_t>& order, const std::vector<Change>& key) {
    auto size = [&](size_t i) {
        const auto d = delta(key[i]);
        return d ? std::fabs(*d) : -1.0;
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return size(x) > size(y); });
}

void write_compare_table(const Context& before, const Context& after, const std::vector<std::string>& heading,
                         const Table& t, const char* key, Json meta) {
    std::ostream& out = after.out;
    switch (after.options.format) {
    case Format::text:
        for (const auto& line : heading) out << line << '\n';
        out << '\n';
        t.write_text(out, after.options.names);
        break;
    case Format::csv: t.write_csv(out); break;
    case Format::json: {
        Json doc = {{"before", {{"profiles", profiles_json(before.data)}}},
                    {"after", {{"profiles", profiles_json(after.data)}}}};
        for (auto& [k, v] : meta.items()) doc[k] = v;
        doc[key] = t.to_json();
        out << dump_json(doc, 2) << '\n';
        break;
    }
    }
}

void compare_flat(const Context& before, const Context& after) {
    const RunFunctions b = run_functions(before), a = run_functions(after);
    std::vector<std::string> b_keys, a_keys;
    for (uint32_t f : b.ranked) b_keys.push_back(function_key(before.data.functions[f]));
    for (uint32_t f : a.ranked) a_keys.push_back(function_key(after.data.functions[f]));
    const std::vector<RowMatch> matches = match_rows(b_keys, a_keys);
    const std::vector<std::string> events = event_union(before.data, after.data);
    auto side = [](const RunFunctions& r, std::optional<size_t> i) {
        return i ? SideRow{&r.per_function[r.ranked[*i]], &r.estimates[r.ranked[*i]]} : SideRow{};
    };
    const ComparedRows rows = compare_rows(before, after, matches, events, [&](const RowMatch& m) {
        return std::pair{side(b, m.before), side(a, m.after)};
    });

    const bool ci = after.options.ci;
    Table t;
    t.add_column({Column::text, "function", 0, true});
    t.add_column({Column::text, "object"});
    t.add_column({Column::text, "present"});
    add_value_columns(t, events, ci);
    for (size_t i : rows.order) {
        const RowMatch& m = matches[i];
        const FunctionInfo& f = m.after ? after.data.functions[a.ranked[*m.after]]
                                        : before.data.functions[b.ranked[*m.before]];
        t.new_row();
        t.put(f.name);
        t.put(object_basename(f.object));
        t.put(presence(m));
        put_values(t, rows.values[i], ci);
    }
    write_compare_table(before, after, event_heading(before, after, b.all, a.all, "functions by (object, symbol)"), t,
                        "functions", {{"estimator", to_string(after.options.estimator)}, {"events", events}});
}

void compare_lines(const Context& before, const Context& after) {
    auto lines_of = [](const Context& c) {
        return line_profile(c.data, {c.options.inline_mode, c.options.lines_function, c.options.estimator});
    };
    const LineProfile b = lines_of(before), a = lines_of(after);
    auto keys = [](const Dataset& d, const LineProfile& lp) {
        std::vector<std::string> k;
        for (const LineRow& r : lp.rows)
            k.push_back(function_key(d.functions[r.function]) + '\n' + d.file_path(r.frame) + ':' +
                        std::to_string(r.frame.line));
        return k;
    };
    const std::vector<RowMatch> matches = match_rows(keys(before.data, b), keys(after.data, a));
    const std::vector<std::string> events = event_union(before.data, after.data);
    auto side = [](const LineProfile& lp, std::optional<size_t> i) {
        return i ? SideRow{&lp.rows[*i].counts, &lp.rows[*i].estimates} : SideRow{};
    };
    const ComparedRows rows = compare_rows(before, after, matches, events, [&](const RowMatch& m) {
        return std::pair{side(b, m.before), side(a, m.after)};
    });

    const bool ci = after.options.ci, full = after.options.format != Format::text;
    Table t;
    t.add_column({Column::text, "source"});
    t.add_column({Column::text, "function", 0, true});
    t.add_column({Column::text, "object"});
    if (full) {
        t.add_column({Column::text, "file"});
        t.add_column({Column::integer, "line"});
    }
    t.add_column({Column::text, "present"});
    add_value_columns(t, events, ci);
    for (size_t i : rows.order) {
        const RowMatch& m = matches[i];
        const Dataset& d = m.after ? after.data : before.data;
        const LineRow& r = m.after ? a.rows[*m.after] : b.rows[*m.before];
        t.new_row();
        t.put(d.source_text(r.frame));
        t.put(d.functions[r.function].name);
        t.put(object_basename(d.functions[r.function].object));
        if (full) {
            t.put(d.file_path(r.frame));
            t.put_value(r.frame.line ? Value(uint64_t{r.frame.line}) : Value());
        }
        t.put(presence(m));
        put_values(t, rows.values[i], ci);
    }
    write_compare_table(before, after,
                        event_heading(before, after, b.total, a.total, "lines by (object, function, file:line)"), t,
                        "lines", {{"estimator", to_string(after.options.estimator)}, {"events", events}});
}

}  // namespace sprof::analyze
