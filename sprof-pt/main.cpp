// sprof_pt: profiles a program from outside, with ptrace and per-task
// counters: no relinking, preloading or recompiling of the program.
#include <cstdio>

#include "monitor.hpp"
#include "sprof/control_file.hpp"
#include "sprof/launch.hpp"

int main(int argc, char** argv) {
    const std::string tool = "sprof_pt";
    try {
        sprof::pt::MonitorSetup setup;
        int program = sprof::parse_run_with_control(argc, argv, setup.opts, true, &setup.tables);
        if (!sprof::prepare_run(setup.opts, argc, argv, program, tool)) return 0;
        setup.events = sprof::resolve_events(setup.opts.events);
        setup.slots = setup.opts.slots ? setup.opts.slots : static_cast<unsigned>(setup.events.size());
        setup.tool = tool;
        sprof::pt::Monitor monitor(std::move(setup));
        return monitor.run(argv + program);
    } catch (const sprof::UsageError& e) {
        if (*e.what()) {
            std::fprintf(stderr, "%s: %s (see %s --help)\n", tool.c_str(), e.what(), tool.c_str());
            return 2;
        }
        std::fputs(sprof::run_usage(tool, true).c_str(), stdout);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", tool.c_str(), e.what());
        return 2;
    }
}
