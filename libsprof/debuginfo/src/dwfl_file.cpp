#include "sprof/dwfl_file.hpp"

namespace sprof {

DwflFile open_dwfl_file(const std::string& path) {
    // libdwfl's defaults for where debug files are: no path of our own.
    static char* debuginfo_path = nullptr;
    static const Dwfl_Callbacks callbacks = {.find_elf = dwfl_build_id_find_elf,
                                             .find_debuginfo = dwfl_standard_find_debuginfo,
                                             .section_address = nullptr,
                                             .debuginfo_path = &debuginfo_path};
    DwflFile file{std::unique_ptr<Dwfl, DwflCloser>(dwfl_begin(&callbacks)), nullptr};
    if (!file.dwfl) throw SymbolError(path + ": libdwfl: " + dwfl_errmsg(-1));
    file.module = dwfl_report_offline(file.dwfl.get(), "", path.c_str(), -1);
    dwfl_report_end(file.dwfl.get(), nullptr, nullptr);
    if (!file.module) throw SymbolError(path + ": libdwfl: " + dwfl_errmsg(-1));
    return file;
}

std::string build_id_hex(Dwfl_Module* module) {
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int n = dwfl_module_build_id(module, &bits, &vaddr);
    std::string hex;
    static constexpr char kDigits[] = "0123456789abcdef";
    for (int i = 0; i < n; ++i) {
        hex += kDigits[bits[i] >> 4];
        hex += kDigits[bits[i] & 0xf];
    }
    return hex;
}

}  // namespace sprof
