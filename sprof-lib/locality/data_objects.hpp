// The writer thread's naming of sampled addresses: which data object —
// heap block by allocation site, static variable, a thread's stack, another
// mapping — each sample's address lay in at the moment it was sampled.
//
// The program's allocations and frees reach the writer late (each thread's
// ring is drained every 100 ms) and a sample's reuse may come any time
// later, when its block may long be freed and its address given to another.
// So both the events and the sample starts carry the epoch (the process's
// allocation count) of their moment, and the writer replays them merged in
// epoch order into a map of live blocks: a start is named against the
// blocks live at its epoch. A thread may take an epoch and be preempted
// before its event reaches its ring, so each drain replays only up to the
// epoch the previous drain saw (events at most one period late are still in
// order); the final drain replays everything.
//
// Most blocks live shorter than the gap between two sample starts (sqlite3
// allocates ~10^6 times a second, starts come some 10^4 a second), so an
// allocation waits among the pending ones until the next start: freed
// before it, it never touches the map of live blocks.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <tsl/robin_map.h>

#include "locality_thread.hpp"
#include "sprof/session.hpp"

namespace sprof::rt::locality {

class DataObjects {
public:
    explicit DataObjects(ProfileSession& session) : session_(session) {}

    void add_stack(uint32_t tid, uint64_t low, uint64_t high);
    // What a drain found: every thread's events and sample starts.
    void add_events(SpscRing<AllocationEvent>& ring) { ring.pop_all(events_); }
    void add_starts(uint32_t tid, const std::vector<SampleStart>& starts);
    // Replays events and starts up to `limit` (UINT64_MAX: all); each start's
    // object is written (DATA_OBJECT) on first use.
    void replay(uint64_t limit);
    // The data object of the sample (tid, position) once its start was
    // replayed, and forgets it; kNoData when it lay in nothing known.
    // False while the start is not replayed yet.
    bool take(uint32_t tid, uint64_t position, uint32_t& data);

private:
    struct Block {
        uint64_t end;
        uint64_t site;  // run-time PC of the allocation call
    };
    struct Start {
        uint32_t tid;
        SampleStart start;
    };
    // An event in epoch order: an allocation becomes pending, a free ends a
    // pending block or a live one.
    void defer(const AllocationEvent& event);
    // The pending allocations join the live blocks, in epoch order.
    void settle();
    void apply(const AllocationEvent& event);
    uint32_t name(uint64_t address);
    uint32_t heap_object(uint64_t site);
    uint32_t object_of(const std::string& key, DataObject o);

    ProfileSession& session_;
    std::vector<AllocationEvent> events_;  // not yet replayed
    std::vector<Start> starts_;            // not yet replayed
    std::map<uint64_t, Block> live_;       // block start → block
    tsl::robin_map<uint64_t, AllocationEvent> pending_;  // allocated since the last start: block start → its event
    std::vector<std::pair<uint64_t, uint64_t>> stacks_;  // [low, high) of each thread seen
    std::unordered_map<uint64_t, uint32_t> heap_ids_;    // allocation site (run-time PC) → id
    std::map<std::string, uint32_t> ids_;                 // other objects by a key of theirs → id
    uint32_t next_id_ = 0;
    // (tid, position) of replayed starts → data id
    struct StartHash {
        size_t operator()(const std::pair<uint32_t, uint64_t>& k) const {
            return static_cast<size_t>((k.second ^ (uint64_t{k.first} << 40)) * 0x9e3779b97f4a7c15ull >> 16);
        }
    };
    tsl::robin_map<std::pair<uint32_t, uint64_t>, uint32_t, StartHash> named_;
    std::vector<Mapping> mappings_;                       // every mapping, read when an address is in none known
};

}  // namespace sprof::rt::locality
