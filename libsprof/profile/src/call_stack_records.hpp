// The call-path records of docs/FORMAT.md (format 1.13): STACKS (distinct
// call chains, each stored once) and STACK_CELLS (per-interval cells per
// stack). One encoder and one decoder of each, and the check that the
// writer and the reader both apply, so the two cannot disagree.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "profile_decoder.hpp"
#include "profile_records.hpp"
#include "sprof/profile.hpp"

namespace sprof::records {

// Why a stack cannot be ("" when it can): it has a frame, at most
// kMaxStackFrames, each in a function read before it.
std::string stack_problem(const CallStack& s, uint32_t n_functions);

// New stacks (their ids continue those written before). The caller has checked them.
void put_stacks(Encoder& e, const std::vector<CallStack>& batch);
// The interval's stack cells, with its tid and seq.
void put_stack_cells(Encoder& e, const Interval& iv, size_t n_events);

// Reads a STACKS record into p.stacks, checking every stack; throws Corrupt.
void read_stacks(Decoder& d, Profile& p);

// A STACK_CELLS record: the cells and the interval they belong to.
struct StackCellsPart {
    uint32_t tid = 0, seq = 0;
    std::vector<StackCell> cells;
};
StackCellsPart read_stack_cells(Decoder& d, const Profile& p);

}  // namespace sprof::records
