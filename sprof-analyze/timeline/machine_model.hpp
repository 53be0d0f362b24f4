// WARP run-time model: seconds per event on one machine, fitted to profiles
// of several programs (non-negative least squares over the programs'
// phases), and the run time it predicts for a profiled program, per phase
// and in total. Time-like events (ProfileEvent::time_like: task-clock,
// cpu-clock, TSC counts) are what is predicted — the reference time — never
// a regressor. The reports around it are in calibrate.hpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "dataset.hpp"
#include "json.hpp"
#include "phases.hpp"

namespace sprof::analyze {

struct MachineModel {
    std::string host;
    Estimator estimator = Estimator::coverage;
    std::vector<std::string> events;        // the regressors
    std::vector<double> seconds_per_event;  // indexed like `events`
    size_t observations = 0;
    double rms_error_s = 0, rms_relative_error = 0;
    std::vector<std::string> profiles;  // fitted to these
};

// One phase of a profile: its reference seconds and the estimates of some events.
struct PhaseObservation {
    size_t phase = 0;  // 1, 2, …
    std::string label;
    double start_s = 0, end_s = 0, seconds = 0;
    std::vector<std::optional<double>> x;  // indexed like the events asked for
};
// Throws runtime_error when the profile lacks one of the events.
std::vector<PhaseObservation> observe(const Dataset& d, const std::vector<std::string>& events, const PhaseParams& p);

// Σ cost·x; unknown when any x is.
std::optional<double> predicted_seconds(const std::vector<double>& cost, const std::vector<std::optional<double>>& x);

struct FittedPhase {
    size_t profile = 0;  // index into the profiles fitted to
    size_t phase = 0;
    double measured_s = 0, fitted_s = 0;
};
struct Calibration {
    MachineModel model;
    std::vector<FittedPhase> phases;  // the observations, as fitted
    std::vector<std::string> unfitted;  // events recorded but no regressor (see fit_machine)
};
// Fits a model to profiles (`sets[i]` read from `paths[i]`): every phase
// whose events are all known is an observation. Throws runtime_error when
// there is nothing to fit or too few phases.
Calibration fit_machine(const std::vector<Dataset>& sets, const std::vector<std::string>& paths,
                        const PhaseParams& p);

struct PredictedSpan {
    std::string phase;  // "1", "2" … or "total"
    std::string label;
    double start_s = 0, end_s = 0, measured_s = 0;
    std::optional<double> predicted_s, error_s;  // error: the prediction × the fit's rms relative error
};
// A rank of a job (the paper's tasks): its run time measured and predicted,
// from its own phases, for placing tasks on the machines of a calibration.
struct RankPrediction {
    int rank = 0;
    PredictedSpan total;
};
struct Prediction {
    std::vector<PredictedSpan> phases;
    PredictedSpan total;
    std::vector<RankPrediction> ranks;  // a job of two ranks or more: one each
    std::optional<size_t> slowest;      // the rank (index into ranks) predicted to take longest
};
Prediction predict(const MachineModel& m, const Dataset& d, const PhaseParams& p);

// MACHINE.json (machine_model_json.cpp). Reading needs only the seconds per
// event (and uses the rms relative error when there); throws runtime_error.
Json to_json(const MachineModel& m);
void write_machine_model(const MachineModel& m, const std::string& path);
MachineModel read_machine_model(const std::string& path);

}  // namespace sprof::analyze
