#include "inline_scopes.hpp"

#include <dwarf.h>

#include <algorithm>

#include "dwarf_paths.hpp"

namespace sprof {
namespace {

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

}  // namespace

struct InlineScopes::Unit {
    Dwarf_Files* files = nullptr;
    const char* comp_dir = nullptr;
    std::vector<std::string> paths;  // per file index, made absolute when first named

    explicit Unit(Dwarf_Die* die) : comp_dir(comp_dir_of(die)) {
        size_t n_files = 0;
        if (dwarf_getsrcfiles(die, &files, &n_files) != 0) files = nullptr, n_files = 0;
        paths.resize(n_files);
    }

    SourcePosition::Inlined call(Dwarf_Die* inlined) {
        SourcePosition::Inlined c;
        c.function = subroutine_name(inlined);
        const uint32_t file = udata(inlined, DW_AT_call_file);
        if (file < paths.size()) {
            if (paths[file].empty()) paths[file] = absolute_source(dwarf_filesrc(files, file, nullptr, nullptr), comp_dir);
            c.call_file = paths[file];
        }
        c.call_line = udata(inlined, DW_AT_call_line);
        return c;
    }
};

InlineScopes::InlineScopes(Dwarf_Die* cu) {
    std::vector<Range> ranges;
    Unit unit(cu);
    walk(cu, unit, kNone, 0, ranges);
    // Parents first: ranges of one depth never overlap, and each nested
    // call lies within the call around it.
    std::stable_sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.depth < b.depth; });
    for (const Range& r : ranges) paint(r);
}

// Depth first through the children of `parent`, a DIE of `unit` (the unit
// whose file table the call sites name). `enclosing`: the inlined call the
// children lie in.
void InlineScopes::walk(Dwarf_Die* parent, Unit& unit, int32_t enclosing, int depth,
                        std::vector<Range>& ranges) {
    // Real DWARF nests a few dozen deep; a file whose imported units import
    // each other in a circle would recurse until the writer's stack ran out.
    constexpr int kMaxDepth = 256;
    Dwarf_Die child;
    if (depth > kMaxDepth || dwarf_child(parent, &child) != 0) return;
    do {
        int32_t inner = enclosing;
        switch (dwarf_tag(&child)) {
        case DW_TAG_inlined_subroutine: {
            calls_.push_back({unit.call(&child), enclosing});
            inner = static_cast<int32_t>(calls_.size() - 1);
            Dwarf_Addr base, low, high;
            for (ptrdiff_t at = 0; (at = dwarf_ranges(&child, at, &base, &low, &high)) > 0;)
                if (low < high) ranges.push_back({low, high, depth, inner});
            break;
        }
        case DW_TAG_subprogram:  // a function's own code: no call around it was inlined
            inner = kNone;
            break;
        case DW_TAG_imported_unit: {  // a partial unit (dwz) whose DIEs belong here
            Dwarf_Attribute attr;
            Dwarf_Die imported;
            if (dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &attr), &imported)) {
                Unit partial(&imported);
                walk(&imported, partial, enclosing, depth + 1, ranges);
            }
            continue;
        }
        default:
            break;
        }
        if (dwarf_haschildren(&child)) walk(&child, unit, inner, depth + 1, ranges);
    } while (dwarf_siblingof(&child, &child) == 0);
}

void InlineScopes::paint(const Range& r) {
    auto value_at = [this](Dwarf_Addr a) {
        auto it = innermost_.upper_bound(a);
        return it == innermost_.begin() ? kNone : std::prev(it)->second;
    };
    const int32_t after = value_at(r.high);
    innermost_.erase(innermost_.lower_bound(r.low), innermost_.lower_bound(r.high));
    innermost_[r.low] = r.call;
    innermost_.emplace(r.high, after);  // a key already at r.high stays
}

std::vector<SourcePosition::Inlined> InlineScopes::at(Dwarf_Addr address) const {
    std::vector<SourcePosition::Inlined> chain;
    auto it = innermost_.upper_bound(address);
    for (int32_t c = it == innermost_.begin() ? kNone : std::prev(it)->second; c != kNone; c = calls_[c].parent)
        chain.push_back(calls_[c].call);
    return chain;
}

}  // namespace sprof
