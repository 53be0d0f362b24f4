// Source lines of profiles merged into a Dataset: strings and locations
// equal across profiles become one, and a location becomes one of the
// dataset's only when a line cell or an address row names it, so the
// dataset grows with what the files use, never with a number in them.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dataset.hpp"

namespace sprof::analyze {

// The dataset's strings and locations by content, across the profiles merged.
struct SourceLineIndex {
    std::unordered_map<std::string, uint32_t> strings;
    std::unordered_map<std::string, uint32_t> locations;  // by their numbers, as bytes
    // A dataset function's symbol as a string id, interned once per
    // function, not per location (a symbol may be long).
    std::unordered_map<uint32_t, uint32_t> function_symbol;
};

// One profile's source lines, mapped into the dataset as they are named.
// The profile's tables may grow between calls (a profile read while it is
// written): ids past those seen are looked up in them as they are then.
class SourceLineMerger {
public:
    // `function` maps a FUNCTION id of the profile to the dataset's; `lines`
    // must outlive the merger.
    SourceLineMerger(Dataset& d, SourceLineIndex& index, const SourceLines& lines,
                     std::function<uint32_t(uint32_t)> function);
    // The dataset location of the profile's location `id` (a valid id).
    uint32_t location(uint32_t id);
    // Rows of the profile's address table whose function the dataset
    // already has (`mapped`: the dataset id of each profile function, or
    // UINT32_MAX; functions past its end are unmapped): the only code a
    // dataset's CodeRef can name.
    void add_addresses(const std::vector<uint32_t>& mapped);

private:
    uint32_t string(uint32_t id);
    uint32_t intern(const std::string& s);

    Dataset& d_;
    SourceLineIndex& index_;
    const SourceLines& lines_;
    std::function<uint32_t(uint32_t)> function_;
    std::vector<uint32_t> strings_, locations_;  // profile id → dataset id, or UINT32_MAX
};

}  // namespace sprof::analyze
