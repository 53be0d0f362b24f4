#include "sprof/interval_builder.hpp"

#include <algorithm>
#include <cmath>

namespace sprof {

IntervalBuilder::IntervalBuilder(uint32_t tid, unsigned n_events, uint64_t lost_tick_ns, uint32_t self_sampled)
    : tid_(tid),
      n_(n_events),
      lost_tick_ns_(lost_tick_ns),
      last_rate_(n_events, NAN),
      rounding_(tid),
      self_sampled_(self_sampled) {}

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

void IntervalBuilder::add(uint32_t function, const RawSample& raw, uint32_t location, uint32_t stack) {
    const Place here{function, location, stack};
    if (!raw.tick) {
        add_record(here, raw);
        return;
    }
    if (!started_) {
        // The interval starts where its first sampling interval started.
        start_ns_ = raw.wall_ns > raw.ref_ns ? raw.wall_ns - raw.ref_ns : 0;
        started_ = true;
        for (const Record& r : before_first_tick_) add_record(r.at, r.sample);
        before_first_tick_.clear();
        before_first_tick_.shrink_to_fit();
    }
    ++samples_;
    ticks_ += ticks_in(raw.ref_ns);
    last_ns_ = raw.wall_ns;
    // An entry: the thread's previous sample was elsewhere (or there was
    // none), so this sampling interval began in another function.
    const bool entry = !last_function_ || *last_function_ != function;
    RawSample s = raw;
    if (lost_tick_ns_ && entry && last_function_) {
        const double share = lost_share(*last_function_, function, s.ref_ns);
        if (share > 0)
            charge({*last_function_, last_location_, last_stack_}, split_off(s, share), false, Charge::given_back);
    } else if (lost_tick_ns_ && !entry) {
        for (TickGaps* g : {&gaps_[function], &all_gaps_}) {
            ++g->samples;
            g->ref_ns += raw.ref_ns;
        }
    }
    charge(here, s, true, entry ? Charge::entry : Charge::inner);
    if (self_sampled_) {
        // The tick's self-sampled counts are what no record took since the
        // last one: where they happened is known only if that record was here.
        charge_sampled(cell_of(functions_, function, n_), function, s,
                       !last_record_function_ || *last_record_function_ != function);
        close_window();
    }
    last_function_ = function;
    last_location_ = location;
    last_stack_ = stack;
    last_record_function_ = function;
}

void IntervalBuilder::add_record(const Place& at, const RawSample& s) {
    const uint32_t function = at.function;
    // The time line is the ticks': records before a thread's first tick
    // wait for it, so that a thread never ticked (a main thread that starts
    // others and waits) makes no interval that spans the run; their events
    // go into its first interval (none if it never ticks, as when ticks
    // carried every event).
    if (!started_) {
        before_first_tick_.push_back({at, s});
        return;
    }
    last_ns_ = std::max(last_ns_, s.wall_ns);
    const uint32_t sampled = s.live_mask & self_sampled_;
    auto add_counts = [&](auto& cell) {
        for (unsigned e = 0; e < n_; ++e)
            if (sampled & (1u << e)) cell.events[e].count += s.delta[e];
    };
    if (sampled) {  // a record of an event rotated out makes no cell: nothing of it is counted
        FunctionCell& cell = cell_of(functions_, function, n_);
        add_counts(cell);
        if (at.location != kNoLocation) add_counts(cell_of(lines_, at.location, n_));
        if (at.stack != kNoStack) add_counts(cell_of(stacks_, at.stack, n_));
        charge_sampled(cell, function, s, false);
    }
    last_record_function_ = function;
}

void IntervalBuilder::charge_sampled(FunctionCell& cell, uint32_t function, const RawSample& s, bool ambiguous_whole) {
    const uint32_t sampled = s.live_mask & self_sampled_;
    if (!sampled) return;
    auto [it, fresh] = window_.try_emplace(function);
    if (fresh) it->second.assign(n_, 0);
    const bool entered = !last_record_function_ || *last_record_function_ != function;
    for (unsigned e = 0; e < n_; ++e) {
        if (!(sampled & (1u << e))) continue;
        it->second[e] += s.delta[e];
        if (!entered) continue;
        const uint64_t unplaced = ambiguous_whole ? s.delta[e] : std::min(s.cover_ns[e], s.delta[e]);
        cell.events[e].entry_count += unplaced;
        // They may as well be the previous record's function's: its count
        // is as uncertain by them. A function's events lie at the same place
        // in each of its calls, so the stretches it ended are all its own or
        // all not: their errors add up, not in quadrature. Its entry_sq
        // grows to the square of their sum (each part holds the growth, so
        // the parts of the interval add up to it).
        if (!last_record_function_) continue;
        auto [ended, fresh_ended] = charged_elsewhere_.try_emplace(*last_record_function_);
        if (fresh_ended) ended->second.assign(n_, 0);
        const auto before = static_cast<double>(ended->second[e]);
        ended->second[e] += unplaced;
        const auto after = static_cast<double>(ended->second[e]);
        cell_of(functions_, *last_record_function_, n_).events[e].entry_sq += after * after - before * before;
    }
}

void IntervalBuilder::close_window() {
    for (auto& [function, counts] : window_) {
        FunctionCell& cell = cell_of(functions_, function, n_);
        for (unsigned e = 0; e < n_; ++e) {
            const auto d = static_cast<double>(counts[e]);
            cell.events[e].sq += d * d;
        }
    }
    window_.clear();
}

void IntervalBuilder::add_tail(const RawSample& s) {
    if (!last_function_) return;
    ticks_ += ticks_in(s.ref_ns);
    last_ns_ = std::max(last_ns_, s.wall_ns);
    charge({*last_function_, last_location_, last_stack_}, s, false, Charge::inner);
}

uint64_t IntervalBuilder::ticks_in(uint64_t ref_ns) const {
    if (!lost_tick_ns_) return 1;
    return std::max<uint64_t>(1, std::llround(static_cast<double>(ref_ns) / static_cast<double>(lost_tick_ns_)));
}

double IntervalBuilder::drop_rate(uint32_t function) const {
    auto rate = [this](const TickGaps& g) {
        const double mean = static_cast<double>(g.ref_ns) / static_cast<double>(g.samples);
        return std::clamp(1 - static_cast<double>(lost_tick_ns_) / mean, 0.0, 0.95);
    };
    const auto it = gaps_.find(function);
    if (it != gaps_.end()) return rate(it->second);
    // A function never seen past its entry loses ticks like the thread.
    return all_gaps_.samples ? rate(all_gaps_) : 0.5;
}

double IntervalBuilder::lost_share(uint32_t previous, uint32_t function, uint64_t ref_ns) const {
    // k ticks were lost between the two samples: the boundary lies in one of
    // the k + 1 tick slots, equally likely a priori; with m of the lost ticks
    // before it (in `previous`), the loss has likelihood qp^m · qf^(k−m).
    // The previous function's expected share is E[m] ticks.
    const double x = static_cast<double>(lost_tick_ns_);
    const auto k = static_cast<long>(std::min<uint64_t>(ticks_in(ref_ns) - 1, 64));
    if (k < 1) return 0;
    const double qp = drop_rate(previous), qf = drop_rate(function);
    double weight = 0, moments = 0;
    for (long m = 0; m <= k; ++m) {
        const double w = std::pow(qp, static_cast<double>(m)) * std::pow(qf, static_cast<double>(k - m));
        weight += w;
        moments += static_cast<double>(m) * w;
    }
    // Neither loses ticks, yet ticks were lost: they fell between the two
    // (code of no function's samples); nothing to move.
    if (weight == 0) return 0;
    return std::min(1.0, moments / weight * x / static_cast<double>(ref_ns));
}

RawSample IntervalBuilder::split_off(RawSample& s, double share) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    auto take = [&](uint64_t& whole) {
        const double part = share * static_cast<double>(whole);
        auto taken = static_cast<uint64_t>(part);
        if (unit(rounding_) < part - static_cast<double>(taken)) ++taken;
        whole -= taken;
        return taken;
    };
    RawSample part = s;
    part.ref_ns = take(s.ref_ns);
    for (unsigned e = 0; e < n_; ++e) {
        part.delta[e] = self_sampled_ & (1u << e) ? 0 : take(s.delta[e]);
        part.cover_ns[e] = take(s.cover_ns[e]);
    }
    return part;
}

