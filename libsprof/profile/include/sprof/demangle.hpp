#pragma once
// C++ symbol names as users read them. Profiles keep the mangled name (it is
// what the symbol table holds); every report shows this form.

#include <string>

namespace sprof {

// Demangles a C++ symbol name; returns it unchanged when not mangled.
std::string demangle(const std::string& name);

}  // namespace sprof
