#include "imbalance_tables.hpp"

#include <string.h>

#include <fmt/format.h>

#include "reports.hpp"

namespace sprof::analyze {
namespace {

std::optional<double> ratio(const Spread& s) {
    return s.slowest_rank >= 0 && s.mean > 0 ? std::optional<double>(s.max_over_mean) : std::nullopt;
}

void put_rank(Table& t, int rank) {
    if (rank >= 0) t.put(static_cast<uint64_t>(rank));
    else t.put(std::optional<double>());
}

}  // namespace

Table rank_table(const Dataset& d, const Imbalance& im, bool ci) {
    Table t;
    t.add_column({Column::integer, "rank"});
    t.add_column({Column::text, "host"});
    t.add_column({Column::integer, "profiles"});
    t.add_column({Column::text, "complete"});
    t.add_column({Column::integer, "samples"});
    t.add_column({Column::fixed, "time_s", 3});
    add_event_columns(t, d, ci, {Column::general, "", 6});
    for (const RankSummary& r : im.ranks) {
        t.new_row();
        t.put(static_cast<uint64_t>(r.rank));
        t.put(r.host);
        t.put(static_cast<uint64_t>(r.sources.size()));
        t.put(std::string(r.complete ? "yes" : "no"));
        t.put(r.total.samples);
        t.put(r.total.seconds());
        put_events(t, r.total, r.estimates, ci);
    }
    return t;
}

Table spread_table(const Dataset& d, const Imbalance& im, size_t top) {
    Table t;
    t.add_column({Column::text, "function", 0, true});
    t.add_column({Column::text, "object"});
    t.add_column({Column::fixed, "mean_s", 3});
    t.add_column({Column::fixed, "max_s", 3});
    t.add_column({Column::fixed, "max_over_mean", 3});
    t.add_column({Column::integer, "slowest_rank"});
    for (const auto& ev : d.events) {
        t.add_column({Column::fixed, ev.name + "_max_over_mean", 3});
        t.add_column({Column::integer, ev.name + "_slowest_rank"});
    }
    for (const RankSummary& r : im.ranks) t.add_column({Column::fixed, fmt::format("rank{}_s", r.rank), 3});
    size_t shown = 0;
    for (const ImbalanceRow& row : im.rows) {
        if (row.function && top > 0 && shown++ >= top) break;
        t.new_row();
        t.put(row.function ? d.functions[*row.function].name : std::string("[total]"));
        t.put(row.function ? object_basename(d.functions[*row.function].object) : std::string());
        t.put(row.time_s.mean);
        t.put(row.time_s.max);
        t.put(ratio(row.time_s));
        put_rank(t, row.time_s.slowest_rank);
        for (const Spread& ev : row.events) {
            t.put(ratio(ev));
            put_rank(t, ev.slowest_rank);
        }
        for (const auto& v : row.time_s.per_rank) t.put(v);
    }
    return t;
}

std::vector<std::string> incomplete_ranks(const Dataset& d, const Imbalance& im) {
    std::vector<std::string> lines;
    for (int r : im.missing_ranks)
        lines.push_back(fmt::format("rank {} of {}: no profile (the rank never started, or wrote elsewhere)", r,
                                    im.ranks_expected));
    for (const RankSummary& r : im.ranks) {
        if (r.complete) continue;
        for (uint32_t s : r.sources) {
            const Source& src = d.sources[s];
            const ProfileEnd& end = src.profile.end;
            if (!end.present)
                lines.push_back(fmt::format("rank {}: incomplete, {} has no END record (killed by SIGKILL, or still running)",
                                            r.rank, src.path));
            else if (end.how == EndHow::detached)
                lines.push_back(fmt::format("rank {}: incomplete, {} ends where the collector detached", r.rank, src.path));
            else if (end.how == EndHow::signal)
                lines.push_back(fmt::format("rank {}: incomplete, {} ended by signal {} ({})", r.rank, src.path,
                                            end.signal, sigabbrev_np(end.signal) ? sigabbrev_np(end.signal) : "?"));
        }
    }
    return lines;
}

}  // namespace sprof::analyze
