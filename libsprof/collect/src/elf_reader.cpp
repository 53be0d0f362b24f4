// ObjectSymbols::load: function symbols and load segments of one ELF file,
// read with elfutils libelf.
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>
#include <tuple>

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
    int rank;  // 0 global, 1 weak, 2 local: lower is the better name
    std::string_view name;
};

int binding_rank(unsigned char info) {
    switch (GELF_ST_BIND(info)) {
        case STB_GLOBAL: return 0;
        case STB_WEAK: return 1;
        default: return 2;
    }
}

bool better_name(const Candidate& a, const Candidate& b) {
    return std::tuple(a.rank, a.name.size(), a.name) < std::tuple(b.rank, b.name.size(), b.name);
}

// .symtab when present (full), else .dynsym (exported only, stripped files).
Elf_Scn* symbol_section(Elf* elf) {
    Elf_Scn* dynsym = nullptr;
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr)) continue;
        if (shdr.sh_type == SHT_SYMTAB) return scn;
        if (shdr.sh_type == SHT_DYNSYM) dynsym = scn;
    }
    return dynsym;
}

std::vector<Candidate> read_function_symbols(Elf* elf) {
    std::vector<Candidate> out;
    Elf_Scn* symscn = symbol_section(elf);
    if (!symscn) return out;
    GElf_Shdr symhdr;
    Elf_Data* data = elf_getdata(symscn, nullptr);
    if (!gelf_getshdr(symscn, &symhdr) || !data || symhdr.sh_entsize == 0) return out;

    size_t nsections = 0;
    elf_getshdrnum(elf, &nsections);
    std::vector<uint64_t> section_end(nsections, 0);
    for (size_t i = 0; i < nsections; ++i) {
        GElf_Shdr shdr;
        if (Elf_Scn* scn = elf_getscn(elf, i); scn && gelf_getshdr(scn, &shdr))
            section_end[i] = shdr.sh_addr + shdr.sh_size;
    }

    const size_t count = symhdr.sh_size / symhdr.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
        const int type = GELF_ST_TYPE(sym.st_info);
        if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
        // Special indices (undefined, absolute, common) have no section to bound them.
        if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= nsections) continue;
        const char* name = elf_strptr(elf, symhdr.sh_link, sym.st_name);
        if (!name || !*name) continue;
        out.push_back({sym.st_value, sym.st_size, section_end[sym.st_shndx],
                       binding_rank(sym.st_info), name});
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

    return ObjectSymbols(path, to_ranges(read_function_symbols(elf.get())),
                         read_load_segments(elf.get()));
}

}  // namespace sprof
