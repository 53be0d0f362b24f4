#include "sprof/code_locations.hpp"

namespace sprof {

uint32_t CodeLocations::locate(const CodeRef& code) {
    const auto [it, fresh] = addresses_.try_emplace(Code{code.function, code.address},
                                                    static_cast<uint32_t>(addresses_.size()));
    if (fresh) {
        CodeLocation unknown;
        unknown.function = code.function;
        new_.locations.push_back(std::move(unknown));
        new_.addresses.push_back({code, it->second, 0});
    }
    return it->second;
}

void CodeLocations::write_new(ProfileWriter& writer) {
    if (new_.empty()) return;
    writer.add_source_lines(new_);
    new_ = {};
}

}  // namespace sprof
