// `sprof --data`: accesses, misses and SIP's use per data structure — a
// static variable by its symbol, heap blocks by their allocation site, a
// thread's stack, another mapping — in LRU caches of chosen sizes.
//
// Sampled profiles only (exact runs record no data objects). Each sample
// is named by the object its address lay in when it was sampled (the
// sampled access and its trigger touch one line, so one object). Per
// object: accesses = Σ weights of its samples; misses = Σ weight × miss of
// its reuses, and the cold miss a sample never reused stands for; use =
// the tenures its samples' triggers started (statement_use.hpp).
// Objects of several profiles are one when their kind and name agree (heap:
// the same allocation site).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "code_location.hpp"
#include "locality_data.hpp"
#include "reuse_outcomes.hpp"

namespace sprof::analyze {

struct DataParams {
    std::vector<uint64_t> lines{};          // cache sizes in lines
    Granularity by = Granularity::line;     // how allocation sites are named
    bool user_frames = false;               // --user-frames (location_of)
};

struct DataStructure {
    std::string name;          // symbol (demangled), heap@SITE, [stack], a mapping's path, [unknown]
    DataKind kind = DataKind::other;
    std::string object;        // static: the object file holding it
    uint64_t size = 0;         // static: bytes
    double accesses = 0;       // estimated
    std::vector<double> misses;  // per cache, estimated
    std::vector<UseSum> use;     // per cache
};

struct DataTable {
    std::vector<uint64_t> lines;
    uint32_t line_size = 0;
    double accesses = 0;
    std::vector<double> misses;        // per cache, all objects
    std::vector<DataStructure> rows;   // most misses in the first cache first
};

const char* to_string(DataKind k);  // "heap", "static", "stack", "other"

// Throws ProfileError for an exact profile and for one whose samples name no
// data object (written before format 1.5).
DataTable data_structures(const Dataset& d, const LocalityData& l, const DataParams& p);

}  // namespace sprof::analyze
