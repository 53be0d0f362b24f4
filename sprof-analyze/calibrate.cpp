#include "calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "nnls.hpp"
#include "phases.hpp"
#include "reports.hpp"

namespace sprof::analyze {

namespace {

bool is_time_like(const ProfileEvent& e) {
    return e.time_like || e.name == "task-clock" || e.name == "cpu-clock" || e.name == "msr/tsc/";
}

// The non-time-like events every dataset has: the model's regressors.
std::vector<std::string> regressors(const std::vector<Dataset>& sets) {
    std::vector<std::string> names;
    for (const auto& e : sets.front().events)
        if (!is_time_like(e)) names.push_back(e.name);
    for (const auto& d : sets) {
        auto names_here = d.event_names();
        std::erase_if(names, [&](const std::string& n) {
            return std::find(names_here.begin(), names_here.end(), n) == names_here.end();
        });
    }
    return names;
}

size_t event_index(const Dataset& d, const std::string& name) {
    auto names = d.event_names();
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) throw std::runtime_error("the profile has no event " + name + ", which the model needs");
    return static_cast<size_t>(it - names.begin());
}

// One phase of a profile as reference seconds and the regressors' estimates.
struct Observation {
    size_t phase;
    std::string label;
    double start_s, end_s, seconds;
    std::vector<std::optional<double>> x;
};

std::vector<Observation> observe(const Dataset& d, const std::vector<std::string>& names, const Options& o) {
    RateSet rates(d.event_names(), {}, true);
    Options phase_options;
    phase_options.estimator = o.estimator;
    phase_options.min_phase = o.min_phase;
    auto rows = time_rows(d);
    std::vector<size_t> index;
    for (const auto& n : names) index.push_back(event_index(d, n));
    std::vector<Observation> out;
    auto phases = find_phases(d, rows, rates, phase_options);
    for (size_t i = 0; i < phases.size(); ++i) {
        std::span<const TimeRow> span(rows.begin() + phases[i].first, rows.begin() + phases[i].last);
        Counts c = total(d, span);
        auto est = estimate_events(c, o.estimator);
        Observation ob{i + 1, phases[i].label, seconds(span.front().start_ns), seconds(span.back().end_ns),
                       c.seconds(), {}};
        for (size_t k : index) ob.x.push_back(est[k]);
        out.push_back(std::move(ob));
    }
    return out;
}

std::optional<double> predict(const std::vector<double>& cost, const std::vector<std::optional<double>>& x) {
    double t = 0;
    for (size_t i = 0; i < cost.size(); ++i) {
        if (!x[i]) return std::nullopt;
        t += cost[i] * *x[i];
    }
    return t;
}

}  // namespace

