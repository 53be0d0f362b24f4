// --export gecko: the Gecko profile JSON that the Firefox Profiler imports
// (the format Firefox itself writes; the profiler upgrades it from its
// `meta.version` and processes it on load). Shape and field meanings: the
// profiler's docs-developer/gecko-profile-format.md and src/types/gecko-profile.ts.
//
// A profile (process) is a Gecko process; its threads are Gecko threads with
// their own string, frame and stack tables. The process's main thread is
// named "GeckoMain": the profiler takes a process's counters and its track
// name (processName) from the thread of that name. sprof has no call stacks:
// every stack is one frame, the function the sample landed in.
#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "export_file.hpp"
#include "exports.hpp"
#include "notes.hpp"
#include "phases.hpp"
#include "reports.hpp"
#include "sample_layout.hpp"

namespace sprof::analyze {

namespace {

// Gecko format 31: later profilers upgrade it by adding an empty source
// table (32-34); nothing else in it changed since.
constexpr int kGeckoVersion = 31;

// A Gecko export holds at most this many samples (33 minutes of one thread
// sampled every 10 ms; 6-9 MB of JSON): more are thinned alike, each kept
// sample carrying more CPU time. A corrupt profile's absurd counts end here
// too, and the export's time with them.
constexpr double kMaxSamples = 200'000;
// No timer samples a thread more often (perf's task-clock at its finest).
constexpr uint64_t kShortestSampleNs = 10'000;

double ms(double ns) { return ns / 1e6; }

Json schema(std::initializer_list<const char*> columns) {
    Json s = Json::object();
    int i = 0;
    for (const char* c : columns) s[c] = i++;
    return s;
}

// One Gecko thread: its samples over time and the tables they refer to.
class GeckoThread {
public:
    GeckoThread(const Dataset& d, std::string name, uint32_t pid, uint32_t tid)
        : d_(d), name_(std::move(name)), pid_(pid), tid_(tid) {}

    std::string process_name;  // the main thread's: the process's track name

    // The interval's samples spread over its span (sample_layout.hpp), each
    // with the CPU time it stands for as its CPU delta. `scale` < 1 thins
    // them: each function's due share carries over to its next interval
    // (with the CPU time not yet shown), so its samples and CPU time over
    // the thread stay within one sample of the whole. And no more than the
    // span can hold: a thread is sampled once per sample interval of its CPU
    // time, which the span bounds (a count far beyond is a corrupt
    // profile's: thinned, shares kept). Returns whether the span thinned it.
    bool add_interval(const Interval& iv, double scale, uint64_t sample_interval_ns) {
        const uint64_t span = iv.end_ns > iv.start_ns ? iv.end_ns - iv.start_ns : 0;
        std::vector<uint64_t> counts;
        double n = 0;
        for (const FunctionCell& cell : iv.cells) {
            Owed& o = owed_[cell.function];
            o.samples += static_cast<double>(cell.samples) * scale;
            o.cpu_ns += static_cast<double>(cell.time_ns);
            // A function twice in one interval (a corrupt profile) can owe
            // less than nothing, a hostile count more than 2^64: whole samples
            // between 0 and 2^62 (the conversion of others is undefined).
            counts.push_back(static_cast<uint64_t>(std::clamp(o.samples, 0.0, 0x1p62)));
            n += static_cast<double>(counts.back());
        }
        // Twice that, and two more: signals that come late crowd the next ones.
        const double fits = 2.0 * static_cast<double>(span / std::max<uint64_t>(sample_interval_ns, kShortestSampleNs)) + 2;
        const auto kept = n > fits ? thin(counts, static_cast<uint64_t>(fits)) : counts;
        std::vector<double> cpu_each(kept.size());
        for (size_t i = 0; i < kept.size(); ++i) {
            Owed& o = owed_[iv.cells[i].function];
            o.samples -= static_cast<double>(counts[i]);  // what the span left out is a corrupt profile's: gone
            if (kept[i]) {
                cpu_each[i] = o.cpu_ns / static_cast<double>(kept[i]);
                o.cpu_ns = 0;
            }
        }
        const auto order = interleave(kept);
        for (size_t k = 0; k < order.size(); ++k) {
            const double at = static_cast<double>(iv.start_ns) +
                              (static_cast<double>(k) + 0.5) * static_cast<double>(span) / static_cast<double>(order.size());
            samples_.push_back({stack_of(iv.cells[order[k]].function), ms(at), cpu_each[order[k]]});
            owed_[iv.cells[order[k]].function].last = samples_.size() - 1;
        }
        first_ns_ = std::min(first_ns_, iv.start_ns);
        return n > fits;
    }

