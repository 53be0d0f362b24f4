// sprof --inline (the default): time in inlined code belongs to the
// inlined function, as perf report --inline shows it.
#include <map>
#include <unordered_map>

#include "dataset.hpp"
#include "sprof/demangle.hpp"
#include "sprof/estimator.hpp"

namespace sprof::analyze {

void charge_inlined_code(Dataset& d) {
    // Functions by (object, symbol), as merge_profiles matches them: an
    // inlined function with an out-of-line copy in the object is that copy.
    std::map<std::pair<std::string, std::string>, uint32_t> by_name;
    for (uint32_t f = 0; f < d.functions.size(); ++f) by_name.try_emplace({d.functions[f].object, d.functions[f].symbol}, f);
    constexpr uint32_t kUnset = UINT32_MAX;
    // The function each location's time goes to, found when a cell first names it.
    std::vector<uint32_t> callee(d.locations.size(), kUnset);
    auto callee_of = [&](uint32_t loc) {
        if (callee[loc] != kUnset) return callee[loc];
        const SourceLocation& l = d.locations[loc];
        const SourceFrame& inner = l.frames.front();
        if (l.frames.size() == 1 || inner.symbol == kNoString) return callee[loc] = l.function;
        const std::string object = d.functions[l.function].object;
        const std::string& symbol = d.strings[inner.symbol];
        auto [it, added] = by_name.try_emplace({object, symbol}, static_cast<uint32_t>(d.functions.size()));
        if (added) d.functions.push_back({demangle(symbol), symbol, object});
        return callee[loc] = it->second;
    };
    for (Interval& iv : d.intervals) {
        if (iv.lines.empty()) continue;
        std::unordered_map<uint32_t, size_t> cell_of;  // function → its cell
        for (size_t i = 0; i < iv.cells.size(); ++i) cell_of.try_emplace(iv.cells[i].function, i);
        bool emptied = false;
        for (const LineCell& c : iv.lines) {
            const uint32_t from = d.locations[c.location].function, to = callee_of(c.location);
            auto outer = cell_of.find(from);
            if (to == from || outer == cell_of.end()) continue;  // nothing to move, or nothing to move it from
            withdraw(iv.cells[outer->second], c);
            emptied |= iv.cells[outer->second].samples == 0;
            auto [inner, added] = cell_of.try_emplace(to, iv.cells.size());
            if (added) {
                FunctionCell fresh;
                fresh.function = to;
                fresh.events.resize(d.events.size());
                iv.cells.push_back(std::move(fresh));
            }
            accumulate(iv.cells[inner->second], c);
        }
        // A function whose every sample was in inlined code has no time of its own.
        if (emptied) std::erase_if(iv.cells, [](const FunctionCell& c) { return c.samples == 0; });
    }
}

}  // namespace sprof::analyze
