#include "sprof/launch.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sprof/events.hpp"

namespace sprof {

void exec_program(char** argv, const std::string& tool) {
    execvp(argv[0], argv);
    int err = errno;
    std::fprintf(stderr, "%s: cannot run '%s': %s\n", tool.c_str(), argv[0], std::strerror(err));
    _exit(err == ENOENT || err == ENOTDIR ? 127 : 126);
}

bool prepare_run(RunOptions& opts, int argc, char**, int program_index, const std::string& tool) {
    if (opts.list_events) {
        for (const auto& name : countable_events()) std::printf("%s\n", name.c_str());
        return false;
    }
    if (program_index >= argc) throw UsageError("no program to profile");
    if (opts.events.empty()) {
        std::string why;
        opts.events = default_events(why);
        if (!why.empty()) std::fprintf(stderr, "%s: %s\n", tool.c_str(), why.c_str());
    }
    auto specs = resolve_events(opts.events);  // every event opened once before the run starts
    if (opts.slots > specs.size())
        throw UsageError("--slots " + std::to_string(opts.slots) + " is more than the " +
                         std::to_string(specs.size()) + " events");
    return true;
}

}  // namespace sprof
