// sprof_lib: runs a program with the sampling runtime preloaded. It sets the
// environment and execs the program in place, so the program keeps this pid,
// its stdin/stdout/stderr, its signals and its exit status.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "preloadable.hpp"
#include "sprof/launch.hpp"
#include "sprof/locality_options.hpp"
#include "sprof/proc.hpp"
#include "sprof/run_profile.hpp"

namespace {

// libsprof_rt.so next to this tool: <prefix>/bin/sprof_lib → <prefix>/lib*/libsprof_rt.so.
std::string runtime_library() {
    namespace fs = std::filesystem;
    const fs::path self = sprof::exe_path(0);
    if (self.empty()) throw std::runtime_error("cannot read /proc/self/exe to find libsprof_rt.so");
    for (const char* dir : {"lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"}) {
        fs::path candidate = self.parent_path().parent_path() / dir / "libsprof_rt.so";
        if (fs::exists(candidate)) return candidate.string();
    }
    throw std::runtime_error("cannot find libsprof_rt.so next to " + self.string());
}

}  // namespace

int main(int argc, char** argv) {
    const sprof::Tool tool = sprof::Tool::sprof_lib;
    return sprof::collector_main(argc, argv, tool, [&](sprof::RunOptions& run) -> int {
        // The program keeps this pid, so its profile's name is known now: a
        // run that could write none never starts (the runtime would only warn).
        sprof::check_program(run.program, sprof::tool_name(tool));
        const std::string program = std::filesystem::canonical(sprof::find_program(run.program[0])).string();
        if (const std::string why = sprof::why_not_preloadable(program); !why.empty()) throw std::runtime_error(why);
        sprof::check_output(sprof::expand_output_path(run.output, program, getpid()));  // as the runtime names it
        sprof::prepare_locality(run);
        for (const auto& [name, value] : sprof::to_environment(run)) setenv(name.c_str(), value.c_str(), 1);
        setenv(sprof::kRootPidVariable, std::to_string(getpid()).c_str(), 1);  // the program keeps this pid
        std::string preload = runtime_library();
        if (const char* old = std::getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
        setenv("LD_PRELOAD", preload.c_str(), 1);
        sprof::exec_program(run.program, sprof::tool_name(tool));
    });
}
