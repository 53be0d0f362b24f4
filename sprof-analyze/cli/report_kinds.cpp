// The table of reports and outputs.
#include "report_kinds.hpp"

#include <algorithm>

#include "cache_levels.hpp"
#include "calibrate.hpp"
#include "exports.hpp"
#include "html_report.hpp"
#include "report_callers.hpp"
#include "report_compare.hpp"
#include "top.hpp"

namespace sprof::analyze {

namespace {

std::vector<ReportKind> make_report_kinds() {
    std::vector<ReportKind> kinds;
    kinds.push_back({
        .name = "flat",
        .option = {.help = "the flat profile: functions by time (the default)"},
        .details = "One row per function, most time first: samples, reference time and its share,\n"
                   "the estimate of every event (one column each, named as the event) and every\n"
                   "rate. --top N keeps the first N. Text starts with the totals and the rates'\n"
                   "definitions; JSON adds the totals as \"total\".",
        .options = {{.names = "--inclusive",
                     .help = "inclusive samples and time too (call paths, -g), by inclusive time",
                     .set = [](Options& o, const std::string&, const OptionValues&) { o.inclusive = true; }}},
        .timeline = false,
        .run = report_flat,
        .compare = compare_flat,
    });
    // Call paths of one function: --callers NAME, --callees NAME.
    for (const bool callers : {true, false}) {
        kinds.push_back({
            .name = callers ? "callers" : "callees",
            .option = {.names = callers ? "--callers" : "--callees",
                       .value = "NAME",
                       .values = 1,
                       .help = callers ? "who called function NAME, by time (call paths, -g)"
                                       : "what function NAME called, by time (call paths, -g)",
                       .set = [](Options& o, const std::string&, const OptionValues& v) { o.path_function = v[0]; }},
            .details = callers
                           ? "One row per caller of NAME on the recorded call paths (the frame outside\n"
                             "NAME's outermost call, so recursion counts a path once; [root]: a path that\n"
                             "begins at NAME): samples and time of the paths through it, and pct, its share\n"
                             "of NAME's inclusive time, then every event's estimate. CSV columns\n"
                             "caller,samples,time_s,pct, then the events. Needs a profile recorded with -g."
                           : "One row per callee of NAME (the frame inside NAME's outermost call; [self]:\n"
                             "time in NAME itself), as --callers gives its callers. CSV columns\n"
                             "callee,samples,time_s,pct, then the events. Needs a profile recorded with -g.",
            .timeline = false,
            .run = callers ? report_callers : report_callees,
        });
    }
    kinds.push_back({
        .name = "lines",
        .option = {.names = "--lines",
                   .value = "[=all|func:NAME]",
                   .implicit = "all",
                   .help = "the flat profile per source line (file:line)",
                   .set =
                       [](Options& o, const std::string& opt, const OptionValues& v) {
                           o.lines_function = parse_function_choice(opt, v[0], "all");
                       }},
        .details = "all: one row per source line of each function, most time first (--top N: the\n"
                   "first N), with samples, time, its share, events and rates as in the flat\n"
                   "profile; `source` is FILE:LINE with the file's base name, ??:0 where the code\n"
                   "has no debug information. CSV and JSON add the full path (`file`) and the\n"
                   "line number (`line`). func:NAME: only the lines of function NAME, in source\n"
                   "order, like perf annotate. Time in inlined code is the caller's, at the line\n"
                   "of the call (the default, --no-inline), or the inlined function's, at its own\n"
                   "line (--inline). Lines come from the program's debug information (-g), also\n"
                   "from a separate debug file (build-id or .gnu_debuglink, e.g. libc6-dbg);\n"
                   "profiles older than format 1.6 have none.",
        .timeline = false,
        .run = report_lines,
        .compare = compare_lines,
    });
    kinds.push_back({
        .name = "info",
        .option = {.names = "--info", .help = "the profiles' metadata"},
        .details = "Per profile: collector, backend, program, argv, pid, host, start, clock, sample\n"
                   "and histogram interval, slots, events (time-like ones marked; the share of\n"
                   "the sampled time each was live), threads, intervals, samples, exit status,\n"
                   "how the run ended, locality in brief, warnings. Text: a block\n"
                   "per profile; CSV: a row per profile; JSON: every field.",
        .run = report_info,
    });
    kinds.push_back({
        .name = "timeline",
        .option = {.names = "--timeline", .help = "one row per histogram interval"},
        .details = "Row k merges the k-th interval of every thread and profile; its rates come\n"
                   "from its own counts, never from running totals.",
        .options = {{.names = "--by-function",
                     .help = "a row per function in each interval (--top N: the first N)",
                     .set = [](Options& o, const std::string&, const OptionValues&) { o.by_function = true; }}},
        .run = report_timeline,
    });
    kinds.push_back({
        .name = "top",
        .option = {.names = "--follow", .help = "live, while a collector writes it: sprof top PROFILE"},
        .details = "Follows one profile as sprof_lib or sprof_pt writes it (the program may have\n"
                   "been started by anyone): waits for the file, reads what is appended, and shows\n"
                   "each histogram interval once complete. On a terminal a screen like perf top:\n"
                   "functions by their share of the interval's time, samples, every rate, and a\n"
                   "sparkline of their share in the last 24 intervals; q quits. Elsewhere CSV, the\n"
                   "header once and a row per function and interval, flushed per interval: the\n"
                   "columns of --timeline --by-function with time_pct after time_s. Threads merge\n"
                   "as in --timeline; the images a process execs into continue the time line.\n"
                   "When the program ends it says how, and exits 0.",
        .options = {{.names = "--wait",
                     .value = "S",
                     .values = 1,
                     .help = "seconds to wait for the profile (or an exec'd\nimage's) to appear (default 10)",
                     .set = [](Options& o, const std::string& opt,
                               const OptionValues& v) { o.wait_s = static_cast<unsigned>(parse_whole(opt, v[0], 0, 86400)); }}},
        .check =
            [](const Options& o) {
                if (o.profiles.size() != 1)
                    throw UsageError("sprof top follows one profile, not " + std::to_string(o.profiles.size()));
                if (o.format == Format::json) throw UsageError("sprof top writes a screen or CSV, not JSON");
                if (!o.outputs.empty()) throw UsageError("sprof top takes no --plot or --export");
            },
        .run_alone = follow_profile,
    });
    kinds.push_back({
        .name = "phases",
        .option = {.names = "--phases",
                   .value = "[=auto|func:NAME]",
                   .implicit = "auto",
                   .help = "program phases, one row per phase",
                   .set =
                       [](Options& o, const std::string& opt, const OptionValues& v) {
                           o.phases.function = parse_function_choice(opt, v[0], "auto");
                       }},
        .details = "auto: change points of the per-interval vectors (function time shares and\n"
                   "rates), no phase shorter than --min-phase intervals; recurring behaviour gets\n"
                   "one label (A B A B). An interval counts with the share of a full one it holds\n"
                   "(the last, cut short by the exit), and one interval unlike its neighbours is\n"
                   "no phase. func:NAME: the runs in which function NAME keeps running or idle.\n"
                   "Rates are the phase's momentary ones, over the whole phase.",
        .options = {{.names = "--phase-threshold",
                     .value = "F",
                     .values = 1,
                     .help = "share of an interval's time above which a\nfunction counts as running (default 0.1)",
                     .set = [](Options& o, const std::string& opt,
                               const OptionValues& v) { o.phase_threshold = parse_fraction(opt, v[0]); }}},
        .run = report_phases,
    });
    kinds.push_back({
        .name = "warp",
        .option = {.names = "--warp", .help = "workload vectors per function and phase (JSON)"},
        .details = "The whole run, every function (--top N: the first N) and every automatic phase\n"
                   "as reference seconds, samples and every event in total and per second.",
        .run = report_warp,
    });
    kinds.push_back({
        .name = "imbalance",
        .option = {.names = "--imbalance", .help = "the ranks of an MPI/Slurm job side by side"},
        .details = "Per rank (the profiles whose header names it; a profile outside a job is a rank\n"
                   "of its own): time and every event. Per function, [total] first: mean and max\n"
                   "time over the ranks, max/mean (1 = balanced), the slowest rank, the same for\n"
                   "every event, and each rank's time (rank<R>_s). Ranks missing from the job and\n"
                   "ranks that did not end normally are named (CSV: on stderr).",
        .timeline = false,
        .run = report_imbalance,
    });
    kinds.push_back({
        .name = "mrc",
        .option = {.names = "--mrc", .help = "miss ratio per cache size, 1 KiB-1 GiB (sprof-cc programs)"},
        .details = "From the locality records of a program built with sprof-cc and run under\n"
                   "sprof_lib --locality: LRU by StatStack (each phase converted with its own\n"
                   "reuse distances), random replacement by StatCache (the cache filling before\n"
                   "misses evict), with a 95 % band (bootstrap / delta method); --locality=exact\n"
                   "runs give the exact curve (low = high). CSV columns\n"
                   "cache_bytes,miss_ratio,low,high. With --plot the curve is drawn on a log axis\n"
                   "of bytes. With --cache SIZE[,SIZE]: misses per function in those caches\n"
                   "instead (an exact run: at the nearest sizes it counted).",
        .options = {{.names = "--policy",
                     .value = "lru|random",
                     .values = 1,
                     .help = "replacement policy of the modelled cache (default lru)",
                     .set =
                         [](Options& o, const std::string&, const OptionValues& v) {
                             if (v[0] == "lru") o.policy = Policy::lru;
                             else if (v[0] == "random") o.policy = Policy::random;
                             else throw UsageError("unknown policy '" + v[0] + "' (use lru or random)");
                         }}},
        .check =
            [](const Options& o) {
                if (!o.export_files.empty()) throw UsageError("--export does not apply to --mrc");
            },
        .run = report_locality,
        .compare = compare_mrc,
    });
    const auto view_check = [](const Options& o) {
        if (!o.export_files.empty() || !o.plot_file.empty())
            throw UsageError("--plot and --export do not apply to the locality views");
    };
    kinds.push_back({
        .name = "misses",
        .option = {.names = "--misses", .help = "estimated misses per source line or function (sprof-cc programs)"},
        .details = "Per location (--by), for each cache of --cache (default 32K,1M: two levels at\n"
                   "once), most misses in the first cache first: the share of accesses, the miss\n"
                   "ratio and the misses of a fully associative LRU cache. Sampled: each sample\n"
                   "stands for its window's accesses / samples at its own location; a reuse that\n"
                   "misses (StatStack) is a miss of its trigger's location; a line never reused\n"
                   "is the cold miss of its sampled access. Exact runs: the simulator's counts per\n"
                   "instruction, at its detail sizes (32K, 256K, 1M, 2M, 16M). CSV columns\n"
                   "location,accesses_pct,miss_ratio,misses, then miss_ratio_SIZE,misses_SIZE of\n"
                   "the other caches, then function,accesses,misses_pct….",
        .check = view_check,
        .run = report_misses,
        .compare = compare_misses,
    });
    kinds.push_back({
        .name = "use",
        .option = {.names = "--use", .help = "spatial and temporal use per statement, loads and stores"},
        .details = "SIP's use of the lines each statement brings into the cache (its misses of one\n"
                   "kind, load or store): spatial use = % of a line's bytes touched before it is\n"
                   "evicted, temporal use = how often each used byte is touched again (the first\n"
                   "touch not counted; at most 32 accesses of a line's stay are counted). Sampled:\n"
                   "every sampled reuse that misses brings its line in; the runtime followed that\n"
                   "line, and StatStack says at which of its gaps the cache evicts it. Exact runs:\n"
                   "every tenure, at the detail sizes. CSV columns location,spatial_use,\n"
                   "temporal_use,access,misses,tenures, then those of the other caches, function.",
        .check = view_check,
        .run = report_use,
    });
    kinds.push_back({
        .name = "data",
        .option = {.names = "--data", .help = "misses and use per data structure (heap by allocation site)"},
        .details = "Per data structure — a static variable by its symbol, heap blocks by their\n"
                   "allocation site (heap@SITE), a thread's stack, another mapping — for each cache:\n"
                   "the share of accesses, miss ratio and misses, and the spatial and temporal use\n"
                   "of the lines its reuses bring in (see --use). Sampled runs only. CSV columns\n"
                   "data,kind,accesses_pct,miss_ratio,misses,spatial_use,temporal_use, then those\n"
                   "of the other caches, accesses,size,object.",
        .check = view_check,
        .run = report_data,
    });
    kinds.push_back({
        .name = "reuse-pairs",
        .option = {.names = "--reuse-pairs", .help = "use → reuse location pairs that miss, and what to change"},
        .details = "RDVIS (Beyls & D'Hollander): pairs of the location of a sampled access (use) and\n"
                   "of the next access to its line (reuse), with their reuse-distance histograms.\n"
                   "The pairs whose reuses miss in the first cache of --cache (capacity misses),\n"
                   "heaviest first, as many as hold 90 % of those misses. For each: the code run\n"
                   "between use and reuse (the thread's samples taken in between, at most 64 spans\n"
                   "of 256 samples a pair); pairs clustered by the cosine similarity of that code,\n"
                   "and a hint per cluster: fusion (the code between splits into two loops),\n"
                   "tiling (one loop nest goes round), +layout (spatial use below 50 %). Sampled\n"
                   "runs only. CSV columns use,reuse,share,hint, then cluster,misses,reuses,samples,\n"
                   "spatial_use,use_spatial_use,distances,between.",
        .check = view_check,
        .run = report_reuse_pairs,
    });
    kinds.push_back({
        .name = "calibrate",
        .option = {.names = "--calibrate", .help = "fit seconds per event on this machine (NNLS)"},
        .details = "Each profile's automatic phases are the observations: reference seconds\n"
                   "against the events that are not time-like. Non-negative least squares gives\n"
                   "the seconds per event; the model and the fit's rms error go to MACHINE.json,\n"
                   "the fit per phase to stdout.",
        .options = {{.names = "-o,--output",
                     .value = "MACHINE.json",
                     .values = 1,
                     .help = "where the machine model goes (required)",
                     .set = [](Options& o, const std::string&, const OptionValues& v) { o.output = v[0]; }}},
        .check =
            [](const Options& o) {
                if (o.output.empty()) throw UsageError("--calibrate needs -o MACHINE.json");
            },
        .run_alone = calibrate_machine,
    });
    kinds.push_back({
        .name = "predict",
        .option = {.names = "--predict",
                   .value = "MACHINE.json",
                   .values = 1,
                   .help = "predicted run time per phase and in total",
                   .set = [](Options& o, const std::string&, const OptionValues& v) { o.machine_file = v[0]; }},
        .details = "The model of sprof --calibrate applied to the merged profiles' automatic\n"
                   "phases: measured and predicted seconds, and an error estimate (the prediction\n"
                   "times the fit's rms relative error).",
        .run_alone = predict_runtime,
    });
    kinds.push_back({
        .name = "html",
        .option = {.names = "--html",
                   .value = "DIR",
                   .values = 1,
                   .help = "the locality views as a static site (DIR/index.html)",
                   .set = [](Options& o, const std::string&, const OptionValues& v) { o.html_dir = v[0]; }},
        .output = true,
        .details = "One self-contained page that opens offline in any browser: an index of the\n"
                   "source files (by misses) and the views; each source file with its lines\n"
                   "coloured by estimated misses in the first cache of --cache and the heavy reuse\n"
                   "pairs drawn as arrows from use to reuse (darker: more misses); a click on a\n"
                   "line shows its misses, its statements' spatial and temporal use and its pairs,\n"
                   "a click on an arrow the pair's reuse-distance histogram and the code run in\n"
                   "between. Tables of lines and functions by misses, data structures, use and\n"
                   "pairs, and the miss-ratio curve with its band. The numbers are those of\n"
                   "--misses, --use, --data, --reuse-pairs and --mrc (their JSON is in the page); a\n"
                   "view the profile cannot give is named with why. Source files are read when the\n"
                   "report is made: one that moved is named on stderr and in the page.",
        .check = view_check,
        .run = write_html_report,
    });
    kinds.push_back({
        .name = "plot",
        .option = {.names = "--plot",
                   .value = "FILE.png|FILE.svg",
                   .values = 1,
                   .help = "a rate over time (per phase with --phases)",
                   .set =
                       [](Options& o, const std::string& opt, const OptionValues& v) {
                           if (!v[0].ends_with(".png") && !v[0].ends_with(".svg"))
                               throw UsageError(opt + " writes FILE.png or FILE.svg, not '" + v[0] + "'");
                           o.plot_file = v[0];
                       }},
        .output = true,
        .details = "Through gnuplot: the rate for the whole program and the top functions (--top,\n"
                   "default 5) per time-line row, the phase boundaries marked; with --phases also\n"
                   "the phases' momentary values as a step line.",
        .options = {{.names = "--plot-rate",
                     .value = "NAME",
                     .values = 1,
                     .help = "the rate to plot (default: the first rate)",
                     .set = [](Options& o, const std::string&, const OptionValues& v) { o.plot_rate = v[0]; }}},
        .run = write_plot,
    });
    // The export formats share `--export KIND FILE`: its setter picks the format.
    auto set_export = [](Options& o, const std::string&, const OptionValues& v) {
        const ReportKind* k = find_report_kind(v[0]);
        if (!k || !k->exported)
            throw UsageError("unknown export format '" + v[0] + "' (use " + export_format_names() + ")");
        o.add_output(k->name);
        o.export_files[k->name] = v[1];
    };
    kinds.push_back({
        .name = "chrome-trace",
        .option = {.names = "--export",
                   .value = "chrome-trace FILE.json",
                   .values = 2,
                   .help = "Chrome trace events (Perfetto UI)",
                   .set = set_export},
        .output = true,
        .exported = true,
        .details = "Opens in Perfetto UI and chrome://tracing: counter tracks per event (its\n"
                   "estimate in each interval, and that per second) and per rate, the phases and\n"
                   "each time-line row's top function as spans; a job's ranks as processes on one\n"
                   "time line; times in microseconds since the profile start.",
        .run = export_chrome_trace,
    });
    kinds.push_back({
        .name = "pprof",
        .option = {.names = "--export",
                   .value = "pprof FILE.pb.gz",
                   .values = 2,
                   .help = "profile.proto, gzipped (go tool pprof, speedscope)",
                   .set = set_export},
        .output = true,
        .exported = true,
        .details = "The flat profile as pprof's profile.proto, gzip-compressed: one sample per\n"
                   "source location (its Line list: the inlined functions there, innermost first,\n"
                   "then the function's own line; `go tool pprof -lines`), or per function where\n"
                   "the profile has no source lines, with a value per sample type: samples (count), cpu (reference time,\n"
                   "nanoseconds; the default) and every event's estimate (task-clock and cpu-clock\n"
                   "in nanoseconds, others a count), so `go tool pprof -sample_index=page-faults`\n"
                   "ranks functions by page faults. An estimate that is unknown (the event was\n"
                   "never live while the function ran) is written as 0 and counted in a comment.",
        .run = export_pprof,
    });
    kinds.push_back({
        .name = "gecko",
        .option = {.names = "--export",
                   .value = "gecko FILE.json",
                   .values = 2,
                   .help = "Gecko profile JSON (Firefox Profiler)",
                   .set = set_export},
        .output = true,
        .exported = true,
        .details = "Opens in the Firefox Profiler (profiler.firefox.com, Load a profile from file):\n"
                   "a process per profile, a thread track per thread. Each histogram interval's\n"
                   "samples are spread evenly over its time span, each function's interleaved\n"
                   "with the others' in proportion (the profile knows how many fell in each\n"
                   "function, not in which order); the CPU time each sample stands for is its\n"
                   "CPU delta. At most 200,000 samples: a larger profile is thinned alike, each\n"
                   "function's share and CPU time kept. A counter track per event (its estimate\n"
                   "in each time-line row), and the phases as markers on the process's main thread.",
        .run = export_gecko,
    });
    kinds.push_back({
        .name = "folded",
        .option = {.names = "--export",
                   .value = "folded FILE",
                   .values = 2,
                   .help = "folded call paths (flamegraph.pl, speedscope)",
                   .set = set_export},
        .output = true,
        .exported = true,
        .details = "One line per call path: its functions, outermost first, joined by ';', then a\n"
                   "space and its samples, as the FlameGraph tools' stackcollapse scripts write\n"
                   "them (flamegraph.pl FILE > flame.svg). Needs a profile recorded with -g.",
        .timeline = false,
        .run = export_folded,
    });
    return kinds;
}

}  // namespace

const std::vector<ReportKind>& report_kinds() {
    static const std::vector<ReportKind> kinds = make_report_kinds();
    return kinds;
}

namespace {

// The reports whose entry has a view of two runs.
std::vector<std::string> compared_reports() {
    std::vector<std::string> names;
    for (const auto& k : report_kinds())
        if (k.compare) names.push_back(k.name);
    return names;
}

}  // namespace

const std::vector<GroupOption>& group_options() {
    static const std::vector<std::string> locality = {"mrc", "misses", "use", "data", "reuse-pairs", "html"};
    static const std::vector<GroupOption> options = {
        // As pprof's -diff_base: the option names the run before (given once
        // per profile), the profiles on the line are the run after.
        {{.names = "--compare",
          .value = "BEFORE",
          .values = 1,
          .help = "two runs side by side: BEFORE (--compare once per profile)\n"
                  "against the PROFILEs; before, after, delta, ratio, and\n"
                  "whether the 95 % intervals allow the change",
          .set = [](Options& o, const std::string&,
                    const OptionValues& v) { o.compare_before.push_back(v[0]); }},
         compared_reports()},
        {{.names = "--cache",
          .value = "SIZE[,SIZE]",
          .values = 1,
          .help = "caches to answer for (e.g. 32K,1M; the views' default);\n"
                  "with --mrc: misses per function in them",
          .set = [](Options& o, const std::string& opt,
                    const OptionValues& v) { o.caches = parse_cache_sizes(opt, v[0]); }},
         locality},
        {{.names = "--line-size",
          .value = "N",
          .values = 1,
          .help = "the line size in bytes the report must be for (the run's)",
          .set = [](Options& o, const std::string& opt,
                    const OptionValues& v) { o.line_size = parse_line_size(opt, v[0]); }},
         locality},
        {{.names = "--by",
          .value = "function|line|instruction",
          .values = 1,
          .help = "what a location is (default line, FILE:LINE)",
          .set = [](Options& o, const std::string& opt,
                    const OptionValues& v) { o.by = parse_granularity(opt, v[0]); }},
         {"misses", "use", "data", "reuse-pairs", "html"}},
        {{.names = "--user-frames",
          .help = "a line in library code inlined into the user's (an\n"
                  "stl_tree.h lookup) is the user's line that called it",
          .set = [](Options& o, const std::string&, const OptionValues&) { o.user_frames = true; }},
         {"misses", "use", "data", "reuse-pairs", "html"}},
    };
    return options;
}

const ReportKind* find_report_kind(const std::string& name) {
    for (const auto& k : report_kinds())
        if (k.name == name) return &k;
    return nullptr;
}

std::string export_format_names() {
    std::vector<std::string> names;
    for (const auto& k : report_kinds())
        if (k.exported) names.push_back(k.name);
    std::string out;
    for (size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return out;
}

}  // namespace sprof::analyze