    // An interval marker (phases), times in ns since the process start.
    void add_marker(const std::string& name, uint64_t start_ns, uint64_t end_ns) {
        markers_.push_back(Json::array({string_index(name), ms(static_cast<double>(start_ns)),
                                        ms(static_cast<double>(end_ns)), 1 /* interval */, 0, nullptr}));
    }

    // The thread as JSON. The samples, the bulk of it, are written as text
    // directly: a million samples as JSON values would take seconds.
    void write(std::ostream& out) {
        // CPU time a function held after its last sample (ticks the kernel
        // dropped in a user-space-only profile, which the collector gave back
        // to it) goes with that sample: each function's CPU time over the
        // thread is the flat report's.
        for (auto& [function, o] : owed_)
            if (o.cpu_ns != 0 && o.last != kNoSample) {
                samples_[o.last].cpu_ns += o.cpu_ns;
                o.cpu_ns = 0;
            }
        auto by_time = [](const Sample& a, const Sample& b) { return a.ms < b.ms; };
        if (!std::is_sorted(samples_.begin(), samples_.end(), by_time))  // intervals that overlap: a corrupt profile's
            std::stable_sort(samples_.begin(), samples_.end(), by_time);
        Json frames = Json::array(), stacks = Json::array();
        // Frame columns: location, relevantForJS, innerWindowID, implementation,
        // line, column, category, subcategory. A frame's line slots in here
        // once the profile has source lines.
        for (size_t i = 0; i < frame_locations_.size(); ++i) {
            frames.push_back(Json::array({frame_locations_[i], false, 0, nullptr, nullptr, nullptr, 0, 0}));
            stacks.push_back(Json::array({nullptr, i}));  // one frame, no caller
        }
        Json t = {{"name", name_},
                  {"processType", "default"},
                  {"processName", process_name},
                  {"tid", tid_},
                  {"pid", pid_},
                  {"registerTime", samples_.empty() ? 0.0 : ms(static_cast<double>(first_ns_))},
                  {"unregisterTime", nullptr},
                  {"markers", {{"schema", schema({"name", "startTime", "endTime", "phase", "category", "data"})},
                               {"data", std::move(markers_)}}},
                  {"frameTable", {{"schema", schema({"location", "relevantForJS", "innerWindowID", "implementation",
                                                      "line", "column", "category", "subcategory"})},
                                  {"data", std::move(frames)}}},
                  {"stackTable", {{"schema", schema({"prefix", "frame"})}, {"data", std::move(stacks)}}},
                  {"stringTable", std::move(strings_)}};
        std::string text = dump_json(t);
        text.pop_back();  // the closing brace: the samples follow
        out << text << ", \"samples\": {\"schema\": " << dump_json(schema({"stack", "time", "eventDelay", "threadCPUDelta"}))
            << ", \"data\": [";
        std::string buffer;
        for (size_t i = 0; i < samples_.size(); ++i) {
            fmt::format_to(std::back_inserter(buffer), "{}[{},{},0,{}]", i ? "," : "", samples_[i].stack, samples_[i].ms,
                           samples_[i].cpu_ns);
            if (buffer.size() > (1 << 16)) {
                out << buffer;
                buffer.clear();
            }
        }
        out << buffer << "]}}";
    }

private:
    static constexpr size_t kNoSample = SIZE_MAX;
    struct Owed {  // a function's samples due but not yet written, and their CPU time
        double samples = 0, cpu_ns = 0;
        size_t last = kNoSample;  // its latest sample written, in samples_
    };
    struct Sample {
        size_t stack;
        double ms;      // since the process start
        double cpu_ns;  // CPU time since the previous sample
    };

    size_t string_index(const std::string& s) {
        auto [it, added] = string_ids_.try_emplace(s, strings_.size());
        if (added) strings_.push_back(s);
        return it->second;
    }

