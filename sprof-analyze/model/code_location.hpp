// What the locality views call a place in the code: a function, a source
// line or an instruction. Every view keys its rows by CodeRef and names them
// through location_of(), the one place that turns an instruction into the
// text a user reads (and the CSV `location` column carries).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "dataset.hpp"

namespace sprof::analyze {

// How finely the views group the code (`--by`).
enum class Granularity {
    function,     // the function holding the instruction
    line,         // its source line; its instruction where the profile has no line for it
    instruction,  // the instruction itself, as function+0xOFFSET
};
const char* to_string(Granularity g);
// "function", "line" or "instruction"; throws UsageError otherwise.
Granularity parse_granularity(const std::string& option, const std::string& value);

struct Location {
    std::string name;                 // "walk", "/src/walk.c:18", "walk+0x1c", "[unknown]+0x7f…"
    uint32_t function = kNoFunction;  // Dataset::functions index of the function holding it
    std::string key;                  // equal for instructions at one location, unique otherwise
    bool library = false;             // user_frames asked for, and no frame of its inline chain is the user's
};

// The location of an instruction at a granularity. A line is named
// FILE:LINE (the full path the debug info names), or as its instruction
// when the profile has no source line for it (older profiles, code without
// debug info). user_frames: a line is the innermost frame of its inline
// chain in the user's own code (user_code.hpp), so a miss in an inlined
// std::map lookup is the user's line that made it; code with no such frame
// (a library function called, not inlined: its caller needs the call path)
// stays where it is, marked `library`.
Location location_of(const Dataset& d, const CodeRef& code, Granularity g, bool user_frames = false);

// The name of the function holding a location ("[unknown]" for none).
std::string function_name(const Dataset& d, const Location& l);

// Whether a location's name holds a function's (Column::names): at
// functions and instructions, not at FILE:LINE.
bool names_location(Granularity g);

// What a report says of its locations: "locations: functions" …
std::string granularity_note(Granularity g);

// The locations of many instructions, numbered densely (0, 1, 2 …) in the
// order they are first asked for, so analyses can sum into vectors.
class LocationIndex {
public:
    LocationIndex(const Dataset& d, Granularity g, bool user_frames = false)
        : data_(d), granularity_(g), user_frames_(user_frames) {}
    uint32_t of(const CodeRef& code);
    const Location& operator[](uint32_t id) const { return locations_[id]; }
    size_t size() const { return locations_.size(); }
    Granularity granularity() const { return granularity_; }

private:
    struct RefHash {
        size_t operator()(const std::pair<uint32_t, uint64_t>& r) const {
            return std::hash<uint64_t>()(r.second * 0x9e3779b97f4a7c15ull ^ r.first);
        }
    };
    const Dataset& data_;
    Granularity granularity_;
    bool user_frames_;
    std::vector<Location> locations_;
    std::unordered_map<std::string, uint32_t> by_key_;
    std::unordered_map<std::pair<uint32_t, uint64_t>, uint32_t, RefHash> by_code_;
};

}  // namespace sprof::analyze
