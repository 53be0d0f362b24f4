#include "shared_libraries.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace sprof::preprof {
namespace {

// PT_INTERP of the program: its dynamic loader; empty when statically linked.
std::string interpreter_of(const std::string& program) {
    int fd = open(program.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open " + program + ": " + std::strerror(errno));
    elf_version(EV_CURRENT);
    Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
    std::string interp;
    size_t n = 0;
    if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n) != 0) {
        if (elf) elf_end(elf);
        close(fd);
        throw std::runtime_error(program + " is not an ELF executable");
    }
    for (size_t i = 0; i < n; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, static_cast<int>(i), &ph) || ph.p_type != PT_INTERP) continue;
        interp.resize(ph.p_filesz);
        if (pread(fd, interp.data(), ph.p_filesz, static_cast<off_t>(ph.p_offset)) != static_cast<ssize_t>(ph.p_filesz))
            interp.clear();
        interp.resize(strnlen(interp.c_str(), interp.size()));
    }
    elf_end(elf);
    close(fd);
    return interp;
}

// Output of `LOADER --list PROGRAM` (the loader resolves, nothing of the program runs).
std::string loader_list(const std::string& loader, const std::string& program) {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        execl(loader.c_str(), loader.c_str(), "--list", program.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(out[1]);
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = read(out[0], buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        text.append(buf, static_cast<size_t>(n));
    }
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("the dynamic loader " + loader + " cannot list the libraries of " + program);
    return text;
}

}  // namespace

std::vector<std::string> shared_libraries(const std::string& program) {
    const std::string loader = interpreter_of(program);
    if (loader.empty()) return {};
    std::vector<std::string> libs;
    std::istringstream lines(loader_list(loader, program));
    for (std::string line; std::getline(lines, line);) {
        // "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)" or "\t/lib64/ld-linux-x86-64.so.2 (0x…)"
        std::istringstream words(line);
        std::string first, arrow, path;
        words >> first >> arrow;
        if (arrow == "=>") {
            words >> path;
            if (path == "not" || path.empty())
                throw std::runtime_error(program + " needs " + first + ", which the dynamic loader cannot find");
        } else if (first.starts_with('/')) {
            path = first;
        } else {
            continue;  // the vDSO: no file
        }
        libs.push_back(std::filesystem::canonical(path).string());
    }
    return libs;
}

}  // namespace sprof::preprof
