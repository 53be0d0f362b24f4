#include "sprof/profile_follower.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "sprof/profile_io.hpp"

namespace sprof {

namespace {

// Bytes read per read(): a file that exists long before it is followed is
// decoded as it is read, never held whole.
constexpr size_t kChunk = 1 << 20;

}  // namespace

ProfileFollower::ProfileFollower(std::string path) : path_(path), stream_(std::move(path), true) {}

ProfileFollower::~ProfileFollower() {
    if (fd_ >= 0) ::close(fd_);
}

bool ProfileFollower::open() {
    if (fd_ >= 0) return true;
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block the open
    if (fd < 0) {
        if (errno == ENOENT) return false;
        throw ProfileError(fmt::format("{}: cannot open ({})", path_, std::strerror(errno)));
    }
    struct stat st {};
    const bool stated = ::fstat(fd, &st) == 0;
    const int err = errno;
    if (!stated || !S_ISREG(st.st_mode)) {
        ::close(fd);
        if (!stated) throw ProfileError(fmt::format("{}: cannot stat ({})", path_, std::strerror(err)));
        throw ProfileError(fmt::format("{}: not a regular file (only a file being written can be followed)", path_));
    }
    fd_ = fd;
    return true;
}

bool ProfileFollower::poll() {
    if (fd_ < 0) return false;
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
        throw ProfileError(fmt::format("{}: cannot stat ({})", path_, std::strerror(errno)));
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size != read_ && stream_.profile().end.present) {
        // Nothing follows an END but an END taken back: sprof_lib writes one
        // before an exec and cuts it off again when the exec fails, then
        // writes on. Read again from where the END stood.
        const uint64_t end_at = stream_.retract_end();
        if (size < end_at)
            throw ProfileError(fmt::format("{}: shrank from {} to {} bytes while followed (rewritten by another run?)",
                                           path_, read_, size));
        read_ = end_at;
        tail_.clear();
    } else if (size < read_) {
        throw ProfileError(fmt::format("{}: shrank from {} to {} bytes while followed (rewritten by another run?)",
                                       path_, read_, size));
    }
    if (size > kMaxProfileBytes)
        throw ProfileError(fmt::format("{}: more than the {} bytes a profile may have (not a profile?)", path_,
                                       kMaxProfileBytes));
    bool decoded = false;
    while (read_ < size) {
        const size_t keep = tail_.size();
        const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, size - read_));
        tail_.resize(keep + want);
        const ssize_t n = ::pread(fd_, tail_.data() + keep, want, static_cast<off_t>(read_));
        tail_.resize(keep + static_cast<size_t>(std::max<ssize_t>(n, 0)));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw ProfileError(fmt::format("{}: cannot read ({})", path_, std::strerror(errno)));
        if (n == 0) break;  // cut short since the fstat: the next poll tells
        read_ += static_cast<uint64_t>(n);
        const size_t used = stream_.feed(tail_);
        tail_.erase(0, used);
        decoded = decoded || used > 0;
    }
    return decoded;
}

}  // namespace sprof