    // A frame, and a stack of that frame alone, per function. The location
    // "NAME (in OBJECT)" is how the profiler knows a native function and its
    // library.
    size_t stack_of(uint32_t function) {
        auto [it, added] = stacks_.try_emplace(function, frame_locations_.size());
        if (added) {
            const FunctionInfo& f = d_.functions[function];
            const std::string object = object_basename(f.object);
            frame_locations_.push_back(string_index(object.empty() ? f.name : f.name + " (in " + object + ")"));
        }
        return it->second;
    }

    const Dataset& d_;
    std::string name_;
    uint32_t pid_, tid_;
    uint64_t first_ns_ = UINT64_MAX;
    std::vector<Sample> samples_;
    std::unordered_map<uint32_t, Owed> owed_;  // per function
    Json markers_ = Json::array();
    Json strings_ = Json::array();
    std::unordered_map<std::string, size_t> string_ids_;
    std::unordered_map<uint32_t, size_t> stacks_;  // function → its stack (and frame) index
    std::vector<size_t> frame_locations_;          // string index per frame
};

Json meta(const ProfileHeader& h) {
    return {{"version", kGeckoVersion},
            {"startTime", ms(static_cast<double>(h.start_unix_ns))},  // ms since the epoch
            {"shutdownTime", nullptr},
            {"categories", Json::array({{{"name", "Other"}, {"color", "grey"}, {"subcategories", {"Other"}}}})},
            {"markerSchema", Json::array()},
            {"interval", ms(static_cast<double>(h.sample_interval_ns))},
            {"stackwalk", 0},
            {"debug", 0},
            {"gcpoison", 0},
            {"asyncstack", 0},
            {"processType", 0},
            {"product", "sprof"},
            {"presymbolicated", true},  // names are in the frames: nothing to look up
            {"sampleUnits", {{"time", "ms"}, {"eventDelay", "ms"}, {"threadCPUDelta", "ns"}}}};
}

// A counter per event: its estimate in each time-line row of the process,
// as the count since the previous point (a row's start is a point of its own
// when the row before did not end there). A row whose estimate is unknown
// has no point. Points in time order (rows are in sequence order, which a
// hostile profile may not keep in time).
Json counters(const Dataset& d, std::vector<TimeRow> rows, Estimator est, const std::vector<Estimates>* whole) {
    std::stable_sort(rows.begin(), rows.end(), [](const TimeRow& a, const TimeRow& b) { return a.start_ns < b.start_ns; });
    std::vector<Json> data(d.events.size(), Json::array());
    std::vector<uint64_t> last(d.events.size(), UINT64_MAX);
    const auto values = row_estimates(d, rows, est, whole);  // the rows add up to the flat report
    for (size_t i = 0; i < rows.size(); ++i) {
        const TimeRow& r = rows[i];
        const Estimates& estimates = values[i].estimates;
        for (size_t k = 0; k < estimates.size(); ++k) {
            if (!estimates[k]) continue;
            if (last[k] != r.start_ns) data[k].push_back(Json::array({ms(static_cast<double>(r.start_ns)), 0, 0}));
            data[k].push_back(Json::array({ms(static_cast<double>(r.end_ns)), estimates[k]->value, values[i].total.samples}));
            last[k] = r.end_ns;
        }
    }
    Json out = Json::array();
    for (size_t k = 0; k < d.events.size(); ++k)
        out.push_back({{"name", d.events[k].name},
                       {"category", "sprof"},
                       {"description", d.events[k].name + ", estimated per histogram interval"},
                       {"samples", {{"schema", schema({"time", "count", "number"})}, {"data", std::move(data[k])}}}});
    return out;
}

// One profile as a Gecko process, written as it is made (a thread at a
// time); the first one holds the others in "processes", each with its own
// start time, on which the profiler lines them up.
class GeckoWriter {
public:
    GeckoWriter(std::ostream& out, const Context& c) : out_(out), c_(c) {}

