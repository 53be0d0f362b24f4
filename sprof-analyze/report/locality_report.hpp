// What every locality report (--mrc and the views --misses, --data, --use,
// --reuse-pairs) prints around its table: how the records were collected,
// what the model does not see, and the same as JSON.
#pragma once
#include <optional>
#include <ostream>
#include <string>

#include "dataset.hpp"
#include "locality_data.hpp"
#include "miss_ratio_curve.hpp"
#include "table.hpp"

namespace sprof::analyze {

// "LRU (StatStack)", "random replacement, exact" …
std::string model_name(const LocalityData& l, Policy p);

// 100 · part / whole; 0 when whole is 0.
double percent(double part, double whole);

// A figure a table shows as unknown when it is NaN (an average over nothing).
std::optional<double> known(double x);
Json known_json(double x);

// What the runtime dropped, in one line; none when it dropped nothing.
std::optional<std::string> dropped_note(uint64_t lost_records, uint64_t lost_allocations);

// A text report's heading: `what` (e.g. "misses per location"), the model,
// the records, what they leave out; then `notes`, one line each; then a
// blank line.
void write_locality_heading(std::ostream& out, const Dataset& d, const LocalityData& l, Policy p,
                            const std::string& what, const std::vector<std::string>& notes = {});

// {profiles, locality: {mode, policy, line size, samples, accesses, what is
// not seen}, …body}, indented, on one output.
void write_locality_json(std::ostream& out, const Dataset& d, const LocalityData& l, Policy p, Json body);

// A locality table in the chosen format: text with the heading (what,
// notes) and its names as `names` asks, CSV alone, JSON as write_locality_json's body {…meta, key: rows}.
void write_locality_table(std::ostream& out, Format format, NameStyle names, const Dataset& d, const LocalityData& l, Policy p,
                          const std::string& what, const std::vector<std::string>& notes, const Table& t,
                          const char* key, Json meta = Json::object());

// The cache sizes a view's heading names: "32 KiB (512 lines), 1 MiB (16384 lines)".
std::string cache_list(const LocalityData& l, const std::vector<uint64_t>& lines);

}  // namespace sprof::analyze
