#include "preloadable.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sprof {
namespace {

// Whether an ELF file has a program interpreter (the dynamic loader).
bool has_interpreter(Elf* elf) {
    size_t count = 0;
    if (elf_getphdrnum(elf, &count) != 0) return true;  // unreadable: let the exec tell
    for (size_t i = 0; i < count; ++i) {
        GElf_Phdr phdr;
        if (gelf_getphdr(elf, static_cast<int>(i), &phdr) && phdr.p_type == PT_INTERP) return true;
    }
    return false;
}

}  // namespace

std::string why_not_preloadable(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return "";  // the exec tells what is wrong
    if (((st.st_mode & S_ISUID) && st.st_uid != getuid()) || ((st.st_mode & S_ISGID) && st.st_gid != getgid()))
        return path + " is set-user-ID or set-group-ID, and the loader ignores LD_PRELOAD for it "
                      "(profile it with sprof_pt, as a user who may trace it)";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    elf_version(EV_CURRENT);
    Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
    std::string why;
    if (elf && elf_kind(elf) == ELF_K_ELF && !has_interpreter(elf))
        why = path + " is statically linked, so no loader preloads the runtime into it (profile it with sprof_pt)";
    if (elf) elf_end(elf);
    ::close(fd);
    return why;
}

}  // namespace sprof
