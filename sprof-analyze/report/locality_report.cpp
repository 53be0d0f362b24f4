#include "locality_report.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sprof/option_values.hpp"
#include "reports.hpp"

namespace sprof::analyze {

std::string model_name(const LocalityData& l, Policy p) {
    if (l.exact) return p == Policy::lru ? "LRU, exact" : "random replacement, exact";
    return p == Policy::lru ? "LRU (StatStack)" : "random replacement (StatCache)";
}

double percent(double part, double whole) { return whole > 0 ? 100 * part / whole : 0; }

std::optional<double> known(double x) { return std::isnan(x) ? std::nullopt : std::optional<double>(x); }

Json known_json(double x) { return std::isnan(x) ? Json() : Json(x); }

std::optional<std::string> dropped_note(uint64_t lost_records, uint64_t lost_allocations) {
    if (lost_records == 0 && lost_allocations == 0) return std::nullopt;
    return fmt::format("the runtime dropped {} locality records (samples, tenures, windows) and {} allocations "
                       "(no memory for its queues): they are not in the model",
                       lost_records, lost_allocations);
}

void write_locality_heading(std::ostream& out, const Dataset& d, const LocalityData& l, Policy p,
                            const std::string& what, const std::vector<std::string>& notes) {
    out << fmt::format("{}: {} of a fully associative cache per thread, {}, {}-byte lines\n",
                       d.program().empty() ? "sprof" : d.program(), what, model_name(l, p), l.line_size);
    if (l.exact) out << fmt::format("  exact: every one of {} accesses simulated, {} thread(s)\n", l.accesses, l.threads);
    else
        out << fmt::format("  sampled: {} reuse samples of {} accesses (1 in {}), {} thread(s)\n", l.samples,
                           l.accesses, l.sample_period, l.threads);
    if (l.unseen_accesses)
        out << fmt::format("  {} more accesses ({:.1f} %) were not instrumented (memcpy, memset, str* in libc): "
                           "not in the model\n", l.unseen_accesses,
                           percent(static_cast<double>(l.unseen_accesses),
                                   static_cast<double>(l.accesses + l.unseen_accesses)));
    if (const auto dropped = dropped_note(l.lost_records, l.lost_allocations)) out << "  " << *dropped << '\n';
    for (const UnseenObject& o : uninstrumented_objects(d, l))
        out << fmt::format("  {} took {:.1f} % of the CPU time, but none of its accesses were seen: not built "
                           "with sprof-cc, not in the model\n", object_basename(o.object), 100 * o.time_share);
    if (l.unsampled_accesses)
        out << fmt::format("  {} accesses ({:.1f} %) fell in windows without a sample: not in the model\n",
                           l.unsampled_accesses,
                           percent(static_cast<double>(l.unsampled_accesses), static_cast<double>(l.accesses)));
    for (const std::string& n : notes) out << "  " << n << '\n';
    out << '\n';
}

void write_locality_json(std::ostream& out, const Dataset& d, const LocalityData& l, Policy p, Json body) {
    Json unseen_objects = Json::array();
    for (const UnseenObject& o : uninstrumented_objects(d, l))
        unseen_objects.push_back({{"object", o.object}, {"time_share", o.time_share}});
    Json doc = {{"profiles", profiles_json(d)},
                {"locality",
                 {{"mode", l.exact ? "exact" : "sampled"},
                  {"policy", to_string(p)},
                  {"line_size", l.line_size},
                  {"sample_period", l.sample_period},
                  {"threads", l.threads},
                  {"samples", l.samples},
                  {"accesses", l.accesses},
                  {"unseen_accesses", l.unseen_accesses},
                  {"lost_records", l.lost_records},
                  {"lost_allocations", l.lost_allocations},
                  {"unsampled_accesses", l.unsampled_accesses},
                  {"uninstrumented_objects", unseen_objects}}}};
    for (auto& [k, v] : body.items()) doc[k] = std::move(v);
    out << dump_json(doc, 2) << '\n';
}

void write_locality_table(std::ostream& out, Format format, NameStyle names, const Dataset& d, const LocalityData& l, Policy p,
                          const std::string& what, const std::vector<std::string>& notes, const Table& t,
                          const char* key, Json meta) {
    switch (format) {
    case Format::text:
        write_locality_heading(out, d, l, p, what, notes);
        t.write_text(out, names);
        break;
    case Format::csv: t.write_csv(out); break;
    case Format::json:
        meta[key] = t.to_json();
        write_locality_json(out, d, l, p, std::move(meta));
        break;
    }
}

std::string cache_list(const LocalityData& l, const std::vector<uint64_t>& lines) {
    std::vector<std::string> names;
    for (uint64_t c : lines) names.push_back(fmt::format("{} ({} lines)", format_bytes(c * l.line_size), c));
    return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace sprof::analyze
