#include "code_misses.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "sprof/option_values.hpp"
#include "reuse_outcomes.hpp"
#include "sprof/profile_io.hpp"

namespace sprof::analyze {

namespace {

// Rows by key, created as they are first met.
class Rows {
public:
    explicit Rows(CodeMissTable& t) : t_(t) {}
    CodeMisses& operator[](uint32_t key) {
        auto [it, added] = at_.try_emplace(key, t_.rows.size());
        if (added) t_.rows.push_back({key, 0, std::vector<double>(t_.lines.size(), 0)});
        return t_.rows[it->second];
    }

private:
    CodeMissTable& t_;
    std::unordered_map<uint32_t, size_t> at_;
};

void sort_by_misses(CodeMissTable& t) {
    std::sort(t.rows.begin(), t.rows.end(), [](const CodeMisses& a, const CodeMisses& b) {
        const double ma = a.misses.empty() ? 0 : a.misses[0], mb = b.misses.empty() ? 0 : b.misses[0];
        if (ma != mb) return ma > mb;
        if (a.accesses != b.accesses) return a.accesses > b.accesses;
        return a.key < b.key;
    });
}

CodeMissTable new_table(std::span<const uint64_t> lines) {
    CodeMissTable t;
    t.lines.assign(lines.begin(), lines.end());
    t.misses.assign(lines.size(), 0);
    return t;
}

CodeMissTable sampled_misses(const LocalityData& data, Policy policy, std::span<const uint64_t> lines,
                             const CodeKey& key) {
    CodeMissTable t = new_table(lines);
    Rows rows(t);
    visit_reuses(data, policy, lines, [&](const ReuseStream&, const StreamSample& x, std::span<const ReuseOutcome> o) {
        // The access a sample stands for is its trigger: the next access to
        // a line is a bijection from the accesses that have one onto those
        // that are not their line's first, so the triggers of evenly drawn
        // samples are evenly drawn accesses. A sample never reused stands
        // for its line's first access. Accesses and misses of a row thus
        // come from the same samples, and its misses are at most its
        // accesses (charging accesses to the sampled access instead let a
        // row's misses exceed them: a load's misses came from the samples of
        // the store before it).
        CodeMisses& row = rows[key(x.distance == kNoReuse ? x.sample : x.trigger)];
        row.accesses += x.weight;
        t.accesses += x.weight;
        for (size_t k = 0; k < o.size(); ++k) {
            row.misses[k] += x.weight * o[k].miss;
            t.misses[k] += x.weight * o[k].miss;
        }
    });
    sort_by_misses(t);
    return t;
}

void require_lru(Policy policy, const char* counts) {
    if (policy != Policy::lru)
        throw ProfileError(fmt::format("the exact run counted misses per {} for LRU only: use --policy lru", counts));
}

}  // namespace

void require_detail_sizes(const LocalityData& data, std::span<const uint64_t> lines) {
    const std::vector<uint64_t>& detail = data.totals.detail_lines;
    if (detail.empty())
        throw ProfileError("the exact run counted no misses per instruction (a profile written before format 1.5)");
    for (uint64_t c : lines) {
        if (std::find(detail.begin(), detail.end(), c) != detail.end()) continue;
        std::vector<std::string> sizes;
        for (uint64_t d : detail) sizes.push_back(format_bytes(d * data.line_size));
        throw std::invalid_argument(fmt::format("the exact run counted misses per instruction at {} only, not {}",
                                                fmt::join(sizes, ", "), format_bytes(c * data.line_size)));
    }
}

CodeMissTable code_misses(const LocalityData& data, Policy policy, std::span<const uint64_t> lines, const CodeKey& key) {
    if (!data.exact) return sampled_misses(data, policy, lines, key);
    require_lru(policy, "instruction");
    require_detail_sizes(data, lines);
    const ExactTotals& e = data.totals;
    CodeMissTable t = new_table(lines);
    t.accesses = static_cast<double>(e.accesses);
    Rows rows(t);
    for (const ExactInstruction& i : e.instructions) {
        CodeMisses& row = rows[key(i.pc)];
        row.accesses += static_cast<double>(i.accesses);
        for (size_t k = 0; k < lines.size(); ++k) {
            const size_t at = static_cast<size_t>(std::find(e.detail_lines.begin(), e.detail_lines.end(), lines[k]) -
                                                  e.detail_lines.begin());
            row.misses[k] += static_cast<double>(i.at[at].misses);
            t.misses[k] += static_cast<double>(i.at[at].misses);
        }
    }
    sort_by_misses(t);
    return t;
}

CodeMissTable function_misses(const LocalityData& data, Policy policy, std::span<const uint64_t> lines) {
    if (!data.exact) return sampled_misses(data, policy, lines, [](const CodeRef& c) { return c.function; });
    require_lru(policy, "function");
    const ExactTotals& e = data.totals;
    std::vector<size_t> at;
    for (uint64_t c : lines) {
        auto it = std::find(e.lines.begin(), e.lines.end(), c);
        if (it == e.lines.end()) throw std::invalid_argument(fmt::format("the exact run counted no cache of {} lines", c));
        at.push_back(static_cast<size_t>(it - e.lines.begin()));
    }
    CodeMissTable t = new_table(lines);
    t.accesses = static_cast<double>(e.accesses);
    for (size_t k = 0; k < at.size(); ++k) t.misses[k] = static_cast<double>(e.lru_misses[at[k]]);
    for (const ExactFunction& f : e.functions) {
        CodeMisses row{f.function, static_cast<double>(f.accesses), {}};
        for (size_t k : at) row.misses.push_back(static_cast<double>(f.lru_misses[k]));
        t.rows.push_back(std::move(row));
    }
    sort_by_misses(t);
    return t;
}

LocationMisses location_misses(const Dataset& d, const LocalityData& l, const LocationMissParams& p) {
    LocationIndex index(d, p.by, p.user_frames);
    LocationMisses out;
    out.table = code_misses(l, Policy::lru, p.lines, [&](const CodeRef& c) { return index.of(c); });
    for (uint32_t i = 0; i < index.size(); ++i) out.locations.push_back(index[i]);
    return out;
}

}  // namespace sprof::analyze
