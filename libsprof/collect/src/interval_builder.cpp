#include "sprof/interval_builder.hpp"

#include <algorithm>
#include <cmath>

namespace sprof {

IntervalBuilder::IntervalBuilder(uint32_t tid, unsigned n_events)
    : tid_(tid), n_(n_events), last_delta_(n_events, NAN) {}

void IntervalBuilder::add(uint32_t function, const RawSample& s) {
    if (!started_) {
        // The interval starts where its first sampling interval started.
        start_ns_ = s.wall_ns > s.ref_ns ? s.wall_ns - s.ref_ns : 0;
        started_ = true;
    }
    auto [it, fresh] = cells_.try_emplace(function);
    FunctionCell& cell = it->second;
    if (fresh) {
        cell.function = function;
        cell.events.resize(n_);
    }
    ++cell.samples;
    ++samples_;
    last_ns_ = s.wall_ns;
    cell.time_ns += s.ref_ns;
    // An entry: the thread's previous sample was elsewhere (or there was
    // none), so this sampling interval began in another function.
    const bool entry = !last_function_ || *last_function_ != function;
    last_function_ = function;
    cell.entries += entry;
    for (unsigned e = 0; e < n_; ++e) {
        EventCell& ec = cell.events[e];
        double carried;
        if (s.live_mask & (1u << e)) {
            const uint64_t cover = s.coverage(e);
            const auto delta = static_cast<double>(s.delta[e]);
            const double spread = cover ? delta * delta / static_cast<double>(cover) : 0.0;
            ec.count += s.delta[e];
            ec.coverage_ns += cover;
            ec.sq += spread;
            if (entry) {
                ec.entry_count += s.delta[e];
                ec.entry_coverage_ns += cover;
                ec.entry_sq += spread;
            }
            if (cover >= s.ref_ns) {
                carried = last_delta_[e] = delta;
            } else if (2 * cover >= s.ref_ns) {
                // Live for most of the interval (the live set changed in it):
                // its own rate, scaled to the whole interval, is what carries.
                carried = last_delta_[e] = delta * static_cast<double>(s.ref_ns) / static_cast<double>(cover);
            } else {
                // Live for a sliver only: the rest is carried forward like a
                // whole uncounted interval.
                const double uncovered = static_cast<double>(s.ref_ns - cover) / static_cast<double>(s.ref_ns);
                carried = std::isnan(last_delta_[e]) ? delta : delta + last_delta_[e] * uncovered;
            }
        } else {
            carried = last_delta_[e];  // the paper's rule: same delta as when last counted
        }
        if (!std::isnan(carried)) ec.carry = std::isnan(ec.carry) ? carried : ec.carry + carried;
    }
}

Interval IntervalBuilder::take_part() {
    Interval iv;
    iv.tid = tid_;
    iv.seq = seq_;
    iv.start_ns = start_ns_;
    iv.end_ns = std::max(last_ns_, start_ns_);
    iv.cells.reserve(cells_.size());
    for (auto& [id, cell] : cells_) iv.cells.push_back(std::move(cell));
    std::sort(iv.cells.begin(), iv.cells.end(),
              [](const FunctionCell& a, const FunctionCell& b) { return a.function < b.function; });
    cells_.clear();
    return iv;
}

Interval IntervalBuilder::close(uint64_t end_ns) {
    Interval iv = take_part();
    iv.end_ns = std::max(end_ns, start_ns_);
    ++seq_;
    samples_ = 0;
    start_ns_ = end_ns;
    return iv;
}

}  // namespace sprof
