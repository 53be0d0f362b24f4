#include "export_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace sprof::analyze {

namespace {

void remove_partial(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) std::filesystem::remove(path, ec);
}

}  // namespace

void write_export_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + path + " (" + std::strerror(errno) + ")");
    try {
        write(out);
    } catch (...) {
        out.close();
        remove_partial(path);
        throw;
    }
    out.close();
    if (!out) {  // a full disk shows here, once the buffer is flushed
        const int error = errno;
        remove_partial(path);
        throw std::runtime_error("cannot write " + path + " (" + std::strerror(error) + ")");
    }
}

}  // namespace sprof::analyze