    void write_process(uint32_t source, bool holds_others) {
        const Dataset& all = c_.data;
        // The process's own intervals (a copy only when there are others).
        const Dataset own = all.sources.size() == 1 ? Dataset{} : subset(all, {source});
        const Dataset& d = all.sources.size() == 1 ? all : own;
        const Profile& p = all.sources[source].profile;
        const ProfileHeader& h = p.header;

        std::map<uint32_t, std::vector<uint32_t>> by_thread;  // tid → its intervals, main thread first
        by_thread[h.pid];
        for (uint32_t i = 0; i < d.intervals.size(); ++i) by_thread[d.intervals[i].tid].push_back(i);
        std::map<uint32_t, std::string> names;
        for (const ProfileThread& t : p.threads) names[t.tid] = t.name;

        out_ << "{\"meta\": " << dump_json(meta(h)) << ", \"libs\": [], \"pausedRanges\": [], \"threads\": [";
        first_thread_ = true;
        write_thread(d, h, h.pid, by_thread[h.pid], "GeckoMain");
        for (auto& [tid, intervals] : by_thread)
            if (tid != h.pid) write_thread(d, h, tid, intervals, names[tid].empty() ? fmt::format("thread {}", tid) : names[tid]);
        // Each process's counters share its part of the flat report's estimates.
        if (all.sources.size() > 1 && process_shares_.empty()) {
            std::vector<std::vector<uint32_t>> processes;
            for (uint32_t s = 0; s < all.sources.size(); ++s) processes.push_back({s});
            process_shares_ = group_estimates(all, processes, c_.options.estimator);
        }
        const auto* whole = process_shares_.empty() ? nullptr : &process_shares_[source];
        out_ << "], \"counters\": " << dump_json(counters(d, time_rows(d), c_.options.estimator, whole))
             << ", \"processes\": [";
        if (holds_others)
            for (uint32_t s = 1; s < all.sources.size(); ++s) {
                if (s > 1) out_ << ",\n";
                write_process(s, false);
            }
        out_ << "]}";
    }

    double scale = 1;      // the share of the samples written (1: all)
    uint64_t overfull = 0;  // intervals with more samples than their span holds

private:
    void write_thread(const Dataset& d, const ProfileHeader& h, uint32_t tid, std::vector<uint32_t>& intervals,
                      const std::string& name) {
        const bool main = tid == h.pid;
        GeckoThread t(d, name, h.pid, tid);
        std::sort(intervals.begin(), intervals.end(), [&](uint32_t a, uint32_t b) {
            return d.intervals[a].start_ns < d.intervals[b].start_ns;
        });
        for (uint32_t i : intervals) overfull += t.add_interval(d.intervals[i], scale, h.sample_interval_ns);
        if (main) {
            const std::string program = object_basename(h.program);
            t.process_name = h.rank >= 0 ? fmt::format("rank {}: {} (pid {})", h.rank, program, h.pid)
                                         : fmt::format("{} (pid {})", program, h.pid);
            auto rows = time_rows(d);
            for (const Phase& ph : find_phases(d, rows, c_.rates, phase_params(c_.options))) {
                // As --phases gives it; the other way round only in a hostile profile's disorder.
                auto [start, end] = std::minmax(rows[ph.first].start_ns, rows[ph.last - 1].end_ns);
                t.add_marker("phase " + ph.label, start, end);
            }
        }
        out_ << (first_thread_ ? "\n" : ",\n");
        t.write(out_);
        first_thread_ = false;
    }

    std::ostream& out_;
    std::vector<std::vector<Estimates>> process_shares_;  // per source, of several (group_estimates)
    const Context& c_;
    bool first_thread_ = true;
};

}  // namespace

void export_gecko(const Context& c) {
    if (c.data.sources.empty()) throw std::runtime_error("--export gecko: no profile to export");
    double samples = 0;  // in double: a corrupt profile's counts may overflow 64 bits
    uint64_t overfull = 0;
    for (const Interval& iv : c.data.intervals)
        for (const FunctionCell& cell : iv.cells) samples += static_cast<double>(cell.samples);
    write_export_file(c.options.export_files.at("gecko"), [&](std::ostream& out) {
        GeckoWriter writer(out, c);
        writer.scale = samples > kMaxSamples ? kMaxSamples / samples : 1;
        writer.write_process(0, true);
        out << '\n';
        overfull = writer.overfull;
    });
    if (overfull)
        notes() << fmt::format(
            "sprof: warning: --export gecko: {} interval{} held more samples than {} span allows (one per sample "
            "interval): thinned, {} shares kept\n",
            overfull, overfull == 1 ? "" : "s", overfull == 1 ? "its" : "their", overfull == 1 ? "its" : "their");
    if (samples > kMaxSamples)
        notes() << fmt::format(
            "sprof: warning: --export gecko: {:.0f} samples, more than the {:.0f} a Gecko export holds: thinned "
            "alike, each function's share and CPU time kept\n",
            samples, kMaxSamples);
}

}  // namespace sprof::analyze
