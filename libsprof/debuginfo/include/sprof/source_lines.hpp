// Address → source file:line and inlined functions, from an object's DWARF
// (elfutils libdw through libdwfl, so a stripped object's separate debug
// file serves as it does for symbols). Used by the analyzer when it reads a
// profile (profile_lines.hpp), once per distinct sampled address; never by
// a profiled run.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sprof/dwfl_file.hpp"

namespace sprof {

class InlineScopes;

// Where an instruction is in the source. Unknown parts are empty or 0.
struct SourcePosition {
    struct Inlined {
        std::string function;   // the inlined function: linkage name when known, else its name
        std::string call_file;  // where it was inlined, in the function it was inlined into
        uint32_t call_line = 0;
    };
    std::string file;                // the instruction's own file and line (absolute path
    uint32_t line = 0, column = 0;   // when the debug info gives the compilation directory)
    std::vector<Inlined> inlined;    // innermost first; empty when not in inlined code
};

// The line table and scopes of one ELF file.
class ObjectLines {
public:
    // Opens `file` and reads its build-id. Its debug info (in the file, or a
    // separate debug file by build-id or .gnu_debuglink) is found when a line
    // is first asked for: a file that turns out not to be the one that ran
    // costs no more than its ELF headers. Never throws: an unreadable file,
    // or one without debug info, answers every address with "unknown".
    explicit ObjectLines(const std::string& file);
    ~ObjectLines();
    ObjectLines(const ObjectLines&) = delete;
    ObjectLines& operator=(const ObjectLines&) = delete;

    // The position of link-time address `address` (as in the symbol table).
    SourcePosition locate(uint64_t address);
    bool has_lines();
    // The file's GNU build-id in hex; "" when it has none or is unreadable.
    const std::string& build_id() const { return build_id_; }

private:
    DwflFile file_;  // file_.module null: unreadable, or no DWARF found
    bool dwarf_tried_ = false;
    uint64_t bias_ = 0;  // libdwfl's address of link-time address 0
    std::string build_id_;
    // Per unit (by its DIE offset), indexed when a PC in it is first asked about.
    std::map<uint64_t, std::unique_ptr<InlineScopes>> scopes_;
};

}  // namespace sprof
