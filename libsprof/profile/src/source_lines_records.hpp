// The source-line records of docs/FORMAT.md (format 1.6): CODE_LOCATIONS
// (strings, locations, address rows) and LINE_CELLS (per-interval cells
// per location). One encoder and one decoder of each, and the checks that
// the writer and the reader both apply, so the two cannot disagree.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "profile_decoder.hpp"
#include "profile_records.hpp"
#include "sprof/profile.hpp"

namespace sprof::records {

// Why a location or address row cannot be ("" when it can). A location
// lies in a function read before it, and names strings of its own record
// or an earlier one (ids continue over the file: `n_strings` counts them
// all). An address names a location of its own record or an earlier one
// (`location_function`: the function of every location so far) and the
// function that location lies in.
std::string location_problem(const CodeLocation& l, uint32_t n_functions, uint32_t n_strings);
std::string address_problem(const CodeAddress& a, const std::vector<uint32_t>& location_function);

// A batch of new strings, locations and address rows (their ids continue
// those written before). The caller has checked them.
void put_code_locations(Encoder& e, const SourceLines& batch);
// The interval's line cells, with its tid and seq.
void put_line_cells(Encoder& e, const Interval& iv, size_t n_events);

// Reads a CODE_LOCATIONS record into p.lines, checking every item, and
// the function of each location into `location_function`; throws Corrupt.
void read_code_locations(Decoder& d, Profile& p, std::vector<uint32_t>& location_function);

// A LINE_CELLS record: the cells and the interval they belong to.
struct LineCellsPart {
    uint32_t tid = 0, seq = 0;
    std::vector<LineCell> cells;
};
LineCellsPart read_line_cells(Decoder& d, const Profile& p);

}  // namespace sprof::records
