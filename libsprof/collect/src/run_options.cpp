#include "sprof/run_options.hpp"

#include <getopt.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "sprof/events.hpp"
#include "sprof/sample.hpp"

namespace sprof {

uint64_t parse_duration(const std::string& s) {
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || errno != 0 || !(v > 0) || !std::isfinite(v))
        throw UsageError("invalid duration '" + s + "' (examples: 10ms, 250us, 1s)");
    std::string unit(end);
    double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" || unit.empty() ? 1e6 : unit == "s" ? 1e9 : 0;
    if (scale == 0) throw UsageError("invalid duration unit in '" + s + "' (use ns, us, ms or s)");
    double ns = v * scale;
    if (ns < 1000 || ns > 3600e9) throw UsageError("duration '" + s + "' out of range (1us … 1h)");
    return static_cast<uint64_t>(std::llround(ns));
}

std::string format_duration(uint64_t ns) {
    if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + "s";
    if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
    if (ns % 1'000 == 0) return std::to_string(ns / 1'000) + "us";
    return std::to_string(ns) + "ns";
}

static unsigned parse_count(const std::string& s, const char* what, unsigned max) {
    char* end = nullptr;
    errno = 0;
    unsigned long v = std::strtoul(s.c_str(), &end, 10);
    if (s.empty() || *end || errno || v == 0 || v > max || s[0] == '-')
        throw UsageError(std::string("invalid ") + what + " '" + s + "' (a whole number from 1 to " +
                         std::to_string(max) + ")");
    return static_cast<unsigned>(v);
}

std::string run_usage(const std::string& tool, bool ptrace_options) {
    std::string u = "usage: " + tool + " [options] [--] program [args…]\n"
        "  -e, --events LIST         events to count, comma separated (default: a hardware set, or\n"
        "                            task-clock,page-faults,context-switches,cpu-migrations without a PMU)\n"
        "      --slots K             physical counters: at most K events live at once (virtual counters)\n"
        "  -s, --sample-interval DUR sampling interval of CPU time (default 10ms; ns/us/ms/s)\n"
        "  -H, --hist-samples N      samples per histogram interval (default 50)\n"
        "      --hist-interval DUR   histogram interval as a duration instead\n"
        "  -o, --output FILE         profile file (default <program>.<pid>.sprof; %p = pid, %h = host, %r = MPI/Slurm rank, %j = job id)\n"
        "  -c, --control FILE        control file written by preprof\n"
        "      --backend perf|cmdev  counter source (default perf; cmdev needs kmod/cmdev.ko)\n";
    if (ptrace_options)
        u += "      --clock cpu|wall      sample on the program's CPU time (default) or wall time\n"
             "      --no-follow           do not follow fork/vfork/exec\n";
    u += "      --list-events         print the events this machine can count\n"
         "  -h, --help                this text\n";
    return u;
}

int parse_run_options(int argc, char** argv, RunOptions& o, bool ptrace_options) {
    enum { kSlots = 256, kHistInterval, kBackend, kClock, kNoFollow, kList };
    static const option longopts[] = {
        {"events", required_argument, nullptr, 'e'},
        {"slots", required_argument, nullptr, kSlots},
        {"sample-interval", required_argument, nullptr, 's'},
        {"hist-samples", required_argument, nullptr, 'H'},
        {"hist-interval", required_argument, nullptr, kHistInterval},
        {"output", required_argument, nullptr, 'o'},
        {"control", required_argument, nullptr, 'c'},
        {"backend", required_argument, nullptr, kBackend},
        {"clock", required_argument, nullptr, kClock},
        {"no-follow", no_argument, nullptr, kNoFollow},
        {"list-events", no_argument, nullptr, kList},
        {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0},
    };
    optind = 1;
    opterr = 0;
    for (;;) {
        // '+': stop at the first non-option, which is the program.
        int c = getopt_long(argc, argv, "+:e:s:H:o:c:h", longopts, nullptr);
        if (c == -1) break;
        std::string arg = optarg ? optarg : "";
        switch (c) {
        case 'e': o.events = arg; split_list(arg); break;
        case kSlots: o.slots = parse_count(arg, "slot count", kMaxEvents); break;
        case 's': o.sample_interval_ns = parse_duration(arg); break;
        case 'H': o.hist_samples = parse_count(arg, "sample count", 1'000'000); o.hist_interval_ns = 0; break;
        case kHistInterval: o.hist_interval_ns = parse_duration(arg); break;
        case 'o': o.output = arg; break;
        case 'c': o.control = arg; break;
        case kBackend:
            if (arg != "perf" && arg != "cmdev") throw UsageError("unknown backend '" + arg + "' (use perf or cmdev)");
            o.backend = arg;
            break;
        case kClock:
            if (!ptrace_options) throw UsageError("--clock is an option of sprof_pt");
            if (arg != "cpu" && arg != "wall") throw UsageError("unknown clock '" + arg + "' (use cpu or wall)");
            o.clock = arg;
            break;
        case kNoFollow:
            if (!ptrace_options) throw UsageError("--no-follow is an option of sprof_pt");
            o.follow = false;
            break;
        case kList: o.list_events = true; break;
        case 'h': throw UsageError("");
        case ':': throw UsageError(std::string("option '") + argv[optind - 1] + "' needs a value");
        default: throw UsageError(std::string("unknown option '") + argv[optind - 1] + "'");
        }
    }
    return optind;
}

