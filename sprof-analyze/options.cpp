#include "options.hpp"

#include <charconv>

namespace sprof::analyze {

const char* const kUsage = R"(usage: sprof [options] PROFILE...
Reports on one or more sprof profiles (merged: threads, processes, MPI ranks).

Reports (default: the flat profile, functions by time):
  --info                     the profiles' metadata
  --timeline [--by-function] one row per histogram interval (per function)
  --phases[=auto|func:NAME]  program phases: automatic change points, or the
                             runs in which function NAME keeps running / idle
  --warp                     workload vectors per function and phase (JSON)
  --calibrate PROFILE... -o MACHINE.json
                             fit seconds per event on this machine (NNLS)
  --predict MACHINE.json PROFILE
                             predicted run time per phase and in total
Outputs that may accompany a report:
  --plot FILE.png|FILE.svg   a rate over time (per phase with --phases)
  --plot-rate NAME           the rate to plot (default: the first rate)
  --export chrome-trace FILE.json
                             Chrome trace events (Perfetto UI)
Options:
  --rate NAME=EXPR           a derived rate (repeatable): + - * / ( ) numbers,
                             event names, `time` (seconds), `samples`
  --no-default-rates         only the rates given with --rate
  --estimator coverage|carry how multiplexed events are estimated
  --top N                    only the N functions with most time
  --format text|csv|json     output format (default text)
  --phase-threshold F        share of an interval's time above which a
                             function counts as running (default 0.1)
  --min-phase N              shortest automatic phase, in intervals (default 3)
  -o, --output FILE          output of --calibrate
  -h, --help                 this text
Exit status: 0 success, 1 unreadable or invalid profile, 2 bad usage.
)";

namespace {

unsigned long parse_count(const std::string& opt, const std::string& v) {
    unsigned long n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size())
        throw UsageError(opt + " needs a non-negative integer, not '" + v + "'");
    return n;
}

double parse_fraction(const std::string& opt, const std::string& v) {
    double x = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || end != v.data() + v.size() || !(x >= 0 && x <= 1))
        throw UsageError(opt + " needs a number between 0 and 1, not '" + v + "'");
    return x;
}

void set_report(Options& o, Report r, const std::string& opt) {
    if (o.report_given && o.report != r) throw UsageError(opt + " cannot be combined with another report");
    o.report = r;
    o.report_given = true;
}

}  // namespace

PhaseParams phase_params(const Options& o) {
    return {o.phases.function, o.phase_threshold, o.min_phase, o.estimator};
}

Options parse_options(const std::vector<std::string>& args) {
    Options o;
    size_t i = 0;
    // The option's value: "--opt=value" or the next argument.
    auto value = [&](const std::string& opt, std::optional<std::string>& inline_value) {
        if (inline_value) return *inline_value;
        if (i + 1 >= args.size()) throw UsageError(opt + " needs a value");
        return args[++i];
    };
    bool only_files = false;
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (only_files || a.size() < 2 || a[0] != '-') {
            o.profiles.push_back(a);
            continue;
        }
        if (a == "--") {
            only_files = true;
            continue;
        }
        std::string opt = a;
        std::optional<std::string> inline_value;
        if (size_t eq = a.find('='); a.starts_with("--") && eq != std::string::npos) {
            opt = a.substr(0, eq);
            inline_value = a.substr(eq + 1);
        }
        auto no_value = [&] {
            if (inline_value) throw UsageError(opt + " takes no value");
        };
        if (opt == "-h" || opt == "--help") o.help = true;
        else if (opt == "--info") {
            no_value();
            set_report(o, Report::info, opt);
        } else if (opt == "--timeline") {
            no_value();
            set_report(o, Report::timeline, opt);
        } else if (opt == "--by-function") {
            no_value();
            o.by_function = true;
        } else if (opt == "--warp") {
            no_value();
            set_report(o, Report::warp, opt);
        } else if (opt == "--calibrate") {
            no_value();
            set_report(o, Report::calibrate, opt);
        } else if (opt == "--predict") {
            set_report(o, Report::predict, opt);
            o.machine_file = value(opt, inline_value);
        } else if (opt == "--phases") {
            set_report(o, Report::phases, opt);
            std::string spec = inline_value.value_or("auto");
            if (spec.starts_with("func:") && spec.size() > 5) o.phases.function = spec.substr(5);
            else if (spec != "auto") throw UsageError("--phases takes auto or func:NAME, not '" + spec + "'");
        } else if (opt == "--phase-threshold") o.phase_threshold = parse_fraction(opt, value(opt, inline_value));
        else if (opt == "--min-phase") {
            o.min_phase = static_cast<unsigned>(parse_count(opt, value(opt, inline_value)));
            if (o.min_phase == 0) throw UsageError("--min-phase must be at least 1");
        } else if (opt == "--rate") o.rates.push_back(value(opt, inline_value));
        else if (opt == "--no-default-rates") {
            no_value();
            o.default_rates = false;
        } else if (opt == "--estimator") {
            try {
                o.estimator = parse_estimator(value(opt, inline_value));
            } catch (const std::invalid_argument& e) {
                throw UsageError(e.what());
            }
        } else if (opt == "--top") o.top = parse_count(opt, value(opt, inline_value));
        else if (opt == "--format") {
            std::string f = value(opt, inline_value);
            if (f == "text") o.format = Format::text;
            else if (f == "csv") o.format = Format::csv;
            else if (f == "json") o.format = Format::json;
            else throw UsageError("unknown format '" + f + "' (use text, csv or json)");
        } else if (opt == "--plot") o.plot_file = value(opt, inline_value);
        else if (opt == "--plot-rate") o.plot_rate = value(opt, inline_value);
        else if (opt == "--export") {
            o.export_kind = value(opt, inline_value);
            if (o.export_kind != "chrome-trace")
                throw UsageError("unknown export format '" + o.export_kind + "' (use chrome-trace)");
            if (i + 1 >= args.size()) throw UsageError("--export chrome-trace needs an output file");
            o.export_file = args[++i];
        } else if (opt == "-o" || opt == "--output") o.output = value(opt, inline_value);
        else throw UsageError("unknown option '" + a + "' (see sprof --help)");
    }
    if (o.help) return o;
    if (o.profiles.empty()) throw UsageError("no profile given (see sprof --help)");
    if (o.report == Report::calibrate && o.output.empty())
        throw UsageError("--calibrate needs -o MACHINE.json");
    if (o.by_function && o.report != Report::timeline) throw UsageError("--by-function needs --timeline");
    if (!o.plot_file.empty() && !o.plot_file.ends_with(".png") && !o.plot_file.ends_with(".svg"))
        throw UsageError("--plot writes FILE.png or FILE.svg, not '" + o.plot_file + "'");
    return o;
}

}  // namespace sprof::analyze
