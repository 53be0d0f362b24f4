#include "source_line_profile.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace sprof::analyze {
namespace {

// Rows by (function, file, line), ids all: no name is hashed or copied per
// row or location (names and paths may be long).
class Rows {
public:
    explicit Rows(size_t n_events) : n_events_(n_events) {}
    Counts& at(uint32_t function, const SourceFrame& f) {
        const auto key = std::tuple(function, f.file, f.line);
        auto [it, added] = index_.try_emplace(key, rows_.size());
        if (added) rows_.push_back({function, {kNoString, f.file, f.line}, Counts(n_events_), {}});
        return rows_[it->second].counts;
    }
    std::vector<LineRow> take() { return std::move(rows_); }

private:
    struct KeyHash {
        size_t operator()(const std::tuple<uint32_t, uint32_t, uint32_t>& k) const {
            const auto [f, file, line] = k;
            return std::hash<uint64_t>()((uint64_t{f} << 32 | file) * 0x9e3779b97f4a7c15ull ^ line);
        }
    };
    size_t n_events_;
    std::vector<LineRow> rows_;
    std::unordered_map<std::tuple<uint32_t, uint32_t, uint32_t>, size_t, KeyHash> index_;
};

// The alphabetical rank of each id `name` gives, so rows sort by integers:
// each name is compared O(n log n) times over the distinct ids, not the rows.
template <typename Name>
std::unordered_map<uint32_t, uint32_t> ranks(std::vector<uint32_t> ids, Name name) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) { return name(a) < name(b); });
    std::unordered_map<uint32_t, uint32_t> rank;
    for (uint32_t i = 0; i < ids.size(); ++i) rank.emplace(ids[i], i);
    return rank;
}

}  // namespace

LineProfile line_profile(const Dataset& d, const LineParams& p) {
    LineProfile out{{}, Counts(d.events.size())};
    Rows rows(d.events.size());
    const SourceFrame unknown;
    for (const Interval& iv : d.intervals) {
        for (const FunctionCell& c : iv.cells) out.total.add(c);
        if (iv.lines.empty()) {  // no source lines: each function at ??:0
            for (const FunctionCell& c : iv.cells) rows.at(c.function, unknown).add(c);
            continue;
        }
        for (const LineCell& c : iv.lines) {
            const SourceLocation& l = d.locations[c.location];
            rows.at(d.shown_function(l, p.inline_mode), d.shown_frame(l, p.inline_mode)).add(c, l.function);
        }
    }
    out.rows = rows.take();
    // A line the flat report would not list (a record of an event rotated
    // out, a stretch's uncertainty only: no sample, time or event of its
    // own) is no row either: every report lists what occurs() admits.
    std::erase_if(out.rows, [](const LineRow& r) { return !occurs(r.counts); });
    // Every line's share of its function's flat estimate, before any is left out.
    std::vector<FunctionPart> parts;
    for (const LineRow& r : out.rows) parts.push_back({r.function, &r.counts});
    auto shares = split_estimates(parts, function_estimates(by_function(d, all_intervals(d)), p.estimator), p.estimator);
    for (size_t i = 0; i < out.rows.size(); ++i) out.rows[i].estimates = std::move(shares[i]);
    if (!p.function.empty()) {
        std::erase_if(out.rows, [&](const LineRow& r) { return !names_function(d.functions[r.function], p.function); });
        if (out.rows.empty())
            throw std::invalid_argument("--lines=func:" + p.function + ": no samples in a function of that name");
    }
    std::vector<uint32_t> functions, files;
    for (const LineRow& r : out.rows) {
        functions.push_back(r.function);
        files.push_back(r.frame.file);
    }
    const auto function_rank = ranks(functions, [&](uint32_t f) { return std::tie(d.functions[f].name, d.functions[f].object); });
    const auto file_rank = ranks(files, [&](uint32_t f) { return d.file_path({kNoString, f, 0}); });
    auto in_source_order = [&](const LineRow& a, const LineRow& b) {
        return std::tuple(function_rank.at(a.function), file_rank.at(a.frame.file), a.frame.line) <
               std::tuple(function_rank.at(b.function), file_rank.at(b.frame.file), b.frame.line);
    };
    if (!p.function.empty()) {  // one function's lines read like its source (perf annotate)
        std::sort(out.rows.begin(), out.rows.end(), in_source_order);
        return out;
    }
    std::sort(out.rows.begin(), out.rows.end(), [&](const LineRow& a, const LineRow& b) {
        if (a.counts.time_ns != b.counts.time_ns) return a.counts.time_ns > b.counts.time_ns;
        return in_source_order(a, b);
    });
    return out;
}

}  // namespace sprof::analyze
