#include "sprof/launch.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sprof/backend.hpp"
#include "sprof/control_file.hpp"

namespace sprof {

void exec_program(char** argv, const std::string& tool) {
    execvp(argv[0], argv);
    int err = errno;
    std::fprintf(stderr, "%s: cannot run '%s': %s\n", tool.c_str(), argv[0], std::strerror(err));
    _exit(err == ENOENT || err == ENOTDIR ? 127 : 126);
}

void resolve_run_events(PreparedRun& run, const std::string& tool) {
    if (run.opts.events.empty()) {
        std::string why;
        run.opts.events = default_events(why);
        if (!why.empty()) std::fprintf(stderr, "%s: %s\n", tool.c_str(), why.c_str());
    }
    run.events = resolve_events(run.opts.events, false);
    const auto n = static_cast<unsigned>(run.events.size());
    if (run.opts.slots > n)
        throw UsageError("--slots " + std::to_string(run.opts.slots) + " is more than the " + std::to_string(n) +
                         " events");
    run.slots = run.opts.slots ? run.opts.slots : n;
    // The run's counters, once, on this process, through the backend the run
    // will use (its permission rules, not perf's, for cmdev): a run never
    // starts with an event, a timer or a device it cannot have.
    make_backend(run.opts.backend, run.events, run.slots)->attach(0, false, run.opts.sample_interval_ns);
}

int collector_main(int argc, char** argv, const std::string& tool, bool ptrace_options,
                   const std::function<int(PreparedRun&)>& run) {
    PreparedRun prepared;
    try {
        int program = parse_run_with_control(argc, argv, prepared.opts, ptrace_options, &prepared.tables);
        if (prepared.opts.list_events) {
            for (const auto& name : countable_events()) std::printf("%s\n", name.c_str());
            return 0;
        }
        if (program >= argc) throw UsageError("no program to profile");
        prepared.program = argv + program;
        resolve_run_events(prepared, tool);
    } catch (const UsageError& e) {
        if (*e.what()) {
            std::fprintf(stderr, "%s: %s (see %s --help)\n", tool.c_str(), e.what(), tool.c_str());
            return 2;
        }
        std::fputs(run_usage(tool, ptrace_options).c_str(), stdout);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", tool.c_str(), e.what());
        return 2;
    }
    try {
        return run(prepared);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", tool.c_str(), e.what());
        return 2;
    }
}

}  // namespace sprof
