// The source-line table of one profile being written: every code address
// the session names (a sample's PC, a locality record's CodeRef) gets a row
// pointing at its source location, resolved on first sight and cached, so
// the cost of line resolution follows the number of distinct addresses
// sampled. New strings, locations and rows wait in a batch until written.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include "sprof/profile_io.hpp"
#include "sprof/source_lines.hpp"
#include "sprof/symbols.hpp"

namespace sprof {

class CodeLocations {
public:
    // The location id of `code` (as the profile names it: function id and
    // link-time address, or run-time address in an [unknown] bucket); `r`
    // is how the PC resolved. Code in no known function is at "??:0" of
    // its bucket.
    uint32_t locate(const CodeRef& code, const Resolved& r);
    // Writes what is new since the last call (one CODE_LOCATIONS record):
    // before any record that names those locations.
    void write_new(ProfileWriter& writer);
    // The process exec'd: an object's file may now be another one.
    void forget_objects() { resolver_ = SourceLineResolver(); }

private:
    uint32_t string_id(const std::string& s);
    uint32_t location_id(CodeLocation&& l);

    SourceLineResolver resolver_;
    SourceLines new_;  // not yet written
    uint32_t n_strings_ = 0, n_locations_ = 0;
    std::unordered_map<std::string, uint32_t> strings_;
    std::unordered_map<std::string, uint32_t> locations_;  // by their numbers, as bytes
    using Code = std::pair<uint32_t, uint64_t>;  // function id, address
    struct CodeHash {
        size_t operator()(const Code& c) const { return std::hash<uint64_t>()(c.second ^ uint64_t{c.first} << 48); }
    };
    std::unordered_map<Code, uint32_t, CodeHash> addresses_;  // → location id
};

}  // namespace sprof
