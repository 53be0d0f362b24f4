#include "sprof/profile_lines.hpp"

#include <sys/stat.h>

#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "sprof/estimator.hpp"  // accumulate

namespace sprof {
namespace {

bool unknown(const CodeLocation& l) { return l.file == kNoString && l.line == 0 && l.inlined.empty(); }

// Strings and locations of the resolved profile, each kept once.
class LineTable {
public:
    explicit LineTable(std::vector<std::string> strings) : strings_(std::move(strings)) {
        for (uint32_t i = 0; i < strings_.size(); ++i) string_ids_.try_emplace(strings_[i], i);
    }
    uint32_t string(const std::string& s) {
        if (s.empty()) return kNoString;
        auto [it, added] = string_ids_.try_emplace(s, static_cast<uint32_t>(strings_.size()));
        if (added) strings_.push_back(s);
        return it->second;
    }
    uint32_t location(CodeLocation&& l) {
        std::string key;
        auto put = [&key](uint32_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
        for (uint32_t v : {l.function, l.file, l.line}) put(v);
        for (const InlinedCall& c : l.inlined)
            for (uint32_t v : {c.function, c.call_file, c.call_line}) put(v);
        auto [it, added] = location_ids_.try_emplace(std::move(key), static_cast<uint32_t>(locations_.size()));
        if (added) locations_.push_back(std::move(l));
        return it->second;
    }
    std::vector<std::string> take_strings() { return std::move(strings_); }
    std::vector<CodeLocation> take_locations() { return std::move(locations_); }

private:
    std::vector<std::string> strings_;
    std::unordered_map<std::string, uint32_t> string_ids_;
    std::vector<CodeLocation> locations_;
    std::unordered_map<std::string, uint32_t> location_ids_;
};

// Cells whose locations became one add up, in the order first seen.
void merge_line_cells(std::vector<LineCell>& cells) {
    std::unordered_map<uint32_t, size_t> at;
    std::vector<LineCell> merged;
    merged.reserve(cells.size());
    for (LineCell& c : cells) {
        auto [it, added] = at.try_emplace(c.location, merged.size());
        if (added) merged.push_back(std::move(c));
        else accumulate(merged[it->second], c);
    }
    cells = std::move(merged);
}

}  // namespace

ObjectLines* ProfileLineReader::lines_of(const ProfileObject& object, std::string& why) {
    const auto key = std::make_pair(object.path, object.build_id);
    if (auto it = files_.find(key); it != files_.end()) return it->second.get();
    if (auto it = unreadable_.find(key); it != unreadable_.end()) {
        why = it->second;
        return nullptr;
    }
    // Only a regular file by an absolute path: a profile names paths, and a
    // hostile one must not make the analyzer open a FIFO or a device.
    if (object.path.empty() || object.path.front() != '/') {
        unreadable_.emplace(key, "");  // [vdso], [anon]…: no file to read, nothing to tell
        return nullptr;
    }
    struct stat st;
    const bool exists = stat(object.path.c_str(), &st) == 0;
    if (!exists || !S_ISREG(st.st_mode)) {
        why = object.path + (exists ? " is not a regular file" : " is gone since the run") + ": its source lines are unknown";
        unreadable_.emplace(key, why);
        return nullptr;
    }
    auto lines = std::make_unique<ObjectLines>(object.path);
    if (object.build_id != lines->build_id() && !object.build_id.empty()) {
        why = fmt::format("{} is not the file that ran (build-id {}, profiled {}): its source lines are unknown",
                          object.path, lines->build_id().empty() ? "none" : lines->build_id(), object.build_id);
        unreadable_.emplace(key, why);
        return nullptr;
    }
    return files_.emplace(key, std::move(lines)).first->second.get();
}

void ProfileLineReader::resolve(Profile& p) {
    if (p.lines.resolved) return;
    p.lines.resolved = true;
    SourceLines& lines = p.lines;
    LineTable table(std::move(lines.strings));
    // Old location id → new; a location is resolved through the first
    // address row that names it (a collector gives each address its own).
    constexpr uint32_t kUnset = UINT32_MAX;
    std::vector<uint32_t> remap(lines.locations.size(), kUnset);
    std::vector<bool> warned(p.objects.size(), false);
    for (CodeAddress& a : lines.addresses) {
        uint32_t& to = remap[a.location];
        if (to != kUnset) {
            a.location = to;
            continue;
        }
        CodeLocation l = std::move(lines.locations[a.location]);
        const ProfileFunction& f = p.functions.at(l.function);
        // An [unknown] bucket's addresses are run-time ones: no line table knows them.
        const bool known_function = f.end > f.start && f.object < p.objects.size();
        std::string why;
        ObjectLines* object = unknown(l) && known_function ? lines_of(p.objects[f.object], why) : nullptr;
        if (!why.empty() && !warned[f.object]) {
            warned[f.object] = true;
            p.warnings.push_back(why);
        }
        if (object) {
            const SourcePosition pos = object->locate(a.code.address);
            l.file = table.string(pos.file);
            l.line = pos.line;
            a.column = pos.column;
            for (const SourcePosition::Inlined& c : pos.inlined)
                l.inlined.push_back({table.string(c.function), table.string(c.call_file), c.call_line});
        }
        to = table.location(std::move(l));
        a.location = to;
    }
    // Locations no address row names (none in a collector's profile) stay as they were.
    for (uint32_t id = 0; id < remap.size(); ++id)
        if (remap[id] == kUnset) remap[id] = table.location(std::move(lines.locations[id]));
    lines.strings = table.take_strings();
    lines.locations = table.take_locations();
    for (Interval& iv : p.intervals) {
        for (LineCell& c : iv.lines) c.location = remap[c.location];
        merge_line_cells(iv.lines);
    }
}

}  // namespace sprof
