// Option values as every tool reads and prints them: one error for a bad
// command line, one parser per kind of value and one formatter for durations
// and sizes, shared by the collectors and the analyzer, so a value reads the
// same in every tool and a bad one gets the same one-line reason:
// "invalid OPTION 'VALUE' (what it takes)".
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace sprof {

// A bad command line (an option, its value, a combination of them): the
// tools print its one line and exit with status 2. An invalid_argument, so
// that a request an analysis finds it cannot answer from the profile (a
// std::invalid_argument: a function or a cache size it does not have) ends
// the same way, on the same channel.
struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// A whole decimal number in [min, max]. `option` names what is read in the
// message (an option, or what it sets: "slot count").
uint64_t parse_whole(const std::string& option, const std::string& value, uint64_t min, uint64_t max);

// A number in [0, max] (a share, a fraction of an interval).
double parse_fraction(const std::string& option, const std::string& value, double max = 1);

// "10ms", "250us", "1.5s", "20000ns"; a bare number is milliseconds; from
// 1 us to 1 h. format_duration gives it back in its largest whole unit.
uint64_t parse_duration(const std::string& option, const std::string& value);
std::string format_duration(uint64_t ns);

// "32K", "32k", "32KiB", "32KB" → 32768 (K, M, G, T are powers of 1024, as
// cache sizes are); a plain number is bytes.
uint64_t parse_byte_size(const std::string& option, const std::string& value);
// 1024 → "1 KiB", 1218 → "1.19 KiB", 46336 → "45.2 KiB": three significant digits.
std::string format_bytes(uint64_t bytes);

// A cache line size: bytes, a power of two. Every access of 1 to 8 bytes
// lies in one line; a page is the largest line a cache model is asked for.
constexpr uint32_t kMinLineSize = 8;
constexpr uint32_t kMaxLineSize = 4096;
uint32_t parse_line_size(const std::string& option, const std::string& value);

}  // namespace sprof
