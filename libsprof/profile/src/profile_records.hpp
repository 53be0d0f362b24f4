// Byte-level constants and the record encoder of the profile file format
// (docs/FORMAT.md). Shared by the writer and the reader so the two cannot
// disagree about the layout.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sprof/crc32c.hpp"
#include "sprof/profile.hpp"

namespace sprof::records {

constexpr char kMagic[8] = {'S', 'P', 'R', 'O', 'F', 'I', 'L', 'E'};
// Written in the writer's byte order; the reader recognises either order.
constexpr uint32_t kByteOrderTag = 0x01020304u;
constexpr size_t kFileHeaderSize = 16;   // magic, tag, major, minor
constexpr size_t kRecordHeaderSize = 8;  // u32 type, u32 payload length
// From minor 12 on, every record's payload ends with the CRC32C of the
// record's bytes before it (type, length and the rest of the payload).
constexpr uint16_t kChecksumMinor = 12;
constexpr size_t kChecksumSize = 4;

// The header's tick dither is stored in parts per million, below one whole.
constexpr uint32_t kDitherPpmLimit = 1'000'000;
inline uint32_t dither_ppm(double dither) { return static_cast<uint32_t>(dither * 1e6 + 0.5); }

enum Type : uint32_t {
    kHeader = 1,
    kObject = 2,
    kFunction = 3,
    kThread = 4,
    kInterval = 5,
    kEnd = 6,
    // Locality (minor 3)
    kLocality = 7,
    kLocalityWindow = 8,
    kReuseSamples = 9,
    kExactCurve = 10,
    kExactFunctions = 11,
    // Locality detail (minor 5)
    kReuseSamplesWide = 14,  // REUSE_SAMPLES with an entry size, entries with position and data object
    kTenures = 15,
    kDataObject = 16,
    kExactInstructions = 17,
    // Source lines (minor 6)
    kCodeLocations = 18,
    kLineCells = 19,
    // Minor 9: tenures with a step of more than kTenureAccesses accesses (a
    // roulette won), laid out as TENURES: a reader of 1.8 or older, which
    // rejects those in TENURES, skips this kind.
    kTenuresWeighted = 20,
    // Call paths (minor 13)
    kStacks = 21,
    kStackCells = 22,
};
// The first minor version whose files may hold types 21 and 22.
constexpr uint16_t kCallPathsMinor = 13;
// The first minor version whose files may hold types 18 and 19.
constexpr uint16_t kSourceLinesMinor = 6;
// From minor 7 on, collectors leave the lines of their addresses to the reader.
constexpr uint16_t kDeferredLinesMinor = 7;

// Fixed part of an INTERVAL record and of each cell in it (a LINE_CELLS
// cell has the same layout, a location id in place of the function id).
constexpr size_t kIntervalFixedSize = 4 + 4 + 8 + 8 + 4 + 4;
constexpr size_t kCellFixedSize = 4 + 8 + 8;
constexpr size_t kEventCellSize = 8 + 8 + 8;
// The spread block after the cells (minor 4): per cell its entries, and per
// event sq, entry_count, entry_coverage_ns, entry_sq.
constexpr size_t kCellSpreadFixedSize = 8;
constexpr size_t kEventSpreadSize = 8 + 8 + 8 + 8;

// CODE_LOCATIONS: a location without inlined calls, each inlined call, an address row.
constexpr size_t kLocationFixedSize = 4 + 4 + 4 + 4;
constexpr size_t kInlinedCallSize = 4 + 4 + 4;
constexpr size_t kCodeAddressSize = 4 + 8 + 4 + 4;
// STACKS: a stack's frame count, each frame (function, address).
constexpr size_t kStackFixedSize = 4;
constexpr size_t kFrameSize = 4 + 8;

// One sample of a REUSE_SAMPLES record: tid, window, distance, sample
// (function, address), trigger (function, address), data address, size, flags.
constexpr size_t kReuseSampleSize = 4 + 4 + 8 + (4 + 8) + (4 + 8) + 8 + 1 + 1;
// The same in a REUSE_SAMPLES_WIDE entry, then position and data object.
// Entries may be longer (fields a newer minor appends); readers skip the rest.
constexpr size_t kWideSampleSize = kReuseSampleSize + 8 + 4;
// A step of a TENURES entry: gap, accesses, bytes, chunks used.
constexpr size_t kTenureStepSize = 8 + 4 + 8 + 8;
// The fixed part of a TENURES entry: tid, position, how it ended, steps.
constexpr size_t kTenureFixedSize = 4 + 8 + 1 + 1;
// Flag bits of a reuse sample.
constexpr uint8_t kSampleWrite = 1;
constexpr uint8_t kTriggerWrite = 2;

inline uint8_t swap_bytes(uint8_t v) { return v; }
inline uint16_t swap_bytes(uint16_t v) { return __builtin_bswap16(v); }
inline uint32_t swap_bytes(uint32_t v) { return __builtin_bswap32(v); }
inline uint64_t swap_bytes(uint64_t v) { return __builtin_bswap64(v); }

// Appends fields to a byte string in native order, or in the other byte
// order when `swap` is set (what a machine of the other endianness writes).
class Encoder {
public:
    Encoder(std::string& out, bool swap) : out_(out), swap_(swap) {}

