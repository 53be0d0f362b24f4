// The one reader of docs/FORMAT.md, fed a file's bytes as they come:
// read_profile feeds it a whole file at once; ProfileFollower feeds it what a
// collector has appended since the last look, while the collector still
// writes. Either way every record is decoded by the same code, which trusts
// nothing in the bytes (profile_reader.cpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/profile.hpp"

namespace sprof {

class ProfileStream {
public:
    // `name` appears in messages. With `track_changes`, take_changed() tells
    // which intervals each feed created or added a part to.
    explicit ProfileStream(std::string name, bool track_changes = false, ReadOptions options = {});
    ~ProfileStream();
    ProfileStream(ProfileStream&&) noexcept;
    ProfileStream& operator=(ProfileStream&&) noexcept;

    // Decodes the complete records at the front of `bytes`, the bytes that
    // follow those consumed so far, and returns how many bytes it consumed.
    // A record (or the file header) cut short is left: the next call gets it
    // again, with what was appended since. Throws ProfileError for what no
    // byte appended later can mend (bad magic, a corrupt record, a record
    // after END, a record whose checksum fails).
    size_t feed(std::string_view bytes);

    // No byte comes any more; `tail` is what feed() left over: the tail of a
    // cut-short run (a warning), or, when intact records follow in it, a
    // record whose length was damaged (an error, or with salvage passed
    // over). Throws ProfileError when the bytes held no HEADER. INTERVAL
    // records with the same (tid, seq) are merged.
    Profile finish(std::string_view tail) &&;

    // What was decoded so far: intervals merged as in finish().
    const Profile& profile() const;
    bool has_header() const;
    uint64_t consumed() const;  // bytes of the file decoded so far
    // Indices into profile().intervals created or added to since the last
    // call, ascending; empty without track_changes.
    std::vector<size_t> take_changed();

    // The END record is cut off the file again (sprof_lib writes one before
    // an exec and takes it back when the exec fails): the stream forgets it
    // and goes on at the byte where it stood. Returns that byte.
    uint64_t retract_end();

private:
    struct State;
    std::unique_ptr<State> s_;
};

}  // namespace sprof
