// What makes locality data inconsistent (docs/FORMAT.md, "Locality"): the
// writer refuses and the reader rejects exactly the same things, so a file
// the writer produced is always readable.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "sprof/profile.hpp"

namespace sprof::records {

// What the records before an item defined, which it may refer to.
struct Known {
    uint32_t objects = 0, functions = 0, data = 0;
};

// Each returns why the item is inconsistent, or an empty string.
std::string run_problem(const LocalityRun& run);
std::string sample_problem(const ReuseSample& s, const Known& known);
std::string tenure_problem(const Tenure& t);
std::string data_object_problem(const DataObject& o, const Known& known);
std::string curve_problem(const ExactCurve& c);
// `n_sizes`: sizes of the thread's ExactCurve.
std::string function_problem(const ExactFunction& f, size_t n_sizes, uint32_t n_functions);
// `n_detail`: detail sizes of the thread's ExactCurve.
std::string instruction_problem(const ExactInstruction& i, size_t n_detail, const Known& known);

}  // namespace sprof::records
