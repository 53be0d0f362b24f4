// sprof --compare for locality profiles: the two miss-ratio curves (--mrc)
// and the misses per location (--misses) of two runs. Sizes are matched
// by bytes, locations by name (FILE:LINE or the function), never by
// address: a transformed program's code moves.
#include <map>

#include <fmt/format.h>

#include "sprof/option_values.hpp"
#include "cache_levels.hpp"
#include "code_misses.hpp"
#include "locality_report.hpp"
#include "locality_views.hpp"
#include "report_compare.hpp"

namespace sprof::analyze {

namespace {

// The line size both runs share: a cache of N bytes holds other lines otherwise.
uint32_t common_line_size(const LocalityData& b, const LocalityData& a, uint32_t asked) {
    check_line_size(b, asked);
    check_line_size(a, asked);
    if (b.line_size != a.line_size)
        throw std::invalid_argument(fmt::format("--compare: the runs have {}- and {}-byte lines; caches of one size "
                                                "hold other lines in each, so they do not compare",
                                                b.line_size, a.line_size));
    return b.line_size;
}

std::string side_line(const char* side, const Context& c, const LocalityData& l, Policy p) {
    return fmt::format("{}: {}, {}, {} ({} samples)", side, c.data.program().empty() ? "sprof" : c.data.program(),
                       model_name(l, p), l.exact ? "exact" : "sampled", l.samples);
}

Json side_json(const LocalityData& l) {
    return {{"mode", l.exact ? "exact" : "sampled"}, {"samples", l.samples}, {"accesses", l.accesses}};
}

Json locality_meta(const LocalityData& b, const LocalityData& a, Policy p) {
    return {{"policy", to_string(p)}, {"line_size", b.line_size},
            {"locality", {{"before", side_json(b)}, {"after", side_json(a)}}}};
}

}  // namespace

void compare_mrc(const Context& before, const Context& after) {
    const Options& o = after.options;
    if (!o.caches.empty())
        throw UsageError("--mrc --compare compares the curves; misses per function in caches: "
                         "--misses --by function --cache SIZE --compare");
    const LocalityData lb = locality_data(before.data), la = locality_data(after.data);
    const uint32_t line_size = common_line_size(lb, la, o.line_size);
    const MissRatioCurve cb = miss_ratio_curve(lb, {o.policy}), ca = miss_ratio_curve(la, {o.policy});
    // The sizes of both curves, ascending (an exact run's are those it counted).
    std::map<uint64_t, std::pair<const CurvePoint*, const CurvePoint*>> sizes;
    for (const CurvePoint& p : cb.points) sizes[p.lines * line_size].first = &p;
    for (const CurvePoint& p : ca.points) sizes[p.lines * line_size].second = &p;

    const bool text = o.format == Format::text;
    Table t;
    if (text) t.add_column({Column::text, "cache"});
    t.add_column({Column::integer, "cache_bytes"});
    for (const char* name : {"before", "after", "delta"}) t.add_column({Column::fixed, name, 4});
    for (const char* name : {"before_low", "before_high", "after_low", "after_high"})
        t.add_column({Column::fixed, name, 4});
    t.add_column({Column::text, "significant"});
    for (const auto& [bytes, points] : sizes) {
        auto value = [](const CurvePoint* p) { return p ? std::optional<double>(p->miss_ratio) : std::nullopt; };
        auto band = [](const CurvePoint* p) { return p ? std::optional<Bounds>(Bounds{p->low, p->high}) : std::nullopt; };
        const Change c{value(points.first), value(points.second), band(points.first), band(points.second)};
        t.new_row();
        if (text) t.put(format_bytes(bytes));
        t.put(bytes);
        t.put(c.before);
        t.put(c.after);
        t.put(delta(c));
        for (const auto& b : {c.before_bounds, c.after_bounds}) {
            t.put(b ? std::optional<double>(b->low) : std::nullopt);
            t.put(b ? std::optional<double>(b->high) : std::nullopt);
        }
        const auto sig = significant(c);
        t.put_value(sig ? Value(std::string(*sig ? "yes" : "no")) : Value());
    }
    const std::vector<std::string> heading = {
        side_line("before", before, lb, o.policy), side_line("after", after, la, o.policy),
        fmt::format("before band: {}", cb.band), fmt::format("after band: {}", ca.band),
        "significant: yes when the two bands do not overlap; a size only one run's curve has is unknown on the other"};
    write_compare_table(before, after, heading, t, "curve", locality_meta(lb, la, o.policy));
}

void compare_misses(const Context& before, const Context& after) {
    const ViewParams p = view_params(after.options);
    if (p.by == Granularity::instruction)
        throw UsageError("--misses --compare matches locations by name: --by line or function, not instruction "
                         "(addresses move between builds)");
    const ViewInput ib = view_input(before.data, p), ia = view_input(after.data, p);
    const uint32_t line_size = common_line_size(ib.locality, ia.locality, p.line_size);
    const LocationMisses mb = location_misses(before.data, ib.locality, {ib.lines, p.by, p.user_frames});
    const LocationMisses ma = location_misses(after.data, ia.locality, {ia.lines, p.by, p.user_frames});
    auto names = [](const LocationMisses& m) {
        std::vector<std::string> n;
        for (const CodeMisses& r : m.table.rows) n.push_back(m.locations[r.key].name);
        return n;
    };
    const std::vector<RowMatch> matches = match_rows(names(mb), names(ma));
    const std::vector<uint64_t>& lines = ib.lines;
    auto row = [](const LocationMisses& m, std::optional<size_t> i) { return i ? &m.table.rows[*i] : nullptr; };
    auto value = [](const CodeMisses* r, auto get) { return std::optional<double>(r ? get(*r) : 0.0); };
    // Per row: accesses, then per cache its misses and miss ratio.
    std::vector<std::vector<Change>> values;
    std::vector<Change> first_misses;
    for (const RowMatch& m : matches) {
        const CodeMisses *b = row(mb, m.before), *a = row(ma, m.after);
        auto accesses = [](const CodeMisses& r) { return r.accesses; };
        std::vector<Change> v{{value(b, accesses), value(a, accesses)}};
        for (size_t k = 0; k < lines.size(); ++k) {
            auto misses = [k](const CodeMisses& r) { return r.misses[k]; };
            auto ratio_of = [&](const CodeMisses* r) {
                return r && r->accesses > 0 ? std::optional<double>(r->misses[k] / r->accesses) : std::nullopt;
            };
            v.push_back({value(b, misses), value(a, misses)});
            v.push_back({ratio_of(b), ratio_of(a)});
        }
        first_misses.push_back(lines.empty() ? Change{} : v[1]);
        values.push_back(std::move(v));
    }
    std::vector<size_t> order(matches.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    sort_by_change(order, first_misses);
    if (p.top && order.size() > p.top) order.resize(p.top);

    const bool function_column = p.by != Granularity::function;
    Table t;
    t.add_column({Column::text, "location", 0, names_location(p.by)});
    if (function_column) t.add_column({Column::text, "function", 0, true});
    t.add_column({Column::text, "present"});
    add_change_columns(t, {Column::integer, "accesses"}, false, false);
    for (size_t k = 0; k < lines.size(); ++k) {
        add_change_columns(t, {Column::integer, cache_column("misses", k, lines[k], line_size)}, false, false);
        add_change_columns(t, {Column::fixed, cache_column("miss_ratio", k, lines[k], line_size), 4}, false, false);
    }
    for (size_t i : order) {
        const RowMatch& m = matches[i];
        const Dataset& d = m.after ? after.data : before.data;
        const LocationMisses& lm = m.after ? ma : mb;
        const Location& loc = lm.locations[lm.table.rows[m.after ? *m.after : *m.before].key];
        t.new_row();
        t.put(loc.name);
        if (function_column) t.put(function_name(d, loc));
        t.put(presence(m));
        for (const Change& c : values[i]) put_change(t, c, false, false);
    }
    std::vector<std::string> heading = {side_line("before", before, ib.locality, Policy::lru),
                                        side_line("after", after, ia.locality, Policy::lru),
                                        granularity_note(p.by)};
    for (size_t k = 0; k < lines.size(); ++k)
        heading.push_back(fmt::format("cache {}: misses {:.0f} before, {:.0f} after{}",
                                      format_bytes(lines[k] * line_size), mb.table.misses[k], ma.table.misses[k],
                                      ib.locality.exact && ia.locality.exact ? "" : " (estimated)"));
    heading.push_back("rows by the size of the change in the first cache's misses; the views have no intervals");
    Json meta = locality_meta(ib.locality, ia.locality, Policy::lru);
    meta["by"] = to_string(p.by);
    write_compare_table(before, after, heading, t, "locations", meta);
}

}  // namespace sprof::analyze
