#include "statement_use.hpp"

#include <algorithm>
#include <map>

#include "code_misses.hpp"
#include "sprof/profile_io.hpp"

namespace sprof::analyze {

namespace {

// Rows by (location, kind), created as they are first met.
class Rows {
public:
    Rows(UseTable& t, LocationIndex& index) : t_(t), index_(index) {}
    StatementUse& at(const CodeRef& code, bool store) {
        const uint32_t location = index_.of(code);
        auto [it, added] = at_.try_emplace({location, store}, t_.rows.size());
        if (added)
            t_.rows.push_back({location, store, std::vector<double>(t_.lines.size(), 0),
                               std::vector<UseSum>(t_.lines.size())});
        return t_.rows[it->second];
    }

private:
    UseTable& t_;
    LocationIndex& index_;
    std::map<std::pair<uint32_t, bool>, size_t> at_;
};

void sampled_use(const Dataset& d, const LocalityData& l, UseTable& t, Rows& rows) {
    if (l.tenures == 0)
        throw ProfileError(d.sources.at(0).path + ": no tenures of lines recorded (a profile written before format "
                           "1.5, or no reuse long enough to miss in a 1 KiB cache)");
    visit_reuses(l, Policy::lru, t.lines, [&](const ReuseStream& s, const StreamSample& x,
                                              std::span<const ReuseOutcome> o) {
        if (x.distance == kNoReuse) return;  // a cold miss: its tenure was not followed
        StatementUse* row = nullptr;
        for (size_t k = 0; k < o.size(); ++k) {
            if (o[k].miss == 0) continue;
            if (!row) row = &rows.at(x.trigger, sample_record(d, s, x).trigger_write);
            row->misses[k] += x.weight * o[k].miss;
            if (o[k].state) row->use[k].add(*o[k].state, x.weight * o[k].miss, l.line_size);
        }
    });
}

void exact_use(const LocalityData& l, UseTable& t, Rows& rows) {
    require_detail_sizes(l, t.lines);
    const ExactTotals& e = l.totals;
    for (const ExactInstruction& i : e.instructions) {
        StatementUse* row = nullptr;
        for (size_t k = 0; k < t.lines.size(); ++k) {
            const size_t at = static_cast<size_t>(std::find(e.detail_lines.begin(), e.detail_lines.end(), t.lines[k]) -
                                                  e.detail_lines.begin());
            const ExactUse& u = i.at[at];
            if (u.misses == 0) continue;
            if (!row) row = &rows.at(i.pc, i.write);
            row->misses[k] += static_cast<double>(u.misses);
            UseSum& sum = row->use[k];
            sum.tenures += static_cast<double>(u.misses);
            sum.used_bytes += static_cast<double>(u.used_bytes);
            sum.bytes += static_cast<double>(u.bytes);
            sum.samples += u.misses;
        }
    }
}

}  // namespace

UseTable statement_use(const Dataset& d, const LocalityData& l, const UseParams& p) {
    UseTable t;
    t.lines = p.lines;
    t.line_size = l.line_size;
    LocationIndex index(d, p.by, p.user_frames);
    Rows rows(t, index);
    if (l.exact) exact_use(l, t, rows);
    else sampled_use(d, l, t, rows);
    for (uint32_t i = 0; i < index.size(); ++i) t.locations.push_back(index[i]);
    t.total.assign(t.lines.size(), {});
    for (const StatementUse& r : t.rows)
        for (size_t k = 0; k < t.lines.size(); ++k) t.total[k].add(r.use[k]);
    std::sort(t.rows.begin(), t.rows.end(), [](const StatementUse& a, const StatementUse& b) {
        if (a.misses[0] != b.misses[0]) return a.misses[0] > b.misses[0];
        return std::tie(a.location, a.store) < std::tie(b.location, b.store);
    });
    return t;
}

}  // namespace sprof::analyze
