#include "locality_data.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "aggregate.hpp"
#include "reuse_pieces.hpp"
#include "sprof/profile_io.hpp"

namespace sprof::analyze {

namespace {

// The samples of one source, per thread and window, weighted by the
// accesses of their window.
void add_sampled(LocalityData& out, const Source& src, uint32_t source) {
    const Locality& loc = src.profile.locality;
    std::map<std::pair<uint32_t, uint32_t>, const LocalityWindow*> windows;
    for (const LocalityWindow& w : loc.windows) {
        if (!windows.try_emplace({w.tid, w.window}, &w).second)
            throw ProfileError(fmt::format("{}: window {} of thread {} is recorded twice", src.path, w.window, w.tid));
        out.accesses += w.accesses;
        out.unseen_accesses += w.unseen_accesses;
        out.lost_records += w.lost_records;
        out.lost_allocations += w.lost_allocations;
    }

    // The tenure each sample's trigger started: same thread, same position
    // (the first recorded of a repeated one). Sorted keys, not a map: a
    // dense profile has 10^5 samples to look up.
    struct TenureKey {
        uint32_t tid;
        uint64_t position;
        uint32_t index;
        auto operator<=>(const TenureKey&) const = default;
    };
    std::vector<TenureKey> tenure_keys;
    for (size_t t = 0; t < loc.tenures.size(); ++t)
        tenure_keys.push_back({loc.tenures[t].tid, loc.tenures[t].position, static_cast<uint32_t>(t)});
    std::sort(tenure_keys.begin(), tenure_keys.end());
    const auto tenure_of = [&](uint32_t tid, uint64_t position) -> const TenureKey* {
        const auto it = std::lower_bound(tenure_keys.begin(), tenure_keys.end(), TenureKey{tid, position, 0});
        return it != tenure_keys.end() && it->tid == tid && it->position == position ? &*it : nullptr;
    };

    // The samples by thread, window and distance: the keys sorted beside
    // their indices (sorting indices through the samples missed the cache).
    struct OrderKey {
        uint32_t tid, window;
        uint64_t distance;
        size_t index;
        auto operator<=>(const OrderKey&) const = default;
    };
    std::vector<OrderKey> keys;
    keys.reserve(loc.samples.size());
    for (size_t i = 0; i < loc.samples.size(); ++i)
        keys.push_back({loc.samples[i].tid, loc.samples[i].window, loc.samples[i].distance, i});
    std::sort(keys.begin(), keys.end());
    std::vector<size_t> order;
    order.reserve(keys.size());
    for (const OrderKey& k : keys) order.push_back(k.index);
    uint64_t sampled_accesses = 0;
    for (size_t i = 0; i < order.size();) {
        const ReuseSample& head = loc.samples[order[i]];
        size_t end = i;
        while (end < order.size() && loc.samples[order[end]].tid == head.tid &&
               loc.samples[order[end]].window == head.window)
            ++end;
        auto w = windows.find({head.tid, head.window});
        if (w == windows.end())
            throw ProfileError(fmt::format("{}: a reuse sample of thread {} is in window {}, which the profile does not define",
                                           src.path, head.tid, head.window));
        const uint64_t accesses = w->second->accesses;
        if (accesses == 0)
            throw ProfileError(fmt::format("{}: window {} of thread {} has reuse samples but no accesses", src.path,
                                           head.window, head.tid));
        if (out.streams.empty() || out.streams.back().source != source || out.streams.back().tid != head.tid)
            out.streams.push_back({source, head.tid, {}, {}, {}, {}, {}});
        ReuseStream& stream = out.streams.back();
        const size_t count = end - i;
        stream.windows.push_back({accesses, stream.samples.size(), count});
        for (; i < end; ++i) {
            const ReuseSample& s = loc.samples[order[i]];
            if (s.distance == 0)
                throw ProfileError(fmt::format("{}: a reuse sample of thread {} has distance 0 (the trigger counts: "
                                               "the least distance is 1)", src.path, s.tid));
            StreamSample x{s.distance, s.position, static_cast<double>(accesses) / static_cast<double>(count),
                           s.sample, s.trigger, static_cast<uint32_t>(order[i])};
            if (s.position != 0) {
                out.positions = true;
                if (const TenureKey* t = tenure_of(s.tid, s.position); t && s.distance != kNoReuse) {
                    x.tenure = static_cast<uint32_t>(stream.tenures.size());
                    stream.tenures.push_back(loc.tenures[t->index]);
                    ++out.tenures;
                }
            }
            stream.samples.push_back(x);
        }
        sampled_accesses += accesses;
        out.samples += count;
    }
    uint64_t all = 0;
    for (const LocalityWindow& w : loc.windows) all += w.accesses;
    out.unsampled_accesses += all - sampled_accesses;
}

// The per-instruction counts of one source, added to those of every thread
// (the same instruction in several threads or profiles is one row).
void add_exact_instructions(ExactTotals& t, const Source& src) {
    const Locality& loc = src.profile.locality;
    for (const ExactCurve& c : loc.exact) {
        if (c.detail_lines.empty()) continue;
        if (t.detail_lines.empty()) t.detail_lines = c.detail_lines;
        else if (c.detail_lines != t.detail_lines)
            throw ProfileError(fmt::format("{}: the exact counts per instruction of thread {} are at other cache "
                                           "sizes than the first thread's", src.path, c.tid));
    }
    std::map<std::pair<uint32_t, uint64_t>, size_t> at;  // instruction → its entry in t.instructions
    for (size_t i = 0; i < t.instructions.size(); ++i) at[{t.instructions[i].pc.function, t.instructions[i].pc.address}] = i;
    for (const ExactInstruction& e : loc.exact_instructions) {
        if (e.at.size() != t.detail_lines.size())
            throw ProfileError(fmt::format("{}: an instruction of thread {} is counted at {} sizes, not the {} "
                                           "detail sizes", src.path, e.tid, e.at.size(), t.detail_lines.size()));
        auto [it, added] = at.try_emplace({e.pc.function, e.pc.address}, t.instructions.size());
        if (added) t.instructions.push_back({0, e.pc, false, 0, std::vector<ExactUse>(e.at.size())});
        ExactInstruction& sum = t.instructions[it->second];
        sum.write = sum.write || e.write;
        sum.accesses += e.accesses;
        for (size_t k = 0; k < e.at.size(); ++k) {
            sum.at[k].misses += e.at[k].misses;
            sum.at[k].used_bytes += e.at[k].used_bytes;
            sum.at[k].bytes += e.at[k].bytes;
        }
    }
}

// The exact counts of one source, added to the totals of every thread.
void add_exact(LocalityData& out, const Source& src, bool& have_curve) {
    ExactTotals& t = out.totals;
    for (const ExactCurve& c : src.profile.locality.exact) {
        if (c.lru_misses.size() != c.lines.size() || c.random_misses.size() != c.random_lines.size())
            throw ProfileError(fmt::format("{}: the exact curve of thread {} has a miss count per size missing",
                                           src.path, c.tid));
        if (!have_curve) {
            t.lines = c.lines;
            t.random_lines = c.random_lines;
            t.lru_misses.assign(c.lines.size(), 0);
            t.random_misses.assign(c.random_lines.size(), 0);
            have_curve = true;
        } else if (c.lines != t.lines || c.random_lines != t.random_lines) {
            throw ProfileError(fmt::format("{}: the exact curve of thread {} counts at other cache sizes than "
                                           "the first thread's", src.path, c.tid));
        }
        t.accesses += c.accesses;
        ++out.threads;
        for (size_t k = 0; k < c.lines.size(); ++k) t.lru_misses[k] += c.lru_misses[k];
        for (size_t k = 0; k < c.random_lines.size(); ++k) t.random_misses[k] += c.random_misses[k];
    }
    out.accesses = t.accesses;
    add_exact_instructions(t, src);
    std::unordered_map<uint32_t, size_t> at;  // Dataset function → its entry in t.functions
    for (size_t i = 0; i < t.functions.size(); ++i) at[t.functions[i].function] = i;
    for (const ExactFunction& f : src.profile.locality.exact_functions) {
        if (f.lru_misses.size() != t.lines.size())
            throw ProfileError(fmt::format("{}: the exact counts of a function of thread {} have {} sizes, its "
                                           "curve {}", src.path, f.tid, f.lru_misses.size(), t.lines.size()));
        auto [it, added] = at.try_emplace(f.function, t.functions.size());
        if (added) t.functions.push_back({0, f.function, 0, std::vector<uint64_t>(t.lines.size(), 0)});
        ExactFunction& sum = t.functions[it->second];
        sum.accesses += f.accesses;
        for (size_t k = 0; k < f.lru_misses.size(); ++k) sum.lru_misses[k] += f.lru_misses[k];
    }
}

}  // namespace

LocalityData locality_data(const Dataset& d) {
    LocalityData out;
    bool have_curve = false;
    for (uint32_t si = 0; si < d.sources.size(); ++si) {
        const Source& src = d.sources[si];
        const LocalityRun& run = src.profile.locality.run;
        if (!run.present)
            throw ProfileError(src.path + ": has no locality records: build the program with sprof-cc and run it "
                               "under sprof_lib --locality");
        if (run.mode != "sampled" && run.mode != "exact")
            throw ProfileError(fmt::format("{}: unknown locality mode '{}' (sampled or exact)", src.path, run.mode));
        if (!std::has_single_bit(run.line_size))
            throw ProfileError(fmt::format("{}: cache line size {} is not a power of two", src.path, run.line_size));
        const bool exact = run.mode == "exact";
        if (si == 0) {
            out.exact = exact;
            out.line_size = run.line_size;
            out.sample_period = run.sample_period;
        } else if (exact != out.exact || run.line_size != out.line_size) {
            throw ProfileError(fmt::format("{}: locality collected {} with {}-byte lines cannot be combined with {} "
                                           "({} with {}-byte lines)", src.path, run.mode, run.line_size,
                                           d.sources[0].path, d.sources[0].profile.locality.run.mode,
                                           out.line_size));
        }
        if (exact) add_exact(out, src, have_curve);
        else add_sampled(out, src, si);
    }
    if (!out.exact) out.threads = out.streams.size();
    for (ReuseStream& s : out.streams) cut_into_pieces(s);
    if (!out.exact && out.samples == 0)
        throw ProfileError(fmt::format("{}: no reuse samples in {} accesses: sample more often "
                                       "(sprof_lib --locality=RATE)", d.sources.at(0).path, out.accesses));
    if (out.exact && !have_curve)
        throw ProfileError(d.sources.at(0).path + ": the exact locality run recorded no miss counts");
    return out;
}

void require_sampled(const Dataset& d, const LocalityData& l, const std::string& what, const std::string& view) {
    if (l.exact)
        throw ProfileError(fmt::format("{}: an exact run records no {}: {} needs a sampled run (sprof_lib --locality)",
                                       d.sources.at(0).path, what, view));
}

const ReuseSample& sample_record(const Dataset& d, const ReuseStream& s, const StreamSample& x) {
    return d.sources[s.source].profile.locality.samples[x.record];
}

std::vector<UnseenObject> uninstrumented_objects(const Dataset& d, const LocalityData& l, double min_share) {
    std::unordered_map<std::string, bool> seen;  // object → its accesses reached the records
    auto saw = [&](uint32_t f) {
        if (f < d.functions.size()) seen[d.functions[f].object] = true;
    };
    for (const ReuseStream& s : l.streams)
        for (const StreamSample& sample : s.samples) {
            saw(sample.sample.function);
            saw(sample.trigger.function);
        }
    for (const ExactFunction& f : l.totals.functions)
        if (f.accesses) saw(f.function);

    const std::vector<uint32_t> intervals = all_intervals(d);
    const std::vector<Counts> per_function = by_function(d, intervals);
    std::map<std::string, uint64_t> time_ns;
    uint64_t all_ns = 0;
    for (size_t f = 0; f < per_function.size(); ++f) {
        all_ns += per_function[f].time_ns;
        if (!d.functions[f].object.empty()) time_ns[d.functions[f].object] += per_function[f].time_ns;
    }
    std::vector<UnseenObject> out;
    // sprof's own hooks run in these: their time is what the instrumentation
    // costs (bench/locality_overhead.py), not code the records miss.
    const auto runtime = [](const std::string& object) {
        const std::string name = object_basename(object);
        return name == "libsprof_rt.so" || name == "libsprof_access.so";
    };
    for (const auto& [object, ns] : time_ns) {
        if (runtime(object)) continue;
        const double share = all_ns ? static_cast<double>(ns) / static_cast<double>(all_ns) : 0;
        if (share >= min_share && !seen.count(object)) out.push_back({object, share});
    }
    std::sort(out.begin(), out.end(), [](const UnseenObject& a, const UnseenObject& b) { return a.time_share > b.time_share; });
    return out;
}

void cut_into_pieces(ReuseStream& s) {
    s.pieces = {0};
    s.piece_kinds = {0};
    if (!s.positioned()) return;
    const size_t n = s.samples.size();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.samples[a].position < s.samples[b].position; });
    const auto position = [&](size_t i) { return s.samples[order[i]].position; };
    // Two samples at one position (a damaged profile): no place to cut between them.
    for (size_t i = 1; i < n; ++i)
        if (position(i) == position(i - 1)) return;
    std::vector<uint64_t> distances(n);
    for (size_t i = 0; i < n; ++i) distances[i] = s.samples[order[i]].distance;
    const std::vector<size_t> starts = reuse_piece_starts(distances);
    if (starts.size() < 2) return;
    s.piece_kinds = reuse_piece_kinds(distances, starts);

    // A piece begins halfway between the last sample of the one before and its own first.
    for (size_t k = 1; k < starts.size(); ++k) {
        const uint64_t before = position(starts[k] - 1), own = position(starts[k]);
        s.pieces.push_back(before + (own - before) / 2 + 1);
    }
    // The stream's accesses run from 1 to the end of its last window; its
    // weight is shared by the pieces as their accesses are.
    uint64_t end = 0;
    for (const StreamWindow& w : s.windows) end += w.accesses;
    end = std::max(end, position(n - 1));
    double weight = 0;
    for (const StreamSample& x : s.samples) weight += x.weight;
    for (size_t k = 0; k < starts.size(); ++k) {
        const size_t first = starts[k], last = k + 1 < starts.size() ? starts[k + 1] : n;
        const double from = k == 0 ? 1 : static_cast<double>(s.pieces[k]);
        const double to = k + 1 < starts.size() ? static_cast<double>(s.pieces[k + 1]) : static_cast<double>(end) + 1;
        double own = 0;
        for (size_t i = first; i < last; ++i) own += s.samples[order[i]].weight;
        const double scale = weight * (to - from) / static_cast<double>(end) / own;
        for (size_t i = first; i < last; ++i) s.samples[order[i]].weight *= scale;
    }
}

}  // namespace sprof::analyze
