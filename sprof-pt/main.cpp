// sprof_pt: profiles a program from outside, with ptrace and per-task
// counters: no relinking, preloading or recompiling of the program.
#include "monitor.hpp"
#include "sprof/launch.hpp"

int main(int argc, char** argv) {
    return sprof::collector_main(argc, argv, "sprof_pt", true, [](sprof::PreparedRun& run) {
        sprof::pt::MonitorSetup setup;
        setup.opts = std::move(run.opts);
        setup.events = std::move(run.events);
        setup.slots = run.slots;
        setup.tables = std::move(run.tables);
        setup.tool = "sprof_pt";
        sprof::pt::Monitor monitor(std::move(setup));
        return monitor.run(run.program);
    });
}
