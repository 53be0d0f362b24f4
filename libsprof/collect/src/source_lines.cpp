// Source lines and inlined functions with libdw, as eu-addr2line -i finds
// them: the line table gives the instruction's own file:line; the DWARF
// scopes around it give the chain of inlined subroutines, each with the
// call site it was inlined at.
#include "sprof/source_lines.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <cstdlib>
#include <filesystem>

#include "dwfl_module.hpp"

namespace sprof {
namespace {

// A file name of the line table or of DW_AT_call_file, made absolute with
// the compilation directory when it is relative (DWARF 4 and older), and
// without "." and ".." steps (glibc's "./string/../sysdeps/…").
std::string absolute(const char* name, const char* comp_dir) {
    if (!name) return {};
    std::filesystem::path path(name);
    if (path.is_relative() && comp_dir && *comp_dir) path = std::filesystem::path(comp_dir) / path;
    return path.lexically_normal().string();
}

const char* comp_dir_of(Dwarf_Die* cu) {
    Dwarf_Attribute attr;
    return dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
}

// A subroutine's name as the symbol table would give it: the linkage
// (mangled) name when there is one, so C++ names demangle in full.
std::string subroutine_name(Dwarf_Die* die) {
    Dwarf_Attribute attr;
    for (int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name})
        if (const char* name = dwarf_formstring(dwarf_attr_integrate(die, at, &attr))) return name;
    const char* name = dwarf_diename(die);
    return name ? name : "";
}

uint32_t udata(Dwarf_Die* die, int at) {
    Dwarf_Attribute attr;
    Dwarf_Word value = 0;
    if (dwarf_formudata(dwarf_attr(die, at, &attr), &value) != 0) return 0;
    return static_cast<uint32_t>(value);
}

// The inlined subroutines around `address` (a CU-relative address in `cu`),
// innermost first. dwarf_getscopes finds the innermost scope; its concrete
// parents (dwarf_getscopes_die) are the chain: dwarf_getscopes itself
// would continue into the abstract definition of an inlined subroutine.
std::vector<SourcePosition::Inlined> inlined_at(Dwfl_Module* module, Dwarf_Die* cu, Dwarf_Addr address) {
    std::vector<SourcePosition::Inlined> chain;
    Dwarf_Die* scopes = nullptr;
    int n = dwarf_getscopes(cu, address, &scopes);
    if (n <= 0) return chain;
    Dwarf_Die innermost;
    Dwarf_Addr bias;
    const bool found = dwarf_offdie(dwfl_module_getdwarf(module, &bias), dwarf_dieoffset(&scopes[0]), &innermost);
    std::free(scopes);
    scopes = nullptr;
    if (!found || (n = dwarf_getscopes_die(&innermost, &scopes)) <= 0) return chain;
    Dwarf_Files* files = nullptr;
    size_t n_files = 0;
    if (dwarf_getsrcfiles(cu, &files, &n_files) != 0) files = nullptr;
    const char* comp_dir = comp_dir_of(cu);
    for (int i = 0; i < n; ++i) {
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
        SourcePosition::Inlined call;
        call.function = subroutine_name(&scopes[i]);
        const uint32_t file = udata(&scopes[i], DW_AT_call_file);
        if (files && file < n_files) call.call_file = absolute(dwarf_filesrc(files, file, nullptr, nullptr), comp_dir);
        call.call_line = udata(&scopes[i], DW_AT_call_line);
        chain.push_back(std::move(call));
    }
    std::free(scopes);
    return chain;
}

}  // namespace

ObjectLines::ObjectLines(const std::string& file) {
    if (file.empty()) return;
    try {
        DwflFile opened = open_dwfl_file(file);
        Dwarf_Addr bias = 0;
        // Without DWARF (a stripped file with no debug file found) there are no lines.
        if (!dwfl_module_getdwarf(opened.module, &bias) || !dwfl_module_getelf(opened.module, &bias)) return;
        bias_ = bias;
        module_ = opened.module;
        dwfl_ = opened.dwfl.release();
    } catch (const SymbolError&) {
        // Unreadable: every address is unknown, as documented.
    }
}

ObjectLines::~ObjectLines() {
    if (dwfl_) dwfl_end(dwfl_);
}

SourcePosition ObjectLines::locate(uint64_t address) const {
    SourcePosition pos;
    if (!module_) return pos;
    const Dwarf_Addr at = address + bias_;
    if (Dwfl_Line* line = dwfl_module_getsrc(module_, at)) {
        int lineno = 0, column = 0;
        const char* file = dwfl_lineinfo(line, nullptr, &lineno, &column, nullptr, nullptr);
        pos.file = absolute(file, dwfl_line_comp_dir(line));
        pos.line = lineno > 0 ? static_cast<uint32_t>(lineno) : 0;
        pos.column = column > 0 ? static_cast<uint32_t>(column) : 0;
    }
    Dwarf_Addr cu_bias = 0;
    if (Dwarf_Die* cu = dwfl_module_addrdie(module_, at, &cu_bias)) pos.inlined = inlined_at(module_, cu, at - cu_bias);
    return pos;
}

SourcePosition SourceLineResolver::locate(const ObjectSymbols& table, uint64_t address) {
    auto [it, fresh] = objects_.try_emplace(table.source());
    if (fresh) it->second = std::make_unique<ObjectLines>(table.source());
    return it->second->locate(address);
}

}  // namespace sprof
