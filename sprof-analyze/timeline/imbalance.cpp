#include "imbalance.hpp"

#include <algorithm>
#include <map>

namespace sprof::analyze {
namespace {

Spread spread(std::vector<std::optional<double>> values, const std::vector<RankSummary>& ranks) {
    Spread s;
    s.per_rank = std::move(values);
    double sum = 0;
    size_t known = 0;
    for (size_t r = 0; r < s.per_rank.size(); ++r) {
        if (!s.per_rank[r]) continue;
        const double v = *s.per_rank[r];
        sum += v;
        ++known;
        if (s.slowest_rank < 0 || v > s.max) s.max = v, s.slowest_rank = ranks[r].rank;
    }
    // A rank where the function never ran did none of its work: it counts as 0
    // in the mean. A rank whose event is unknown (never counted) is left out.
    if (known) s.mean = sum / static_cast<double>(known);
    if (s.mean > 0) s.max_over_mean = s.max / s.mean;
    return s;
}

// One row from each rank's cells (null: the function never ran there) and
// their estimates.
ImbalanceRow make_row(std::optional<uint32_t> function, const std::vector<const Counts*>& per_rank,
                      const std::vector<const Estimates*>& estimates, const std::vector<RankSummary>& ranks,
                      size_t n_events) {
    ImbalanceRow row;
    row.function = function;
    std::vector<std::optional<double>> time;
    std::vector<std::vector<std::optional<double>>> events(n_events);
    for (size_t r = 0; r < per_rank.size(); ++r) {
        if (!per_rank[r]) {  // the function never ran on this rank
            time.push_back(0.0);
            for (auto& ev : events) ev.push_back(0.0);
            continue;
        }
        time.push_back(per_rank[r]->seconds());
        const auto values = values_of(*estimates[r]);
        for (size_t k = 0; k < n_events; ++k) events[k].push_back(values[k]);
    }
    row.time_s = spread(std::move(time), ranks);
    for (auto& ev : events) row.events.push_back(spread(std::move(ev), ranks));
    return row;
}

}  // namespace

Imbalance imbalance(const Dataset& d, const ImbalanceParams& params) {
    Imbalance out;
    std::map<int, size_t> slot_of_rank;
    for (const RankSources& group : group_by_rank(d)) {
        RankSummary r;
        r.rank = group.rank;
        r.sources = group.sources;
        r.total = Counts(d.events.size());
        for (uint32_t s : group.sources) {
            const Profile& p = d.sources[s].profile;
            r.host = p.header.hostname;
            out.ranks_expected = std::max(out.ranks_expected, static_cast<int>(p.header.ranks));
            if (!p.end.present || p.end.how == EndHow::signal || p.end.how == EndHow::detached) r.complete = false;
        }
        slot_of_rank[r.rank] = out.ranks.size();
        out.ranks.push_back(std::move(r));
    }
    for (int rank = 0; rank < out.ranks_expected; ++rank)
        if (!slot_of_rank.contains(rank)) out.missing_ranks.push_back(rank);

    // Per rank, per function sums over that rank's intervals, and each
    // function's flat estimate shared by the ranks it ran on, so the ranks
    // add up to the flat report (conserved_estimates.hpp).
    std::vector<std::vector<uint32_t>> intervals_of(out.ranks.size()), groups;
    std::vector<size_t> slot_of_source(d.sources.size());
    for (size_t i = 0; i < out.ranks.size(); ++i) {
        groups.push_back(out.ranks[i].sources);
        for (uint32_t s : out.ranks[i].sources) slot_of_source[s] = i;
    }
    for (uint32_t i = 0; i < d.intervals.size(); ++i)
        intervals_of[slot_of_source[d.interval_source[i]]].push_back(i);
    const auto shares = group_estimates(d, groups, params.estimator);
    std::vector<std::vector<Counts>> per_function(out.ranks.size());
    for (size_t i = 0; i < out.ranks.size(); ++i) {
        per_function[i] = by_function(d, intervals_of[i]);
        out.ranks[i].total = total(per_function[i], d.events.size());
        EventSums sums(d.events.size());
        for (const Estimates& f : shares[i]) add_estimates(sums, f);
        out.ranks[i].estimates = as_estimates(sums, estimate_spreads(out.ranks[i].total, params.estimator));
    }

    std::vector<const Counts*> totals;
    std::vector<const Estimates*> total_estimates;
    for (const auto& r : out.ranks) {
        totals.push_back(&r.total);
        total_estimates.push_back(&r.estimates);
    }
    out.rows.push_back(make_row(std::nullopt, totals, total_estimates, out.ranks, d.events.size()));
    for (uint32_t f = 0; f < d.functions.size(); ++f) {
        std::vector<const Counts*> cells;
        std::vector<const Estimates*> estimates;
        bool ran = false;
        for (size_t i = 0; i < out.ranks.size(); ++i) {
            const Counts& c = per_function[i][f];
            const bool here = occurs(c);  // as group_estimates shares it
            cells.push_back(here ? &c : nullptr);
            estimates.push_back(here ? &shares[i][f] : nullptr);
            ran = ran || here;
        }
        if (ran) out.rows.push_back(make_row(f, cells, estimates, out.ranks, d.events.size()));
    }
    // The functions that hold the job back first: by their heaviest rank's time.
    std::stable_sort(out.rows.begin() + 1, out.rows.end(), [&](const auto& a, const auto& b) {
        if (a.time_s.max != b.time_s.max) return a.time_s.max > b.time_s.max;
        return d.functions[*a.function].name < d.functions[*b.function].name;
    });
    return out;
}

}  // namespace sprof::analyze
