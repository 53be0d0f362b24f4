// One ELF file as a libdwfl module, with libdwfl's standard search for its
// separate debug file (build-id, .gnu_debuglink, /usr/lib/debug, and
// debuginfod when the user set DEBUGINFOD_URLS). Shared by the symbol
// tables (the collectors' elf_reader.cpp) and the line tables
// (source_lines.cpp, read by the analyzer).
#pragma once
#include <elfutils/libdwfl.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace sprof {

// An ELF file that libelf or libdwfl cannot read ("PATH: why").
struct SymbolError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct DwflCloser {
    void operator()(Dwfl* dwfl) const { dwfl_end(dwfl); }
};

struct DwflFile {
    std::unique_ptr<Dwfl, DwflCloser> dwfl;
    Dwfl_Module* module = nullptr;  // lives as long as `dwfl`
};

// Throws SymbolError ("PATH: libdwfl: why") when libdwfl cannot report the file.
DwflFile open_dwfl_file(const std::string& path);

// The module's GNU build-id as lower-case hex, or "" when it has none.
std::string build_id_hex(Dwfl_Module* module);

}  // namespace sprof
