#include "code_location.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sprof/option_values.hpp"
#include "user_code.hpp"

namespace sprof::analyze {

const char* to_string(Granularity g) {
    switch (g) {
    case Granularity::function: return "function";
    case Granularity::line: return "line";
    case Granularity::instruction: return "instruction";
    }
    return "?";
}

Granularity parse_granularity(const std::string& option, const std::string& value) {
    for (Granularity g : {Granularity::function, Granularity::line, Granularity::instruction})
        if (value == to_string(g)) return g;
    throw UsageError(option + " takes function, line or instruction, not '" + value + "'");
}

Location location_of(const Dataset& d, const CodeRef& code, Granularity g, bool user_frames) {
    const bool known = code.function != kNoFunction && code.function < d.functions.size();
    const std::string function = known ? d.functions[code.function].name : "[unknown]";
    if (g == Granularity::function) return {function, code.function, fmt::format("f{}", code.function)};
    // A line: the file and line the debug info gives the instruction (its
    // innermost frame: the code's own line, in a header when inlined from
    // one), the path as the debug info names it, so --html finds the source.
    if (g == Granularity::line)
        if (const auto at = d.code_line(code)) {
            const SourceLocation& l = d.locations[at->location];
            const SourceFrame* user = user_frames ? first_user_frame(d, l) : nullptr;
            const SourceFrame& f = user ? *user : l.frames.front();
            if (f.file != kNoString && f.line != 0) {
                std::string name = fmt::format("{}:{}", d.file_path(f), f.line);
                std::string key = "l" + name;
                return {std::move(name), code.function, std::move(key), user_frames && !user};
            }
        }
    // An instruction, and a line the profile has none for: the function and
    // the offset of the instruction in it (link-time addresses; the
    // run-time address when the function is unknown).
    const uint64_t start = known ? d.functions[code.function].start : 0;
    const uint64_t offset = code.address >= start ? code.address - start : code.address;
    return {fmt::format("{}+{:#x}", function, offset), code.function,
            fmt::format("f{}@{:x}", code.function, code.address)};
}

std::string function_name(const Dataset& d, const Location& l) {
    return l.function < d.functions.size() ? d.functions[l.function].name : std::string("[unknown]");
}

bool names_location(Granularity g) { return g != Granularity::line; }

std::string granularity_note(Granularity g) {
    switch (g) {
    case Granularity::function: return "locations: functions";
    case Granularity::line: return "locations: source lines, FILE:LINE (function+offset of the instruction where the profile has no line for it)";
    case Granularity::instruction: return "locations: instructions, function+offset";
    }
    return "";
}

uint32_t LocationIndex::of(const CodeRef& code) {
    auto [at, added] = by_code_.try_emplace({code.function, code.address}, 0);
    if (!added) return at->second;
    Location l = location_of(data_, code, granularity_, user_frames_);
    auto [named, new_location] = by_key_.try_emplace(l.key, static_cast<uint32_t>(locations_.size()));
    if (new_location) locations_.push_back(std::move(l));
    return at->second = named->second;
}

}  // namespace sprof::analyze
