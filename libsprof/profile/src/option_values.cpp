#include "sprof/option_values.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

namespace sprof {

namespace {

[[noreturn]] void bad(const std::string& option, const std::string& value, const std::string& takes) {
    throw UsageError(fmt::format("invalid {} '{}' ({})", option, value, takes));
}

// The whole string as a number of type T, or nothing (no sign, no blanks).
template <typename T>
bool read_all(const std::string& value, T& out) {
    if (value.empty() || value[0] == '-' || value[0] == '+') return false;
    const char* end = value.data() + value.size();
    auto [at, ec] = std::from_chars(value.data(), end, out);
    return ec == std::errc() && at == end;
}

constexpr std::array<std::string_view, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};

}  // namespace

uint64_t parse_whole(const std::string& option, const std::string& value, uint64_t min, uint64_t max) {
    uint64_t n = 0;
    if (!read_all(value, n) || n < min || n > max)
        bad(option, value,
            max == UINT64_MAX ? (min == 0 ? "a whole number below 2^64" : fmt::format("a whole number from {} up", min))
                              : fmt::format("a whole number from {} to {}", min, max));
    return n;
}

double parse_fraction(const std::string& option, const std::string& value, double max) {
    double x = 0;
    if (!read_all(value, x) || !(x >= 0 && x <= max)) bad(option, value, fmt::format("a number from 0 to {}", max));
    return x;
}

uint64_t parse_duration(const std::string& option, const std::string& value) {
    double v = 0;
    const char* end = value.data() + value.size();
    auto [at, ec] = std::from_chars(value.data(), end, v);
    const std::string_view unit(at, static_cast<size_t>(end - at));
    const double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" || unit.empty() ? 1e6 : unit == "s" ? 1e9 : 0;
    const double ns = v * scale;
    if (ec != std::errc() || at == value.data() || value[0] == '-' || scale == 0 || !(ns >= 1000 && ns <= 3600e9))
        bad(option, value, "a duration from 1us to 1h: 10ms, 250us, 1.5s; a bare number is milliseconds");
    return static_cast<uint64_t>(std::llround(ns));
}

std::string format_duration(uint64_t ns) {
    if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + "s";
    if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
    if (ns % 1'000 == 0) return std::to_string(ns / 1'000) + "us";
    return std::to_string(ns) + "ns";
}

uint64_t parse_byte_size(const std::string& option, const std::string& value) {
    uint64_t n = 0;
    const char* end = value.data() + value.size();
    auto [rest, ec] = std::from_chars(value.data(), end, n);
    const std::string_view unit(rest, static_cast<size_t>(end - rest));
    int shift = -1;
    if (ec == std::errc() && rest != value.data()) {
        if (unit.empty() || unit == "B") shift = 0;
        for (size_t u = 1; u < kUnits.size() && shift < 0; ++u) {
            const char letter = kUnits[u][0];
            const char lower = static_cast<char>(letter - 'A' + 'a');
            if (!unit.empty() && (unit[0] == letter || unit[0] == lower) &&
                (unit.size() == 1 || unit.substr(1) == "iB" || unit.substr(1) == "B"))
                shift = static_cast<int>(10 * u);
        }
    }
    if (shift < 0 || n == 0) bad(option, value, "a size in bytes: 32K, 1M or 4096");
    if (shift > 0 && n > (UINT64_MAX >> shift)) bad(option, value, "a size below 2^64 bytes");
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

uint32_t parse_line_size(const std::string& option, const std::string& value) {
    uint64_t bytes = 0;
    if (!read_all(value, bytes) || bytes < kMinLineSize || bytes > kMaxLineSize || !std::has_single_bit(bytes))
        bad(option, value, fmt::format("bytes, a power of two from {} to {}", kMinLineSize, kMaxLineSize));
    return static_cast<uint32_t>(bytes);
}

}  // namespace sprof
