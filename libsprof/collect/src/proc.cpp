#include "sprof/proc.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace sprof {

std::string proc_file(pid_t pid, const std::string& name) {
    return (pid == 0 ? std::string("/proc/self/") : "/proc/" + std::to_string(pid) + "/") + name;
}

std::string thread_name(pid_t tid) {
    std::ifstream in(proc_file(tid, "comm"));
    std::string name;
    std::getline(in, name);
    return name;
}

namespace {

// A numeric field ("Tgid:", "TracerPid:") of the task's status.
pid_t status_field(pid_t tid, const std::string& key) {
    std::ifstream in(proc_file(tid, "status"));
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key, 0) == 0) return static_cast<pid_t>(std::stol(line.substr(key.size())));
    return 0;
}

}  // namespace

pid_t thread_group_of(pid_t tid) { return status_field(tid, "Tgid:"); }

pid_t tracer_of(pid_t tid) { return status_field(tid, "TracerPid:"); }

std::vector<pid_t> threads_of_process(pid_t pid) {
    std::vector<pid_t> tids;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(proc_file(pid, "task"), ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos)
            tids.push_back(static_cast<pid_t>(std::stol(name)));
    }
    return tids;
}

std::string exe_path(pid_t pid) {
    char buf[4096];
    const ssize_t n = readlink(proc_file(pid, "exe").c_str(), buf, sizeof buf);
    return n > 0 && size_t(n) < sizeof buf ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::vector<std::string> command_line(pid_t pid) {
    std::ifstream in(proc_file(pid, "cmdline"));
    std::vector<std::string> argv;
    for (std::string arg; std::getline(in, arg, '\0');) argv.push_back(arg);
    return argv;
}

}  // namespace sprof
