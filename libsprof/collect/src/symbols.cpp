// Address → function: table lookups, /proc/PID/maps, the per-process
// address space with load biases, demangling.
#include "sprof/symbols.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>

#include "sprof/clock.hpp"
#include "sprof/proc.hpp"

namespace sprof {

ObjectSymbols::ObjectSymbols(std::string path, std::vector<FunctionRange> functions,
                             std::vector<LoadSegment> segments, std::vector<FunctionRange> data)
    : path_(std::move(path)),
      functions_(std::move(functions)),
      segments_(std::move(segments)),
      data_(std::move(data)) {
    std::sort(segments_.begin(), segments_.end(),
              [](const LoadSegment& a, const LoadSegment& b) { return a.offset < b.offset; });
}

namespace {
// The range of sorted, non-overlapping `ranges` containing `addr`.
std::optional<size_t> find_range(const std::vector<FunctionRange>& ranges, uint64_t addr) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), addr,
                               [](uint64_t a, const FunctionRange& f) { return a < f.start; });
    if (it == ranges.begin()) return std::nullopt;
    --it;
    if (addr >= it->end) return std::nullopt;
    return static_cast<size_t>(it - ranges.begin());
}
}  // namespace

std::optional<size_t> ObjectSymbols::find(uint64_t addr) const { return find_range(functions_, addr); }

std::optional<size_t> ObjectSymbols::find_data(uint64_t addr) const { return find_range(data_, addr); }

std::optional<uint64_t> ObjectSymbols::vaddr_of_offset(uint64_t offset) const {
    // The kernel maps a segment from its offset rounded down to a page, so the
    // segment a mapping was made for starts at most a page after the mapping's
    // offset (64 KiB covers every page size). Page-rounded ranges of
    // neighbouring segments overlap; that start decides between them.
    constexpr uint64_t kMaxPageSize = 64 * 1024;
    const LoadSegment* chosen = nullptr;
    for (const LoadSegment& seg : segments_) {
        if (seg.offset >= offset && seg.offset - offset < kMaxPageSize) {
            chosen = &seg;
            break;
        }
        if (!chosen && seg.offset <= offset && offset < seg.offset + seg.filesz) chosen = &seg;
    }
    if (!chosen) return std::nullopt;
    return chosen->vaddr - (chosen->offset - offset);  // the segment's offset↔vaddr shift
}

