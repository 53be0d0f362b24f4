// Address → source file:line and inlined functions, from an object's DWARF
// (elfutils libdw through libdwfl, so a stripped object's separate debug
// file serves as it does for symbols). Used by the session in the writer
// thread or the ptrace monitor, never in a signal handler: an object's
// debug info is opened when a line of it is first asked for, and the
// session asks once per sampled address.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sprof/symbols.hpp"

struct Dwfl;
struct Dwfl_Module;

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
    // Opens `file` and finds its debug info (in the file, or a separate debug
    // file by build-id or .gnu_debuglink). Never throws: an unreadable file,
    // or one without debug info, answers every address with "unknown".
    explicit ObjectLines(const std::string& file);
    ~ObjectLines();
    ObjectLines(const ObjectLines&) = delete;
    ObjectLines& operator=(const ObjectLines&) = delete;

    // The position of link-time address `address` (as in the symbol table).
    SourcePosition locate(uint64_t address);
    bool has_lines() const { return module_ != nullptr; }

private:
    Dwfl* dwfl_ = nullptr;
    Dwfl_Module* module_ = nullptr;
    uint64_t bias_ = 0;  // libdwfl's address of link-time address 0
    // Per unit (by its DIE offset), indexed when a PC in it is first asked about.
    std::map<uint64_t, std::unique_ptr<InlineScopes>> scopes_;
};

// The debug info of every object a PC was resolved in, each opened once on
// first use (an object whose lines are never asked for costs nothing).
class SourceLineResolver {
public:
    // `table` is the object's symbol table; its source() names the file to read.
    SourcePosition locate(const ObjectSymbols& table, uint64_t address);

private:
    std::map<std::string, std::unique_ptr<ObjectLines>> objects_;  // by file read
};

}  // namespace sprof
