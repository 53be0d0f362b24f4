// Address → function: the one symbol resolver, shared by every tool.
// Function tables come from ELF (elfutils libelf): .symtab, else .dynsym;
// load bias from /proc/PID/maps (PIE, ASLR, shared libraries, dlopen).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sprof {

struct SymbolError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct FunctionRange {
    uint64_t start = 0, end = 0;  // link-time addresses [start, end)
    std::string name;             // mangled, as in the symbol table
};

// The functions of one ELF file, sorted by start, non-overlapping.
class ObjectSymbols {
public:
    ObjectSymbols() = default;
    ObjectSymbols(std::string path, std::vector<FunctionRange> functions);

    // Reads the ELF file's function symbols. Throws SymbolError when the file
    // is not a readable ELF file; a file without symbols gives an empty table.
    static ObjectSymbols load(const std::string& path);

    const std::string& path() const { return path_; }
    const std::vector<FunctionRange>& functions() const { return functions_; }
    // Index into functions() of the function containing link-time `addr`.
    std::optional<size_t> find(uint64_t addr) const;

    // Link-time address of file offset `offset` (from the program headers), so
    // a mapping's bias is map_start − vaddr_of_offset(map_offset).
    std::optional<uint64_t> vaddr_of_offset(uint64_t offset) const;

private:
    std::string path_;
    std::vector<FunctionRange> functions_;
    struct Segment { uint64_t offset, vaddr, filesz; };
    std::vector<Segment> segments_;
    friend class ObjectSymbolsLoader;
};

// One executable mapping of a process.
struct Mapping {
    uint64_t start = 0, end = 0, offset = 0;
    std::string path;  // file path, or [vdso], [anon] …
};

// Parses /proc/PID/maps (pid 0 = self): executable mappings only, sorted.
std::vector<Mapping> read_exec_mappings(pid_t pid);

// The answer for one PC.
struct Resolved {
    const std::string* object = nullptr;   // mapping path; null when in no mapping
    const FunctionRange* function = nullptr; // null → [unknown] within object
    uint64_t bias = 0;
};

// All mapped objects of a process with their tables. refresh() re-reads the
// maps (new dlopen'd libraries, exec); tables of objects seen before are kept.
class AddressSpace {
public:
    explicit AddressSpace(pid_t pid = 0) : pid_(pid) {}
    void refresh();
    void set_pid(pid_t pid) { pid_ = pid; }
    // Resolves a PC; when it is in no known mapping, refreshes once and retries.
    Resolved resolve(uint64_t pc);
    // Adds a table computed elsewhere (control files), used instead of reading the ELF.
    void preload(ObjectSymbols table);

private:
    struct Loaded { Mapping map; uint64_t bias; std::shared_ptr<const ObjectSymbols> syms; };
    const Loaded* find(uint64_t pc) const;
    std::shared_ptr<const ObjectSymbols> table_for(const std::string& path);
    pid_t pid_;
    std::vector<Loaded> maps_;
    std::vector<std::shared_ptr<const ObjectSymbols>> tables_;
    std::vector<std::string> unreadable_;  // ELF files that failed to load (warned once)
};

// Demangles a C++ symbol name; returns it unchanged when not mangled.
std::string demangle(const std::string& name);

}  // namespace sprof
