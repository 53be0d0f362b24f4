// Address → function: the one symbol resolver, shared by every tool.
// Function tables come from ELF (elfutils libelf): .symtab, else .dynsym;
// load bias from /proc/PID/maps (PIE, ASLR, shared libraries, dlopen).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sprof/dwfl_file.hpp"  // SymbolError

namespace sprof {

// A function (or, in ObjectSymbols::data(), a static variable).
struct FunctionRange {
    uint64_t start = 0, end = 0;  // link-time addresses [start, end)
    std::string name;             // mangled, as in the symbol table
};

// One PT_LOAD program header: where file bytes land at link time.
struct LoadSegment {
    uint64_t offset = 0, vaddr = 0, filesz = 0;
};

// The functions of one ELF file, sorted by start, non-overlapping.
class ObjectSymbols {
public:
    ObjectSymbols() = default;
    // `functions` must be sorted by start and non-overlapping (as load() makes
    // them). Without segments the table cannot be placed in a mapping.
    ObjectSymbols(std::string path, std::vector<FunctionRange> functions,
                  std::vector<LoadSegment> segments = {}, std::vector<FunctionRange> data = {});

    // Reads the ELF file's function symbols. Throws SymbolError when the file
    // is not a readable ELF file; a file without symbols gives an empty table.
    static ObjectSymbols load(const std::string& path);
    // The functions of this process's vDSO (clock_gettime & co). The kernel
    // maps one image into every process, so it serves for any process here.
    static ObjectSymbols load_own_vdso();

    const std::string& path() const { return path_; }
    // The file's GNU build-id in hex: "" when it has none, or when the table
    // came from a control file or the vDSO. The profile records it, so the
    // analyzer reads source lines only from the very file that ran.
    const std::string& build_id() const { return build_id_; }
    void set_build_id(std::string hex) { build_id_ = std::move(hex); }
    const std::vector<FunctionRange>& functions() const { return functions_; }
    const std::vector<LoadSegment>& segments() const { return segments_; }
    // Static variables (STT_OBJECT symbols), sorted like functions(); empty
    // for tables from a control file.
    const std::vector<FunctionRange>& data() const { return data_; }
    // Index into functions() of the function containing link-time `addr`.
    std::optional<size_t> find(uint64_t addr) const;
    // Index into data() of the variable containing link-time `addr`.
    std::optional<size_t> find_data(uint64_t addr) const;

    // Link-time address of file offset `offset` (from the program headers), so
    // a mapping's bias is map_start − vaddr_of_offset(map_offset).
    std::optional<uint64_t> vaddr_of_offset(uint64_t offset) const;

private:
    std::string path_;
    std::string build_id_;
    std::vector<FunctionRange> functions_;
    std::vector<LoadSegment> segments_;  // sorted by offset
    std::vector<FunctionRange> data_;
};

// One executable mapping of a process.
struct Mapping {
    uint64_t start = 0, end = 0, offset = 0;
    std::string path;      // file path (without " (deleted)"), or [vdso], [anon] …
    bool deleted = false;  // the file was removed or replaced since it was mapped
};

// Parses /proc/PID/maps (pid 0 = self), sorted: executable mappings only,
// or all of them. Throws SymbolError when the maps cannot be read (e.g. the
// process is gone).
std::vector<Mapping> read_mappings(pid_t pid, bool executable_only);
inline std::vector<Mapping> read_exec_mappings(pid_t pid) { return read_mappings(pid, true); }

// The answer for one PC. The pointers stay valid as long as the AddressSpace.
struct Resolved {
    const std::string* object = nullptr;   // mapping path; null when in no mapping
    const FunctionRange* function = nullptr; // null → [unknown] within object
    const ObjectSymbols* table = nullptr;  // the object's table; null when in no mapping
    uint64_t bias = 0;
};

// All mapped objects of a process with their tables. refresh() re-reads the
// maps (new dlopen'd libraries, exec); tables of objects seen before are kept.
class AddressSpace {
public:
    explicit AddressSpace(pid_t pid = 0) : pid_(pid) {}
    // Re-reads the maps; throws SymbolError when they cannot be read.
    void refresh();
    // Follows another process (e.g. after fork): forgets the mappings, keeps the tables.
    void set_pid(pid_t pid);
    // Resolves a PC; when it is in no known mapping, refreshes once and retries.
    // Never throws: a process that is gone keeps the mappings last seen.
    Resolved resolve(uint64_t pc);
    // The static variable at `address`, searched in the objects whose
    // tables were read (those a resolved PC lay in: for a sampled access,
    // the program's own code) — never a reason to read another table.
    // Null object when none holds it.
    struct Variable {
        const ObjectSymbols* object = nullptr;  // null when in no object's table
        const FunctionRange* symbol = nullptr;
    };
    Variable resolve_data(uint64_t address) const;
    // Adds a table computed elsewhere (control files), used instead of reading the ELF.
    void preload(ObjectSymbols table);
    // "PATH: why" for every object whose symbols could not be read (each once).
    const std::vector<std::string>& unreadable() const { return unreadable_; }
    // Counts the times the mappings were read again or forgotten: a PC
    // resolved before may resolve otherwise once it changed.
    uint64_t generation() const { return generation_; }

private:
    struct Loaded {
        Mapping map;
        uint64_t bias;  // run-time address − link-time address
        bool placed;    // the table's segments cover the mapping, so bias is known
        std::shared_ptr<const ObjectSymbols> syms;  // null until a PC first lands here
    };
    Loaded* find(uint64_t pc);
    Resolved answer(Loaded& loaded, uint64_t pc);
    void attach(Loaded& loaded);
    std::shared_ptr<const ObjectSymbols> table_for(const Mapping& map);
    pid_t pid_;
    std::vector<Loaded> maps_;  // sorted by start
    // Every table ever used, never dropped (Resolved points into them); the
    // latest one for a path wins. Unreadable files get an empty table.
    std::vector<std::shared_ptr<const ObjectSymbols>> tables_;
    std::vector<std::string> unreadable_;
    int64_t quiet_until_ns_ = 0;  // no refresh on a miss before this (miss storms)
    uint64_t generation_ = 0;
};

}  // namespace sprof
