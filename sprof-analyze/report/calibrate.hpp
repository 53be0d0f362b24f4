// --calibrate and --predict: the reports of the machine model
// (machine_model.hpp). Both read their profiles themselves: calibration
// fits each profile apart, not merged.
#pragma once
#include <ostream>

#include "machine_model.hpp"
#include "options.hpp"

namespace sprof::analyze {

// Reads o.profiles, fits, writes the model to o.output, and prints the fit.
void calibrate_machine(const Options& o, std::ostream& out);

// Reads the model o.machine_file and prints its prediction for o.profiles (merged).
void predict_runtime(const Options& o, std::ostream& out);

}  // namespace sprof::analyze
