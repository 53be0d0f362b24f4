// Fitting the machine model: phases as observations, NNLS over them.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "machine_model.hpp"
#include "nnls.hpp"

namespace sprof::analyze {

namespace {

// The scheduler's events: on a shared machine a task is switched out and
// moved about the more the longer it runs and the busier the machine is,
// and each costs it microseconds of CPU time. As regressors they measure
// the machine's load, not the work: calibration runs beside other jobs gave
// a context switch 2.7 ms (the scheduler's slice) and the prediction of a
// held-out run +64 %.
bool counts_the_scheduler(const std::string& event) {
    return event == "context-switches" || event == "cs" || event == "cpu-migrations" || event == "migrations";
}

// The non-time-like events every dataset has, but the scheduler's: the
// model's regressors.
std::vector<std::string> regressors(const std::vector<Dataset>& sets) {
    std::vector<std::string> names;
    for (const auto& e : sets.front().events)
        if (!e.time_like && !counts_the_scheduler(e.name)) names.push_back(e.name);
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

}  // namespace

std::vector<PhaseObservation> observe(const Dataset& d, const std::vector<std::string>& events, const PhaseParams& p) {
    RateSet rates(d.event_names(), {}, true);
    auto rows = time_rows(d);
    std::vector<size_t> index;
    for (const auto& n : events) index.push_back(event_index(d, n));
    std::vector<PhaseObservation> out;
    auto phases = find_phases(d, rows, rates, p);
    for (size_t i = 0; i < phases.size(); ++i) {
        std::span<const TimeRow> span(rows.begin() + phases[i].first, rows.begin() + phases[i].last);
        Counts c = total(d, span);
        auto est = estimate_events(c, p.estimator);
        PhaseObservation ob{i + 1, phases[i].label, seconds(span.front().start_ns), seconds(span.back().end_ns),
                            c.seconds(), {}};
        for (size_t k : index) ob.x.push_back(est[k]);
        out.push_back(std::move(ob));
    }
    return out;
}

std::optional<double> predicted_seconds(const std::vector<double>& cost, const std::vector<std::optional<double>>& x) {
    double t = 0;
    for (size_t i = 0; i < cost.size(); ++i) {
        if (!x[i]) return std::nullopt;
        t += cost[i] * *x[i];
    }
    return t;
}

Calibration fit_machine(const std::vector<Dataset>& sets, const std::vector<std::string>& paths,
                        const PhaseParams& p) {
    auto names = regressors(sets);
    if (names.empty())
        throw std::runtime_error("--calibrate: the profiles have no events besides time and the scheduler's to fit "
                                 "(record e.g. instructions, cache-misses or page-faults)");
    std::vector<std::pair<size_t, PhaseObservation>> used;
    for (size_t s = 0; s < sets.size(); ++s)
        for (auto& ob : observe(sets[s], names, p)) {
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
    std::vector<double> scale(cols, 0.0), a, b;
    for (const auto& [s, ob] : used)
        for (size_t k = 0; k < cols; ++k) scale[k] = std::max(scale[k], std::abs(*ob.x[k]));
    for (const auto& [s, ob] : used) {
        for (size_t k = 0; k < cols; ++k) a.push_back(scale[k] > 0 ? *ob.x[k] / scale[k] : 0);
        b.push_back(ob.seconds);
    }
    auto solution = nnls(a, rows, cols, b);

    Calibration c;
    for (const auto& e : sets.front().events)
        if (counts_the_scheduler(e.name)) c.unfitted.push_back(e.name);
    MachineModel& m = c.model;
    m.host = sets.front().sources.front().profile.header.hostname;
    m.estimator = p.estimator;
    m.events = names;
    for (size_t k = 0; k < cols; ++k) m.seconds_per_event.push_back(scale[k] > 0 ? solution[k] / scale[k] : 0);
    m.observations = rows;
    m.profiles = paths;
    double sq = 0, rel_sq = 0;
    for (const auto& [s, ob] : used) {
        double fitted = *predicted_seconds(m.seconds_per_event, ob.x);
        sq += (fitted - ob.seconds) * (fitted - ob.seconds);
        rel_sq += std::pow((fitted - ob.seconds) / ob.seconds, 2);
        c.phases.push_back({s, ob.phase, ob.seconds, fitted});
    }
    m.rms_error_s = std::sqrt(sq / static_cast<double>(rows));
    m.rms_relative_error = std::sqrt(rel_sq / static_cast<double>(rows));
    return c;
}

}  // namespace sprof::analyze
