// The inlined subroutines of one compilation unit, indexed by address.
//
// libdw's dwarf_getscopes walks a unit's DIE tree from its start for every
// address it is asked about, and dwarf_getscopes_die walks it again for the
// parents. On a large unit that is tens of milliseconds an address: sqlite3's
// one-file amalgamation, whose sampled run asks about thousands of distinct
// PCs, kept the writer resolving for over 5 s after the program had ended,
// and the program's exit gave up waiting for its profile's end. This index
// walks the unit once, when it is first asked about, and then answers each
// address with one search.
#pragma once
#include <elfutils/libdw.h>

#include <cstdint>
#include <map>
#include <vector>

#include "sprof/source_lines.hpp"

namespace sprof {

class InlineScopes {
public:
    explicit InlineScopes(Dwarf_Die* cu);

    // The inlined calls around `address` (a DWARF address of the unit),
    // innermost first; empty outside inlined code.
    std::vector<SourcePosition::Inlined> at(Dwarf_Addr address) const;

private:
    struct Call {
        SourcePosition::Inlined call;
        int32_t parent;  // the inlined call around this one's DIE, or kNone
    };
    struct Range {
        Dwarf_Addr low, high;
        int depth;  // of its DIE: a nested call paints over the one around it
        int32_t call;
    };
    static constexpr int32_t kNone = -1;

    struct Unit;  // the unit a DIE's call site names files of
    void walk(Dwarf_Die* parent, Unit& unit, int32_t enclosing, int depth, std::vector<Range>& ranges);
    void paint(const Range& r);

    std::vector<Call> calls_;
    // The innermost call from each key up to the next key (kNone: none).
    std::map<Dwarf_Addr, int32_t> innermost_;
};

}  // namespace sprof
