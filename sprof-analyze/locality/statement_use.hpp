// `sprof --use`: SIP's spatial and temporal use per statement, split by
// loads and stores, in LRU caches of chosen sizes.
//
// A statement's row holds the tenures of the lines it brought in: the
// misses of its accesses of one kind (a load or a store is the access that
// brought the line in). Each tenure's use is summed by UseSum
// (reuse_outcomes.hpp); spatial use = used bytes / (tenures × line size),
// temporal use = bytes / used bytes − 1.
//
// Sampled: every sample whose trigger misses in the cache (lru_misses) is a
// tenure its trigger started, weighted by the accesses the sample stands
// for; when its line was followed (TENURES), the model picks the step at
// which the cache evicts the line (tenure_state) and that step's bytes and
// chunks are the tenure's use. Samples never reused stand for cold misses
// whose tenures are not followed: they are in no row.
// Exact: the simulator's per-instruction tenures at its detail sizes
// (cold misses included), the instruction's kind its own.
#pragma once
#include <cstdint>
#include <vector>

#include "code_location.hpp"
#include "locality_data.hpp"
#include "reuse_outcomes.hpp"

namespace sprof::analyze {

struct UseParams {
    std::vector<uint64_t> lines{};  // cache sizes in lines
    Granularity by = Granularity::line;
    bool user_frames = false;  // --user-frames (location_of)
};

struct StatementUse {
    uint32_t location = 0;        // index into UseTable::locations
    bool store = false;           // the kind of the accesses that brought the lines in
    std::vector<double> misses;   // per cache: lines brought in (estimated when sampled)
    std::vector<UseSum> use;      // per cache: the tenures whose use is known
};

struct UseTable {
    std::vector<uint64_t> lines;
    uint32_t line_size = 0;
    std::vector<Location> locations;
    std::vector<StatementUse> rows;  // most misses in the first cache first
    std::vector<UseSum> total;       // per cache, every row
};

// Throws ProfileError for a sampled profile without tenures (written before
// format 1.5, or no reuse long enough to follow) and, exact, without
// per-instruction counts; std::invalid_argument for a size an exact run did
// not count.
UseTable statement_use(const Dataset& d, const LocalityData& l, const UseParams& p);

}  // namespace sprof::analyze
