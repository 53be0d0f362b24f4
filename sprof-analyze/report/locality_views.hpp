// The locality views — `sprof --misses`, `--use`, `--data`, `--reuse-pairs`
// — as text, CSV or JSON. The numbers come from their analyses
// (code_misses.hpp, statement_use.hpp, data_structures.hpp,
// reuse_pairs.hpp); these only print them.
#pragma once
#include <cstdint>
#include <ostream>
#include <vector>

#include "code_location.hpp"
#include "dataset.hpp"
#include "locality_data.hpp"
#include "options.hpp"
#include "table.hpp"

namespace sprof::analyze {

struct ViewParams {
    std::vector<uint64_t> caches{};  // bytes; empty: kDefaultCaches
    uint32_t line_size = 0;          // the line size expected (0: the run's)
    Granularity by = Granularity::line;
    size_t top = 0;                  // rows shown (0: all)
    Format format = Format::text;
    NameStyle names = NameStyle::collapsed;  // in text tables
    bool user_frames = false;  // a line in library code (an inlined header) is named by its user's call site
};

ViewParams view_params(const Options& o);

// The locality data of a dataset and the caches of a view, in lines,
// checked against the profile (line size, sizes of at least a line).
struct ViewInput {
    LocalityData locality;
    std::vector<uint64_t> lines;
};
ViewInput view_input(const Dataset& d, const ViewParams& p);

// Column names of the k-th cache: the first's as given ("misses"), the
// others with the size ("misses_1M").
std::string cache_column(const std::string& name, size_t k, uint64_t lines, uint32_t line_size);

// Each throws ProfileError (exit status 1) for a dataset the view cannot
// use, with one line saying why, and std::invalid_argument (exit status 2)
// for options the profile cannot answer.
void write_misses_view(const Dataset& d, const ViewParams& p, std::ostream& out);
void write_use_view(const Dataset& d, const ViewParams& p, std::ostream& out);
void write_data_view(const Dataset& d, const ViewParams& p, std::ostream& out);
void write_reuse_pairs_view(const Dataset& d, const ViewParams& p, std::ostream& out);

}  // namespace sprof::analyze
