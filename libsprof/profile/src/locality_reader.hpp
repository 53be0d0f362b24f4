// Reading the locality records (format 1.3, docs/FORMAT.md) into
// Profile::locality: the parts of a window, of a thread's exact curve and of
// a function's exact counts are added up where the first part stood.
#pragma once
#include <cstdint>
#include <unordered_map>

#include "profile_decoder.hpp"
#include "sprof/profile.hpp"

namespace sprof {

class LocalityReader {
public:
    // Reads one record of a locality type into p.locality; throws Corrupt.
    void read(uint32_t type, records::Decoder& d, Profile& p);

private:
    void read_window(records::Decoder& d, Locality& loc);
    void read_samples(records::Decoder& d, Profile& p);
    void read_curve(records::Decoder& d, Locality& loc);
    void read_functions(records::Decoder& d, Profile& p);

    // Indexes into Profile::locality's vectors; they grow with the records
    // read, never with a number in them.
    std::unordered_map<uint64_t, size_t> window_at_;    // (tid, window) → windows[]
    std::unordered_map<uint32_t, size_t> curve_at_;     // tid → exact[]
    std::unordered_map<uint64_t, size_t> function_at_;  // (tid, function) → exact_functions[]
};

}  // namespace sprof
