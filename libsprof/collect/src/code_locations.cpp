#include "sprof/code_locations.hpp"

namespace sprof {

uint32_t CodeLocations::string_id(const std::string& s) {
    if (s.empty()) return kNoString;
    auto [it, fresh] = strings_.try_emplace(s, n_strings_);
    if (fresh) {
        new_.strings.push_back(s);
        ++n_strings_;
    }
    return it->second;
}

uint32_t CodeLocations::location_id(CodeLocation&& l) {
    std::string key;
    auto put = [&key](uint32_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(l.function);
    put(l.file);
    put(l.line);
    for (const InlinedCall& c : l.inlined) {
        put(c.function);
        put(c.call_file);
        put(c.call_line);
    }
    auto [it, fresh] = locations_.try_emplace(std::move(key), n_locations_);
    if (fresh) {
        new_.locations.push_back(std::move(l));
        ++n_locations_;
    }
    return it->second;
}

uint32_t CodeLocations::locate(const CodeRef& code, const Resolved& r) {
    auto [it, fresh] = addresses_.try_emplace(Code{code.function, code.address});
    if (!fresh) return it->second;
    CodeLocation l;
    l.function = code.function;
    uint32_t column = 0;
    if (r.function && r.table) {
        const SourcePosition pos = resolver_.locate(*r.table, code.address);
        l.file = string_id(pos.file);
        l.line = pos.line;
        column = pos.column;
        for (const SourcePosition::Inlined& c : pos.inlined)
            l.inlined.push_back({string_id(c.function), string_id(c.call_file), c.call_line});
    }
    it->second = location_id(std::move(l));
    new_.addresses.push_back({code, it->second, column});
    return it->second;
}

void CodeLocations::write_new(ProfileWriter& writer) {
    if (new_.empty()) return;
    writer.add_source_lines(new_);
    new_ = {};
}

}  // namespace sprof
