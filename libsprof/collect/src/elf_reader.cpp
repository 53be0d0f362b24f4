// ObjectSymbols::load: function symbols and load segments of one ELF file,
// read with elfutils: libdwfl finds the symbols (in a separate debug file
// when the file itself was stripped), libelf reads the program headers.
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>

#include "sprof/dwfl_file.hpp"
#include "sprof/symbols.hpp"

namespace sprof {
namespace {

struct FdCloser {
    void operator()(const int* fd) const { ::close(*fd); }
};
struct ElfCloser {
    void operator()(Elf* elf) const { elf_end(elf); }
};

// A function symbol before aliases are merged and ranges are fixed.
struct Candidate {
    uint64_t start, size, section_end;
    int rank;  // binding: 0 global, 1 weak, 2 local
    std::string_view name;
};

int binding_rank(unsigned char info) {
    switch (GELF_ST_BIND(info)) {
        case STB_GLOBAL: return 0;
        case STB_WEAK: return 1;
        default: return 2;
    }
}

// Of aliases (symbols at one address), the one perf report names, so that
// both tools name a sample alike (perf's choose_best_symbol): a symbol with
// a size, then one not weak, then a global one, then fewer leading
// underscores, then the longer name; then the first by name, for a stable
// choice. glibc's memcpy and memmove variants share their code: perf says
// __memmove_avx512_unaligned_erms, and so does sprof now.
bool better_name(const Candidate& a, const Candidate& b) {
    auto key = [](const Candidate& c) {
        const size_t underscores = std::min(c.name.find_first_not_of('_'), c.name.size());
        return std::tuple(c.size == 0, c.rank == 1, c.rank != 0, underscores, -static_cast<ptrdiff_t>(c.name.size()), c.name);
    };
    return key(a) < key(b);
}

// The end address of every section of `elf`, by section index.
std::vector<uint64_t> section_ends(Elf* elf) {
    size_t nsections = 0;
    elf_getshdrnum(elf, &nsections);
    std::vector<uint64_t> ends(nsections, 0);
    for (size_t i = 0; i < nsections; ++i) {
        GElf_Shdr shdr;
        if (Elf_Scn* scn = elf_getscn(elf, i); scn && gelf_getshdr(scn, &shdr)) ends[i] = shdr.sh_addr + shdr.sh_size;
    }
    return ends;
}

enum class SymbolKind { function, data };

bool is_kind(int type, SymbolKind kind) {
    if (kind == SymbolKind::function) return type == STT_FUNC || type == STT_GNU_IFUNC;
    return type == STT_OBJECT;  // a variable (thread-local ones, STT_TLS, have no address of their own)
}

// The module's function (or data) symbols, as libdwfl gives them: the file's .symtab;
// for a stripped file the .symtab of its separate debug file, found by
// build-id or .gnu_debuglink in the file's directory, its .debug/ and
// /usr/lib/debug (Debian's -dbg packages), or from debuginfod when the user
// set DEBUGINFOD_URLS; else .dynsym (exported functions only). The names
// live as long as the Dwfl.
std::vector<Candidate> read_symbols(Dwfl_Module* module, SymbolKind kind) {
    std::vector<Candidate> out;
    std::map<Elf*, std::vector<uint64_t>> ends;  // the symbols may come from two files
    const int count = dwfl_module_getsymtab(module);
    for (int i = 1; i < count; ++i) {
        GElf_Sym sym;
        GElf_Addr address;
        GElf_Word shndx;
        Elf* elf = nullptr;
        Dwarf_Addr bias;
        const char* name = dwfl_module_getsym_info(module, i, &sym, &address, &shndx, &elf, &bias);
        if (!name || !*name || !elf) continue;
        if (!is_kind(GELF_ST_TYPE(sym.st_info), kind)) continue;
        auto [it, added] = ends.try_emplace(elf);
        if (added) it->second = section_ends(elf);
        // Special indices (undefined, absolute, common) have no section to bound them.
        if (shndx == SHN_UNDEF || shndx >= it->second.size()) continue;
        // st_value is the link-time address, the one the tables hold.
        out.push_back({sym.st_value, sym.st_size, it->second[shndx], binding_rank(sym.st_info), name});
    }
    return out;
}

// Sorted, one range per start (aliases merged), non-overlapping. Zero-size
// symbols (often hand-written assembly) reach to the next function start,
// but not past their section.
std::vector<FunctionRange> to_ranges(std::vector<Candidate> cands) {
    std::sort(cands.begin(), cands.end(),
              [](const Candidate& a, const Candidate& b) { return a.start < b.start; });
    std::vector<FunctionRange> out;
    for (size_t i = 0; i < cands.size();) {
        size_t next = i;
        const Candidate* best = &cands[i];
        uint64_t sized_end = 0, section_end = 0;
        for (; next < cands.size() && cands[next].start == cands[i].start; ++next) {
            const Candidate& c = cands[next];
            if (better_name(c, *best)) best = &c;
            if (c.size > 0) sized_end = std::max(sized_end, c.start + c.size);
            section_end = std::max(section_end, c.section_end);
        }
        const uint64_t start = cands[i].start;
        uint64_t end = sized_end ? sized_end : section_end;
        if (next < cands.size()) end = std::min(end, cands[next].start);
        if (end > start) out.push_back({start, end, std::string(best->name)});
        i = next;
    }
    return out;
}

std::vector<LoadSegment> read_load_segments(Elf* elf) {
    std::vector<LoadSegment> out;
    size_t n = 0;
    if (elf_getphdrnum(elf, &n) != 0) return out;
    for (size_t i = 0; i < n; ++i) {
        GElf_Phdr phdr;
        if (gelf_getphdr(elf, static_cast<int>(i), &phdr) && phdr.p_type == PT_LOAD)
            out.push_back({phdr.p_offset, phdr.p_vaddr, phdr.p_filesz});
    }
    return out;
}

}  // namespace

ObjectSymbols ObjectSymbols::load(const std::string& path) {
    static const unsigned libelf_version = elf_version(EV_CURRENT);
    if (libelf_version == EV_NONE) throw SymbolError("libelf: " + std::string(elf_errmsg(-1)));

    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw SymbolError(path + ": " + std::strerror(errno));
    std::unique_ptr<const int, FdCloser> fd_guard(&fd);
    std::unique_ptr<Elf, ElfCloser> elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
    if (!elf || elf_kind(elf.get()) != ELF_K_ELF) throw SymbolError(path + ": not an ELF file");

    const DwflFile file = open_dwfl_file(path, DebugSearch::local);  // in a profiled process: see DebugSearch
    ObjectSymbols table(path, to_ranges(read_symbols(file.module, SymbolKind::function)), read_load_segments(elf.get()),
                        to_ranges(read_symbols(file.module, SymbolKind::data)));
    table.set_build_id(build_id_hex(file.module));
    return table;
}

ObjectSymbols ObjectSymbols::load_own_vdso() {
    const auto* image = reinterpret_cast<const char*>(getauxval(AT_SYSINFO_EHDR));
    if (!image) throw SymbolError("[vdso]: this process has none");
    Elf64_Ehdr ehdr;
    std::memcpy(&ehdr, image, sizeof ehdr);
    // The section headers are the image's last bytes.
    const size_t size = ehdr.e_shoff + size_t{ehdr.e_shnum} * ehdr.e_shentsize;
    // libdwfl reads files: the image goes to an anonymous one.
    int fd = memfd_create("vdso", MFD_CLOEXEC);
    if (fd < 0) throw SymbolError(std::string("[vdso]: memfd_create: ") + std::strerror(errno));
    std::unique_ptr<const int, FdCloser> fd_guard(&fd);
    for (size_t done = 0; done < size;) {
        const ssize_t n = ::write(fd, image + done, size - done);
        if (n <= 0) throw SymbolError(std::string("[vdso]: write: ") + std::strerror(errno));
        done += static_cast<size_t>(n);
    }
    ObjectSymbols read = load("/proc/self/fd/" + std::to_string(fd));
    return ObjectSymbols("[vdso]", read.functions(), read.segments(), read.data());
}

}  // namespace sprof
