// One ELF file as a libdwfl module, with a search for its separate debug
// file (build-id, .gnu_debuglink, /usr/lib/debug, and debuginfod where
// DebugSearch allows it). Shared by the symbol
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

// Where a separate debug file may come from. libdwfl's standard search asks
// debuginfod last, and for that libdw dlopens libdebuginfod whether or not
// DEBUGINFOD_URLS is set: libcurl, GnuTLS and OpenSSL are loaded and
// initialised. Inside a profiled process that raced the program's exit
// (OpenSSL's destructor ran while the writer thread initialised it: SIGSEGV),
// so the collectors search only this machine's files; the analyzer asks
// debuginfod when the user configured it.
enum class DebugSearch {
    local,             // by build-id under /usr/lib/debug, then by .gnu_debuglink
    user_configured,   // local, then debuginfod when DEBUGINFOD_URLS is set
};

// Throws SymbolError ("PATH: libdwfl: why") when libdwfl cannot report the file.
DwflFile open_dwfl_file(const std::string& path, DebugSearch search);

// The module's GNU build-id as lower-case hex, or "" when it has none.
std::string build_id_hex(Dwfl_Module* module);

}  // namespace sprof