void IntervalBuilder::charge(const Place& at, const RawSample& s, bool counted, Charge what) {
    const bool mixed = what != Charge::inner;
    // What the sample adds to each event's carry-forward sum, the same for
    // the function's cell and the location's. Carry-forward carries a rate:
    // an event not counted in this sample is taken to have kept the rate it
    // had when last counted, over this sample's reference time (samples
    // differ in length: ticks lost in the kernel, the live set changing).
    double carried[kMaxEvents];
    for (unsigned e = 0; e < n_; ++e) {
        if (self_sampled_ & (1u << e)) {
            carried[e] = NAN;  // records, not a rate, say where its events belong
            continue;
        }
        const auto ref = static_cast<double>(s.ref_ns);
        if (s.live_mask & (1u << e)) {
            const auto cover = static_cast<double>(s.coverage(e));
            const auto delta = static_cast<double>(s.delta[e]);
            if (cover >= ref) {
                carried[e] = delta;
                if (cover > 0) last_rate_[e] = delta / cover;
            } else if (2 * cover >= ref) {
                // Live for most of the interval (the live set changed in it):
                // its own rate, scaled to the whole interval, is what carries.
                last_rate_[e] = delta / cover;
                carried[e] = last_rate_[e] * ref;
            } else {
                // Live for a sliver only: the rest is carried forward like a
                // whole uncounted interval.
                carried[e] = std::isnan(last_rate_[e]) ? delta : delta + last_rate_[e] * (ref - cover);
            }
        } else {
            carried[e] = last_rate_[e] * ref;  // the paper's rule: same rate as when last counted
        }
    }
    // The spread of the deltas and the entries' part of them go to the
    // cell that records them (a function's; a location's record holds the
    // sums only).
    auto add_to = [&](auto& cell) {
        constexpr bool spread = requires { cell.entries; };
        cell.samples += counted;
        cell.time_ns += s.ref_ns;
        if constexpr (spread) cell.entries += what == Charge::entry;
        for (unsigned e = 0; e < n_; ++e) {
            EventCell& ec = cell.events[e];
            if (s.live_mask & (1u << e)) {
                const uint64_t cover = s.coverage(e);
                ec.count += s.delta[e];
                ec.coverage_ns += cover;
                // A self-sampled event's spread and entries: charge_sampled.
                if constexpr (spread) if (self_sampled_ & (1u << e)) continue;
                if constexpr (spread) {
                    const auto delta = static_cast<double>(s.delta[e]);
                    const double sq = cover ? delta * delta / static_cast<double>(cover) : 0.0;
                    ec.sq += sq;
                    if (mixed) {
                        ec.entry_count += s.delta[e];
                        ec.entry_coverage_ns += cover;
                        ec.entry_sq += sq;
                    }
                }
            }
            if (!std::isnan(carried[e])) ec.carry = std::isnan(ec.carry) ? carried[e] : ec.carry + carried[e];
        }
    };
    add_to(cell_of(functions_, at.function, n_));
    if (at.location != kNoLocation) add_to(cell_of(lines_, at.location, n_));
    if (at.stack != kNoStack) add_to(cell_of(stacks_, at.stack, n_));
}

Interval IntervalBuilder::take_part() {
    Interval iv;
    iv.tid = tid_;
    iv.seq = seq_;
    iv.start_ns = start_ns_;
    iv.end_ns = std::max(last_ns_, start_ns_);
    iv.cells = sorted_cells<FunctionCell, &FunctionCell::function>(functions_);
    iv.lines = sorted_cells<LineCell, &LineCell::location>(lines_);
    iv.stacks = sorted_cells<StackCell, &StackCell::stack>(stacks_);
    return iv;
}

Interval IntervalBuilder::close(uint64_t end_ns) {
    Interval iv = take_part();
    iv.end_ns = std::max(end_ns, start_ns_);
    ++seq_;
    charged_elsewhere_.clear();
    samples_ = 0;
    ticks_ = 0;
    start_ns_ = end_ns;
    return iv;
}

}  // namespace sprof
