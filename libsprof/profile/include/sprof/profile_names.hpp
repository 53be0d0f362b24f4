// File names of profiles, shared by the collectors that choose them and the
// analyzer that finds them: one profile per image of a process, the image a
// process execs into writing the first image's name with ".execN" before its
// ".sprof" ending (docs/FORMAT.md, END).
#pragma once
#include <string>

namespace sprof {

// `path` with `tag` inserted before its ".sprof" ending, or appended when it
// has none: ("app.sprof", ".rank3") → "app.rank3.sprof".
std::string insert_before_ending(const std::string& path, const std::string& tag);

// The profile of the `image`-th image (0: the first, 1: the image it exec'd
// into, …) of the process whose first image writes `first`.
std::string image_path(const std::string& first, unsigned image);

// Which image's profile `path` is: the first image's path and the image
// number ("app.12.exec2.sprof" → "app.12.sprof", 2; a name without ".execN"
// is the first image's).
struct ImageOfPath {
    std::string first;
    unsigned image = 0;
};
ImageOfPath image_of_path(const std::string& path);

}  // namespace sprof
