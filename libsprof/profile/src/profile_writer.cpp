// ProfileWriter and encode_profile: the profile file format of docs/FORMAT.md.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "profile_records.hpp"
#include "sprof/profile_io.hpp"

namespace sprof {
namespace {

using records::Encoder;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw ProfileError(fmt::format("{}: {}", path, what));
}

// The writer reuses one buffer; a record whose encoding failed half-way must
// not be written with the next one.
Encoder fresh_native(std::string& buffer) {
    buffer.clear();
    return Encoder(buffer, false);
}

void put_file_header(Encoder& e) {
    e.raw(records::kMagic, sizeof records::kMagic);
    e.u32(records::kByteOrderTag);
    e.u16(kFormatMajor);
    e.u16(kFormatMinor);
}

void put_header(Encoder& e, const ProfileHeader& h) {
    e.begin_record(records::kHeader);
    e.str(h.collector);
    e.str(h.backend);
    e.str(h.program);
    e.u32(static_cast<uint32_t>(h.argv.size()));
    for (const auto& a : h.argv) e.str(a);
    e.str(h.hostname);
    e.u32(h.pid);
    e.u64(h.start_unix_ns);
    e.str(h.clock);
    e.u64(h.sample_interval_ns);
    e.u32(h.hist_samples);
    e.u64(h.hist_interval_ns);
    e.u32(h.slots);
    e.u32(static_cast<uint32_t>(h.events.size()));
    for (const auto& ev : h.events) {
        e.str(ev.name);
        e.u8((ev.time_like ? 1 : 0) | (ev.user_only ? 2 : 0));  // flag bits, docs/FORMAT.md
    }
    e.i32(h.rank);
    e.u32(h.ranks);
    e.str(h.job_id);
    e.str(h.launcher);
    e.end_record();
}

// Objects and functions are referred to by id, and the reader stores them at
// index == id; so ids must be handed out 0, 1, 2 … in the order of writing.
void put_object(Encoder& e, const ProfileObject& o, uint32_t expected_id, const std::string& path) {
    if (o.id != expected_id)
        fail(path, fmt::format("object id {} out of order (expected {})", o.id, expected_id));
    e.begin_record(records::kObject);
    e.u32(o.id);
    e.str(o.path);
    e.end_record();
}

void put_function(Encoder& e, const ProfileFunction& f, uint32_t expected_id, uint32_t n_objects,
                  const std::string& path) {
    if (f.id != expected_id)
        fail(path, fmt::format("function id {} out of order (expected {})", f.id, expected_id));
    if (f.object != kNoObject && f.object >= n_objects)
        fail(path, fmt::format("function {} refers to unknown object id {}", f.name, f.object));
    e.begin_record(records::kFunction);
    e.u32(f.id);
    e.u32(f.object);
    e.u64(f.start);
    e.u64(f.end);
    e.str(f.name);
    e.end_record();
}

void put_thread(Encoder& e, const ProfileThread& t) {
    e.begin_record(records::kThread);
    e.u32(t.tid);
    e.str(t.name);
    e.end_record();
}

void put_interval(Encoder& e, const Interval& iv, size_t n_events, uint32_t n_functions,
                  const std::string& path) {
    e.begin_record(records::kInterval);
    e.u32(iv.tid);
    e.u32(iv.seq);
    e.u64(iv.start_ns);
    e.u64(iv.end_ns);
    e.u32(static_cast<uint32_t>(iv.cells.size()));
    e.u32(static_cast<uint32_t>(n_events));
    for (const auto& c : iv.cells) {
        if (c.function >= n_functions)
            fail(path, fmt::format("interval {} of thread {} refers to unknown function id {}",
                                   iv.seq, iv.tid, c.function));
        if (c.events.size() != n_events)
            fail(path, fmt::format("interval {} of thread {} has a cell with {} events, the header has {}",
                                   iv.seq, iv.tid, c.events.size(), n_events));
        e.u32(c.function);
        e.u64(c.samples);
        e.u64(c.time_ns);
        for (const auto& ev : c.events) {
            e.u64(ev.count);
            e.u64(ev.coverage_ns);
            e.f64(ev.carry);
        }
    }
    e.end_record();
}

void put_end(Encoder& e, const ProfileEnd& end) {
    e.begin_record(records::kEnd);
    e.i32(end.exit_status);
    e.u64(end.samples);
    e.u64(end.lost_samples);
    e.u32(static_cast<uint32_t>(end.how));
    e.i32(end.signal);
    e.end_record();
}

}  // namespace

