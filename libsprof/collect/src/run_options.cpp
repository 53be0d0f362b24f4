#include "sprof/run_options.hpp"

#include <getopt.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>

#include "sprof/locality_options.hpp"
#include "sprof/perf_event.hpp"
#include "sprof/sample.hpp"

namespace sprof {

uint64_t random_seed() {
    std::random_device random;
    return uint64_t{random()} << 32 | random();
}

TickPlan tick_plan(const RunOptions& run) {
    return {run.sample_interval_ns, ticks_dropped_in_kernel(run) ? 0.0 : run.tick_dither, run.rotation.seed};
}

unsigned call_depth(const RunOptions& run) { return run.call_graph == "fp" ? run.call_graph_depth : 0; }

bool ticks_dropped_in_kernel(const RunOptions& run) { return run.clock == "cpu" && !kernel_counting_allowed(); }

const char* tool_name(Tool tool) {
    switch (tool) {
    case Tool::sprof_lib: return "sprof_lib";
    case Tool::sprof_pt: return "sprof_pt";
    case Tool::preprof: return "preprof";
    }
    return "sprof";
}

namespace {

constexpr unsigned bit(Tool t) { return 1u << static_cast<unsigned>(t); }
constexpr unsigned kCollectors = bit(Tool::sprof_lib) | bit(Tool::sprof_pt);
constexpr unsigned kAll = kCollectors | bit(Tool::preprof);

// One option of one or more tools.
struct OptionRow {
    const char* name;   // --name; SPROF_NAME (upper case, '_' for '-') in the environment
    char letter;        // -x, or 0
    const char* value;  // the value's placeholder in the usage; null for a flag; "[=…]" when optional
    Option option;      // what it gives
    unsigned tools;     // the tools that accept it (bits of Tool)
    const char* help;   // usage text; '\n' continues it on an indented line
    void (*set)(RunOptions&, const std::string& value);
    // The value as the command line gives it, for the runtime ("" = unset);
    // null for options the runtime does not take.
    std::string (*text)(const RunOptions&);
};

void set_output(RunOptions& r, const std::string& v) { r.output = v; }

// -p/--tid: ids separated by commas or white space, as perf and strace take
// them (-p "$(pidof server)").
std::vector<pid_t> parse_task_ids(const std::string& list, const char* option) {
    std::vector<pid_t> ids;
    size_t i = 0;
    while (i < list.size()) {
        const size_t end = list.find_first_of(", \t\n", i);
        const std::string id = list.substr(i, end == std::string::npos ? std::string::npos : end - i);
        i = end == std::string::npos ? list.size() : end + 1;
        if (id.empty()) continue;
        const auto v = static_cast<pid_t>(
            parse_whole(std::string("id in ") + option, id, 1, static_cast<uint64_t>(std::numeric_limits<pid_t>::max())));
        if (std::find(ids.begin(), ids.end(), v) == ids.end()) ids.push_back(v);
    }
    if (ids.empty()) throw UsageError(std::string(option) + " names no task");
    return ids;
}

const OptionRow kOptions[] = {
    {"events", 'e', "LIST", Option::events, kAll,
     "events to count, comma separated (default: a hardware set, or\n"
     "task-clock,page-faults,context-switches,cpu-migrations without a PMU)",
     [](RunOptions& r, const std::string& v) { r.events = resolve_events(v, false); },
     [](const RunOptions& r) { return event_list(r.events); }},
    {"slots", 0, "K", Option::slots, kAll, "physical counters: at most K events live at once (virtual counters)",
     [](RunOptions& r, const std::string& v) { r.slots = static_cast<unsigned>(parse_whole("slot count", v, 1, kMaxEvents)); },
     [](const RunOptions& r) { return r.slots ? std::to_string(r.slots) : std::string(); }},
    {"sample-interval", 's', "DUR", Option::sample_interval, kAll,
     "sampling interval of CPU time (default 10ms; ns/us/ms/s)",
     [](RunOptions& r, const std::string& v) { r.sample_interval_ns = parse_duration("sampling interval", v); },
     [](const RunOptions& r) { return format_duration(r.sample_interval_ns); }},
    {"tick-dither", 0, "F", Option::tick_dither, kCollectors,
     "draw every tick period from [s(1-F), s(1+F)] (default 0.25; 0: a\n"
     "fixed period, which a program's rhythm can stay in step with; fixed\n"
     "where the kernel drops the ticks that land in it)",
     [](RunOptions& r, const std::string& v) { r.tick_dither = parse_fraction("tick dither", v, kMaxTickDither); },
     [](const RunOptions& r) {
         char text[32];
         std::snprintf(text, sizeof text, "%.6g", r.tick_dither);
         return std::string(text);
     }},
    {"hist-samples", 'H', "N", Option::histogram, kAll, "samples per histogram interval (default 50)",
     [](RunOptions& r, const std::string& v) {
         r.hist_samples = static_cast<unsigned>(parse_whole("sample count", v, 1, 1'000'000));
         r.hist_interval_ns = 0;
     },
     [](const RunOptions& r) { return std::to_string(r.hist_samples); }},
    {"hist-interval", 0, "DUR", Option::histogram, kAll, "histogram interval as a duration instead",
     [](RunOptions& r, const std::string& v) { r.hist_interval_ns = parse_duration("histogram interval", v); },
     [](const RunOptions& r) { return r.hist_interval_ns ? format_duration(r.hist_interval_ns) : std::string(); }},
    {"output", 'o', "FILE", Option::output, kCollectors,
     "profile file (default <program>.<pid>.sprof; %p = pid, %h = host,\n%r = MPI/Slurm rank, %j = job id)", set_output,
     [](const RunOptions& r) { return r.output; }},
    {"output", 'o', "FILE", Option::output, bit(Tool::preprof), "control file to write (default <program>.prf)",
     set_output, nullptr},
    {"control", 'c', "FILE", Option::control, kCollectors, "control file written by preprof",
     [](RunOptions& r, const std::string& v) { r.control = v; },
     [](const RunOptions& r) { return r.control; }},  // the runtime takes the function tables from it
    {"backend", 0, "perf|cmdev", Option::backend, kAll, "counter source (default perf; cmdev needs kmod/cmdev.ko)",
     [](RunOptions& r, const std::string& v) {
         if (v != "perf" && v != "cmdev") throw UsageError("unknown backend '" + v + "' (use perf or cmdev)");
         r.backend = v;
     },
     [](const RunOptions& r) { return r.backend; }},
    {"clock", 0, "cpu|wall", Option::clock, bit(Tool::sprof_pt),
     "sample on the program's CPU time (default) or wall time",
     [](RunOptions& r, const std::string& v) {
         if (v != "cpu" && v != "wall") throw UsageError("unknown clock '" + v + "' (use cpu or wall)");
         r.clock = v;
     },
     nullptr},
    {"pid", 'p', "PID[,PID…]", Option::attach_pids, bit(Tool::sprof_pt),
     "attach to these running processes and all their threads (no\n"
     "program): profile them until SIGINT/SIGTERM or --duration, then\n"
     "detach and leave them running",
     [](RunOptions& r, const std::string& v) { r.attach_pids = parse_task_ids(v, "-p"); }, nullptr},
    {"tid", 0, "TID[,TID…]", Option::attach_tids, bit(Tool::sprof_pt),
     "attach to these running threads only (and the threads and\n"
     "processes they start)",
     [](RunOptions& r, const std::string& v) { r.attach_tids = parse_task_ids(v, "--tid"); }, nullptr},
    {"duration", 0, "DUR", Option::duration, bit(Tool::sprof_pt), "detach after DUR of wall time (-p, --tid)",
     [](RunOptions& r, const std::string& v) { r.duration_ns = parse_duration("--duration", v); }, nullptr},
    {"no-follow", 0, nullptr, Option::follow, bit(Tool::sprof_pt), "do not follow fork/vfork/exec",
     [](RunOptions& r, const std::string&) { r.follow = false; }, nullptr},
    {"rotation", 0, "shuffled|round-robin", Option::rotation, kCollectors,
     "order of the live sets: each round in a random order (default;\n"
     "no program rhythm can alias with it) or in turn",
     [](RunOptions& r, const std::string& v) {
         try {
             r.rotation.kind = parse_rotation(v);
         } catch (const std::invalid_argument& e) {
             throw UsageError(e.what());
         }
     },
     [](const RunOptions& r) { return std::string(to_string(r.rotation.kind)); }},
    {"rotation-seed", 0, "N", Option::rotation_seed, kCollectors,
     "seed of the shuffled rotation (default: random; recorded)",
     [](RunOptions& r, const std::string& v) { r.rotation.seed = parse_whole("--rotation-seed", v, 0, UINT64_MAX); },
     [](const RunOptions& r) { return std::to_string(r.rotation.seed); }},
    {"locality", 0, "[=RATE|exact]", Option::locality, bit(Tool::sprof_lib),
     "cache locality of a program built with sprof-cc/sprof-c++: reuse\n"
     "distances sampled once per RATE accesses (default 100000), or exact:\n"
     "every access through an exact cache simulator",
     [](RunOptions& r, const std::string& v) { set_locality(r.locality, v); },
     [](const RunOptions& r) { return locality_text(r.locality); }},
    {"line-size", 0, "BYTES", Option::line_size, bit(Tool::sprof_lib), "cache line size of --locality (default 64)",
     [](RunOptions& r, const std::string& v) { r.locality.line_size = parse_line_size("--line-size", v); },
     [](const RunOptions& r) { return std::to_string(r.locality.line_size); }},
    {"locality-seed", 0, "N", Option::locality_seed, bit(Tool::sprof_lib),
     "seed of --locality's sample points (default: random; recorded)",
     [](RunOptions& r, const std::string& v) { r.locality.seed = parse_whole("--locality-seed", v, 0, UINT64_MAX); },
     [](const RunOptions& r) { return r.locality.present ? std::to_string(r.locality.seed) : std::string(); }},
    {"call-graph", 'g', "fp|none", Option::call_graph, kCollectors,
     "record each tick's user call chain, walked by the kernel through\n"
     "frame pointers (fp; code built with -fno-omit-frame-pointer), or\n"
     "none (default)",
     [](RunOptions& r, const std::string& v) {
         if (v != "fp" && v != "none")
             throw UsageError("unknown call graph '" + v + "' (use fp, or none; dwarf is not there yet)");
         r.call_graph = v;
     },
     [](const RunOptions& r) { return r.call_graph; }},
    {"call-graph-depth", 0, "N", Option::call_graph_depth, kCollectors,
     "frames per call chain at most (default 128; the kernel's\n"
     "kernel.perf_event_max_stack, 127 by default, caps it)",
     [](RunOptions& r, const std::string& v) {
         r.call_graph_depth = static_cast<unsigned>(parse_whole("call graph depth", v, 1, kMaxCallDepth));
     },
     [](const RunOptions& r) { return std::to_string(r.call_graph_depth); }},
    {"quiet", 'q', nullptr, Option::quiet, kAll, "no notes (such as why the default events were chosen); errors stay",
     [](RunOptions& r, const std::string&) { r.quiet = true; },
     [](const RunOptions& r) { return std::string(r.quiet ? "1" : ""); }},
    {"list-events", 0, nullptr, Option::list_events, kAll, "print the events this machine can count",
     [](RunOptions& r, const std::string&) { r.list_events = true; }, nullptr},
    {"version", 0, nullptr, Option::version, kAll, "print the version and the git revision built",
     [](RunOptions& r, const std::string&) { r.show_version = true; }, nullptr},
    {"help", 'h', nullptr, Option::help, kAll, "this text",
     [](RunOptions&, const std::string&) -> void { throw UsageError(""); }, nullptr},
};

// The row of option `name` that `tool` accepts; a UsageError naming the
// tools that do when it does not.
const OptionRow& row_for(const std::string& name, Tool tool) {
    std::string owners;
    for (const OptionRow& r : kOptions) {
        if (name != r.name) continue;
        if (r.tools & bit(tool)) return r;
        for (Tool t : {Tool::sprof_lib, Tool::sprof_pt, Tool::preprof})
            if ((r.tools & bit(t)) && owners.find(tool_name(t)) == std::string::npos)
                owners += std::string(owners.empty() ? "" : " and ") + tool_name(t);
    }
    throw UsageError("--" + name + " is an option of " + owners);
}

bool optional_value(const OptionRow& r) { return r.value && r.value[0] == '['; }

std::string environment_name(const OptionRow& r) {
    std::string v = "SPROF_";
    for (const char* c = r.name; *c; ++c) v += *c == '-' ? '_' : static_cast<char>(std::toupper(*c));
    return v;
}

}  // namespace

std::string run_usage(Tool tool) {
    constexpr size_t kColumn = 28;
    std::string u = tool == Tool::preprof
                        ? "usage: preprof [options] program\n"
                          "Writes the control file sprof_lib and sprof_pt read (-c FILE, or <program>.prf beside the "
                          "program).\n"
                        : std::string("usage: ") + tool_name(tool) + " [options] [--] program [args…]\n";
    if (tool == Tool::sprof_pt) u += "       sprof_pt [options] -p PID[,PID…] | --tid TID[,TID…]\n";
    for (const OptionRow& r : kOptions) {
        if (!(r.tools & bit(tool))) continue;
        std::string flag = r.letter ? std::string("  -") + r.letter + ", " : "      ";
        flag += std::string("--") + r.name + (r.value ? (optional_value(r) ? "" : " ") + std::string(r.value) : "");
        flag.resize(std::max(kColumn, flag.size() + 2), ' ');  // two spaces at least: where the help begins
        for (const char* h = r.help; *h; ++h) flag += *h == '\n' ? "\n" + std::string(kColumn, ' ') : std::string(1, *h);
        u += flag + "\n";
    }
    return u;
}

void parse_run_options(int argc, char** argv, Tool tool, RunOptions& run) {
    // getopt sees every tool's options, so one of another tool gets a reason, not "unknown".
    std::vector<const OptionRow*> unique;
    std::vector<option> longopts;
    std::string shortopts = "+:";  // '+': stop at the first non-option, which is the program
    for (const OptionRow& r : kOptions) {
        bool seen = false;
        for (const OptionRow* u : unique) seen = seen || std::string(u->name) == r.name;
        if (seen) continue;
        const int has_arg = !r.value ? no_argument : optional_value(r) ? optional_argument : required_argument;
        longopts.push_back({r.name, has_arg, nullptr, 256 + static_cast<int>(unique.size())});
        unique.push_back(&r);
        if (r.letter) shortopts += std::string(1, r.letter) + std::string(static_cast<size_t>(has_arg), ':');
    }
    longopts.push_back({nullptr, 0, nullptr, 0});
    optind = 1;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, shortopts.c_str(), longopts.data(), nullptr)) != -1;) {
        if (c == ':') throw UsageError(std::string("option '") + argv[optind - 1] + "' needs a value");
        const OptionRow* found = c >= 256 ? unique[static_cast<size_t>(c - 256)] : nullptr;
        for (const OptionRow* u : unique)
            if (!found && u->letter && c == u->letter) found = u;
        if (!found) throw UsageError(std::string("unknown option '") + argv[optind - 1] + "'");
        const OptionRow& r = row_for(found->name, tool);
        r.set(run, optarg ? optarg : "");
        run.give(r.option);
    }
    run.program = optind < argc ? argv + optind : nullptr;
}

std::vector<std::pair<std::string, std::string>> to_environment(const RunOptions& run) {
    std::vector<std::pair<std::string, std::string>> env;
    for (const OptionRow& r : kOptions)
        if (r.text) env.emplace_back(environment_name(r), r.text(run));
    return env;
}

RunOptions from_environment() {
    RunOptions run;
    for (const OptionRow& r : kOptions) {
        if (!r.text) continue;
        const std::string name = environment_name(r);
        const char* value = std::getenv(name.c_str());
        if (!value || !*value) continue;
        try {
            r.set(run, value);
        } catch (const UsageError& e) {
            throw UsageError(name + "='" + value + "': " + e.what());
        }
        run.give(r.option);
    }
    return run;
}

}  // namespace sprof
