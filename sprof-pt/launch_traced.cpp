#include "launch_traced.hpp"

#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "sprof/launch.hpp"

namespace sprof::pt {

pid_t launch_traced(char** argv, const std::string& tool, unsigned long options, const sigset_t& child_mask,
                    const std::function<void(pid_t)>& arm) {
    int go[2];
    if (pipe2(go, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &child_mask, nullptr);
        close(go[1]);
        char byte;
        // EOF without a byte: the monitor gave up, so must the program.
        if (read(go[0], &byte, 1) != 1) _exit(127);
        close(go[0]);
        exec_program(argv, tool);
    }
    close(go[0]);
    auto give_up = [&](const std::string& what) {
        int err = errno;
        close(go[1]);
        waitpid(pid, nullptr, __WALL);
        throw std::runtime_error(what + (err ? std::string(": ") + std::strerror(err) : std::string()));
    };
    if (ptrace(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(options)) != 0)
        give_up("cannot trace the program (ptrace seize)");
    try {
        arm(pid);
    } catch (const std::exception& e) {
        errno = 0;
        give_up(e.what());
    }
    const char byte = 1;
    if (write(go[1], &byte, 1) != 1) give_up("cannot start the program");
    close(go[1]);
    return pid;
}

}  // namespace sprof::pt
