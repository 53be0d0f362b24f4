// Source lines and inlined functions with libdw, as eu-addr2line -i finds
// them: the line table gives the instruction's own file:line; the DWARF
// scopes around it (inline_scopes.hpp) give the chain of inlined
// subroutines, each with the call site it was inlined at.
#include "sprof/source_lines.hpp"

#include <elfutils/libdw.h>

#include "dwarf_paths.hpp"
#include "inline_scopes.hpp"
#include "sprof/dwfl_file.hpp"

namespace sprof {

ObjectLines::ObjectLines(const std::string& file) {
    if (file.empty()) return;
    try {
        file_ = open_dwfl_file(file, DebugSearch::user_configured);
        build_id_ = build_id_hex(file_.module);
    } catch (const SymbolError&) {
        // Unreadable: every address is unknown, as documented.
    }
}

ObjectLines::~ObjectLines() = default;  // here, where InlineScopes is complete

bool ObjectLines::has_lines() {
    if (!dwarf_tried_ && file_.module) {
        Dwarf_Addr bias = 0;
        // Without DWARF (a stripped file with no debug file found) there are no lines.
        if (dwfl_module_getdwarf(file_.module, &bias) && dwfl_module_getelf(file_.module, &bias))
            bias_ = bias;
        else
            file_.module = nullptr;
    }
    dwarf_tried_ = true;
    return file_.module != nullptr;
}

SourcePosition ObjectLines::locate(uint64_t address) {
    SourcePosition pos;
    if (!has_lines()) return pos;
    const Dwarf_Addr at = address + bias_;
    if (Dwfl_Line* line = dwfl_module_getsrc(file_.module, at)) {
        int lineno = 0, column = 0;
        const char* file = dwfl_lineinfo(line, nullptr, &lineno, &column, nullptr, nullptr);
        pos.file = absolute_source(file, dwfl_line_comp_dir(line));
        pos.line = lineno > 0 ? static_cast<uint32_t>(lineno) : 0;
        pos.column = column > 0 ? static_cast<uint32_t>(column) : 0;
    }
    Dwarf_Addr cu_bias = 0;
    if (Dwarf_Die* cu = dwfl_module_addrdie(file_.module, at, &cu_bias)) {
        std::unique_ptr<InlineScopes>& scopes = scopes_[dwarf_dieoffset(cu)];
        if (!scopes) scopes = std::make_unique<InlineScopes>(cu);
        pos.inlined = scopes->at(at - cu_bias);
    }
    return pos;
}

}  // namespace sprof
