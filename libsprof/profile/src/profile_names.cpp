#include "sprof/profile_names.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace sprof {

namespace {

constexpr std::string_view kEnding = ".sprof";
constexpr std::string_view kExec = ".exec";

bool has_ending(const std::string& p) { return p.size() > kEnding.size() && p.ends_with(kEnding); }

}  // namespace

std::string insert_before_ending(const std::string& path, const std::string& tag) {
    return has_ending(path) ? path.substr(0, path.size() - kEnding.size()) + tag + std::string(kEnding) : path + tag;
}

std::string image_path(const std::string& first, unsigned image) {
    return image == 0 ? first : insert_before_ending(first, std::string(kExec) + std::to_string(image));
}

ImageOfPath image_of_path(const std::string& path) {
    // The ".execN" tag sits before ".sprof", or ends a name without that ending.
    const size_t stem_end = has_ending(path) ? path.size() - kEnding.size() : path.size();
    size_t digits = stem_end;
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(path[digits - 1]))) --digits;
    const size_t tag = digits - std::min(digits, kExec.size());
    if (digits == stem_end || stem_end - digits > 9 || path[digits] == '0' ||
        std::string_view(path).substr(tag, digits - tag) != kExec)
        return {path, 0};
    const unsigned image = static_cast<unsigned>(std::stoul(path.substr(digits, stem_end - digits)));
    return {path.substr(0, tag) + path.substr(stem_end), image};
}

}  // namespace sprof
