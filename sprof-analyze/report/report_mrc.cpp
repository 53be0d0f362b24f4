#include "report_mrc.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <gnuplot-iostream.h>

#include "sprof/option_values.hpp"
#include "cache_levels.hpp"
#include "code_misses.hpp"
#include "locality_report.hpp"
#include "gnuplot_file.hpp"
#include "reports.hpp"

namespace sprof::analyze {

namespace {

// Half the band's width, averaged over the sizes from 4 KiB to 64 MiB (all
// sizes when none lies there): how far the curve may be off.
double mean_half_width(const MissRatioCurve& curve, uint32_t line_size) {
    double sum = 0, all = 0;
    size_t n = 0;
    for (const CurvePoint& point : curve.points) {
        const uint64_t bytes = point.lines * line_size;
        all += (point.high - point.low) / 2;
        if (bytes < 4096 || bytes > (uint64_t{64} << 20)) continue;
        sum += (point.high - point.low) / 2;
        ++n;
    }
    return n ? sum / static_cast<double>(n) : curve.points.empty() ? 0 : all / static_cast<double>(curve.points.size());
}

// A band wider than ±0.01 comes from too few samples: the sampling rate
// that would narrow it so (its width falls as one over the square root of
// the samples). Below a thousand samples the band itself is not to be
// trusted (a bootstrap over 15 samples of one loop has no spread at all),
// so they are too few whatever it says.
std::vector<std::string> band_notes(const MissRatioCurve& curve, const LocalityData& l, double half_width) {
    std::vector<std::string> notes{"band: " + curve.band};
    constexpr double kGoal = 0.01;
    constexpr double kFewSamples = 1000;
    const auto samples = static_cast<double>(l.samples);
    if (l.exact || (half_width <= kGoal && samples >= kFewSamples) || l.sample_period <= 1) return notes;
    const double denser =
        std::ceil(std::max((half_width / kGoal) * (half_width / kGoal), kFewSamples / std::max(samples, 1.0)));
    // The rate to ask for: 1, 2 or 5 times a power of ten, at or below what it takes.
    const double wanted = std::max(1.0, static_cast<double>(l.sample_period) / denser);
    const double decade = std::pow(10.0, std::floor(std::log10(wanted)));
    const double step = wanted >= 5 * decade ? 5 : wanted >= 2 * decade ? 2 : 1;
    const auto period = static_cast<uint64_t>(step * decade);
    notes.push_back(fmt::format("{} samples are few (the band: ±{:.3f} on average over 4 KiB–64 MiB): for about ±{} "
                                "sample {:.0f}× as often (sprof_lib --locality={})",
                                l.samples, half_width, kGoal, denser, period));
    return notes;
}

void write_curve(const Dataset& d, const LocalityData& l, const MrcParams& p, std::ostream& out) {
    const MissRatioCurve curve = miss_ratio_curve(l, p.curve);
    const double half_width = mean_half_width(curve, l.line_size);
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
    write_locality_table(out, p.format, p.names, d, l, p.curve.policy, "miss ratio", band_notes(curve, l, half_width), t,
                         "curve", {{"band", curve.band}, {"band_half_width", half_width}});
}

// The cache sizes of the per-function table, in lines: those asked for,
// or for an exact profile the nearest sizes it counted.
std::vector<uint64_t> table_lines(const LocalityData& l, const MrcParams& p) {
    std::vector<uint64_t> lines = cache_lines(l, p.caches);
    if (!l.exact || l.totals.lines.empty()) return lines;
    for (uint64_t& c : lines) {
        uint64_t best = l.totals.lines.front();
        for (uint64_t s : l.totals.lines)
            if (std::fabs(std::log(static_cast<double>(s) / static_cast<double>(c))) <
                std::fabs(std::log(static_cast<double>(best) / static_cast<double>(c))))
                best = s;
        c = best;
    }
    return lines;
}

void write_functions(const Dataset& d, const LocalityData& l, const MrcParams& p, std::ostream& out) {
    const CodeMissTable ft = function_misses(l, p.curve.policy, table_lines(l, p));
    Table t;
    t.add_column({Column::text, "function", 0, true});
    t.add_column({Column::text, "object"});
    t.add_column({Column::integer, "accesses"});
    t.add_column({Column::fixed, "accesses_pct", 2});
    for (size_t k = 0; k < ft.lines.size(); ++k) {
        const std::string suffix = k ? "_" + cache_label(ft.lines[k] * l.line_size) : "";
        t.add_column({Column::integer, "misses" + suffix});
        t.add_column({Column::fixed, "misses_pct" + suffix, 2});
        t.add_column({Column::fixed, "miss_ratio" + suffix, 4});
    }
    size_t shown = 0;
    for (const CodeMisses& f : ft.rows) {
        if (p.top && shown++ == p.top) break;
        const bool known = f.key != kNoFunction;
        t.new_row();
        t.put(known ? d.functions[f.key].name : std::string("[unknown]"));
        t.put(known ? object_basename(d.functions[f.key].object) : std::string());
        t.put(f.accesses);
        t.put(percent(f.accesses, ft.accesses));
        for (size_t k = 0; k < ft.lines.size(); ++k) {
            t.put(f.misses[k]);
            t.put(percent(f.misses[k], ft.misses[k]));
            t.put(f.accesses > 0 ? std::optional<double>(f.misses[k] / f.accesses) : std::nullopt);
        }
    }
    std::vector<std::string> notes;
    Json caches = Json::array();
    for (size_t k = 0; k < ft.lines.size(); ++k) {
        const uint64_t bytes = ft.lines[k] * l.line_size;
        const double ratio = ft.accesses > 0 ? ft.misses[k] / ft.accesses : 0;
        notes.push_back(fmt::format("cache {} ({} lines{}): miss ratio {:.4f}, {:.0f} misses of {:.0f} accesses{}",
                                    format_bytes(bytes), ft.lines[k],
                                    l.exact && bytes != p.caches[k] ? ", the nearest size the exact run counted" : "",
                                    ratio, ft.misses[k], ft.accesses, l.exact ? "" : " (estimated)"));
        caches.push_back({{"cache_bytes", bytes}, {"lines", ft.lines[k]}, {"miss_ratio", ratio},
                          {"misses", ft.misses[k]}});
    }
    write_locality_table(out, p.format, p.names, d, l, p.curve.policy, "misses per function", notes, t, "functions",
                         {{"accesses", ft.accesses}, {"caches", caches}});
}

}  // namespace

void report_mrc(const Dataset& d, const MrcParams& p, std::ostream& out) {
    const LocalityData l = locality_data(d);
    check_line_size(l, p.line_size);
    if (!p.caches.empty()) write_functions(d, l, p, out);
    else write_curve(d, l, p, out);
}

void plot_mrc(const Dataset& d, const MrcParams& p, const std::string& file) {
    const LocalityData l = locality_data(d);
    check_line_size(l, p.line_size);
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
        for (uint64_t bytes : p.caches) {
            gp << fmt::format("set arrow from {0},graph 0 to {0},graph 1 nohead dt 2 lc rgb 'gray40'\n", bytes);
            gp << fmt::format("set label {} at {},graph 0.04 left offset 0.5,0 tc rgb 'gray30'\n",
                              gnuplot_string(format_bytes(bytes)), bytes);
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
    const MrcParams p{{c.options.policy}, c.options.caches, c.options.line_size, c.options.top, c.options.format,
                      c.options.names};
    report_mrc(c.data, p, c.out);
}

}  // namespace sprof::analyze