std::vector<std::pair<std::string, std::string>> to_environment(const RunOptions& o) {
    return {
        {"SPROF_EVENTS", o.events},
        {"SPROF_SLOTS", std::to_string(o.slots)},
        {"SPROF_SAMPLE_NS", std::to_string(o.sample_interval_ns)},
        {"SPROF_HIST_SAMPLES", std::to_string(o.hist_samples)},
        {"SPROF_HIST_NS", std::to_string(o.hist_interval_ns)},
        {"SPROF_OUTPUT", o.output},
        {"SPROF_BACKEND", o.backend},
        {"SPROF_CONTROL", o.control},  // the runtime takes the function tables from it
    };
}

RunOptions from_environment() {
    RunOptions o;
    auto get = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v ? v : "";
    };
    auto number = [&](const char* name, uint64_t fallback) -> uint64_t {
        std::string v = get(name);
        if (v.empty()) return fallback;
        char* end = nullptr;
        unsigned long long n = std::strtoull(v.c_str(), &end, 10);
        if (*end) throw UsageError(std::string(name) + "='" + v + "' is not a number");
        return n;
    };
    o.events = get("SPROF_EVENTS");
    o.slots = static_cast<unsigned>(number("SPROF_SLOTS", 0));
    o.sample_interval_ns = number("SPROF_SAMPLE_NS", o.sample_interval_ns);
    o.hist_samples = static_cast<uint32_t>(number("SPROF_HIST_SAMPLES", o.hist_samples));
    o.hist_interval_ns = number("SPROF_HIST_NS", 0);
    o.output = get("SPROF_OUTPUT");
    if (std::string b = get("SPROF_BACKEND"); !b.empty()) o.backend = b;
    o.control = get("SPROF_CONTROL");
    return o;
}

unsigned image_number(const char* value, int pid) {
    if (!value) return 0;
    char* end = nullptr;
    errno = 0;
    long owner = std::strtol(value, &end, 10);
    if (errno || end == value || *end != ':' || owner != pid) return 0;
    const char* digits = end + 1;
    unsigned long n = std::strtoul(digits, &end, 10);
    if (errno || end == digits || *end || *digits == '-' || n > 1'000'000'000) return 0;
    return static_cast<unsigned>(n);
}

// Inserts `tag` before the pattern's ".sprof" ending, or appends it.
static std::string before_ending(const std::string& p, const std::string& tag) {
    const std::string ending = ".sprof";
    bool has_ending = p.size() > ending.size() && p.compare(p.size() - ending.size(), ending.size(), ending) == 0;
    return has_ending ? p.substr(0, p.size() - ending.size()) + tag + ending : p + tag;
}

std::string expand_output_path(const std::string& pattern, const std::string& program, int pid,
                               bool descendant, unsigned image, const JobPlace& job) {
    std::string p = pattern;
    if (p.empty()) {
        auto slash = program.rfind('/');
        p = (slash == std::string::npos ? program : program.substr(slash + 1)) +
            (job.in_job() ? ".%j.rank%r.sprof" : ".%p.sprof");
    } else {
        // Ranks of one job, perhaps on hosts that share the directory, never share a file.
        if (job.in_job() && p.find("%r") == std::string::npos) p = before_ending(p, ".rank%r");
        if (descendant && p.find("%p") == std::string::npos) p = before_ending(p, ".%p");
    }
    if (image > 0) p = before_ending(p, ".exec" + std::to_string(image));
    std::string out;
    for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] != '%' || i + 1 == p.size()) {
            out += p[i];
            continue;
        }
        char c = p[++i];
        if (c == 'p') out += std::to_string(pid);
        else if (c == 'r') out += std::to_string(job.in_job() ? job.rank : 0);
        else if (c == 'j') out += job.job_id.empty() ? std::to_string(pid) : job.job_id;
        else if (c == 'h') {
            char host[256] = {};
            gethostname(host, sizeof host - 1);
            out += host;
        } else if (c == '%') out += '%';
        else out += std::string("%") + c;
    }
    return out;
}

}  // namespace sprof
