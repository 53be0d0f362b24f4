// Reading the fields of one record payload (docs/FORMAT.md), for the reader
// of every record kind. Nothing is trusted: a field past the record's end or
// a count of items that cannot fit in it is Corrupt.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "profile_records.hpp"

namespace sprof::records {

// Why a record is corrupt; turned into a ProfileError naming file, record and offset.
struct Corrupt {
    std::string why;
};

// Reads fixed-size fields of one record payload, swapping when the file was
// written in the other byte order.
class Decoder {
public:
    Decoder(const char* p, size_t n, bool swap) : p_(p), end_(p + n), swap_(swap) {}

    uint8_t u8() { return get<uint8_t>(); }
    uint16_t u16() { return get<uint16_t>(); }
    uint32_t u32() { return get<uint32_t>(); }
    uint64_t u64() { return get<uint64_t>(); }
    int32_t i32() { return static_cast<int32_t>(get<uint32_t>()); }
    double f64() {
        uint64_t bits = get<uint64_t>();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    }
    std::string str() {
        uint32_t n = u32();
        if (n > left()) throw Corrupt{fmt::format("string length {} beyond the record", n)};
        std::string s(p_, n);
        p_ += n;
        return s;
    }
    size_t left() const { return static_cast<size_t>(end_ - p_); }
    // Passes over `n` bytes a newer writer appended to an item.
    void skip(size_t n) {
        if (n > left()) throw Corrupt{"field runs past the record end"};
        p_ += n;
    }
    // A count of items of at least `item_size` bytes each must fit in what is left.
    uint32_t count(size_t item_size, const char* what) {
        uint32_t n = u32();
        if (n > left() / item_size) throw Corrupt{fmt::format("{} {} do not fit in the record", n, what)};
        return n;
    }

private:
    template <typename T>
    T get() {
        if (left() < sizeof(T)) throw Corrupt{"field runs past the record end"};
        T v;
        std::memcpy(&v, p_, sizeof v);
        p_ += sizeof v;
        return swap_ ? records::swap_bytes(v) : v;
    }
    const char* p_;
    const char* end_;
    bool swap_;
};

// The cell count C and event count E that precede the cells of an INTERVAL
// or LINE_CELLS record: E must be the HEADER's, and C cells must fit in
// what is left of the record. Returns C.
inline uint32_t read_cell_count(Decoder& d, size_t header_events) {
    const uint32_t n_cells = d.u32();
    const uint32_t n_events = d.u32();
    if (n_events != header_events)
        throw Corrupt{fmt::format("cells carry {} events, the header has {}", n_events, header_events)};
    const size_t cell_size = kCellFixedSize + n_events * kEventCellSize;
    if (n_cells > d.left() / cell_size) throw Corrupt{fmt::format("{} cells do not fit in the record", n_cells)};
    return n_cells;
}

// The sums of one cell of an INTERVAL or LINE_CELLS record, after its id.
template <class Cell>  // FunctionCell or LineCell
void read_cell_sums(Decoder& d, Cell& c, uint32_t n_events) {
    c.samples = d.u64();
    c.time_ns = d.u64();
    c.events.resize(n_events);
    for (auto& ev : c.events) {
        ev.count = d.u64();
        ev.coverage_ns = d.u64();
        ev.carry = d.f64();
    }
}

// The cells of a LINE_CELLS or STACK_CELLS record after its tid and seq,
// each id below `n_ids` (those read so far); `what` names the id in errors.
// Such a record holds no spread of the deltas: unknown, not none.
template <class Cell, uint32_t Cell::*id>
std::vector<Cell> read_cells_by_id(Decoder& d, uint32_t n_events, size_t n_ids, const char* what) {
    std::vector<Cell> cells(read_cell_count(d, n_events));
    for (Cell& c : cells) {
        c.*id = d.u32();
        if (c.*id >= n_ids) throw Corrupt{fmt::format("unknown {} id {}", what, c.*id)};
        read_cell_sums(d, c, n_events);
        for (EventCell& ev : c.events) ev.sq = ev.entry_sq = NAN;
    }
    return cells;
}

// A place in the code as every record holds it (put_code's inverse).
inline CodeRef read_code(Decoder& d) {
    CodeRef c;
    c.function = d.u32();
    c.address = d.u64();
    return c;
}

}  // namespace sprof::records
