// CRC32C (Castagnoli polynomial 0x1EDC6F41, reflected, initial value and
// final xor 0xFFFFFFFF: the checksum of iSCSI, ext4 and SSE4.2's crc32
// instruction). Every profile record carries one (docs/FORMAT.md).
#pragma once
#include <cstddef>
#include <cstdint>

namespace sprof {

// The CRC32C of n bytes: SSE4.2's instruction where the processor has it,
// Boost.CRC's table otherwise.
uint32_t crc32c(const void* data, size_t n);

// Boost.CRC's table alone: what crc32c() falls back to, for tests that check
// both give the same.
uint32_t crc32c_portable(const void* data, size_t n);

}  // namespace sprof
