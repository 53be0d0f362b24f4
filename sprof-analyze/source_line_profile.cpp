#include "source_line_profile.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace sprof::analyze {
namespace {

// Rows by (function, object, file, line), as they are first named.
class Rows {
public:
    explicit Rows(size_t n_events) : n_events_(n_events) {}
    size_t at(const std::string& function, const std::string& object, const SourceFrame& f) {
        auto [it, added] = index_.try_emplace(std::tuple(function, object, f.file, f.line), rows_.size());
        if (added) rows_.push_back({function, object, {kNoString, f.file, f.line}, Counts(n_events_)});
        return it->second;
    }
    LineRow& operator[](size_t i) { return rows_[i]; }
    std::vector<LineRow> take() { return std::move(rows_); }

private:
    size_t n_events_;
    std::vector<LineRow> rows_;
    std::map<std::tuple<std::string, std::string, uint32_t, uint32_t>, size_t> index_;
};

}  // namespace

LineProfile line_profile(const Dataset& d, const LineParams& p) {
    LineProfile out{{}, Counts(d.events.size())};
    Rows rows(d.events.size());
    // Each location's and function's row, found once (names are demangled strings).
    std::unordered_map<uint32_t, size_t> location_row, function_row;
    for (const Interval& iv : d.intervals) {
        for (const FunctionCell& c : iv.cells) out.total.add(c);
        if (iv.lines.empty()) {  // no source lines: each function at ??:0
            for (const FunctionCell& c : iv.cells) {
                auto [it, added] = function_row.try_emplace(c.function);
                if (added) it->second = rows.at(d.functions[c.function].name, d.functions[c.function].object, {});
                rows[it->second].counts.add(c);
            }
            continue;
        }
        for (const LineCell& c : iv.lines) {
            auto [it, added] = location_row.try_emplace(c.location);
            if (added) {
                const SourceLocation& l = d.locations[c.location];
                const SourceFrame& frame = d.shown_frame(l, p.inline_mode);
                it->second = rows.at(d.frame_function(l, frame), d.functions[l.function].object, frame);
            }
            rows[it->second].counts.add(c);
        }
    }
    out.rows = rows.take();
    if (!p.function.empty()) {
        std::erase_if(out.rows, [&](const LineRow& r) { return !names_function({r.function, {}, r.object}, p.function); });
        if (out.rows.empty())
            throw std::invalid_argument("--lines=func:" + p.function + ": no samples in a function of that name");
        // One function's lines read like its source (perf annotate).
        std::sort(out.rows.begin(), out.rows.end(), [&](const LineRow& a, const LineRow& b) {
            return std::tuple(a.function, d.file_path(a.frame), a.frame.line) <
                   std::tuple(b.function, d.file_path(b.frame), b.frame.line);
        });
        return out;
    }
    std::sort(out.rows.begin(), out.rows.end(), [&](const LineRow& a, const LineRow& b) {
        if (a.counts.time_ns != b.counts.time_ns) return a.counts.time_ns > b.counts.time_ns;
        return std::tuple(a.function, d.file_path(a.frame), a.frame.line) <
               std::tuple(b.function, d.file_path(b.frame), b.frame.line);
    });
    return out;
}

}  // namespace sprof::analyze