ProfileWriter::~ProfileWriter() {
    if (fd_ >= 0) ::close(fd_);  // whole records only were written; the file stays readable
}

void ProfileWriter::open(const std::string& path, const ProfileHeader& header) {
    if (fd_ >= 0) fail(path_, "profile already open");
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw ProfileError(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
    fd_ = fd;
    end_at_ = -1;
    path_ = path;
    n_events_ = header.events.size();
    n_objects_ = 0;
    n_functions_ = 0;
    Encoder e = fresh_native(buffer_);
    put_file_header(e);
    put_header(e, header);
    write_buffer();
}

void ProfileWriter::require_open(const char* what) const {
    if (fd_ < 0) throw ProfileError(fmt::format("profile writer: {} before open()", what));
}

void ProfileWriter::add_object(const ProfileObject& obj) {
    require_open("add_object");
    Encoder e = fresh_native(buffer_);
    put_object(e, obj, n_objects_, path_);
    ++n_objects_;
    write_buffer();
}

void ProfileWriter::add_function(const ProfileFunction& fn) {
    require_open("add_function");
    Encoder e = fresh_native(buffer_);
    put_function(e, fn, n_functions_, n_objects_, path_);
    ++n_functions_;
    write_buffer();
}

void ProfileWriter::add_thread(const ProfileThread& th) {
    require_open("add_thread");
    Encoder e = fresh_native(buffer_);
    put_thread(e, th);
    write_buffer();
}

void ProfileWriter::add_interval(const Interval& iv) {
    require_open("add_interval");
    Encoder e = fresh_native(buffer_);
    put_interval(e, iv, n_events_, n_functions_, path_);
    write_buffer();
}

void ProfileWriter::write_end(const ProfileEnd& end) {
    require_open("write_end");
    const off_t at = ::lseek(fd_, 0, SEEK_CUR);
    if (at < 0) fail(path_, fmt::format("lseek failed ({})", std::strerror(errno)));
    Encoder e = fresh_native(buffer_);
    put_end(e, end);
    write_buffer();
    end_at_ = at;
}

void ProfileWriter::retract_end() {
    require_open("retract_end");
    if (end_at_ < 0) return;
    if (::ftruncate(fd_, end_at_) != 0 || ::lseek(fd_, end_at_, SEEK_SET) != end_at_)
        fail(path_, fmt::format("cannot take back the END record ({})", std::strerror(errno)));
    end_at_ = -1;
}

void ProfileWriter::finish(const ProfileEnd& end) {
    write_end(end);
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail(path_, fmt::format("close failed ({})", std::strerror(errno)));
}

void ProfileWriter::write_buffer() {
    if (buffer_.size() > std::numeric_limits<uint32_t>::max())
        fail(path_, fmt::format("record of {} bytes is too large for the format", buffer_.size()));
    const char* p = buffer_.data();
    size_t left = buffer_.size();
    while (left > 0) {
        ssize_t n = ::write(fd_, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(path_, fmt::format("write failed ({})", std::strerror(errno)));
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
}

std::string encode_profile(const Profile& profile, ByteOrder order) {
    const std::string name = "profile";
    std::string out;
    Encoder e(out, order == ByteOrder::swapped);
    put_file_header(e);
    put_header(e, profile.header);
    const auto n_objects = static_cast<uint32_t>(profile.objects.size());
    const auto n_functions = static_cast<uint32_t>(profile.functions.size());
    for (uint32_t i = 0; i < n_objects; ++i) put_object(e, profile.objects[i], i, name);
    for (uint32_t i = 0; i < n_functions; ++i) put_function(e, profile.functions[i], i, n_objects, name);
    for (const auto& t : profile.threads) put_thread(e, t);
    for (const auto& iv : profile.intervals)
        put_interval(e, iv, profile.header.events.size(), n_functions, name);
    if (profile.end.present) put_end(e, profile.end);
    return out;
}

}  // namespace sprof