void calibrate_machine(const Options& o, std::ostream& out) {
    std::vector<Dataset> sets;
    for (const auto& p : o.profiles) sets.push_back(load_dataset({p}));
    auto names = regressors(sets);
    if (names.empty())
        throw std::runtime_error("--calibrate: the profiles have no events besides time to fit (record e.g. "
                                 "instructions, cache-misses or page-faults)");
    std::vector<double> a, b;
    std::vector<std::pair<size_t, Observation>> used;
    for (size_t s = 0; s < sets.size(); ++s)
        for (auto& ob : observe(sets[s], names, o)) {
            if (ob.seconds <= 0 || std::any_of(ob.x.begin(), ob.x.end(), [](auto& v) { return !v; })) continue;
            used.emplace_back(s, std::move(ob));
        }
    const size_t cols = names.size(), rows = used.size();
    if (rows < cols)
        throw std::runtime_error(fmt::format("--calibrate: {} phases with every event known, but {} events to fit; "
                                             "give more profiles",
                                             rows, cols));
    // Columns scaled to unit maximum, so events of very different counts
    // weigh alike in the solver.
    std::vector<double> scale(cols, 0.0);
    for (const auto& [s, ob] : used)
        for (size_t k = 0; k < cols; ++k) scale[k] = std::max(scale[k], std::abs(*ob.x[k]));
    for (const auto& [s, ob] : used) {
        for (size_t k = 0; k < cols; ++k) a.push_back(scale[k] > 0 ? *ob.x[k] / scale[k] : 0);
        b.push_back(ob.seconds);
    }
    auto solution = nnls(a, rows, cols, b);
    std::vector<double> cost(cols);
    for (size_t k = 0; k < cols; ++k) cost[k] = scale[k] > 0 ? solution[k] / scale[k] : 0;

    double sq = 0, rel_sq = 0;
    Table fit;
    fit.add_column({Column::text, "profile"});
    fit.add_column({Column::integer, "phase"});
    fit.add_column({Column::fixed, "measured_s", 3});
    fit.add_column({Column::fixed, "fitted_s", 3});
    fit.add_column({Column::fixed, "error_pct", 1});
    for (const auto& [s, ob] : used) {
        double p = *predict(cost, ob.x);
        sq += (p - ob.seconds) * (p - ob.seconds);
        rel_sq += std::pow((p - ob.seconds) / ob.seconds, 2);
        fit.new_row();
        fit.put(o.profiles[s]);
        fit.put(uint64_t{ob.phase});
        fit.put(ob.seconds);
        fit.put(p);
        fit.put(100 * (p - ob.seconds) / ob.seconds);
    }
    const double rms = std::sqrt(sq / rows), rel_rms = std::sqrt(rel_sq / rows);

    Json per_event = Json::object();
    for (size_t k = 0; k < cols; ++k) per_event[names[k]] = cost[k];
    Json model = {{"kind", "sprof machine model"},
                  {"host", sets.front().sources.front().profile.header.hostname},
                  {"estimator", to_string(o.estimator)},
                  {"predicts", "reference seconds (CPU time of the sampled threads)"},
                  {"seconds_per_event", per_event},
                  {"observations", rows},
                  {"rms_error_s", rms},
                  {"rms_relative_error", rel_rms},
                  {"profiles", o.profiles}};
    std::ofstream file(o.output);
    file << dump_json(model, 2) << '\n';
    file.close();
    if (!file) throw std::runtime_error("cannot write " + o.output);
    if (o.format == Format::json) {
        out << dump_json(model, 2) << '\n';
        return;
    }
    fit.write_text(out);
    out << fmt::format("\n{} phases of {} profiles; seconds per event:", rows, sets.size());
    for (size_t k = 0; k < cols; ++k) out << fmt::format(" {}={:.4g}", names[k], cost[k]);
    out << fmt::format("\nfit error: rms {:.4g} s, {:.1f} % relative; model written to {}\n", rms, 100 * rel_rms,
                       o.output);
}

void predict_runtime(const Options& o, std::ostream& out) {
    Json model;
    {
        std::ifstream in(o.machine_file);
        if (!in) throw std::runtime_error("cannot read the machine model " + o.machine_file);
        try {
            model = Json::parse(in);
        } catch (const std::exception& e) {
            throw std::runtime_error(o.machine_file + ": not JSON: " + e.what());
        }
    }
    if (!model.is_object() || !model.contains("seconds_per_event") || !model["seconds_per_event"].is_object())
        throw std::runtime_error(o.machine_file + ": not a machine model (no seconds_per_event; make one with "
                                                  "sprof --calibrate)");
    std::vector<std::string> names;
    std::vector<double> cost;
    for (auto& [name, v] : model["seconds_per_event"].items()) {
        if (!v.is_number()) throw std::runtime_error(o.machine_file + ": seconds_per_event." + name + " is not a number");
        names.push_back(name);
        cost.push_back(v.get<double>());
    }
    const double rel_error = model.value("rms_relative_error", 0.0);

    Dataset d = load_dataset(o.profiles);
    auto observations = observe(d, names, o);
    Table t;
    t.add_column({Column::text, "phase"});
    t.add_column({Column::text, "label"});
    t.add_column({Column::fixed, "start_s", 3});
    t.add_column({Column::fixed, "end_s", 3});
    t.add_column({Column::fixed, "measured_s", 3});
    t.add_column({Column::fixed, "predicted_s", 3});
    t.add_column({Column::fixed, "error_s", 3});
    double measured = 0, predicted = 0;
    bool all_known = true;
    for (const auto& ob : observations) {
        auto p = predict(cost, ob.x);
        measured += ob.seconds;
        if (p) predicted += *p;
        all_known &= p.has_value();
        t.new_row();
        t.put(std::to_string(ob.phase));
        t.put(ob.label);
        t.put(ob.start_s);
        t.put(ob.end_s);
        t.put(ob.seconds);
        t.put(p);
        t.put(p ? std::optional<double>(*p * rel_error) : std::nullopt);
    }
    t.new_row();
    t.put(std::string("total"));
    t.put(std::string(""));
    t.put(observations.empty() ? 0.0 : observations.front().start_s);
    t.put(observations.empty() ? 0.0 : observations.back().end_s);
    t.put(measured);
    t.put(all_known ? std::optional<double>(predicted) : std::nullopt);
    t.put(all_known ? std::optional<double>(predicted * rel_error) : std::nullopt);
    RateSet rates(d.event_names(), {}, true);
    write_table({d, o, rates, out}, t, "prediction", {{"model", o.machine_file}});
}

}  // namespace sprof::analyze
