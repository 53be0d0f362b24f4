// The call stacks of one profile being written: each distinct chain of
// frames (as the profile names code: function id and address) gets an id
// the first time it is seen and is written once, in a STACKS record, before
// the stack cells that name it. New stacks wait in a batch until written.
#pragma once
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "sprof/profile_io.hpp"

namespace sprof {

class CallStacks {
public:
    // The id of the stack of `frames` (innermost first).
    uint32_t intern(std::span<const CodeRef> frames);
    // Writes what is new since the last call (one STACKS record): after the
    // functions its frames name, before any interval that names its stacks.
    void write_new(ProfileWriter& writer);

private:
    struct Key {
        std::vector<CodeRef> frames;
        bool operator==(const Key& o) const;
    };
    struct KeyHash {
        size_t operator()(const Key& k) const;
    };
    std::unordered_map<Key, uint32_t, KeyHash> ids_;
    std::vector<CallStack> new_;  // not yet written
};

}  // namespace sprof
