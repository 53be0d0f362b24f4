// sprof --inline: time in inlined code belongs to the inlined function, as
// perf report --inline shows inlined functions.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "dataset.hpp"
#include "sprof/demangle.hpp"
#include "sprof/estimator.hpp"

namespace sprof::analyze {
namespace {

// Inlined functions as dataset functions, found by (object, symbol) as
// merge_profiles matches functions: an inlined function with an
// out-of-line copy in the object is that copy. Every string is hashed once
// per function or per (object, symbol) pair, never once per location: names
// and paths may be long, locations many.
class InlinedFunctions {
public:
    explicit InlinedFunctions(Dataset& d) : d_(d) {
        for (uint32_t f = 0; f < d.functions.size(); ++f) by_name_.try_emplace({object_of(f), d.functions[f].symbol}, f);
    }

    // The function the time of location `loc` goes to.
    uint32_t callee(const SourceLocation& l) {
        const SourceFrame& inner = l.frames.front();
        if (l.frames.size() == 1 || inner.symbol == kNoString) return l.function;
        const uint32_t object = object_of(l.function);
        auto [known, added] = by_ids_.try_emplace(uint64_t{object} << 32 | inner.symbol);
        if (!added) return known->second;
        const std::string& symbol = d_.strings[inner.symbol];
        auto [it, fresh] = by_name_.try_emplace({object, symbol}, static_cast<uint32_t>(d_.functions.size()));
        if (fresh) d_.functions.push_back({demangle(symbol), symbol, d_.functions[l.function].object});
        return known->second = it->second;
    }

private:
    uint32_t object_of(uint32_t f) {
        auto [it, added] = function_object_.try_emplace(f);
        if (added) it->second = objects_.try_emplace(d_.functions[f].object, objects_.size()).first->second;
        return it->second;
    }

    Dataset& d_;
    std::unordered_map<std::string, uint32_t> objects_;      // object path → id
    std::unordered_map<uint32_t, uint32_t> function_object_;  // function → object id
    std::map<std::pair<uint32_t, std::string>, uint32_t> by_name_;  // (object, symbol) → function
    std::unordered_map<uint64_t, uint32_t> by_ids_;           // (object, symbol string id) → function
};

}  // namespace

void charge_inlined_code(Dataset& d) {
    InlinedFunctions inlined(d);
    auto callee_of = [&](uint32_t loc) {
        SourceLocation& l = d.locations[loc];
        if (l.callee == kNoFunction) l.callee = inlined.callee(l);
        return l.callee;
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
        // A function whose every sample was in inlined code has no time of its
        // own. (A cell may hold time without samples: ticks lost in the
        // kernel that the collector gave back to it; it stays.)
        // Nor does one left with events that its own records put there.
        if (emptied)
            std::erase_if(iv.cells, [](const FunctionCell& c) {
                return c.samples == 0 && c.time_ns == 0 &&
                       std::none_of(c.events.begin(), c.events.end(), [](const EventCell& e) { return e.count > 0; });
            });
    }
}

}  // namespace sprof::analyze
