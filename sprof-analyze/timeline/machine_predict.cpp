// The run time a machine model predicts for a profiled program.
#include "machine_model.hpp"

namespace sprof::analyze {

namespace {

// The phases and total of one process (or of everything merged).
Prediction predict_merged(const MachineModel& m, const Dataset& d, const PhaseParams& p) {
    auto observations = observe(d, m.events, p);
    auto with_error = [&](std::optional<double> t) {
        return t ? std::optional<double>(*t * m.rms_relative_error) : std::nullopt;
    };
    Prediction out;
    PredictedSpan& total = out.total;
    total.phase = "total";
    if (!observations.empty()) {
        total.start_s = observations.front().start_s;
        total.end_s = observations.back().end_s;
    }
    total.predicted_s = 0.0;
    for (const auto& ob : observations) {
        auto t = predicted_seconds(m.seconds_per_event, ob.x);
        out.phases.push_back({std::to_string(ob.phase), ob.label, ob.start_s, ob.end_s, ob.seconds, t, with_error(t)});
        total.measured_s += ob.seconds;
        total.predicted_s = t && total.predicted_s ? std::optional<double>(*total.predicted_s + *t) : std::nullopt;
    }
    total.error_s = with_error(total.predicted_s);
    return out;
}

}  // namespace

Prediction predict(const MachineModel& m, const Dataset& d, const PhaseParams& p) {
    Prediction out = predict_merged(m, d, p);
    for (const RankSources& r : job_ranks(d)) {
        out.ranks.push_back({r.rank, predict_merged(m, subset(d, r.sources), p).total});
        const auto& t = out.ranks.back().total.predicted_s;
        if (t && (!out.slowest || *t > *out.ranks[*out.slowest].total.predicted_s))
            out.slowest = out.ranks.size() - 1;
    }
    return out;
}

}  // namespace sprof::analyze
