// --warp: workload vectors per function and per phase, as JSON.
#include "phases.hpp"
#include "reports.hpp"
#include "warp.hpp"

namespace sprof::analyze {

void report_warp(const Context& c) {
    const Dataset& d = c.data;
    const Estimator est = c.options.estimator;
    const auto names = d.event_names();
    auto per_function = by_function(d, all_intervals(d));
    auto ranked = ranked_functions(d, per_function);
    if (c.options.top > 0 && ranked.size() > c.options.top) ranked.resize(c.options.top);

    Json functions = Json::array();
    for (uint32_t f : ranked) {
        Json j = {{"function", d.functions[f].name}, {"object", d.functions[f].object}};
        j.update(to_json(load_vector(per_function[f], est), names, c.options.ci));
        functions.push_back(std::move(j));
    }
    auto rows = time_rows(d);
    Json phases = Json::array();
    auto found = find_phases(d, rows, c.rates, phase_params(c.options));
    for (size_t i = 0; i < found.size(); ++i) {
        std::span<const TimeRow> span(rows.begin() + found[i].first, rows.begin() + found[i].last);
        Json j = {{"phase", i + 1},
                  {"label", found[i].label},
                  {"start_s", seconds(span.front().start_ns)},
                  {"end_s", seconds(span.back().end_ns)}};
        j.update(to_json(load_vector(total(d, span), est), names, c.options.ci));
        phases.push_back(std::move(j));
    }
    Json doc = {{"profiles", profiles_json(d)}, {"estimator", to_string(est)}, {"events", names}};
    doc["total"] = to_json(load_vector(total(per_function, d.events.size()), est), names, c.options.ci);
    doc["functions"] = std::move(functions);
    doc["phases"] = std::move(phases);
    // A job: each rank's workload vector, for placing the ranks (tasks) on machines.
    Json ranks = Json::array();
    for (const RankSources& r : job_ranks(d)) {
        const Dataset rank = subset(d, r.sources);
        Json j = {{"rank", r.rank}};
        j.update(to_json(load_vector(total(rank, all_intervals(rank)), est), names, c.options.ci));
        ranks.push_back(std::move(j));
    }
    if (!ranks.empty()) doc["ranks"] = std::move(ranks);
    c.out << dump_json(doc, 2) << '\n';
}

}  // namespace sprof::analyze
