#include "source_lines_records.hpp"

#include <cmath>
#include <fmt/format.h>

namespace sprof::records {
namespace {

bool known_string(uint32_t id, uint32_t n_strings) { return id == kNoString || id < n_strings; }

}  // namespace

std::string location_problem(const CodeLocation& l, uint32_t n_functions, uint32_t n_strings) {
    if (l.function >= n_functions) return fmt::format("location in unknown function id {}", l.function);
    if (!known_string(l.file, n_strings)) return fmt::format("location names unknown string {}", l.file);
    for (const InlinedCall& c : l.inlined)
        if (!known_string(c.function, n_strings) || !known_string(c.call_file, n_strings))
            return fmt::format("inlined call names unknown string {}",
                               known_string(c.function, n_strings) ? c.call_file : c.function);
    return {};
}

std::string address_problem(const CodeAddress& a, const std::vector<uint32_t>& location_function) {
    if (a.location >= location_function.size()) return fmt::format("address of unknown location {}", a.location);
    if (a.code.function != location_function[a.location])
        return fmt::format("address in function {} names location {} of function {}", a.code.function, a.location,
                           location_function[a.location]);
    return {};
}

void put_code_locations(Encoder& e, const SourceLines& batch) {
    e.begin_record(kCodeLocations);
    e.u32(static_cast<uint32_t>(batch.strings.size()));
    for (const std::string& s : batch.strings) e.str(s);
    e.u32(static_cast<uint32_t>(batch.locations.size()));
    for (const CodeLocation& l : batch.locations) {
        e.u32(l.function);
        e.u32(l.file);
        e.u32(l.line);
        e.u32(static_cast<uint32_t>(l.inlined.size()));
        for (const InlinedCall& c : l.inlined) {
            e.u32(c.function);
            e.u32(c.call_file);
            e.u32(c.call_line);
        }
    }
    e.u32(static_cast<uint32_t>(batch.addresses.size()));
    for (const CodeAddress& a : batch.addresses) {
        put_code(e, a.code);
        e.u32(a.location);
        e.u32(a.column);
    }
    e.end_record();
}

void put_line_cells(Encoder& e, const Interval& iv, size_t n_events) {
    put_cells_record<LineCell, &LineCell::location>(e, kLineCells, iv, iv.lines, n_events);
}

void read_code_locations(Decoder& d, Profile& p, std::vector<uint32_t>& location_function) {
    SourceLines& lines = p.lines;
    const auto n_functions = static_cast<uint32_t>(p.functions.size());
    const uint32_t n_strings = d.count(4, "strings");
    for (uint32_t i = 0; i < n_strings; ++i) lines.strings.push_back(d.str());
    const uint32_t n_locations = d.count(kLocationFixedSize, "locations");
    for (uint32_t i = 0; i < n_locations; ++i) {
        CodeLocation l;
        l.function = d.u32();
        l.file = d.u32();
        l.line = d.u32();
        l.inlined.resize(d.count(kInlinedCallSize, "inlined calls"));
        for (InlinedCall& c : l.inlined) {
            c.function = d.u32();
            c.call_file = d.u32();
            c.call_line = d.u32();
        }
        const auto all_strings = static_cast<uint32_t>(lines.strings.size());
        if (std::string why = location_problem(l, n_functions, all_strings); !why.empty()) throw Corrupt{why};
        location_function.push_back(l.function);
        lines.locations.push_back(std::move(l));
    }
    const uint32_t n_addresses = d.count(kCodeAddressSize, "addresses");
    for (uint32_t i = 0; i < n_addresses; ++i) {
        CodeAddress a;
        a.code = read_code(d);
        a.location = d.u32();
        a.column = d.u32();
        if (std::string why = address_problem(a, location_function); !why.empty()) throw Corrupt{why};
        lines.addresses.push_back(a);
    }
}

LineCellsPart read_line_cells(Decoder& d, const Profile& p) {
    LineCellsPart part;
    part.tid = d.u32();
    part.seq = d.u32();
    part.cells = read_cells_by_id<LineCell, &LineCell::location>(
        d, static_cast<uint32_t>(p.header.events.size()), p.lines.locations.size(), "location");
    return part;
}

}  // namespace sprof::records
