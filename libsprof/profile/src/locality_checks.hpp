// What makes locality data inconsistent (docs/FORMAT.md, "Locality"): the
// writer refuses and the reader rejects exactly the same things, so a file
// the writer produced is always readable.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "sprof/profile.hpp"

namespace sprof::records {

// Each returns why the item is inconsistent, or an empty string.
std::string run_problem(const LocalityRun& run);
std::string sample_problem(const ReuseSample& s, uint32_t n_functions);
std::string curve_problem(const ExactCurve& c);
// `n_sizes`: sizes of the thread's ExactCurve.
std::string function_problem(const ExactFunction& f, size_t n_sizes, uint32_t n_functions);

}  // namespace sprof::records
