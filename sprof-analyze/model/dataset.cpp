#include "dataset.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <thread>
#include <unordered_map>
#include <utility>

#include "sprof/demangle.hpp"
#include "sprof/estimator.hpp"
#include "sprof/profile_io.hpp"
#include "sprof/profile_lines.hpp"

namespace sprof::analyze {

std::vector<std::string> Dataset::event_names() const {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(e.name);
    return out;
}

std::string Dataset::program() const {
    return sources.empty() ? std::string() : sources.front().profile.header.program;
}

namespace {

// What every report calls a function: its demangled name, and for the
// bucket of PCs in no known function its object too, so that "[unknown]"
// never stands alone when the object is known.
std::string display_name(const ProfileFunction& fn, const std::string& object) {
    if (fn.start == 0 && fn.end == 0 && fn.name == "[unknown]" && !object.empty())
        return "[unknown] " + object_basename(object);
    return demangle(fn.name);
}


constexpr uint32_t kUnmapped = UINT32_MAX;

}  // namespace

DatasetMerger::DatasetMerger(Dataset& d) : d_(d), line_index_(std::make_unique<SourceLineIndex>()) {}
DatasetMerger::~DatasetMerger() = default;

size_t DatasetMerger::add_source(const ProfileHeader& h) {
    // A hash index finds a name in constant time: sources may list many
    // events, and a linear search per event would be quadratic.
    Slot slot;
    slot.events.reserve(h.events.size());
    for (const auto& e : h.events) {
        auto [it, added] = event_index_.try_emplace(e.name, d_.events.size());
        if (added) d_.events.push_back(e);
        slot.events.push_back(it->second);
    }
    slots_.push_back(std::move(slot));
    return slots_.size() - 1;
}

uint32_t DatasetMerger::function(size_t source, const Profile& p, uint32_t f, const std::string& path,
                                 const char* what) {
    if (f >= p.functions.size())
        throw ProfileError(path + ": " + what + " refers to function " + std::to_string(f) +
                           ", which the profile does not define");
    // A function becomes one of the dataset's when something refers to it:
    // the reports keep a row of event sums per function, and a file may
    // define any number of functions no interval uses (functions × events
    // would then grow with the square of the file's size).
    std::vector<uint32_t>& fmap = slots_[source].functions;
    if (fmap.size() < p.functions.size()) fmap.resize(p.functions.size(), kUnmapped);
    if (fmap[f] != kUnmapped) return fmap[f];
    const ProfileFunction& fn = p.functions[f];
    std::string object = fn.object == kNoObject ? std::string() : p.object_name(fn.object);
    auto [it, added] = function_ids_.try_emplace({object, fn.name}, static_cast<uint32_t>(d_.functions.size()));
    if (added) d_.functions.push_back({display_name(fn, object), fn.name, object, fn.start});
    return fmap[f] = it->second;
}

void DatasetMerger::remap(size_t source, const Profile& p, Interval& iv, const std::string& path) {
    extrapolate_self_sampled(iv, self_sampled_events(p.header));
    const auto& emap = slots_[source].events;
    const size_t n_events = d_.events.size();
    bool same_events = emap.size() == n_events;
    for (size_t i = 0; same_events && i < emap.size(); ++i) same_events = emap[i] == i;
    auto merge_events = [&](std::vector<EventCell>& events) {
        if (same_events) return;
        std::vector<EventCell> merged(n_events);
        for (size_t e = 0; e < events.size() && e < emap.size(); ++e) merged[emap[e]] = events[e];
        events = std::move(merged);
    };
    for (FunctionCell& c : iv.cells) {
        c.function = function(source, p, c.function, path, "interval");
        merge_events(c.events);
    }
    for (StackCell& c : iv.stacks) {
        c.stack = stack(source, p, c.stack, path);
        merge_events(c.events);
    }
    if (iv.lines.empty()) return;
    SourceLineMerger& lines_of = lines(source, p, path);
    for (LineCell& c : iv.lines) {
        c.location = lines_of.location(c.location);
        merge_events(c.events);
    }
}

uint32_t DatasetMerger::stack(size_t source, const Profile& p, uint32_t s, const std::string& path) {
    std::vector<uint32_t>& smap = slots_[source].stacks;
    while (smap.size() <= s) {  // the reader checked s against p.stacks
        CallStack mapped = p.stacks[smap.size()];
        std::vector<std::pair<uint32_t, uint64_t>> key;
        for (CodeRef& f : mapped.frames) {
            f.function = function(source, p, f.function, path, "call stack");
            key.emplace_back(f.function, f.address);
        }
        auto [it, fresh] = stack_ids_.try_emplace(std::move(key), static_cast<uint32_t>(d_.stacks.size()));
        if (fresh) d_.stacks.push_back(std::move(mapped));
        smap.push_back(it->second);
    }
    return smap[s];
}

SourceLineMerger& DatasetMerger::lines(size_t source, const Profile& p, const std::string& path) {
    std::unique_ptr<SourceLineMerger>& merger = slots_[source].lines;
    if (!merger)
        merger = std::make_unique<SourceLineMerger>(d_, *line_index_, p.lines, [this, source, &p, path](uint32_t f) {
            return function(source, p, f, path, "code location");
        });
    return *merger;
}

void DatasetMerger::add_code_lines(size_t source, const Profile& p, const std::string& path) {
    if (p.lines.addresses.empty()) return;
    lines(source, p, path).add_addresses(slots_[source].functions);
}

Dataset merge_profiles(std::vector<Source> sources) {
    Dataset d;
    DatasetMerger merger(d);
    ProfileLineReader line_reader;  // one for all sources: the ranks of a job share their objects
    for (const auto& s : sources) merger.add_source(s.profile.header);
    for (size_t si = 0; si < sources.size(); ++si) {
        Source& src = sources[si];
        Profile& p = src.profile;
        line_reader.resolve(p);
        if (!src.folded) {
            src.n_intervals = p.intervals.size();
            for (const Interval& iv : p.intervals)
                for (const FunctionCell& c : iv.cells) src.samples += c.samples;
        }
        for (Interval& iv : p.intervals) {
            merger.remap(si, p, iv, src.path);
            d.intervals.push_back(std::move(iv));
            d.interval_source.push_back(static_cast<uint32_t>(si));
        }
        p.intervals.clear();
        p.intervals.shrink_to_fit();
        // Locality records name functions like the cells do (kNoFunction: none known).
        for (ReuseSample& r : p.locality.samples)
            for (CodeRef* ref : {&r.sample, &r.trigger})
                if (ref->function != kNoFunction) ref->function = merger.function(si, p, ref->function, src.path, "reuse sample");
        for (ExactFunction& e : p.locality.exact_functions)
            e.function = merger.function(si, p, e.function, src.path, "exact function count");
        for (ExactInstruction& e : p.locality.exact_instructions)
            if (e.pc.function != kNoFunction)
                e.pc.function = merger.function(si, p, e.pc.function, src.path, "exact instruction count");
        for (DataObject& o : p.locality.data)
            if (o.site.function != kNoFunction)
                o.site.function = merger.function(si, p, o.site.function, src.path, "data object");
        // After every record that names code: the addresses a dataset's CodeRef can name.
        merger.add_code_lines(si, p, src.path);
        p.lines = {};
    }
    d.sources = std::move(sources);
    return d;
}

std::vector<RankSources> group_by_rank(const Dataset& d) {
    std::map<int, std::vector<uint32_t>> by_rank;
    for (uint32_t s = 0; s < d.sources.size(); ++s) {
        const int rank = d.sources[s].profile.header.rank;
        by_rank[rank >= 0 ? rank : static_cast<int>(s)].push_back(s);
    }
    std::vector<RankSources> out;
    for (auto& [rank, sources] : by_rank) out.push_back({rank, std::move(sources)});
    return out;
}

std::vector<RankSources> job_ranks(const Dataset& d) {
    const bool job = std::any_of(d.sources.begin(), d.sources.end(),
                                 [](const Source& s) { return s.profile.header.rank >= 0; });
    auto ranks = group_by_rank(d);
    if (!job || ranks.size() < 2) ranks.clear();
    return ranks;
}

Dataset subset(const Dataset& d, const std::vector<uint32_t>& sources) {
    Dataset out;
    out.events = d.events;
    out.functions = d.functions;
    out.strings = d.strings;
    out.locations = d.locations;
    out.code_lines = d.code_lines;
    out.stacks = d.stacks;
    std::vector<int> new_index(d.sources.size(), -1);
    for (uint32_t s : sources) {
        new_index[s] = static_cast<int>(out.sources.size());
        out.sources.push_back(d.sources[s]);
    }
    for (size_t i = 0; i < d.intervals.size(); ++i) {
        const int to = new_index[d.interval_source[i]];
        if (to < 0) continue;
        out.intervals.push_back(d.intervals[i]);
        out.interval_source.push_back(static_cast<uint32_t>(to));
    }
    return out;
}

namespace {

// Adds `from` into `into`, one cell per function, location or stack.
template <class Cell, uint32_t Cell::*id>
void fold_cells(std::vector<Cell>& into, std::unordered_map<uint32_t, size_t>& cell_of, const std::vector<Cell>& from) {
    for (const Cell& c : from) {
        auto [it, added] = cell_of.try_emplace(c.*id, into.size());
        if (added) into.push_back(c);
        else accumulate(into[it->second], c);
    }
}

}  // namespace

void fold_intervals(Source& s) {
    Profile& p = s.profile;
    s.n_intervals = p.intervals.size();
    s.folded = true;
    if (p.intervals.empty()) return;
    // Each interval's own live share, before the sums hide it.
    for (Interval& iv : p.intervals) extrapolate_self_sampled(iv, self_sampled_events(p.header));
    Interval all{p.intervals.front().tid, 0, p.intervals.front().start_ns, p.intervals.front().end_ns, {}, {}, {}};
    std::unordered_map<uint32_t, size_t> cell_of, line_of, stack_of;  // function, location, stack → index in all's cells
    for (const Interval& iv : p.intervals) {
        all.start_ns = std::min(all.start_ns, iv.start_ns);
        all.end_ns = std::max(all.end_ns, iv.end_ns);
        for (const FunctionCell& c : iv.cells) s.samples += c.samples;
        fold_cells<FunctionCell, &FunctionCell::function>(all.cells, cell_of, iv.cells);
        fold_cells<LineCell, &LineCell::location>(all.lines, line_of, iv.lines);
        fold_cells<StackCell, &StackCell::stack>(all.stacks, stack_of, iv.stacks);
    }
    p.intervals.assign(1, std::move(all));
}

Dataset load_dataset(const std::vector<std::string>& paths, const LoadParams& params) {
    std::vector<Source> sources(paths.size());
    std::vector<std::exception_ptr> errors(paths.size());
    std::atomic<size_t> next{0};
    auto reader = [&] {
        for (size_t i; (i = next++) < paths.size();) {
            try {
                sources[i] = {paths[i], read_profile(paths[i], params.read)};
                if (params.fold) fold_intervals(sources[i]);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    const size_t n_threads = std::min<size_t>(params.threads ? params.threads : cpus, paths.size());
    std::vector<std::thread> threads;
    for (size_t t = 1; t < n_threads; ++t) threads.emplace_back(reader);
    reader();
    for (auto& t : threads) t.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    Dataset d = merge_profiles(std::move(sources));
    if (params.inline_mode == InlineMode::callee) charge_inlined_code(d);
    return d;
}

bool names_function(const FunctionInfo& f, const std::string& name) {
    if (f.name == name || f.symbol == name) return true;
    // "compress" names "compress(char const*, unsigned long)".
    size_t paren = f.name.find('(');
    return paren != std::string::npos && f.name.compare(0, paren, name) == 0 && paren == name.size();
}

std::string object_basename(const std::string& path) {
    if (path.empty()) return "";
    if (path.front() == '[') return path;  // [vdso], [anon]…
    return std::filesystem::path(path).filename().string();
}

}  // namespace sprof::analyze
