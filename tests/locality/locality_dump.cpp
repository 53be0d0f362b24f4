// locality_dump PROFILE: the locality records of a profile as JSON, function
// ids replaced by names and code addresses given their source line, for the
// integration tests' checks (the analyzer's views of them are its own).
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "sprof/profile_io.hpp"
#include "sprof/profile_lines.hpp"

using nlohmann::json;
using namespace sprof;

namespace {

// "FILE:LINE" (the file's base name) of every code address of the profile's
// source-line rows, by (function, address).
using Lines = std::map<std::pair<uint32_t, uint64_t>, std::string>;

Lines source_lines(const Profile& p) {
    Lines out;
    for (const CodeAddress& a : p.lines.addresses) {
        const CodeLocation& l = p.lines.locations[a.location];
        const std::string file = l.file == kNoString ? "??" : std::filesystem::path(p.lines.strings[l.file]).filename().string();
        out.try_emplace({a.code.function, a.code.address}, file + ":" + std::to_string(l.line));
    }
    return out;
}

// The code's function, address, and source line (null without a row).
json code(const Profile& p, const Lines& lines, const CodeRef& c) {
    auto line = lines.find({c.function, c.address});
    return {{"function", c.function == kNoFunction ? "" : p.function(c.function).name},
            {"address", c.address},
            {"line", line == lines.end() ? json(nullptr) : json(line->second)}};
}

json dump(const Profile& p) {
    const Locality& loc = p.locality;
    const Lines lines = source_lines(p);
    json out;
    out["run"] = {{"present", loc.run.present}, {"mode", loc.run.mode}, {"line_size", loc.run.line_size},
                  {"sample_period", loc.run.sample_period}, {"window_accesses", loc.run.window_accesses},
                  {"seed", loc.run.seed}};
    out["threads"] = json::array();
    for (const auto& t : p.threads) out["threads"].push_back({{"tid", t.tid}, {"name", t.name}});
    out["windows"] = json::array();
    for (const auto& w : loc.windows)
        out["windows"].push_back({{"tid", w.tid}, {"window", w.window}, {"accesses", w.accesses},
                                  {"samples", w.samples}, {"unseen", w.unseen_accesses},
                                  {"lost_records", w.lost_records}, {"lost_allocations", w.lost_allocations}});
    out["samples"] = json::array();
    for (const auto& s : loc.samples)
        out["samples"].push_back({{"tid", s.tid}, {"window", s.window},
                                  {"distance", s.distance == kNoReuse ? json(nullptr) : json(s.distance)},
                                  {"sample", code(p, lines, s.sample)}, {"trigger", code(p, lines, s.trigger)},
                                  {"address", s.address}, {"size", s.size}, {"sample_write", s.sample_write},
                                  {"trigger_write", s.trigger_write}, {"position", s.position},
                                  {"data", s.data == kNoData ? json(nullptr) : json(s.data)}});
    static const char* const kinds[] = {"heap", "static", "stack", "other"};
    out["data"] = json::array();
    for (const auto& d : loc.data)
        out["data"].push_back({{"id", d.id}, {"kind", kinds[static_cast<unsigned>(d.kind) & 3]},
                               {"object", p.object_name(d.object)}, {"site", code(p, lines, d.site)}, {"name", d.name},
                               {"size", d.size}});
    static const char* const endings[] = {"no_reuse", "aged", "capped"};
    out["tenures"] = json::array();
    for (const auto& t : loc.tenures) {
        json steps = json::array();
        for (const auto& st : t.steps)
            steps.push_back({{"gap", st.gap == kNoReuse ? json(nullptr) : json(st.gap)}, {"accesses", st.accesses},
                             {"bytes", st.bytes}, {"used", st.used}});
        out["tenures"].push_back({{"tid", t.tid}, {"position", t.position},
                                  {"end", endings[static_cast<unsigned>(t.end) % 3]}, {"steps", steps}});
    }
    out["exact"] = json::array();
    for (const auto& c : loc.exact)
        out["exact"].push_back({{"tid", c.tid}, {"accesses", c.accesses}, {"lines", c.lines},
                                {"lru_misses", c.lru_misses}, {"random_lines", c.random_lines},
                                {"random_misses", c.random_misses}, {"detail_lines", c.detail_lines}});
    out["exact_instructions"] = json::array();
    for (const auto& i : loc.exact_instructions) {
        json at = json::array();
        for (const auto& u : i.at) at.push_back({{"misses", u.misses}, {"used_bytes", u.used_bytes}, {"bytes", u.bytes}});
        out["exact_instructions"].push_back({{"tid", i.tid}, {"pc", code(p, lines, i.pc)}, {"write", i.write},
                                             {"accesses", i.accesses}, {"at", at}});
    }
    out["exact_functions"] = json::array();
    for (const auto& f : loc.exact_functions)
        out["exact_functions"].push_back({{"tid", f.tid}, {"function", p.function(f.function).name},
                                          {"accesses", f.accesses}, {"lru_misses", f.lru_misses}});
    out["end"] = {{"present", p.end.present}, {"exit_status", p.end.exit_status}};
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: locality_dump PROFILE\n");
        return 2;
    }
    try {
        Profile p = read_profile(argv[1]);
        ProfileLineReader().resolve(p);  // the lines the analyzer gives the addresses
        for (const std::string& w : p.warnings) std::fprintf(stderr, "locality_dump: warning: %s\n", w.c_str());
        std::puts(dump(p).dump().c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "locality_dump: %s\n", e.what());
        return 1;
    }
}
