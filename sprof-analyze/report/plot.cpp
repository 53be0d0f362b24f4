// --plot: a rate over time through gnuplot (gnuplot-iostream): the whole
// program and its top functions per time-line row, phase boundaries marked;
// with --phases, the phases' momentary values as a step line.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>
#include <gnuplot-iostream.h>

#include "gnuplot_file.hpp"
#include "plot.hpp"

#include "report_mrc.hpp"
#include "text_columns.hpp"

namespace sprof::analyze {

namespace {

constexpr size_t kDefaultPlotFunctions = 5;
// A function's name in the key and a phase's label, at most: longer ones
// (C++ templates, a hostile profile's megabytes) would crowd the plot out.
constexpr size_t kKeyColumns = 60;

double value_or_nan(const std::optional<double>& v) {
    return v ? *v : std::numeric_limits<double>::quiet_NaN();
}

size_t plot_rate_index(const Context& c) {
    if (!c.options.plot_rate.empty()) {
        if (auto i = c.rates.find(c.options.plot_rate)) return *i;
        throw std::invalid_argument("--plot-rate " + c.options.plot_rate +
                                    ": no such rate (define it with --rate NAME=EXPR)");
    }
    if (c.rates.size() == 0) throw std::invalid_argument("--plot: no rate to plot; define one with --rate NAME=EXPR");
    return 0;  // the defaults come most telling first (CPI, misses, faults…)
}

// Inline data for one plot clause; an unknown value breaks the line (a
// blank line in gnuplot's data) instead of joining its neighbours.
void send_series(Gnuplot& gp, const Series& s) {
    bool gap = false;
    for (const auto& [x, y] : s) {
        if (std::isnan(y)) {
            if (!gap) gp << "\n";
            gap = true;
            continue;
        }
        gp << fmt::format("{} {}\n", x, y);
        gap = false;
    }
    gp << "e\n";
}

// A series with no known value has nothing to draw; gnuplot would only warn.
bool drawable(const Series& s) {
    return std::any_of(s.begin(), s.end(), [](const auto& point) { return !std::isnan(point.second); });
}

}  // namespace

PlotData plot_data(const Context& c) {
    const Dataset& d = c.data;
    PlotData p;
    p.rate = plot_rate_index(c);
    const size_t k = p.rate;
    const Estimator est = c.options.estimator;
    p.rows = time_rows(d);
    if (p.rows.empty()) throw std::runtime_error("--plot: the profile has no intervals");
    const auto& rows = p.rows;

    auto per_function = by_function(d, all_intervals(d));
    p.top = ranked_functions(d, per_function);
    auto& top = p.top;
    top.resize(std::min(top.size(), c.options.top ? c.options.top : kDefaultPlotFunctions));
    std::vector<size_t> slot(d.functions.size(), top.size());
    for (size_t i = 0; i < top.size(); ++i) slot[top[i]] = i;

    p.functions.resize(top.size());
    for (const TimeRow& r : rows) {
        const double mid = seconds(r.start_ns + r.end_ns) / 2;
        Counts row_total(d.events.size());
        std::vector<Counts> mine(top.size(), Counts(d.events.size()));
        for (uint32_t i : r.intervals)
            for (const FunctionCell& cell : d.intervals[i].cells) {
                row_total.add(cell);
                if (slot[cell.function] < top.size()) mine[slot[cell.function]].add(cell);
            }
        p.all.emplace_back(mid, value_or_nan(c.rates.evaluate(row_total, est)[k]));
        for (size_t f = 0; f < top.size(); ++f)
            p.functions[f].emplace_back(mid, mine[f].samples ? value_or_nan(c.rates.evaluate(mine[f], est)[k])
                                                             : std::numeric_limits<double>::quiet_NaN());
    }

    p.phases = find_phases(d, rows, c.rates, phase_params(c.options));
    // Per-phase momentary values: a horizontal segment per phase.
    for (const Phase& ph : p.phases) {
        std::span<const TimeRow> span(rows.begin() + ph.first, rows.begin() + ph.last);
        double v = value_or_nan(c.rates.evaluate(total(d, span), est)[k]);
        p.phase_steps.push_back({{seconds(span.front().start_ns), v}, {seconds(span.back().end_ns), v}});
    }
    return p;
}

void write_plot(const Context& c) {
    if (c.options.report == "mrc")  // the miss-ratio curve, not a rate over time
        return plot_mrc(c.data,
                        {{c.options.policy}, c.options.caches, c.options.line_size, c.options.top, c.options.format},
                        c.options.plot_file);
    const Dataset& d = c.data;
    const PlotData p = plot_data(c);
    const Rate& rate = c.rates.rates()[p.rate];
    const Estimator est = c.options.estimator;
    const auto& rows = p.rows;
    const auto& top = p.top;
    const auto& phases = p.phases;

    std::vector<std::string> event_names = d.event_names();
    {  // gnuplot has written the file when the pipe closes
        Gnuplot gp("gnuplot");
        start_plot_file(gp, c.options.plot_file);
        std::string program = std::filesystem::path(d.program()).filename().string();
        gp << "set title " << gnuplot_string(fmt::format("{}: {} over time (events: {}; estimator {})", program, rate.name,
                                                 fmt::join(event_names, ", "), to_string(est)))
           << "\n";
        gp << "set xlabel 'time since start (s)'\n";
        gp << "set ylabel " << gnuplot_string(rate.name + " (" + (rate.unit.empty() ? rate.expression : rate.unit) + ")")
           << "\n";
        gp << "set key outside right top vertical\nset grid\nset yrange [0:*]\nset xrange [0:*]\n";
        for (size_t i = 0; i < phases.size(); ++i) {
            double x = seconds(rows[phases[i].first].start_ns);
            if (i > 0) gp << fmt::format("set arrow from {},graph 0 to {},graph 1 nohead dt 2 lc rgb 'gray40'\n", x, x);
            gp << fmt::format("set label {} at {},graph 0.97 left offset 0.3,0 tc rgb 'gray30'\n",
                              gnuplot_string(abbreviate(phases[i].label, kKeyColumns)), x);
        }
        std::vector<std::string> plots;
        std::vector<const Series*> data;
        plots.push_back("'-' using 1:2 with lines lw 2.5 lc rgb 'black' title 'all functions'");
        data.push_back(&p.all);
        for (size_t i = 0; i < top.size(); ++i) {
            if (!drawable(p.functions[i])) continue;
            plots.push_back("'-' using 1:2 with linespoints pt 7 ps 0.4 lw 1 title " +
                            gnuplot_string(abbreviate(d.functions[top[i]].name, kKeyColumns)));
            data.push_back(&p.functions[i]);
        }
        bool step_titled = false;  // one legend entry for all the phases' steps
        if (c.options.report == "phases")
            for (const auto& s : p.phase_steps) {
                if (!drawable(s)) continue;
                plots.push_back(std::string("'-' using 1:2 with lines lw 4 lc rgb 'red' ") +
                                (step_titled ? "notitle" : "title 'phase (momentary value)'"));
                step_titled = true;
                data.push_back(&s);
            }
        gp << "plot " << fmt::format("{}", fmt::join(plots, ", ")) << "\n";
        for (const Series* s : data) send_series(gp, *s);
        gp << "set output\n";
        gp.flush();
    }
    check_plot_written(c.options.plot_file);
}

}  // namespace sprof::analyze
