#include "aggregate.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace sprof::analyze {

namespace {

uint32_t whose(uint32_t mine, uint32_t theirs) {
    if (theirs == Counts::kNone || mine == theirs) return mine;
    return mine == Counts::kNone ? theirs : Counts::kSeveral;
}

// A total: its time is the threads' whole, exact (see EstimateBasis).
Counts& as_total(Counts& c) {
    c.function = Counts::kSeveral;
    return c;
}

}  // namespace

// Samples, time, entries and events by the one rule (estimator.hpp's
// accumulate); the function whose cells they are beside.
void Counts::add(const FunctionCell& c) {
    accumulate(*this, c);
    function = whose(function, c.function);
}

// A location's cell: its function's code, its entries unknown (a LINE_CELLS
// record holds none, so a line's time error is unknown).
void Counts::add(const LineCell& c, uint32_t of_function) {
    accumulate(*this, c);
    function = whose(function, of_function);
}

uint64_t lost_tick_ns(const Dataset& d, uint32_t interval) {
    return sprof::lost_tick_ns(d.sources[d.interval_source[interval]].profile.header);
}

void Counts::add(const Dataset& d, uint32_t i, const FunctionCell& c) {
    add(c);
    lost_tick_ns = std::max(lost_tick_ns, analyze::lost_tick_ns(d, i));
    tick_dither = std::max(tick_dither, d.sources[d.interval_source[i]].profile.header.tick_dither);
}

void Counts::add(const Counts& c) {
    accumulate(*this, c);
    function = whose(function, c.function);
    lost_tick_ns = std::max(lost_tick_ns, c.lost_tick_ns);
    tick_dither = std::max(tick_dither, c.tick_dither);
}

EstimateBasis Counts::basis() const {
    return {samples, time_ns, entries, function != kSeveral && function != kNone, lost_tick_ns, tick_dither};
}

std::vector<std::optional<double>> estimate_events(const Counts& c, Estimator e) {
    std::vector<std::optional<double>> out;
    out.reserve(c.events.size());
    const EstimateBasis b = c.basis();
    for (const auto& cell : c.events) out.push_back(estimate(cell, b, e));
    return out;
}

std::vector<std::optional<EstimateSpread>> estimate_spreads(const Counts& c, Estimator e) {
    std::vector<std::optional<EstimateSpread>> out;
    out.reserve(c.events.size());
    const EstimateBasis b = c.basis();
    for (const auto& cell : c.events) out.push_back(estimate_spread(cell, b, e));
    return out;
}

std::vector<TimeRow> time_rows(const Dataset& d) {
    // Row k holds the intervals with the k-th smallest sequence number: the
    // numbers order the rows, and a gap (a damaged file, seq 0xffffffff) is
    // no row. Sorting, not indexing by seq, keeps this to the intervals' count.
    std::vector<uint32_t> order(d.intervals.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return d.intervals[a].seq < d.intervals[b].seq; });
    std::vector<TimeRow> rows;
    for (size_t k = 0; k < order.size(); ++k) {
        const uint32_t i = order[k];
        const Interval& iv = d.intervals[i];
        if (k == 0 || iv.seq != d.intervals[order[k - 1]].seq) {
            rows.push_back({static_cast<uint32_t>(rows.size()), iv.start_ns, iv.end_ns, {}});
        }
        TimeRow& r = rows.back();
        r.start_ns = std::min(r.start_ns, iv.start_ns);
        r.end_ns = std::max(r.end_ns, iv.end_ns);
        r.intervals.push_back(i);
    }
    return rows;
}

std::vector<Counts> by_function(const Dataset& d, std::span<const uint32_t> intervals) {
    std::vector<Counts> out(d.functions.size(), Counts(d.events.size()));
    for (uint32_t i : intervals)
        for (const FunctionCell& c : d.intervals[i].cells) out[c.function].add(d, i, c);
    return out;
}

std::vector<Counts> by_function(const Dataset& d, std::span<const TimeRow> rows) {
    std::vector<Counts> out(d.functions.size(), Counts(d.events.size()));
    for (const TimeRow& r : rows)
        for (uint32_t i : r.intervals)
            for (const FunctionCell& c : d.intervals[i].cells) out[c.function].add(d, i, c);
    return out;
}

Counts total(const Dataset& d, std::span<const uint32_t> intervals) {
    Counts t(d.events.size());
    for (uint32_t i : intervals)
        for (const FunctionCell& c : d.intervals[i].cells) t.add(c);
    return as_total(t);
}

Counts total(const Dataset& d, std::span<const TimeRow> rows) {
    Counts t(d.events.size());
    for (const TimeRow& r : rows)
        for (uint32_t i : r.intervals)
            for (const FunctionCell& c : d.intervals[i].cells) t.add(c);
    return as_total(t);
}

Counts total(const std::vector<Counts>& per_function, size_t n_events) {
    Counts t(n_events);
    for (const auto& c : per_function) t.add(c);
    return as_total(t);
}

bool occurs(const Counts& c) {
    return c.samples > 0 || c.time_ns > 0 ||
           std::any_of(c.events.begin(), c.events.end(), [](const EventCell& e) { return e.self_sampled && e.count > 0; });
}

std::vector<uint32_t> ranked_functions(const Dataset& d, const std::vector<Counts>& per_function) {
    std::vector<uint32_t> ids;
    for (uint32_t f = 0; f < per_function.size(); ++f)
        if (occurs(per_function[f])) ids.push_back(f);
    std::sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) {
        if (per_function[a].time_ns != per_function[b].time_ns)
            return per_function[a].time_ns > per_function[b].time_ns;
        return d.functions[a].name < d.functions[b].name;
    });
    return ids;
}

std::vector<FunctionCounts> occurring_functions(const Dataset& d, std::span<const uint32_t> intervals) {
    std::vector<FunctionCounts> out;
    std::unordered_map<uint32_t, size_t> at;  // function → its entry in `out` (a row may hold thousands)
    for (uint32_t i : intervals)
        for (const FunctionCell& c : d.intervals[i].cells) {
            auto [it, added] = at.try_emplace(c.function, out.size());
            if (added) out.push_back({c.function, Counts(d.events.size())});
            out[it->second].counts.add(d, i, c);
        }
    // Cells that hold no sample, time or event of their own (a stretch's
    // uncertainty only) make no row: the flat report's rule, occurs().
    std::erase_if(out, [](const FunctionCounts& f) { return !occurs(f.counts); });
    std::sort(out.begin(), out.end(), [&](const FunctionCounts& a, const FunctionCounts& b) {
        if (a.counts.time_ns != b.counts.time_ns) return a.counts.time_ns > b.counts.time_ns;
        return d.functions[a.function].name < d.functions[b.function].name;
    });
    return out;
}

std::vector<uint32_t> all_intervals(const Dataset& d) {
    std::vector<uint32_t> ids(d.intervals.size());
    std::iota(ids.begin(), ids.end(), 0u);
    return ids;
}

}  // namespace sprof::analyze
