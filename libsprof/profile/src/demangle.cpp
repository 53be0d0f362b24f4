#include "sprof/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace sprof {

std::string demangle(const std::string& name) {
    // __cxa_demangle also decodes bare type codes ("f" → "float"): only _Z names are symbols.
    if (!name.starts_with("_Z")) return name;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(
        abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? std::string(out.get()) : name;
}

}  // namespace sprof
