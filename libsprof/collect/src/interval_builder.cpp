#include "sprof/interval_builder.hpp"

#include <algorithm>
#include <cmath>

namespace sprof {

IntervalBuilder::IntervalBuilder(uint32_t tid, unsigned n_events)
    : tid_(tid), n_(n_events), last_delta_(n_events, NAN) {}

namespace {

// The cell of `id` in `cells`, a fresh one with n events when new.
template <class Cell>
Cell& cell_of(std::unordered_map<uint32_t, Cell>& cells, uint32_t id, unsigned n) {
    auto [it, fresh] = cells.try_emplace(id);
    if (fresh) it->second.events.resize(n);
    return it->second;
}

// The cells of a part, sorted by their id.
template <class Cell, uint32_t Cell::*id>
std::vector<Cell> sorted_cells(std::unordered_map<uint32_t, Cell>& cells) {
    std::vector<Cell> out;
    out.reserve(cells.size());
    for (auto& [key, cell] : cells) {
        cell.*id = key;
        out.push_back(std::move(cell));
    }
    std::sort(out.begin(), out.end(), [](const Cell& a, const Cell& b) { return a.*id < b.*id; });
    cells.clear();
    return out;
}

}  // namespace

void IntervalBuilder::add(uint32_t function, const RawSample& s, uint32_t location) {
    if (!started_) {
        // The interval starts where its first sampling interval started.
        start_ns_ = s.wall_ns > s.ref_ns ? s.wall_ns - s.ref_ns : 0;
        started_ = true;
    }
    ++samples_;
    last_ns_ = s.wall_ns;
    // An entry: the thread's previous sample was elsewhere (or there was
    // none), so this sampling interval began in another function.
    const bool entry = !last_function_ || *last_function_ != function;
    last_function_ = function;
    // What the sample adds to each event, the same for the function's cell
    // and the location's.
    double carried[kMaxEvents];
    for (unsigned e = 0; e < n_; ++e) {
        if (s.live_mask & (1u << e)) {
            const uint64_t cover = s.coverage(e);
            const auto delta = static_cast<double>(s.delta[e]);
            if (cover >= s.ref_ns) {
                carried[e] = last_delta_[e] = delta;
            } else if (2 * cover >= s.ref_ns) {
                // Live for most of the interval (the live set changed in it):
                // its own rate, scaled to the whole interval, is what carries.
                carried[e] = last_delta_[e] = delta * static_cast<double>(s.ref_ns) / static_cast<double>(cover);
            } else {
                // Live for a sliver only: the rest is carried forward like a
                // whole uncounted interval.
                const double uncovered = static_cast<double>(s.ref_ns - cover) / static_cast<double>(s.ref_ns);
                carried[e] = std::isnan(last_delta_[e]) ? delta : delta + last_delta_[e] * uncovered;
            }
        } else {
            carried[e] = last_delta_[e];  // the paper's rule: same delta as when last counted
        }
    }
    // The spread of the deltas and the entries' part of them go to the
    // cell that records them (a function's; a location's record holds the
    // sums only).
    auto charge = [&](auto& cell) {
        constexpr bool spread = requires { cell.entries; };
        ++cell.samples;
        cell.time_ns += s.ref_ns;
        if constexpr (spread) cell.entries += entry;
        for (unsigned e = 0; e < n_; ++e) {
            EventCell& ec = cell.events[e];
            if (s.live_mask & (1u << e)) {
                const uint64_t cover = s.coverage(e);
                ec.count += s.delta[e];
                ec.coverage_ns += cover;
                if constexpr (spread) {
                    const auto delta = static_cast<double>(s.delta[e]);
                    const double sq = cover ? delta * delta / static_cast<double>(cover) : 0.0;
                    ec.sq += sq;
                    if (entry) {
                        ec.entry_count += s.delta[e];
                        ec.entry_coverage_ns += cover;
                        ec.entry_sq += sq;
                    }
                }
            }
            if (!std::isnan(carried[e])) ec.carry = std::isnan(ec.carry) ? carried[e] : ec.carry + carried[e];
        }
    };
    charge(cell_of(functions_, function, n_));
    if (location != kNoLocation) charge(cell_of(lines_, location, n_));
}

Interval IntervalBuilder::take_part() {
    Interval iv;
    iv.tid = tid_;
    iv.seq = seq_;
    iv.start_ns = start_ns_;
    iv.end_ns = std::max(last_ns_, start_ns_);
    iv.cells = sorted_cells<FunctionCell, &FunctionCell::function>(functions_);
    iv.lines = sorted_cells<LineCell, &LineCell::location>(lines_);
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
