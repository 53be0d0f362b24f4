#include "report_mrc.hpp"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <gnuplot-iostream.h>

#include "byte_size.hpp"
#include "gnuplot_file.hpp"
#include "reports.hpp"

namespace sprof::analyze {

namespace {

std::string model_name(const LocalityData& l, Policy p) {
    if (l.exact) return p == Policy::lru ? "LRU, exact" : "random replacement, exact";
    return p == Policy::lru ? "LRU (StatStack)" : "random replacement (StatCache)";
}

double percent(double part, double whole) { return whole > 0 ? 100 * part / whole : 0; }

// What the records are and how far the model reaches, ahead of a text report.
void write_heading(std::ostream& out, const Dataset& d, const LocalityData& l, const MrcParams& p,
                   const std::string& band) {
    out << fmt::format("{}: miss ratio of a fully associative cache per thread, {}, {}-byte lines\n",
                       d.program().empty() ? "sprof" : d.program(), model_name(l, p.curve.policy), l.line_size);
    if (l.exact) out << fmt::format("  exact: every one of {} accesses simulated, {} thread(s)\n", l.accesses, l.threads);
    else
        out << fmt::format("  sampled: {} reuse samples of {} accesses (1 in {}), {} thread(s)\n", l.samples,
                           l.accesses, l.sample_period, l.threads);
    if (l.unseen_accesses)
        out << fmt::format("  {} more accesses ({:.1f} %) were not instrumented (memcpy, memset, str* in libc): "
                           "not in the model\n", l.unseen_accesses,
                           percent(static_cast<double>(l.unseen_accesses),
                                   static_cast<double>(l.accesses + l.unseen_accesses)));
    for (const UnseenObject& o : uninstrumented_objects(d, l))
        out << fmt::format("  {} took {:.1f} % of the CPU time, but none of its accesses were seen: not built "
                           "with sprof-cc, not in the model\n", object_basename(o.object), 100 * o.time_share);
    if (l.unsampled_accesses)
        out << fmt::format("  {} accesses ({:.1f} %) fell in windows without a sample: not in the model\n",
                           l.unsampled_accesses,
                           percent(static_cast<double>(l.unsampled_accesses), static_cast<double>(l.accesses)));
    if (!band.empty()) out << "  band: " << band << '\n';
    out << '\n';
}

Json locality_json(const Dataset& d, const LocalityData& l, const MrcParams& p) {
    Json unseen_objects = Json::array();
    for (const UnseenObject& o : uninstrumented_objects(d, l))
        unseen_objects.push_back({{"object", o.object}, {"time_share", o.time_share}});
    return {{"mode", l.exact ? "exact" : "sampled"},
            {"policy", to_string(p.curve.policy)},
            {"line_size", l.line_size},
            {"sample_period", l.sample_period},
            {"threads", l.threads},
            {"samples", l.samples},
            {"accesses", l.accesses},
            {"unseen_accesses", l.unseen_accesses},
            {"unsampled_accesses", l.unsampled_accesses},
            {"uninstrumented_objects", unseen_objects}};
}

void write_json(std::ostream& out, const Dataset& d, const LocalityData& l, const MrcParams& p, Json body) {
    Json doc = {{"profiles", profiles_json(d)}, {"locality", locality_json(d, l, p)}};
    for (auto& [k, v] : body.items()) doc[k] = std::move(v);
    out << dump_json(doc, 2) << '\n';
}

void write_curve(const Dataset& d, const LocalityData& l, const MrcParams& p, std::ostream& out) {
    const MissRatioCurve curve = miss_ratio_curve(l, p.curve);
    const bool text = p.format == Format::text;
    Table t;
    if (text) t.add_column({Column::text, "cache"});
    t.add_column({Column::integer, "cache_bytes"});
    t.add_column({Column::fixed, "miss_ratio", 4});
    t.add_column({Column::fixed, "low", 4});
    t.add_column({Column::fixed, "high", 4});
    for (const CurvePoint& point : curve.points) {
        const uint64_t bytes = point.lines * l.line_size;
        t.new_row();
        if (text) t.put(format_bytes(bytes));
        t.put(bytes);
        t.put(point.miss_ratio);
        t.put(point.low);
        t.put(point.high);
    }
    switch (p.format) {
    case Format::text:
        write_heading(out, d, l, p, curve.band);
        t.write_text(out);
        break;
    case Format::csv: t.write_csv(out); break;
    case Format::json: write_json(out, d, l, p, {{"band", curve.band}, {"curve", t.to_json()}}); break;
    }
}

// The cache size the per-function table is given at, in lines: the size
// asked for, or for an exact profile the nearest size it counted.
uint64_t table_lines(const LocalityData& l, const MrcParams& p) {
    const uint64_t lines = p.cache_bytes / l.line_size;
    if (lines == 0)
        throw std::invalid_argument(fmt::format("--cache {}: smaller than one {}-byte line", p.cache_bytes,
                                                l.line_size));
    if (!l.exact || l.totals.lines.empty()) return lines;
    uint64_t best = l.totals.lines.front();
    for (uint64_t c : l.totals.lines)
        if (std::fabs(std::log(static_cast<double>(c) / static_cast<double>(lines))) <
            std::fabs(std::log(static_cast<double>(best) / static_cast<double>(lines))))
            best = c;
    return best;
}

void write_functions(const Dataset& d, const LocalityData& l, const MrcParams& p, std::ostream& out) {
    const FunctionMissTable ft = function_misses(l, p.curve.policy, table_lines(l, p));
    const uint64_t bytes = ft.lines * l.line_size;
    Table t;
    t.add_column({Column::text, "function"});
    t.add_column({Column::text, "object"});
    t.add_column({Column::integer, "accesses"});
    t.add_column({Column::fixed, "accesses_pct", 2});
    t.add_column({Column::integer, "misses"});
    t.add_column({Column::fixed, "misses_pct", 2});
    t.add_column({Column::fixed, "miss_ratio", 4});
    size_t shown = 0;
    for (const FunctionMisses& f : ft.functions) {
        if (p.top && shown++ == p.top) break;
        const bool known = f.function != kNoFunction;
        t.new_row();
        t.put(known ? d.functions[f.function].name : std::string("[unknown]"));
        t.put(known ? object_basename(d.functions[f.function].object) : std::string());
        t.put(f.accesses);
        t.put(percent(f.accesses, ft.accesses));
        t.put(f.misses);
        t.put(percent(f.misses, ft.misses));
        t.put(f.accesses > 0 ? std::optional<double>(f.misses / f.accesses) : std::nullopt);
    }
    const double ratio = ft.accesses > 0 ? ft.misses / ft.accesses : 0;
    switch (p.format) {
    case Format::text:
        write_heading(out, d, l, p, "");
        out << fmt::format("cache {} ({} lines{}): miss ratio {:.4f}, {:.0f} misses of {:.0f} accesses{}\n\n",
                           format_bytes(bytes), ft.lines,
                           l.exact && bytes != p.cache_bytes ? ", the nearest size the exact run counted" : "",
                           ratio, ft.misses, ft.accesses, l.exact ? "" : " (estimated)");
        t.write_text(out);
        break;
    case Format::csv: t.write_csv(out); break;
    case Format::json:
        write_json(out, d, l, p,
                   {{"cache_bytes", bytes}, {"lines", ft.lines}, {"miss_ratio", ratio}, {"accesses", ft.accesses},
                    {"misses", ft.misses}, {"functions", t.to_json()}});
        break;
    }
}

}  // namespace

void report_mrc(const Dataset& d, const MrcParams& p, std::ostream& out) {
    const LocalityData l = locality_data(d);
    if (p.cache_bytes) write_functions(d, l, p, out);
    else write_curve(d, l, p, out);
}

void plot_mrc(const Dataset& d, const MrcParams& p, const std::string& file) {
    const LocalityData l = locality_data(d);
    const MissRatioCurve curve = miss_ratio_curve(l, p.curve);
    if (curve.points.empty()) throw std::runtime_error("--plot: the miss-ratio curve has no points");
    const double first = static_cast<double>(curve.points.front().lines * l.line_size);
    const double last = static_cast<double>(curve.points.back().lines * l.line_size);
    {  // gnuplot has written the file when the pipe closes
        Gnuplot gp("gnuplot");
        start_plot_file(gp, file);
        const std::string program = std::filesystem::path(d.program()).filename().string();
        gp << "set title " << gnuplot_string(fmt::format("{}: miss ratio, {}, {}-byte lines, fully associative",
                                                         program, model_name(l, p.curve.policy), l.line_size))
           << "\n";
        gp << "set xlabel 'cache size'\nset ylabel 'miss ratio'\nset logscale x 2\nset grid\n";
        // A little room at both ends, or gnuplot drops the tics at the ends of a log axis.
        gp << fmt::format("set xrange [{}:{}]\nset yrange [0:1]\nset key top right\n", first / 1.05, last * 1.05);
        std::vector<std::string> tics;  // every fourfold size, named like the text report names it
        for (uint64_t b = uint64_t{1} << std::bit_width(static_cast<uint64_t>(first) - 1);
             static_cast<double>(b) <= last; b *= 4)
            tics.push_back(fmt::format("{} {}", gnuplot_string(format_bytes(b)), b));
        gp << fmt::format("set xtics ({})\n", fmt::join(tics, ", "));
        if (p.cache_bytes) {
            gp << fmt::format("set arrow from {0},graph 0 to {0},graph 1 nohead dt 2 lc rgb 'gray40'\n", p.cache_bytes);
            gp << fmt::format("set label {} at {},graph 0.04 left offset 0.5,0 tc rgb 'gray30'\n",
                              gnuplot_string(format_bytes(p.cache_bytes)), p.cache_bytes);
        }
        const bool band = !l.exact;
        std::string plot = "plot ";
        if (band)
            plot += "'-' using 1:2:3 with filledcurves fc rgb '#c6dbef' title " + gnuplot_string(curve.band) + ", ";
        plot += "'-' using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb '#08519c' title 'miss ratio'\n";
        gp << plot;
        if (band) {
            for (const CurvePoint& point : curve.points)
                gp << fmt::format("{} {} {}\n", point.lines * l.line_size, point.low, point.high);
            gp << "e\n";
        }
        for (const CurvePoint& point : curve.points)
            gp << fmt::format("{} {}\n", point.lines * l.line_size, point.miss_ratio);
        gp << "e\nset output\n";
        gp.flush();
    }
    check_plot_written(file);
}

void report_locality(const Context& c) {
    const MrcParams p{{c.options.policy}, c.options.cache_bytes, c.options.top, c.options.format};
    report_mrc(c.data, p, c.out);
}

}  // namespace sprof::analyze