std::vector<Mapping> read_mappings(pid_t pid, bool executable_only) {
    const std::string file = proc_file(pid, "maps");
    std::unique_ptr<FILE, int (*)(FILE*)> in(std::fopen(file.c_str(), "re"), &std::fclose);
    if (!in) throw SymbolError("cannot read " + file + ": " + std::strerror(errno));

    std::vector<Mapping> out;
    char* line = nullptr;
    size_t cap = 0;
    ssize_t len;
    while ((len = ::getline(&line, &cap, in.get())) > 0) {
        // start-end perms offset dev inode   path (the path may contain spaces)
        unsigned long long start, end, offset;
        char perms[5] = {};
        int path_pos = 0;
        if (std::sscanf(line, "%llx-%llx %4s %llx %*s %*s %n", &start, &end, perms, &offset,
                        &path_pos) != 4 ||
            path_pos == 0 || (executable_only && perms[2] != 'x'))
            continue;
        std::string path(line + path_pos, line + len);
        if (!path.empty() && path.back() == '\n') path.pop_back();
        Mapping m{start, end, offset, std::move(path), false};
        constexpr std::string_view kDeleted = " (deleted)";
        if (m.path.ends_with(kDeleted)) {
            m.path.resize(m.path.size() - kDeleted.size());
            m.deleted = true;
        }
        if (m.path.empty()) m.path = "[anon]";
        out.push_back(std::move(m));
    }
    std::free(line);
    std::sort(out.begin(), out.end(),
              [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
    return out;
}

namespace {
// After a miss that a refresh did not cure, further misses within this time do
// not re-read the maps: stray PCs must not cost a maps read each.
constexpr int64_t kMissQuietNs = 10'000'000;
}  // namespace

void AddressSpace::set_pid(pid_t pid) {
    pid_ = pid;
    maps_.clear();
    quiet_until_ns_ = 0;
    ++generation_;
}

void AddressSpace::refresh() {
    std::vector<Loaded> fresh;
    // Tables are read when a PC first lands in a mapping, not here: a process
    // maps many libraries it spends no time in, and reading them all would be
    // start-up cost for nothing.
    for (Mapping& m : read_exec_mappings(pid_)) fresh.push_back({std::move(m), 0, false, nullptr});
    maps_ = std::move(fresh);
    ++generation_;
}

void AddressSpace::attach(Loaded& loaded) {
    loaded.syms = table_for(loaded.map);
    const auto vaddr = loaded.syms->vaddr_of_offset(loaded.map.offset);
    loaded.placed = vaddr.has_value();
    loaded.bias = vaddr ? loaded.map.start - *vaddr : 0;
}

std::shared_ptr<const ObjectSymbols> AddressSpace::table_for(const Mapping& map) {
    auto known = std::find_if(tables_.rbegin(), tables_.rend(),
                              [&](const auto& t) { return t->path() == map.path; });
    if (known != tables_.rend()) return *known;

    ObjectSymbols table(map.path, {});
    if (map.path == "[vdso]") {
        try {
            table = ObjectSymbols::load_own_vdso();
        } catch (const SymbolError& e) {
            unreadable_.emplace_back(e.what());
        }
    } else if (!map.path.starts_with('[')) {
        // A deleted file is still readable through the process's own mapping.
        const std::string file =
            map.deleted ? proc_file(pid_, fmt::format("map_files/{:x}-{:x}", map.start, map.end)) : map.path;
        try {
            ObjectSymbols read = ObjectSymbols::load(file);
            table = ObjectSymbols(map.path, read.functions(), read.segments(), read.data());
            table.set_build_id(read.build_id());
        } catch (const SymbolError& e) {
            unreadable_.emplace_back(e.what());
        }
    }
    tables_.push_back(std::make_shared<const ObjectSymbols>(std::move(table)));
    return tables_.back();
}

void AddressSpace::preload(ObjectSymbols table) {
    tables_.push_back(std::make_shared<const ObjectSymbols>(std::move(table)));
    for (Loaded& loaded : maps_)
        if (loaded.map.path == tables_.back()->path()) attach(loaded);
}

AddressSpace::Loaded* AddressSpace::find(uint64_t pc) {
    auto it = std::upper_bound(maps_.begin(), maps_.end(), pc,
                               [](uint64_t a, const Loaded& l) { return a < l.map.start; });
    if (it == maps_.begin()) return nullptr;
    --it;
    return pc < it->map.end ? &*it : nullptr;
}

Resolved AddressSpace::answer(Loaded& loaded, uint64_t pc) {
    if (!loaded.syms) attach(loaded);
    Resolved r;
    r.object = &loaded.syms->path();
    r.table = loaded.syms.get();
    if (!loaded.placed) return r;
    r.bias = loaded.bias;
    if (auto i = loaded.syms->find(pc - loaded.bias)) r.function = &loaded.syms->functions()[*i];
    return r;
}

AddressSpace::Variable AddressSpace::resolve_data(uint64_t address) const {
    for (const Loaded& loaded : maps_) {
        if (!loaded.syms || !loaded.placed || loaded.syms->data().empty()) continue;
        if (auto i = loaded.syms->find_data(address - loaded.bias))
            return {loaded.syms.get(), &loaded.syms->data()[*i]};
    }
    return {};
}

Resolved AddressSpace::resolve(uint64_t pc) {
    if (Loaded* hit = find(pc)) return answer(*hit, pc);
    const auto now = static_cast<int64_t>(monotonic_ns());
    if (now < quiet_until_ns_) return {};
    try {
        refresh();
    } catch (const SymbolError&) {
        // The process is gone: what was mapped is all there will be.
        quiet_until_ns_ = std::numeric_limits<int64_t>::max();
        return {};
    }
    if (Loaded* hit = find(pc)) return answer(*hit, pc);
    quiet_until_ns_ = now + kMissQuietNs;
    return {};
}

}  // namespace sprof
