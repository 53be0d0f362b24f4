#include "sprof/launch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "sprof/backend.hpp"
#include "sprof/control_file.hpp"
#include "sprof/version.hpp"

namespace sprof {
namespace {

namespace fs = std::filesystem;

// Takes the options the command line left open from the control file that
// applies to the program, if any.
void take_control_file(RunOptions& run) {
    const std::string exe = find_program(run.program[0]);
    std::string path = run.control;
    if (path.empty() && !exe.empty() && fs::exists(exe + ".prf")) path = exe + ".prf";
    if (path.empty()) return;
    ControlFile c = read_control_file(path);
    std::error_code ec;
    if (!exe.empty() && !fs::equivalent(c.program, exe, ec))
        throw ControlFileError(path + " was written for " + c.program + ", not " + exe + " (run preprof " + exe + ")");
    apply_control_file(run, std::move(c.run));
    run.control = fs::absolute(path).string();
}

}  // namespace

std::string find_program(const std::string& name) {
    if (name.find('/') != std::string::npos) return access(name.c_str(), F_OK) == 0 ? name : "";
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "";
}

namespace {

[[noreturn]] void cannot_run(const char* program, int err, const std::string& tool) {
    std::fprintf(stderr, "%s: cannot run '%s': %s\n", tool.c_str(), program, std::strerror(err));
    _exit(err == ENOENT || err == ENOTDIR ? 127 : 126);
}

}  // namespace

void exec_program(char** argv, const std::string& tool) {
    execvp(argv[0], argv);
    cannot_run(argv[0], errno, tool);
}

void check_program(char** argv, const std::string& tool) {
    const std::string path = find_program(argv[0]);
    if (path.empty()) cannot_run(argv[0], ENOENT, tool);
    struct stat st;
    if (stat(path.c_str(), &st) != 0) cannot_run(argv[0], errno, tool);
    if (S_ISDIR(st.st_mode)) cannot_run(argv[0], EISDIR, tool);
    if (access(path.c_str(), X_OK) != 0) cannot_run(argv[0], errno, tool);
}

void check_output(const std::string& path) {
    // An existing file is opened as it is (the profile replaces it later);
    // a new one is created and removed again, so a refused run leaves nothing.
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    const bool created = fd < 0 && errno == ENOENT;
    if (created) fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
    ::close(fd);
    if (created) ::unlink(path.c_str());
}

bool answered_alone(const RunOptions& run, Tool tool) {
    if (run.show_version) std::printf("%s %s\n", tool_name(tool), version_text());
    else if (run.list_events)
        for (const auto& event : countable_events()) std::printf("%s\n", event.c_str());
    return run.show_version || run.list_events;
}

RunOptions prepare_run(int argc, char** argv, Tool tool) {
    RunOptions run;
    parse_run_options(argc, argv, tool, run);
    if (run.list_events || run.show_version || (!run.program && !run.attaching())) return run;
    if (run.attaching() && run.program)
        throw UsageError("-p/--tid attach to running tasks: give no program as well");
    if (run.given(Option::duration) && !run.attaching())
        throw UsageError("--duration ends an attach (-p, --tid); a program sprof_pt starts is profiled to its end");
    // A control file's function tables are the files of one program; an
    // attached process's are read from the files it has mapped.
    if (run.attaching() && run.given(Option::control))
        throw UsageError("-c is for a program sprof_pt starts, not with -p/--tid");
    if (tool != Tool::preprof && run.program) take_control_file(run);  // preprof writes control files, never reads one
    if (!run.given(Option::rotation_seed)) run.rotation.seed = random_seed();
    // Said once, by the command the user typed (the runtime gets every option).
    if (!run.quiet && run.given(Option::tick_dither) && run.tick_dither > 0 && ticks_dropped_in_kernel(run))
        std::fprintf(stderr, "%s: --tick-dither ignored: the kernel drops the ticks that land in it for this user, "
                             "and the lost ones are counted on a fixed period\n", tool_name(tool));
    resolve_run(run, tool_name(tool), tool);
    return run;
}

void resolve_run(RunOptions& run, const std::string& tool, Tool collector) {
    if (run.events.empty()) {
        std::string why;
        run.events = resolve_events(default_events(why), false);
        if (!why.empty() && !run.quiet) std::fprintf(stderr, "%s: %s\n", tool.c_str(), why.c_str());
    }
    const auto n = static_cast<unsigned>(run.events.size());
    if (run.slots > n)
        throw UsageError("--slots " + std::to_string(run.slots) + " is more than the " + std::to_string(n) + " events");
    if (run.slots == 0) run.slots = n;
    // Events sample themselves where the perf backend takes the ticks on the
    // task's CPU time: their records and the ticks' then share one clock and
    // one group of counters (backend_perf.cpp). cmdev and the wall clock
    // count only. PMU events not in sprof_lib: its handler parses the
    // records in the thread whose instructions they count, and on the arm64
    // guest (scripts/pmu-test, 1 ms ticks) the functions it interrupted
    // gained 2.6 % (-icount shift=1), still 3.4 % (shift=2) with the handler's
    // share between two group reads charged to itself; counted at the ticks,
    // whose handler is one group read, they are within 2 %. sprof_pt reads
    // the records from another process: within 0.04 %.
    // The kernel walks the chain when it records a tick on the task's CPU time.
    if (call_depth(run) && run.clock != "cpu")
        throw UsageError("--call-graph needs the CPU-time ticks (--clock cpu): wall-clock ticks carry no call chain");
    const bool pmu_records = collector != Tool::sprof_lib;
    for (EventSpec& ev : run.events)
        ev.self_sampled = run.backend == "perf" && run.clock == "cpu" && can_sample_itself(ev) &&
                          (ev.attr.type == PERF_TYPE_SOFTWARE || pmu_records);
    // The run's counters, once, on this process, through the backend the run
    // will use (its permission rules, not perf's, for cmdev): a run never
    // starts with an event, a timer or a device it cannot have.
    make_backend(run.backend, run.events, run.slots, run.rotation, call_depth(run))->attach(0, false, tick_plan(run));
}

int collector_main(int argc, char** argv, Tool tool, const std::function<int(RunOptions&)>& body) {
    const std::string name = tool_name(tool);
    RunOptions run;
    try {
        run = prepare_run(argc, argv, tool);
        if (answered_alone(run, tool)) return 0;
        if (!run.program && !run.attaching()) throw UsageError("no program to profile");
    } catch (const UsageError& e) {
        if (*e.what()) {
            std::fprintf(stderr, "%s: %s (see %s --help)\n", name.c_str(), e.what(), name.c_str());
            return 2;
        }
        std::fputs(run_usage(tool).c_str(), stdout);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
        return 2;
    }
    try {
        return body(run);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
        return 2;
    }
}

}  // namespace sprof
