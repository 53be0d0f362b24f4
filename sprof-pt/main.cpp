// sprof_pt: profiles a program from outside, with ptrace and per-task
// counters: no relinking, preloading or recompiling of the program.
#include "monitor.hpp"
#include "sprof/launch.hpp"

int main(int argc, char** argv) {
    return sprof::collector_main(argc, argv, sprof::Tool::sprof_pt, [](sprof::RunOptions& run) {
        sprof::pt::Monitor monitor(std::move(run));
        return monitor.run();
    });
}
