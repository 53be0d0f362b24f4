// Reading the locality records (format 1.3 and 1.5, docs/FORMAT.md) into
// Profile::locality: the parts of a window, of a thread's exact curve and of
// a function's exact counts are added up where the first part stood.
#pragma once
#include <cstdint>
#include <optional>
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
    void read_samples(records::Decoder& d, Profile& p, size_t entry, std::optional<uint32_t> wide_count = {});
    void read_tenures(records::Decoder& d, Locality& loc);
    void read_data_object(records::Decoder& d, Profile& p);
    void read_curve(records::Decoder& d, Locality& loc);
    void read_functions(records::Decoder& d, Profile& p);
    void read_instructions(records::Decoder& d, Profile& p);

    struct InstructionKey {
        uint32_t tid, function;
        uint64_t address;
        bool operator==(const InstructionKey&) const = default;
    };
    struct InstructionHash {
        size_t operator()(const InstructionKey& k) const noexcept {
            return std::hash<uint64_t>()(k.address * 0x9e3779b97f4a7c15ull ^ (uint64_t{k.tid} << 32 | k.function));
        }
    };

    // Indexes into Profile::locality's vectors; they grow with the records
    // read, never with a number in them.
    std::unordered_map<uint64_t, size_t> window_at_;    // (tid, window) → windows[]
    std::unordered_map<uint32_t, size_t> curve_at_;     // tid → exact[]
    std::unordered_map<uint64_t, size_t> function_at_;  // (tid, function) → exact_functions[]
    std::unordered_map<InstructionKey, size_t, InstructionHash> instruction_at_;  // → exact_instructions[]
};

}  // namespace sprof
