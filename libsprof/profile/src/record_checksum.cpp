#include "record_checksum.hpp"

#include <cstring>

#include <fmt/format.h>

#include "profile_decoder.hpp"

namespace sprof::records {
namespace {

struct RecordFrame {
    uint32_t length = 0;  // of the payload, the checksum included
    bool complete = false;
};

RecordFrame frame_at(std::string_view bytes, size_t at, bool swap) {
    if (at > bytes.size() || bytes.size() - at < kRecordHeaderSize) return {};
    Decoder d(bytes.data() + at + 4, 4, swap);
    const uint32_t length = d.u32();
    return {length, length <= bytes.size() - at - kRecordHeaderSize};
}

// The checksum stored at the end of a complete record and the one its bytes give.
struct Sums {
    uint32_t stored, computed;
};

Sums sums_of(std::string_view bytes, size_t at, uint32_t length, bool swap) {
    const size_t covered = kRecordHeaderSize + length - kChecksumSize;
    Decoder d(bytes.data() + at + covered, kChecksumSize, swap);
    return {d.u32(), crc32c(bytes.data() + at, covered)};
}

}  // namespace

RecordCheck check_record(std::string_view bytes, size_t at, bool swap) {
    const RecordFrame f = frame_at(bytes, at, swap);
    if (!f.complete) return RecordCheck::incomplete;
    if (f.length < kChecksumSize) return RecordCheck::damaged;
    const Sums s = sums_of(bytes, at, f.length, swap);
    return s.stored == s.computed ? RecordCheck::intact : RecordCheck::damaged;
}

std::string damage_of(std::string_view bytes, size_t at, bool swap) {
    const RecordFrame f = frame_at(bytes, at, swap);
    if (f.length < kChecksumSize) return fmt::format("a payload of {} bytes has no room for its checksum", f.length);
    const Sums s = sums_of(bytes, at, f.length, swap);
    return fmt::format("checksum 0x{:08x}, its bytes give 0x{:08x}", s.stored, s.computed);
}

bool intact_to_end(std::string_view tail, bool swap) {
    if (tail.size() < kRecordHeaderSize + kChecksumSize) return false;
    std::string record(tail);
    const auto length = static_cast<uint32_t>(tail.size() - kRecordHeaderSize);
    std::memcpy(record.data() + 4, &length, sizeof length);
    if (swap) {
        const uint32_t swapped = swap_bytes(length);
        std::memcpy(record.data() + 4, &swapped, sizeof swapped);
    }
    return check_record(record, 0, swap) == RecordCheck::intact;
}

size_t next_intact_record(std::string_view bytes, size_t from, bool swap) {
    if (from >= bytes.size()) return std::string_view::npos;
    uint64_t budget = 16 * uint64_t{bytes.size() - from} + (uint64_t{1} << 20);
    for (size_t at = from; at + kRecordHeaderSize + kChecksumSize <= bytes.size(); ++at) {
        const RecordFrame f = frame_at(bytes, at, swap);
        if (!f.complete || f.length < kChecksumSize) continue;
        if (f.length > budget) return std::string_view::npos;
        budget -= f.length;
        const Sums s = sums_of(bytes, at, f.length, swap);
        if (s.stored == s.computed) return at;
    }
    return std::string_view::npos;
}

}  // namespace sprof::records
