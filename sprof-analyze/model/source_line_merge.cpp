#include "dataset.hpp"

namespace sprof::analyze {
namespace {

constexpr uint32_t kUnmapped = UINT32_MAX;

void put(std::string& key, uint32_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); }

}  // namespace

SourceLineMerger::SourceLineMerger(Dataset& d, SourceLineIndex& index, const SourceLines& lines,
                                   std::function<uint32_t(uint32_t)> function)
    : d_(d),
      index_(index),
      lines_(lines),
      function_(std::move(function)) {}

uint32_t SourceLineMerger::intern(const std::string& s) {
    auto [it, added] = index_.strings.try_emplace(s, static_cast<uint32_t>(d_.strings.size()));
    if (added) d_.strings.push_back(s);
    return it->second;
}

uint32_t SourceLineMerger::string(uint32_t id) {
    if (id == kNoString) return kNoString;  // the reader checked every other id
    if (id >= strings_.size()) strings_.resize(lines_.strings.size(), kUnmapped);  // the profile grew
    if (strings_[id] == kUnmapped) strings_[id] = intern(lines_.strings[id]);
    return strings_[id];
}

uint32_t SourceLineMerger::location(uint32_t id) {
    if (id >= locations_.size()) locations_.resize(lines_.locations.size(), kUnmapped);  // the profile grew
    if (locations_[id] != kUnmapped) return locations_[id];
    const CodeLocation& l = lines_.locations[id];
    SourceLocation loc;
    loc.function = function_(l.function);
    // The code's own line in the innermost function; then each function at
    // the call site of the one inlined into it; the last is the symbol's.
    uint32_t file = string(l.file), line = l.line;
    for (const InlinedCall& c : l.inlined) {
        loc.frames.push_back({string(c.function), file, line});
        file = string(c.call_file);
        line = c.call_line;
    }
    auto [symbol, first] = index_.function_symbol.try_emplace(loc.function);
    if (first) symbol->second = intern(d_.functions[loc.function].symbol);
    loc.frames.push_back({symbol->second, file, line});

    std::string key;
    put(key, loc.function);
    for (const SourceFrame& f : loc.frames) {
        put(key, f.symbol);
        put(key, f.file);
        put(key, f.line);
    }
    auto [it, added] = index_.locations.try_emplace(std::move(key), static_cast<uint32_t>(d_.locations.size()));
    if (added) d_.locations.push_back(std::move(loc));
    return locations_[id] = it->second;
}

void SourceLineMerger::add_addresses(const std::vector<uint32_t>& mapped) {
    for (const CodeAddress& a : lines_.addresses) {
        const uint32_t f = a.code.function < mapped.size() ? mapped[a.code.function] : kUnmapped;
        if (f == kUnmapped) continue;
        // The first row of an address counts (a writer writes one).
        d_.code_lines.try_emplace({f, a.code.address}, CodeLine{location(a.location), a.column});
    }
}

}  // namespace sprof::analyze
