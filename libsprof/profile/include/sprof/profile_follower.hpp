// A profile file read while a collector appends to it: each poll() reads only
// the bytes appended since the last one and hands them to the one reader
// (ProfileStream); a record cut short by the writer stays in a small tail
// buffer until its rest arrives. The bounds of read_profile hold: a regular
// file only, at most kMaxProfileBytes.
#pragma once
#include <cstdint>
#include <string>

#include "sprof/profile_stream.hpp"

namespace sprof {

class ProfileFollower {
public:
    explicit ProfileFollower(std::string path);
    ~ProfileFollower();
    ProfileFollower(const ProfileFollower&) = delete;
    ProfileFollower& operator=(const ProfileFollower&) = delete;

    // Opens the file: false while it does not exist. Throws ProfileError when
    // it exists and cannot be followed (a directory, a FIFO, no permission).
    bool open();
    bool is_open() const { return fd_ >= 0; }

    // Reads what was appended since the last poll and decodes its complete
    // records; true when a record was decoded. Throws ProfileError for a
    // corrupt record, a file grown past the bound, or a file that shrank
    // (rewritten by another run) other than by its END record being taken
    // back (an exec that failed: the stream then goes on from there).
    bool poll();

    ProfileStream& stream() { return stream_; }
    const ProfileStream& stream() const { return stream_; }
    const std::string& path() const { return path_; }
    uint64_t bytes_read() const { return read_; }
    size_t pending() const { return tail_.size(); }  // bytes of a record still being written

private:
    std::string path_;
    ProfileStream stream_;
    int fd_ = -1;
    uint64_t read_ = 0;  // bytes of the file read so far: consumed + tail_
    std::string tail_;   // read but not yet decodable (a record cut short)
};

}  // namespace sprof
