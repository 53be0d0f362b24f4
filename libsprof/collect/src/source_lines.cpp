// Source lines and inlined functions with libdw, as eu-addr2line -i finds
// them: the line table gives the instruction's own file:line; the DWARF
// scopes around it (inline_scopes.hpp) give the chain of inlined
// subroutines, each with the call site it was inlined at.
#include "sprof/source_lines.hpp"

#include <elfutils/libdw.h>

#include "dwarf_paths.hpp"
#include "dwfl_module.hpp"
#include "inline_scopes.hpp"

namespace sprof {

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

SourcePosition ObjectLines::locate(uint64_t address) {
    SourcePosition pos;
    if (!module_) return pos;
    const Dwarf_Addr at = address + bias_;
    if (Dwfl_Line* line = dwfl_module_getsrc(module_, at)) {
        int lineno = 0, column = 0;
        const char* file = dwfl_lineinfo(line, nullptr, &lineno, &column, nullptr, nullptr);
        pos.file = absolute_source(file, dwfl_line_comp_dir(line));
        pos.line = lineno > 0 ? static_cast<uint32_t>(lineno) : 0;
        pos.column = column > 0 ? static_cast<uint32_t>(column) : 0;
    }
    Dwarf_Addr cu_bias = 0;
    if (Dwarf_Die* cu = dwfl_module_addrdie(module_, at, &cu_bias)) {
        std::unique_ptr<InlineScopes>& scopes = scopes_[dwarf_dieoffset(cu)];
        if (!scopes) scopes = std::make_unique<InlineScopes>(cu);
        pos.inlined = scopes->at(at - cu_bias);
    }
    return pos;
}

SourcePosition SourceLineResolver::locate(const ObjectSymbols& table, uint64_t address) {
    auto [it, fresh] = objects_.try_emplace(table.source());
    if (fresh) it->second = std::make_unique<ObjectLines>(table.source());
    return it->second->locate(address);
}

}  // namespace sprof
