#include "call_stack_records.hpp"

#include <fmt/format.h>

namespace sprof::records {

std::string stack_problem(const CallStack& s, uint32_t n_functions) {
    if (s.frames.empty()) return "stack without frames";
    if (s.frames.size() > kMaxStackFrames)
        return fmt::format("stack of {} frames, more than {}", s.frames.size(), kMaxStackFrames);
    for (const CodeRef& f : s.frames)
        if (f.function >= n_functions) return fmt::format("stack frame in unknown function id {}", f.function);
    return {};
}

void put_stacks(Encoder& e, const std::vector<CallStack>& batch) {
    e.begin_record(kStacks);
    e.u32(static_cast<uint32_t>(batch.size()));
    for (const CallStack& s : batch) {
        e.u32(static_cast<uint32_t>(s.frames.size()));
        for (const CodeRef& f : s.frames) put_code(e, f);
    }
    e.end_record();
}

void put_stack_cells(Encoder& e, const Interval& iv, size_t n_events) {
    put_cells_record<StackCell, &StackCell::stack>(e, kStackCells, iv, iv.stacks, n_events);
}

void read_stacks(Decoder& d, Profile& p) {
    const auto n_functions = static_cast<uint32_t>(p.functions.size());
    const uint32_t n = d.count(kStackFixedSize + kFrameSize, "stacks");
    for (uint32_t i = 0; i < n; ++i) {
        CallStack s;
        s.frames.resize(d.count(kFrameSize, "frames"));
        for (CodeRef& f : s.frames) f = read_code(d);
        if (std::string why = stack_problem(s, n_functions); !why.empty()) throw Corrupt{why};
        p.stacks.push_back(std::move(s));
    }
}

StackCellsPart read_stack_cells(Decoder& d, const Profile& p) {
    StackCellsPart part;
    part.tid = d.u32();
    part.seq = d.u32();
    part.cells = read_cells_by_id<StackCell, &StackCell::stack>(d, static_cast<uint32_t>(p.header.events.size()),
                                                                p.stacks.size(), "stack");
    return part;
}

}  // namespace sprof::records
