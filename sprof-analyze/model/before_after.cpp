#include "before_after.hpp"

#include <unordered_map>

namespace sprof::analyze {

std::optional<double> delta(const Change& c) {
    if (!c.before || !c.after) return std::nullopt;
    return *c.after - *c.before;
}

std::optional<double> ratio(const Change& c) {
    if (!c.before || !c.after || *c.before == 0) return std::nullopt;
    return *c.after / *c.before;
}

std::optional<Bounds> delta_bounds(const Change& c) {
    if (!c.before_bounds || !c.after_bounds) return std::nullopt;
    return Bounds{c.after_bounds->low - c.before_bounds->high, c.after_bounds->high - c.before_bounds->low};
}

std::optional<bool> significant(const Change& c) {
    const auto b = delta_bounds(c);
    if (!b) return std::nullopt;
    return b->low > 0 || b->high < 0;
}

std::vector<RowMatch> match_rows(const std::vector<std::string>& before, const std::vector<std::string>& after) {
    std::unordered_map<std::string, size_t> in_after;
    for (size_t i = 0; i < after.size(); ++i) in_after.try_emplace(after[i], i);
    std::vector<RowMatch> rows;
    std::vector<bool> matched(after.size());
    for (size_t i = 0; i < before.size(); ++i) {
        RowMatch m{i, std::nullopt};
        if (auto it = in_after.find(before[i]); it != in_after.end()) {
            m.after = it->second;
            matched[it->second] = true;
        }
        rows.push_back(m);
    }
    for (size_t i = 0; i < after.size(); ++i)
        if (!matched[i]) rows.push_back({std::nullopt, i});
    return rows;
}

const char* presence(const RowMatch& m) { return !m.before ? "after" : !m.after ? "before" : "both"; }

}  // namespace sprof::analyze
