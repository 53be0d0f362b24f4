// --export pprof: the flat profile as pprof's profile.proto, gzip-compressed,
// as `go tool pprof` and speedscope read it. The message classes are made by
// protoc at build time from the profile.proto that Debian ships with pprof.
//
// sprof knows where each sample landed, not the call stack above it: every
// sample has one location, a leaf. Values per sample: samples, cpu (the
// reference time), and every event's estimate. A sample per source location
// where the profile has lines (its Line list: the code's own file:line in the
// innermost inlined function, then each call site out to the function's own
// line, as pprof lists inlined frames), else per function at line 0.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <zlib.h>

#include "export_file.hpp"
#include "exports.hpp"
#include "profile.pb.h"
#include "reports.hpp"

namespace sprof::analyze {

namespace {

namespace pb = perftools::profiles;

// pprof's string table: each string once, "" first (index 0 means none).
// Strings must be UTF-8; a symbol's stray bytes become U+FFFD.
class StringTable {
public:
    explicit StringTable(pb::Profile& p) : profile_(p) { index(""); }
    int64_t index(const std::string& s) {
        auto [it, added] = ids_.try_emplace(s, static_cast<int64_t>(ids_.size()));
        if (added) profile_.add_string_table(valid_utf8(s));
        return it->second;
    }

private:
    pb::Profile& profile_;
    std::unordered_map<std::string, int64_t> ids_;
};

// perf's software clocks count nanoseconds; every other event, occurrences.
std::string event_unit(const std::string& event) {
    return event == "task-clock" || event == "cpu-clock" ? "nanoseconds" : "count";
}

// pprof's values are int64: an estimate is rounded, and a hostile profile's
// absurd one saturates instead of wrapping.
int64_t as_int64(double v) {
    constexpr double kMax = 9.2e18;  // just below 2^63
    if (!(v > -kMax)) return std::isnan(v) ? 0 : -static_cast<int64_t>(kMax);
    return v >= kMax ? static_cast<int64_t>(kMax) : std::llround(v);
}

// Where samples are charged: a source location (Dataset::locations) or,
// where the profile has no lines, a function at line 0.
struct Place {
    uint32_t function = 0;  // index into Dataset::functions
    uint32_t location = kNoLocation;
    static constexpr uint32_t kNoLocation = UINT32_MAX;
};

// The gzip file format (zlib's deflate with a gzip header: window bits 16 + 15).
std::string gzip(const std::string& data) {
    if (data.size() > UINT32_MAX / 2) throw std::runtime_error("--export pprof: the profile is too large to compress");
    z_stream z{};
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("--export pprof: zlib cannot start compressing");
    std::string out(deflateBound(&z, data.size()), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) throw std::runtime_error("--export pprof: zlib cannot compress the profile");
    return out;
}

class PprofBuilder {
public:
    PprofBuilder(const Dataset& d, Estimator e) : d_(d), estimator_(e), strings_(profile_) {
        // default_sample_type is a string index ("cpu"), but speedscope reads
        // it as an index into sample_type: "cpu" is string 1 and sample type
        // 1, so both show CPU time first.
        strings_.index("cpu");
        auto type = [&](pb::ValueType* t, const std::string& name, const std::string& unit) {
            t->set_type(strings_.index(name));
            t->set_unit(strings_.index(unit));
        };
        type(profile_.add_sample_type(), "samples", "count");
        type(profile_.add_sample_type(), "cpu", "nanoseconds");
        for (const auto& e : d.events) type(profile_.add_sample_type(), e.name, event_unit(e.name));
        type(profile_.mutable_period_type(), "cpu", "nanoseconds");
        profile_.set_default_sample_type(strings_.index("cpu"));
    }

    // `estimates`: the place's share of each event (unknown: 0).
    void add_sample(const Place& place, const Counts& counts, const std::vector<std::optional<double>>& estimates) {
        pb::Sample* s = profile_.add_sample();
        s->add_location_id(location_id(place));
        s->add_value(as_int64(static_cast<double>(counts.samples)));
        s->add_value(as_int64(static_cast<double>(counts.time_ns)));
        for (const auto& v : estimates) s->add_value(v ? as_int64(*v) : 0);
    }

    // `unknown`: per event, how many of `n_functions` have an unknown estimate.
    pb::Profile finish(const std::vector<size_t>& unknown, size_t n_functions) {
        uint64_t start = UINT64_MAX, end = 0;
        for (const Source& s : d_.sources) start = std::min(start, s.profile.header.start_unix_ns);
        for (size_t i = 0; i < d_.intervals.size(); ++i)
            end = std::max(end, d_.sources[d_.interval_source[i]].profile.header.start_unix_ns + d_.intervals[i].end_ns);
        if (!d_.sources.empty()) {
            profile_.set_time_nanos(as_int64(static_cast<double>(start)));
            profile_.set_duration_nanos(end > start ? as_int64(static_cast<double>(end - start)) : 0);
            profile_.set_period(as_int64(static_cast<double>(d_.sources.front().profile.header.sample_interval_ns)));
        }
        profile_.add_comment(strings_.index(fmt::format("sprof {}: {} profile{}, estimator {}", d_.program(),
                                                        d_.sources.size(), d_.sources.size() == 1 ? "" : "s",
                                                        to_string(estimator_))));
        for (size_t k = 0; k < unknown.size(); ++k)
            if (unknown[k])
                profile_.add_comment(strings_.index(
                    fmt::format("{}: unknown for {} of {} functions (never live while they ran), written as 0",
                                d_.events[k].name, unknown[k], n_functions)));
        return std::move(profile_);
    }

private:
    uint64_t mapping_id(const std::string& object) {
        if (object.empty()) return 0;
        auto [it, added] = mappings_.try_emplace(object, profile_.mapping_size() + 1);
        if (added) {
            pb::Mapping* m = profile_.add_mapping();
            m->set_id(it->second);
            m->set_filename(strings_.index(object));
            m->set_has_functions(true);  // named already: pprof does not look for symbols
        }
        return it->second;
    }

