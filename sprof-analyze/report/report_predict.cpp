// --predict: the machine model's prediction for the merged profiles, per
// phase and in total.
#include <algorithm>

#include <fmt/format.h>

#include "calibrate.hpp"
#include "reports.hpp"

namespace sprof::analyze {

namespace {

void put(Table& t, const PredictedSpan& s) {
    t.new_row();
    t.put(s.phase);
    t.put(s.label);
    t.put(s.start_s);
    t.put(s.end_s);
    t.put(s.measured_s);
    t.put(s.predicted_s);
    t.put(s.error_s);
}

}  // namespace

void predict_runtime(const Options& o, std::ostream& out) {
    MachineModel m = read_machine_model(o.machine_file);
    Dataset d = load_dataset(o.profiles, {.inline_mode = o.inline_mode, .read = {.salvage = o.salvage}});
    Prediction p = predict(m, d, phase_params(o));
    Table t;
    t.add_column({Column::text, "phase"});
    t.add_column({Column::text, "label"});
    t.add_column({Column::fixed, "start_s", 3});
    t.add_column({Column::fixed, "end_s", 3});
    t.add_column({Column::fixed, "measured_s", 3});
    t.add_column({Column::fixed, "predicted_s", 3});
    t.add_column({Column::fixed, "error_s", 3});
    for (const auto& s : p.phases) put(t, s);
    put(t, p.total);
    // A job: each rank's own prediction, then the job's, which waits for its
    // slowest rank.
    for (const RankPrediction& r : p.ranks) {
        PredictedSpan row = r.total;
        row.phase = fmt::format("rank{}", r.rank);
        row.label = p.slowest && &r == &p.ranks[*p.slowest] ? "slowest" : "";
        put(t, row);
    }
    if (p.slowest) {
        PredictedSpan job = p.ranks[*p.slowest].total;
        job.phase = "job";
        job.label = fmt::format("rank{}", p.ranks[*p.slowest].rank);
        for (const RankPrediction& r : p.ranks) job.measured_s = std::max(job.measured_s, r.total.measured_s);
        put(t, job);
    }
    // The JSON header lists the default rates: the ones the phases were found with.
    RateSet rates(d.event_names(), {}, true);
    write_table({d, o, rates, out}, t, "prediction", {{"model", o.machine_file}});
}

}  // namespace sprof::analyze

