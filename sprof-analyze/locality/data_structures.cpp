#include "data_structures.hpp"

#include <algorithm>
#include <map>

#include "sprof/demangle.hpp"
#include "sprof/profile_io.hpp"

namespace sprof::analyze {

namespace {

// How a view names a source's data object.
DataStructure describe(const Dataset& d, const Profile& p, uint32_t id, const DataParams& params) {
    DataStructure out;
    if (id == kNoData || id >= p.locality.data.size()) {
        out.name = "[unknown]";
        return out;
    }
    const DataObject& o = p.locality.data[id];
    out.kind = o.kind;
    switch (o.kind) {
    case DataKind::heap: out.name = "heap@" + location_of(d, o.site, params.by, params.user_frames).name; break;
    case DataKind::static_data:
        out.name = demangle(o.name);
        out.object = p.object_name(o.object);
        out.size = o.size;
        break;
    case DataKind::stack:
    case DataKind::other: out.name = o.name; break;
    }
    return out;
}

}  // namespace

const char* to_string(DataKind k) {
    switch (k) {
    case DataKind::heap: return "heap";
    case DataKind::static_data: return "static";
    case DataKind::stack: return "stack";
    case DataKind::other: return "other";
    }
    return "other";
}

DataTable data_structures(const Dataset& d, const LocalityData& l, const DataParams& p) {
    require_sampled(d, l, "data objects", "--data");
    DataTable t;
    t.lines = p.lines;
    t.line_size = l.line_size;
    t.misses.assign(p.lines.size(), 0);
    std::map<std::tuple<DataKind, std::string, std::string>, size_t> row_of;  // (kind, object, name) → row
    std::map<std::pair<uint32_t, uint32_t>, size_t> cached;                   // (source, data id) → row
    bool named = false;
    auto row = [&](uint32_t source, uint32_t id) -> DataStructure& {
        auto [it, added] = cached.try_emplace({source, id}, 0);
        if (added) {
            DataStructure s = describe(d, d.sources[source].profile, id, p);
            auto [r, new_row] = row_of.try_emplace({s.kind, s.object, s.name}, t.rows.size());
            if (new_row) {
                s.misses.assign(p.lines.size(), 0);
                s.use.assign(p.lines.size(), {});
                t.rows.push_back(std::move(s));
            }
            it->second = r->second;
        }
        return t.rows[it->second];
    };
    visit_reuses(l, Policy::lru, p.lines, [&](const ReuseStream& s, const StreamSample& x,
                                              std::span<const ReuseOutcome> o) {
        const uint32_t id = sample_record(d, s, x).data;
        named |= id != kNoData;
        DataStructure& r = row(s.source, id);
        r.accesses += x.weight;
        t.accesses += x.weight;
        for (size_t k = 0; k < o.size(); ++k) {
            r.misses[k] += x.weight * o[k].miss;
            t.misses[k] += x.weight * o[k].miss;
            if (o[k].state) r.use[k].add(*o[k].state, x.weight * o[k].miss, l.line_size);
        }
    });
    if (!named)
        throw ProfileError(d.sources.at(0).path + ": no sample names a data object (a profile written before "
                           "format 1.5)");
    std::sort(t.rows.begin(), t.rows.end(), [](const DataStructure& a, const DataStructure& b) {
        if (a.misses[0] != b.misses[0]) return a.misses[0] > b.misses[0];
        if (a.accesses != b.accesses) return a.accesses > b.accesses;
        return a.name < b.name;
    });
    return t;
}

}  // namespace sprof::analyze