    void u8(uint8_t v) { put(v); }
    void u16(uint16_t v) { put(v); }
    void u32(uint32_t v) { put(v); }
    void u64(uint64_t v) { put(v); }
    void i32(int32_t v) { put(static_cast<uint32_t>(v)); }
    void f64(double v) {
        uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        put(bits);
    }
    void str(const std::string& s) {
        u32(static_cast<uint32_t>(s.size()));
        out_.append(s);
    }
    void raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }

    // A record is its type, its payload length, its payload ending with the
    // checksum: begin_record leaves room for the length, end_record fills it
    // in and appends the checksum of everything before it.
    void begin_record(uint32_t type) {
        type_at_ = out_.size();
        u32(type);
        u32(0);
    }
    void end_record() {
        const size_t length_at = type_at_ + 4;
        uint32_t len = static_cast<uint32_t>(out_.size() - length_at - 4 + kChecksumSize);
        if (swap_) len = swap_bytes(len);
        std::memcpy(out_.data() + length_at, &len, sizeof len);
        u32(crc32c(out_.data() + type_at_, out_.size() - type_at_));
    }

private:
    template <typename T>
    void put(T v) {
        if (swap_) v = swap_bytes(v);
        out_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    std::string& out_;
    bool swap_;
    size_t type_at_ = 0;
};

// A place in the code as every record holds it: function id, then address.
inline void put_code(Encoder& e, const CodeRef& c) {
    e.u32(c.function);
    e.u64(c.address);
}

// One cell of an INTERVAL, LINE_CELLS or STACK_CELLS record: the function,
// location or stack id, then the sums (events in the HEADER's order).
template <class Cell>  // FunctionCell, LineCell or StackCell
void put_cell(Encoder& e, uint32_t id, const Cell& c) {
    e.u32(id);
    e.u64(c.samples);
    e.u64(c.time_ns);
    for (const auto& ev : c.events) {
        e.u64(ev.count);
        e.u64(ev.coverage_ns);
        e.f64(ev.carry);
    }
}

// A LINE_CELLS or STACK_CELLS record: the interval's tid and seq, then its
// cells by location or stack id.
template <class Cell, uint32_t Cell::*id>
void put_cells_record(Encoder& e, uint32_t type, const Interval& iv, const std::vector<Cell>& cells, size_t n_events) {
    e.begin_record(type);
    e.u32(iv.tid);
    e.u32(iv.seq);
    e.u32(static_cast<uint32_t>(cells.size()));
    e.u32(static_cast<uint32_t>(n_events));
    for (const Cell& c : cells) put_cell(e, c.*id, c);
    e.end_record();
}

}  // namespace sprof::records
