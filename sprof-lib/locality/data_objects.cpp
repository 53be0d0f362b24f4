#include "data_objects.hpp"

#include <algorithm>

namespace sprof::rt::locality {

namespace {
bool by_epoch(const AllocationEvent& a, const AllocationEvent& b) { return a.epoch < b.epoch; }
}  // namespace

void DataObjects::add_stack(uint32_t, uint64_t low, uint64_t high) {
    if (low < high) stacks_.emplace_back(low, high);
}

void DataObjects::add_starts(uint32_t tid, const std::vector<SampleStart>& starts) {
    for (const SampleStart& s : starts) starts_.push_back(Start{tid, s});
}

void DataObjects::defer(const AllocationEvent& ev) {
    if (ev.size != 0) {
        pending_.insert_or_assign(ev.address, ev);  // one pending there already lost its free
    } else if (auto it = pending_.find(ev.address); it != pending_.end()) {
        pending_.erase(it);
    } else {
        live_.erase(ev.address);
    }
}

void DataObjects::settle() {
    if (pending_.empty()) return;
    std::vector<AllocationEvent> blocks;
    blocks.reserve(pending_.size());
    for (const auto& [address, ev] : pending_) blocks.push_back(ev);
    pending_.clear();
    std::sort(blocks.begin(), blocks.end(), by_epoch);
    for (const AllocationEvent& ev : blocks) apply(ev);
}

void DataObjects::apply(const AllocationEvent& ev) {
    // A new block overlaps none that is live: one still there lost its free
    // (a ring overflowed, or a free the hooks did not see). A block that
    // came and went while pending clears no such stale block: lost frees
    // are reported at exit, and a sample in the stale block's range is named
    // by it.
    auto it = live_.lower_bound(ev.address);
    if (it != live_.begin() && std::prev(it)->second.end > ev.address) --it;
    while (it != live_.end() && it->first < ev.address + ev.size) it = live_.erase(it);
    live_.emplace(ev.address, Block{ev.address + ev.size, ev.site});
}

void DataObjects::replay(uint64_t limit) {
    // Each ring is in epoch order, the rings interleave: sort what came
    // (one thread's, after the sorted rest of the last drain, need not be).
    if (!std::is_sorted(events_.begin(), events_.end(), by_epoch)) std::sort(events_.begin(), events_.end(), by_epoch);
    auto start_epoch = [](const Start& a, const Start& b) { return a.start.epoch < b.start.epoch; };
    if (!std::is_sorted(starts_.begin(), starts_.end(), start_epoch))
        std::sort(starts_.begin(), starts_.end(), start_epoch);
    size_t e = 0, s = 0;
    // A start at epoch E saw every event numbered ≤ E (the count it read was
    // taken after them) and none after.
    while (s < starts_.size() && starts_[s].start.epoch <= limit) {
        const uint64_t epoch = starts_[s].start.epoch;
        for (; e < events_.size() && events_[e].epoch <= epoch; ++e) defer(events_[e]);
        settle();
        named_[{starts_[s].tid, starts_[s].start.position}] = name(starts_[s].start.address);
        ++s;
    }
    starts_.erase(starts_.begin(), starts_.begin() + static_cast<ptrdiff_t>(s));
    // Events up to the limit are replayed even without a start after them.
    for (; e < events_.size() && events_[e].epoch <= limit; ++e) defer(events_[e]);
    events_.erase(events_.begin(), events_.begin() + static_cast<ptrdiff_t>(e));
}

bool DataObjects::take(uint32_t tid, uint64_t position, uint32_t& data) {
    auto it = named_.find({tid, position});
    if (it == named_.end()) return false;
    data = it->second;
    named_.erase(it);
    return true;
}

uint32_t DataObjects::object_of(const std::string& key, DataObject o) {
    auto [it, fresh] = ids_.try_emplace(key, next_id_);
    if (fresh) {
        o.id = next_id_++;
        session_.writer().add_data_object(o);
    }
    return it->second;
}

uint32_t DataObjects::heap_object(uint64_t site) {
    auto [it, fresh] = heap_ids_.try_emplace(site, next_id_);
    if (fresh) {
        DataObject o;
        o.id = next_id_++;
        o.kind = DataKind::heap;
        o.site = session_.code_ref(site);
        session_.writer().add_data_object(o);
    }
    return it->second;
}

uint32_t DataObjects::name(uint64_t address) {
    for (const auto& [low, high] : stacks_)
        if (address >= low && address < high) {
            DataObject o;
            o.kind = DataKind::stack;
            o.name = "[stack]";
            return object_of("stack", o);
        }
    if (auto it = live_.upper_bound(address); it != live_.begin() && std::prev(it)->second.end > address)
        return heap_object(std::prev(it)->second.site);
    if (const auto v = session_.address_space().resolve_data(address); v.object) {
        DataObject o;
        o.kind = DataKind::static_data;
        o.object = session_.object_id(*v.object);
        o.name = v.symbol->name;
        o.size = v.symbol->end - v.symbol->start;
        return object_of("static " + v.object->path() + " " + std::to_string(v.symbol->start), o);
    }
    // Any other mapping: by its path ([heap] for malloc's own arena outside
    // a known block, [anon] …); the maps are read again for an address in none.
    auto in = [&](const Mapping& m) { return address >= m.start && address < m.end; };
    auto hit = std::find_if(mappings_.begin(), mappings_.end(), in);
    if (hit == mappings_.end()) {
        try {
            mappings_ = read_mappings(0, false);
        } catch (const SymbolError&) {
            mappings_.clear();
        }
        hit = std::find_if(mappings_.begin(), mappings_.end(), in);
    }
    DataObject o;
    o.kind = DataKind::other;
    o.name = hit == mappings_.end() ? "[unknown]" : hit->path;
    return object_of("other " + o.name, o);
}

}  // namespace sprof::rt::locality
