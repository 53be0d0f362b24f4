#include "byte_size.hpp"

#include <array>
#include <charconv>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

namespace sprof::analyze {

namespace {

constexpr std::array<std::string_view, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};

}  // namespace

uint64_t parse_byte_size(const std::string& what, const std::string& text) {
    uint64_t n = 0;
    const char* end = text.data() + text.size();
    auto [rest, ec] = std::from_chars(text.data(), end, n);
    std::string_view unit(rest, static_cast<size_t>(end - rest));
    int shift = -1;
    if (ec == std::errc() && rest != text.data()) {
        if (unit.empty() || unit == "B") shift = 0;
        for (size_t u = 1; u < kUnits.size() && shift < 0; ++u) {
            const char letter = kUnits[u][0];
            const char lower = static_cast<char>(letter - 'A' + 'a');
            if (!unit.empty() && (unit[0] == letter || unit[0] == lower) &&
                (unit.size() == 1 || unit.substr(1) == "iB" || unit.substr(1) == "B"))
                shift = static_cast<int>(10 * u);
        }
    }
    if (shift < 0 || n == 0)
        throw std::invalid_argument(what + " takes a size like 32K, 1M or 4096 (bytes), not '" + text + "'");
    if (shift > 0 && n > (UINT64_MAX >> shift)) throw std::invalid_argument(what + " " + text + " is too large");
    return n << shift;
}

std::string format_bytes(uint64_t bytes) {
    double v = static_cast<double>(bytes);
    size_t u = 0;
    while (v >= 1024 && u + 1 < kUnits.size()) {
        v /= 1024;
        ++u;
    }
    // Three significant digits, without an exponent (1000 KiB, not 1e+03 KiB).
    std::string digits = fmt::format("{:.{}f}", v, v < 10 ? 2 : v < 100 ? 1 : 0);
    if (digits.find('.') != std::string::npos) {
        digits.erase(digits.find_last_not_of('0') + 1);
        if (digits.back() == '.') digits.pop_back();
    }
    return digits + " " + std::string(kUnits[u]);
}

}  // namespace sprof::analyze
