#include "sprof/instrumented.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace sprof {
namespace {

constexpr std::string_view kAccessLibrary = "libsprof_access.so";
constexpr std::string_view kHookPrefix = "__tsan_";

// Whether the dynamic section needs the hooks' library or the dynamic
// symbols leave a hook undefined.
bool calls_hooks(Elf* elf) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr) || shdr.sh_entsize == 0) continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data) continue;
        const size_t n = shdr.sh_size / shdr.sh_entsize;
        if (shdr.sh_type == SHT_DYNAMIC) {
            for (size_t i = 0; i < n; ++i) {
                GElf_Dyn dyn;
                if (!gelf_getdyn(data, static_cast<int>(i), &dyn) || dyn.d_tag != DT_NEEDED) continue;
                const char* name = elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val);
                if (name && std::string_view(name).starts_with(kAccessLibrary)) return true;
            }
        } else if (shdr.sh_type == SHT_DYNSYM) {
            for (size_t i = 0; i < n; ++i) {
                GElf_Sym sym;
                if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_shndx != SHN_UNDEF) continue;
                const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
                if (name && std::string_view(name).starts_with(kHookPrefix)) return true;
            }
        }
    }
    return false;
}

}  // namespace

std::string why_not_instrumented(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "cannot read " + path + " (" + std::strerror(errno) + ")";
    elf_version(EV_CURRENT);
    Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
    std::string why;
    if (!elf || elf_kind(elf) != ELF_K_ELF)
        why = path + " is not an ELF program (a script? give sprof_lib the program it runs)";
    else if (!calls_hooks(elf))
        why = path + " was not built with sprof-cc or sprof-c++, so nothing reports its memory accesses "
                     "(rebuild it with them, or with the flags of sprof-cc --print-cflags and --print-ldflags)";
    if (elf) elf_end(elf);
    ::close(fd);
    return why;
}

}  // namespace sprof
