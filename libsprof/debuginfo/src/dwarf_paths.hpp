// Source file names as DWARF gives them, made into the paths sprof shows.
#pragma once
#include <dwarf.h>
#include <elfutils/libdw.h>

#include <filesystem>
#include <string>

namespace sprof {

// A file name of the line table or of DW_AT_call_file, made absolute with
// the compilation directory when it is relative (DWARF 4 and older), and
// without "." and ".." steps (glibc's "./string/../sysdeps/…").
inline std::string absolute_source(const char* name, const char* comp_dir) {
    if (!name) return {};
    std::filesystem::path path(name);
    if (path.is_relative() && comp_dir && *comp_dir) path = std::filesystem::path(comp_dir) / path;
    return path.lexically_normal().string();
}

// The compilation directory of a unit, or null.
inline const char* comp_dir_of(Dwarf_Die* unit) {
    Dwarf_Attribute attr;
    return dwarf_formstring(dwarf_attr(unit, DW_AT_comp_dir, &attr));
}

}  // namespace sprof
