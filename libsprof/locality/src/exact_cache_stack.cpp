// StackDistances: Bennett–Kruskal stack distances over a Fenwick tree of
// time slots, with compaction so memory follows the distinct lines.
#include <algorithm>
#include <stdexcept>

#include "sprof/exact_cache.hpp"

namespace sprof {

namespace {
// Slots are uint32_t; a tree at least twice the lines keeps compaction rare.
constexpr uint64_t kMaxSlots = UINT32_MAX;
}  // namespace

StackDistances::StackDistances(uint32_t slots)
    : tree_(std::max<uint32_t>(slots, 1) + 1, 0), owner_(std::max<uint32_t>(slots, 1)) {}

uint64_t StackDistances::marks_up_to(uint32_t slot) const {
    uint64_t sum = 0;
    for (size_t i = size_t{slot} + 1; i > 0; i &= i - 1) sum += tree_[i];
    return sum;
}

void StackDistances::add_mark(uint32_t slot, uint32_t delta) {
    // delta is +1 or −1 modulo 2^32: every node's count stays exact.
    for (size_t i = size_t{slot} + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
}

AccessDistances StackDistances::access(uint64_t line) {
    if (next_slot_ == owner_.size()) compact();
    ++now_;
    const uint32_t slot = next_slot_++;
    owner_[slot] = line;
    AccessDistances d;
    auto [it, first] = latest_.try_emplace(line, Latest{now_, slot});
    if (!first) {
        Latest& latest = it.value();
        d.reuse = now_ - latest.time;
        // Every line has exactly one mark; those after the line's own
        // slot are the lines accessed since.
        d.stack = latest_.size() - marks_up_to(latest.slot);
        add_mark(latest.slot, UINT32_MAX);
        latest = {now_, slot};
    }
    add_mark(slot, 1);
    return d;
}

void StackDistances::compact() {
    const size_t old_slots = owner_.size();
    size_t slots = old_slots;
    while (slots < 2 * latest_.size()) slots *= 2;
    if (slots > kMaxSlots)
        throw std::length_error("exact cache simulation: more distinct lines than its " +
                                std::to_string(kMaxSlots / 2) + " limit");
    // Undo the tree's partial sums in place (the reverse of its O(n) build),
    // leaving per slot 1 if it holds some line's latest access, else 0.
    for (size_t i = old_slots; i >= 1; --i) {
        size_t parent = i + (i & (~i + 1));
        if (parent <= old_slots) tree_[parent] -= tree_[i];
    }
    // The marked slots, in order, become 0 … lines−1.
    uint32_t next = 0;
    for (size_t s = 0; s < old_slots; ++s) {
        if (tree_[s + 1] == 0) continue;
        const uint64_t line = owner_[s];
        owner_[next] = line;
        latest_.find(line).value().slot = next;
        ++next;
    }
    owner_.resize(slots);
    tree_.assign(slots + 1, 0);
    std::fill(tree_.begin() + 1, tree_.begin() + 1 + next, 1u);
    for (size_t i = 1; i <= slots; ++i) {
        size_t parent = i + (i & (~i + 1));
        if (parent <= slots) tree_[parent] += tree_[i];
    }
    next_slot_ = next;
}

}  // namespace sprof
