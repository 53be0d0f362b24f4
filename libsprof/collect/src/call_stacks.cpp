#include "sprof/call_stacks.hpp"

#include <algorithm>

#include <boost/container_hash/hash.hpp>

namespace sprof {

bool CallStacks::Key::operator==(const Key& o) const {
    return std::equal(frames.begin(), frames.end(), o.frames.begin(), o.frames.end(),
                      [](const CodeRef& a, const CodeRef& b) { return a.function == b.function && a.address == b.address; });
}

size_t CallStacks::KeyHash::operator()(const Key& k) const {
    size_t h = 0;
    for (const CodeRef& f : k.frames) {
        boost::hash_combine(h, f.function);
        boost::hash_combine(h, f.address);
    }
    return h;
}

uint32_t CallStacks::intern(std::span<const CodeRef> frames) {
    Key key{{frames.begin(), frames.end()}};
    const auto [it, fresh] = ids_.try_emplace(std::move(key), static_cast<uint32_t>(ids_.size()));
    if (fresh) new_.push_back(CallStack{it->first.frames});
    return it->second;
}

void CallStacks::write_new(ProfileWriter& writer) {
    if (new_.empty()) return;
    writer.add_stacks(new_);
    new_.clear();
}

}  // namespace sprof
