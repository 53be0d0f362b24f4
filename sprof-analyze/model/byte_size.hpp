// Sizes in bytes as people write them: 32K, 1M, 48KiB, 4096.
#pragma once
#include <cstdint>
#include <string>

namespace sprof::analyze {

// "32K", "32k", "32KiB", "32KB" → 32768 (K, M, G, T are powers of 1024, as
// cache sizes are); a plain number is bytes. Throws std::invalid_argument
// with a one-line reason naming `what` (e.g. "--cache").
uint64_t parse_byte_size(const std::string& what, const std::string& text);

// 1024 → "1 KiB", 1218 → "1.19 KiB", 46336 → "45.2 KiB": three significant digits.
std::string format_bytes(uint64_t bytes);

}  // namespace sprof::analyze
