// sprof --reuse-pairs: the view of reuse_pairs() (reuse_pairs.hpp).
#include <cmath>

#include <fmt/format.h>

#include "sprof/option_values.hpp"
#include "locality_report.hpp"
#include "locality_views.hpp"
#include "notes.hpp"
#include "reports.hpp"
#include "reuse_pairs.hpp"

namespace sprof::analyze {

namespace {

constexpr size_t kBetweenShown = 3;  // locations of the code between named per pair in text and CSV

// "2^14:80% 2^15:20%": the distance buckets holding at least 1 % of the pair's reuses.
std::string histogram_text(const ReusePair& pair) {
    std::vector<std::string> parts;
    for (size_t b = 0; b < pair.histogram.size(); ++b) {
        const double share = percent(pair.histogram[b], pair.reuses);
        if (share >= 1) parts.push_back(fmt::format("2^{}:{:.0f}%", b, share));
    }
    return fmt::format("{}", fmt::join(parts, " "));
}

std::string between_text(const PairTable& t, const std::vector<LocationShare>& between) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < between.size() && i < kBetweenShown; ++i)
        parts.push_back(fmt::format("{} {:.0f}%", t.locations[between[i].location].name, 100 * between[i].share));
    return fmt::format("{}", fmt::join(parts, "; "));
}

Json between_json(const PairTable& t, const std::vector<LocationShare>& between) {
    Json out = Json::array();
    for (const LocationShare& b : between) out.push_back({{"location", t.locations[b.location].name}, {"share", b.share}});
    return out;
}

}  // namespace

void write_reuse_pairs_view(const Dataset& d, const ViewParams& p, std::ostream& out) {
    const ViewInput in = view_input(d, p);
    const LocalityData& l = in.locality;
    PairParams params;
    params.lines = in.lines.front();
    params.by = p.by;
    params.user_frames = p.user_frames;
    const PairTable pt = reuse_pairs(d, l, params);
    if (!pt.positions)
        notes() << "sprof: warning: the samples have no positions (a profile written before format 1.5): the code "
                     "between use and reuse is unknown, and so are the loop hints\n";
    Table t;
    t.add_column({Column::text, "use", 0, names_location(p.by)});
    t.add_column({Column::text, "reuse", 0, names_location(p.by)});
    t.add_column({Column::fixed, "share", 2});
    t.add_column({Column::text, "hint"});
    t.add_column({Column::integer, "cluster"});
    t.add_column({Column::integer, "misses"});
    t.add_column({Column::integer, "reuses"});
    t.add_column({Column::integer, "samples"});
    t.add_column({Column::fixed, "spatial_use", 1});
    t.add_column({Column::fixed, "use_spatial_use", 1});
    t.add_column({Column::text, "distances"});
    t.add_column({Column::text, "between"});
    Json pairs = Json::array();
    size_t shown = 0;
    for (const ReusePair& pair : pt.pairs) {
        if (p.top && shown++ == p.top) break;
        t.new_row();
        t.put(pt.locations[pair.use].name);
        t.put(pt.locations[pair.reuse].name);
        t.put(100 * pair.share);
        t.put(pair.hint);
        t.put(uint64_t{pair.cluster + 1});
        t.put(pair.misses);
        t.put(pair.reuses);
        t.put(pair.samples);
        t.put(known(100 * pair.reuse_use.spatial(l.line_size)));
        t.put(known(100 * pair.use_use.spatial(l.line_size)));
        t.put(histogram_text(pair));
        t.put(between_text(pt, pair.between));
        Json histogram = Json::array();
        for (size_t b = 0; b < pair.histogram.size(); ++b)
            if (pair.histogram[b] > 0)
                histogram.push_back({{"from", uint64_t{1} << b}, {"to", (uint64_t{1} << b) * 2 - 1},
                                     {"reuses", pair.histogram[b]}});
        pairs.push_back({{"histogram", histogram}, {"between", between_json(pt, pair.between)},
                         {"spans", pair.spans}, {"informative_spans", pair.informative}, {"split_spans", pair.splits},
                         {"rerun_period", pair.rerun_period}});
    }
    Json clusters = Json::array();
    std::vector<std::string> notes = {
        granularity_note(p.by),
        fmt::format("cache {} ({} lines): {:.0f} of {:.0f} reuses miss ({:.2f} % long reuses), in {} pairs; the {} "
                    "heaviest hold {:.1f} % of those misses",
                    format_bytes(pt.lines * l.line_size), pt.lines, pt.capacity_misses, pt.reuses,
                    100 * pt.long_reuse_share(), pt.all_pairs, pt.pairs.size(),
                    [&] {
                        double s = 0;
                        for (const ReusePair& pair : pt.pairs) s += pair.share;
                        return 100 * s;
                    }())};
    for (size_t i = 0; i < pt.clusters.size(); ++i) {
        const PairCluster& c = pt.clusters[i];
        notes.push_back(fmt::format("cluster {}: {:.1f} % of the misses, {} pair(s), hint {}; code between: {}", i + 1,
                                    100 * c.share, c.pairs.size(), c.hint,
                                    between_text(pt, pt.pairs[c.pairs.front()].between)));
        clusters.push_back({{"cluster", i + 1},
                            {"share", 100 * c.share},
                            {"hint", c.hint},
                            {"rerun_period", c.rerun_period},
                            {"pairs", c.pairs.size()},
                            {"split", c.split},
                            {"spatial_use", known_json(100 * c.reuse_use.spatial(l.line_size))},
                            {"use_spatial_use", known_json(100 * c.use_use.spatial(l.line_size))},
                            {"between", between_json(pt, pt.pairs[c.pairs.front()].between)}});
    }
    notes.push_back("share: % of the cache's capacity misses; hint, from the pair's own samples: fusion (use and "
                    "reuse in two loops one after the other), tiling (one loop nest, long reuses), +layout (spatial "
                    "use below 50 %)");
    uint64_t rerun = 0;
    for (const ReusePair& pair : pt.pairs)
        if (pair.rerun_period && (rerun == 0 || pair.rerun_period < rerun)) rerun = pair.rerun_period;
    if (rerun)
        notes.push_back(fmt::format("too few samples between these two loops (pairs hinted so): rerun with "
                                    "--locality={}", rerun));
    Json meta = {{"by", to_string(p.by)},
                 {"cache_bytes", pt.lines * l.line_size},
                 {"lines", pt.lines},
                 {"reuses", pt.reuses},
                 {"capacity_misses", pt.capacity_misses},
                 {"long_reuse_share", pt.long_reuse_share()},
                 {"all_pairs", pt.all_pairs},
                 {"clusters", clusters}};
    if (p.format == Format::json) {
        Json rows = t.to_json();
        for (size_t i = 0; i < rows.size(); ++i)
            for (auto& [k, v] : pairs[i].items()) rows[i][k] = v;
        meta["pairs"] = rows;
        write_locality_json(out, d, l, Policy::lru, std::move(meta));
        return;
    }
    write_locality_table(out, p.format, p.names, d, l, Policy::lru, "reuse pairs", notes, t, "pairs", meta);
}

void report_reuse_pairs(const Context& c) { write_reuse_pairs_view(c.data, view_params(c.options), c.out); }

}  // namespace sprof::analyze