    // A pprof function per (name, file): an inlined function's frames and
    // the function's own name the same function wherever they are.
    uint64_t function_id(const std::string& name, const std::string& system_name, const std::string& file) {
        auto [it, added] = functions_.try_emplace({name, file}, profile_.function_size() + 1);
        if (added) {
            pb::Function* fn = profile_.add_function();
            fn->set_id(it->second);
            fn->set_name(strings_.index(name));
            fn->set_system_name(strings_.index(system_name.empty() ? name : system_name));
            fn->set_filename(strings_.index(file));
        }
        return it->second;
    }

    uint64_t location_id(const Place& place) {
        const uint64_t key = (static_cast<uint64_t>(place.function) << 32) | place.location;
        auto [it, added] = locations_.try_emplace(key, profile_.location_size() + 1);
        if (!added) return it->second;
        pb::Location* loc = profile_.add_location();
        loc->set_id(it->second);
        loc->set_mapping_id(mapping_id(d_.functions[place.function].object));
        if (place.location == Place::kNoLocation) {
            const FunctionInfo& info = d_.functions[place.function];
            loc->add_line()->set_function_id(function_id(info.name, info.symbol, ""));
            return it->second;
        }
        const SourceLocation& l = d_.locations[place.location];
        for (const SourceFrame& f : l.frames) {
            const bool own = &f == &l.frames.back();
            pb::Line* line = loc->add_line();
            line->set_function_id(function_id(d_.frame_function(l, f),
                                              own ? d_.functions[l.function].symbol
                                                  : (f.symbol == kNoString ? "" : d_.strings[f.symbol]),
                                              d_.file_path(f)));
            line->set_line(f.line);
        }
        return it->second;
    }

    const Dataset& d_;
    Estimator estimator_;
    pb::Profile profile_;
    StringTable strings_;
    std::unordered_map<std::string, uint64_t> mappings_;
    std::map<std::pair<std::string, std::string>, uint64_t> functions_;
    std::unordered_map<uint64_t, uint64_t> locations_;
};

// The samples, time and events per source location of the intervals with
// line cells (a function's cells add up to its cell), per function of the
// others; in the flat profile's order (`ranked`), then by location.
std::vector<std::pair<Place, Counts>> places(const Dataset& d, const std::vector<uint32_t>& ranked) {
    const size_t n = d.events.size();
    std::map<uint32_t, Counts> by_location;
    std::vector<uint32_t> without_lines;
    for (uint32_t i = 0; i < d.intervals.size(); ++i) {
        const Interval& iv = d.intervals[i];
        if (iv.lines.empty()) without_lines.push_back(i);
        for (const LineCell& c : iv.lines) by_location.try_emplace(c.location, n).first->second.add(c, d.locations[c.location].function);
    }
    const auto per_function = by_function(d, without_lines);
    std::vector<std::vector<std::pair<Place, Counts>>> of_function(d.functions.size());
    for (auto& [loc, counts] : by_location) {
        const uint32_t f = d.locations[loc].function;
        of_function[f].push_back({{.function = f, .location = loc}, std::move(counts)});
    }
    std::vector<std::pair<Place, Counts>> out;
    std::vector<bool> done(d.functions.size());
    auto add = [&](uint32_t f) {
        if (done[f]) return;
        done[f] = true;
        if (occurs(per_function[f])) out.push_back({{.function = f}, per_function[f]});
        for (auto& p : of_function[f]) out.push_back(std::move(p));
    };
    for (uint32_t f : ranked) add(f);
    // With --inline, a function whose time all went to the functions inlined
    // in it still holds the locations (their Line lists name those).
    for (uint32_t f = 0; f < d.functions.size(); ++f) add(f);
    return out;
}

}  // namespace

void export_pprof(const Context& c) {
    const Dataset& d = c.data;
    PprofBuilder pprof(d, c.options.estimator);
    const auto per_function = by_function(d, all_intervals(d));
    const auto ranked = ranked_functions(d, per_function);
    // A function's estimate is the flat report's, shared by its places
    // (conserved_estimates.hpp), so pprof's functions are the flat report's.
    const auto all_places = places(d, ranked);
    const auto whole = function_estimates(per_function, c.options.estimator);
    std::vector<FunctionPart> parts;
    for (const auto& [place, counts] : all_places) parts.push_back({place.function, &counts});
    const auto shares = split_estimates(parts, whole, c.options.estimator);
    for (size_t i = 0; i < all_places.size(); ++i)
        pprof.add_sample(all_places[i].first, all_places[i].second, values_of(shares[i]));
    // The comment on unknown estimates counts functions, as the flat report shows them.
    std::vector<size_t> unknown(d.events.size());
    for (uint32_t f : ranked)
        for (size_t k = 0; k < whole[f].size(); ++k) unknown[k] += !whole[f][k];
    const pb::Profile profile = pprof.finish(unknown, ranked.size());

    std::string encoded;
    if (!profile.SerializeToString(&encoded)) throw std::runtime_error("--export pprof: cannot encode the profile");
    const std::string compressed = gzip(encoded);
    write_export_file(c.options.export_files.at("pprof"), [&](std::ostream& out) {
        out.write(compressed.data(), static_cast<std::streamsize>(compressed.size()));
    });
}

}  // namespace sprof::analyze
