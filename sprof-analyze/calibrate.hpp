// WARP run-time model: fit seconds per event on one machine from profiles of
// several programs (non-negative least squares over the programs' phases),
// and predict the run time of a profiled program, per phase and in total.
// Time-like events (task-clock, cpu-clock, TSC counts) are what is
// predicted — the reference time — never a regressor.
#pragma once
#include <ostream>

#include "options.hpp"

namespace sprof::analyze {

// Reads o.profiles, writes the model to o.output, and a fit summary to out.
void calibrate_machine(const Options& o, std::ostream& out);
// Reads the model o.machine_file and predicts o.profiles (merged).
void predict_runtime(const Options& o, std::ostream& out);

}  // namespace sprof::analyze
