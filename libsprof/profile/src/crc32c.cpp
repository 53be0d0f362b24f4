// CRC32C: no maintained Debian package offers it to C++ (Google's crc32c
// library is not packaged), so the instruction the processor has does the
// work, and Boost.CRC (header-only, Debian's libboost-dev) is the fallback.
#include "sprof/crc32c.hpp"

#include <cstring>

#include <boost/crc.hpp>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace sprof {
namespace {

#if defined(__x86_64__)
// 8 bytes per instruction: a record of a few kB costs well below a
// microsecond, against the write() that follows it.
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const unsigned char* p, size_t n) {
    uint64_t crc = 0xffffffffu;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t word;
        std::memcpy(&word, p, sizeof word);
        crc = _mm_crc32_u64(crc, word);
    }
    auto crc32 = static_cast<uint32_t>(crc);
    for (; n > 0; --n, ++p) crc32 = _mm_crc32_u8(crc32, *p);
    return ~crc32;
}

bool has_sse42() {
    // The runtime may write its first record from a constructor, before
    // libgcc's own initialisation has run.
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}
#endif

}  // namespace

uint32_t crc32c_portable(const void* data, size_t n) {
    boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
    crc.process_bytes(data, n);
    return crc.checksum();
}

uint32_t crc32c(const void* data, size_t n) {
#if defined(__x86_64__)
    static const bool sse42 = has_sse42();
    if (sse42) return crc32c_sse42(static_cast<const unsigned char*>(data), n);
#endif
    return crc32c_portable(data, n);
}

}  // namespace sprof
