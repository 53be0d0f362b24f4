#include "sprof/dwfl_file.hpp"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

namespace sprof {
namespace {

struct ElfCloser {
    void operator()(Elf* elf) const { elf_end(elf); }
};

// Whether the open file `fd` is the module's separate debug file: the same
// build-id, or, for a module without one, the CRC its .gnu_debuglink records.
bool is_debug_file_of(Dwfl_Module* module, int fd, GElf_Word crc) {
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int n = dwfl_module_build_id(module, &bits, &vaddr);
    if (n > 0) {
        std::unique_ptr<Elf, ElfCloser> elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
        const void* id = nullptr;
        return elf && dwelf_elf_gnu_build_id(elf.get(), &id) == n && std::memcmp(id, bits, static_cast<size_t>(n)) == 0;
    }
    uLong sum = crc32(0, nullptr, 0);
    std::vector<unsigned char> buffer(1 << 16);
    off_t at = 0;
    for (ssize_t got; (got = pread(fd, buffer.data(), buffer.size(), at)) != 0; at += got) {
        if (got < 0) return false;
        sum = crc32(sum, buffer.data(), static_cast<uInt>(got));
    }
    return static_cast<GElf_Word>(sum) == crc;
}

// The file a .gnu_debuglink names, where GDB and libdwfl look for it: beside
// the object, in its .debug directory, and under /usr/lib/debug.
int open_debuglink(Dwfl_Module* module, const char* file_name, const char* debuglink, GElf_Word crc,
                   char** debuginfo_file_name) {
    const std::filesystem::path dir = std::filesystem::path(file_name).parent_path();
    for (const std::filesystem::path& candidate :
         {dir / debuglink, dir / ".debug" / debuglink, std::filesystem::path("/usr/lib/debug") / dir.relative_path() / debuglink}) {
        if (candidate == file_name) continue;  // the object itself
        const int fd = ::open(candidate.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        if (is_debug_file_of(module, fd, crc)) {
            *debuginfo_file_name = strdup(candidate.c_str());
            return fd;
        }
        ::close(fd);
    }
    return -1;
}

// libdwfl's standard search without its last resort (see DebugSearch): by
// build-id, then by .gnu_debuglink.
int find_local_debuginfo(Dwfl_Module* module, void** userdata, const char* modname, Dwarf_Addr base,
                         const char* file_name, const char* debuglink, GElf_Word crc, char** debuginfo_file_name) {
    const int fd = dwfl_build_id_find_debuginfo(module, userdata, modname, base, file_name, debuglink, crc,
                                                debuginfo_file_name);
    if (fd >= 0 || !file_name || !debuglink) return fd;
    return open_debuglink(module, file_name, debuglink, crc, debuginfo_file_name);
}

}  // namespace

DwflFile open_dwfl_file(const std::string& path, DebugSearch search) {
    // libdwfl's defaults for where debug files are: no path of our own.
    static char* debuginfo_path = nullptr;
    static const Dwfl_Callbacks local = {.find_elf = dwfl_build_id_find_elf,
                                         .find_debuginfo = find_local_debuginfo,
                                         .section_address = nullptr,
                                         .debuginfo_path = &debuginfo_path};
    static const Dwfl_Callbacks standard = {.find_elf = dwfl_build_id_find_elf,
                                            .find_debuginfo = dwfl_standard_find_debuginfo,
                                            .section_address = nullptr,
                                            .debuginfo_path = &debuginfo_path};
    const char* urls = std::getenv("DEBUGINFOD_URLS");
    const bool debuginfod = search == DebugSearch::user_configured && urls && *urls;
    DwflFile file{std::unique_ptr<Dwfl, DwflCloser>(dwfl_begin(debuginfod ? &standard : &local)), nullptr};
    if (!file.dwfl) throw SymbolError(path + ": libdwfl: " + dwfl_errmsg(-1));
    file.module = dwfl_report_offline(file.dwfl.get(), "", path.c_str(), -1);
    dwfl_report_end(file.dwfl.get(), nullptr, nullptr);
    if (!file.module) throw SymbolError(path + ": libdwfl: " + dwfl_errmsg(-1));
    return file;
}

std::string build_id_hex(Dwfl_Module* module) {
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int n = dwfl_module_build_id(module, &bits, &vaddr);
    std::string hex;
    static constexpr char kDigits[] = "0123456789abcdef";
    for (int i = 0; i < n; ++i) {
        hex += kDigits[bits[i] >> 4];
        hex += kDigits[bits[i] & 0xf];
    }
    return hex;
}

}  // namespace sprof
