#include "call_paths.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "sprof/option_values.hpp"

namespace sprof::analyze {

void require_call_paths(const Dataset& d) {
    if (d.stacks.empty())
        throw UsageError("the profile has no call paths: record them with sprof_lib -g fp or sprof_pt -g fp "
                         "(code built with -fno-omit-frame-pointer)");
}

std::vector<Counts> stack_totals(const Dataset& d) {
    std::vector<Counts> out(d.stacks.size(), Counts(d.events.size()));
    for (uint32_t i = 0; i < d.intervals.size(); ++i) {
        const double dither = d.sources[d.interval_source[i]].profile.header.tick_dither;
        for (const StackCell& c : d.intervals[i].stacks) {
            Counts& to = out[c.stack];
            accumulate(to, c);
            to.lost_tick_ns = std::max(to.lost_tick_ns, lost_tick_ns(d, i));
            to.tick_dither = std::max(to.tick_dither, dither);
        }
    }
    return out;
}

std::vector<Counts> inclusive_totals(const Dataset& d, const std::vector<Counts>& stacks) {
    std::vector<Counts> out(d.functions.size(), Counts(d.events.size()));
    std::vector<uint32_t> on_path;
    for (size_t s = 0; s < stacks.size(); ++s) {
        on_path.clear();
        for (const CodeRef& f : d.stacks[s].frames) on_path.push_back(f.function);
        std::sort(on_path.begin(), on_path.end());
        on_path.erase(std::unique(on_path.begin(), on_path.end()), on_path.end());
        for (uint32_t f : on_path) out[f].add(stacks[s]);
    }
    return out;
}

Neighbours neighbours(const Dataset& d, const std::vector<Counts>& stacks, const std::string& name, Neighbour side) {
    std::vector<bool> named(d.functions.size());
    bool any = false;
    for (size_t f = 0; f < d.functions.size(); ++f) any |= named[f] = names_function(d.functions[f], name);
    if (!any) throw UsageError("no function '" + name + "' in the profile");
    Neighbours out{Counts(d.events.size()), {}};
    std::unordered_map<uint32_t, size_t> row_of;
    for (size_t s = 0; s < stacks.size(); ++s) {
        const std::vector<CodeRef>& frames = d.stacks[s].frames;
        // Its outermost call: recursion counts the path once.
        size_t at = frames.size();
        for (size_t i = frames.size(); i-- > 0 && at == frames.size();)
            if (named[frames[i].function]) at = i;
        if (at == frames.size()) continue;
        const size_t next = side == Neighbour::callers ? at + 1 : at - 1;  // at 0: wraps to SIZE_MAX, none
        const uint32_t f = next < frames.size() ? frames[next].function : kNoFunction;
        auto [it, fresh] = row_of.try_emplace(f, out.rows.size());
        if (fresh) out.rows.push_back({f, Counts(d.events.size())});
        out.rows[it->second].counts.add(stacks[s]);
        out.inclusive.add(stacks[s]);
    }
    std::stable_sort(out.rows.begin(), out.rows.end(),
                     [](const NeighbourRow& a, const NeighbourRow& b) { return a.counts.time_ns > b.counts.time_ns; });
    return out;
}

std::vector<FoldedPath> folded_paths(const Dataset& d, const std::vector<Counts>& stacks) {
    std::map<std::vector<uint32_t>, uint64_t> by_names;
    for (size_t s = 0; s < stacks.size(); ++s) {
        if (!stacks[s].samples) continue;
        std::vector<uint32_t> path;
        for (auto f = d.stacks[s].frames.rbegin(); f != d.stacks[s].frames.rend(); ++f) path.push_back(f->function);
        by_names[std::move(path)] += stacks[s].samples;
    }
    std::vector<FoldedPath> out;
    for (auto& [path, samples] : by_names) out.push_back({path, samples});
    return out;
}

}  // namespace sprof::analyze
