// The address rows of one profile being written: every code address the
// session names (a sample's PC, a locality record's CodeRef) gets a row and
// a location of its own, in the order first seen. The collector leaves the
// location's file and line unknown: the analyzer reads them from the
// object's debug info (ProfileLineReader), as perf report does, so a
// profiled run never pays for opening debug info (tens of milliseconds for
// libc's compressed separate debug file). New rows wait in a batch until
// written.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <utility>

#include "sprof/profile_io.hpp"

namespace sprof {

class CodeLocations {
public:
    // The location id of `code` (as the profile names it: function id and
    // link-time address, or run-time address in an [unknown] bucket).
    uint32_t locate(const CodeRef& code);
    // Writes what is new since the last call (one CODE_LOCATIONS record):
    // before any record that names those locations.
    void write_new(ProfileWriter& writer);

private:
    SourceLines new_;  // not yet written
    using Code = std::pair<uint32_t, uint64_t>;  // function id, address
    struct CodeHash {
        size_t operator()(const Code& c) const { return std::hash<uint64_t>()(c.second ^ uint64_t{c.first} << 48); }
    };
    std::unordered_map<Code, uint32_t, CodeHash> addresses_;  // → location id
};

}  // namespace sprof
