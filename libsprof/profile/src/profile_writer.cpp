// ProfileWriter and encode_profile: the profile file format of docs/FORMAT.md.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "locality_checks.hpp"
#include "profile_records.hpp"
#include "call_stack_records.hpp"
#include "source_lines_records.hpp"
#include "sprof/profile_io.hpp"

namespace sprof {
namespace {

using records::Encoder;
using records::put_code;

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
        e.u8((ev.time_like ? 1 : 0) | (ev.user_only ? 2 : 0) | (ev.self_sampled ? 4 : 0));  // flag bits, docs/FORMAT.md
    }
    e.i32(h.rank);
    e.u32(h.ranks);
    e.str(h.job_id);
    e.str(h.launcher);
    e.str(h.rotation);
    e.u64(h.rotation_seed);
    e.u32(records::dither_ppm(h.tick_dither));
    e.u8(h.attached ? 1 : 0);
    e.u16(kFormatMinor);  // the file header's minor again, where the checksum covers it
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
    e.str(o.build_id);
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

void check(const std::string& problem, const std::string& path, const char* record) {
    if (!problem.empty()) fail(path, fmt::format("{} record not written: {}", record, problem));
}

// New strings, locations and addresses. `n_strings` and `location_function`
// (the function of every location) learn them; the caller takes them back
// when the batch is refused.
void put_source_lines(Encoder& e, const SourceLines& batch, uint32_t& n_strings,
                      std::vector<uint32_t>& location_function, uint32_t n_functions, const std::string& path) {
    n_strings += static_cast<uint32_t>(batch.strings.size());
    for (const CodeLocation& l : batch.locations) {
        check(records::location_problem(l, n_functions, n_strings), path, "CODE_LOCATIONS");
        location_function.push_back(l.function);
    }
    for (const CodeAddress& a : batch.addresses)
        check(records::address_problem(a, location_function), path, "CODE_LOCATIONS");
    records::put_code_locations(e, batch);
}

// New stacks; `n_stacks` learns them.
void put_stacks(Encoder& e, const std::vector<CallStack>& batch, size_t& n_stacks, uint32_t n_functions,
                const std::string& path) {
    for (const CallStack& st : batch) check(records::stack_problem(st, n_functions), path, "STACKS");
    records::put_stacks(e, batch);
    n_stacks += batch.size();
}

// An INTERVAL record, and its LINE_CELLS and STACK_CELLS records when it has such cells.
void put_interval(Encoder& e, const Interval& iv, size_t n_events, uint32_t n_functions, size_t n_locations,
                  size_t n_stacks, const std::string& path) {
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
        records::put_cell(e, c.function, c);
    }
    for (const auto& c : iv.cells) {
        e.u64(c.entries);
        for (const auto& ev : c.events) {
            e.f64(ev.sq);
            e.u64(ev.entry_count);
            e.u64(ev.entry_coverage_ns);
            e.f64(ev.entry_sq);
        }
    }
    e.end_record();
    for (const StackCell& c : iv.stacks) {
        if (c.stack >= n_stacks)
            fail(path, fmt::format("interval {} of thread {} refers to unknown stack id {}", iv.seq, iv.tid, c.stack));
        if (c.events.size() != n_events)
            fail(path, fmt::format("interval {} of thread {} has a stack cell with {} events, the header has {}",
                                   iv.seq, iv.tid, c.events.size(), n_events));
    }
    if (!iv.stacks.empty()) records::put_stack_cells(e, iv, n_events);
    if (iv.lines.empty()) return;
    for (const LineCell& c : iv.lines) {
        if (c.location >= n_locations)
            fail(path, fmt::format("interval {} of thread {} refers to unknown location id {}", iv.seq, iv.tid,
                                   c.location));
        if (c.events.size() != n_events)
            fail(path, fmt::format("interval {} of thread {} has a line cell with {} events, the header has {}",
                                   iv.seq, iv.tid, c.events.size(), n_events));
    }
    records::put_line_cells(e, iv, n_events);
}


void put_locality_run(Encoder& e, const LocalityRun& r, const std::string& path) {
    check(records::run_problem(r), path, "LOCALITY");
    e.begin_record(records::kLocality);
    e.str(r.mode);
    e.u32(r.line_size);
    e.u64(r.sample_period);
    e.u64(r.window_accesses);
    e.u64(r.seed);
    e.end_record();
}

void put_window(Encoder& e, const LocalityWindow& w) {
    e.begin_record(records::kLocalityWindow);
    e.u32(w.tid);
    e.u32(w.window);
    e.u64(w.accesses);
    e.u64(w.samples);
    e.u64(w.unseen_accesses);
    e.u64(w.lost_records);
    e.u64(w.lost_allocations);
    e.end_record();
}

void put_samples(Encoder& e, std::span<const ReuseSample> samples, const records::Known& known,
                 const std::string& path) {
    e.begin_record(records::kReuseSamplesWide);
    e.u32(static_cast<uint32_t>(samples.size()));
    e.u32(static_cast<uint32_t>(records::kWideSampleSize));
    for (const ReuseSample& s : samples) {
        check(records::sample_problem(s, known), path, "REUSE_SAMPLES_WIDE");
        e.u32(s.tid);
        e.u32(s.window);
        e.u64(s.distance);
        put_code(e, s.sample);
        put_code(e, s.trigger);
        e.u64(s.address);
        e.u8(s.size);
        e.u8((s.sample_write ? records::kSampleWrite : 0) | (s.trigger_write ? records::kTriggerWrite : 0));
        e.u64(s.position);
        e.u32(s.data);
    }
    e.end_record();
}

void put_tenure_record(Encoder& e, records::Type type, std::span<const Tenure* const> tenures,
                       const std::string& path) {
    e.begin_record(type);
    e.u32(static_cast<uint32_t>(tenures.size()));
    for (const Tenure* tenure : tenures) {
        const Tenure& t = *tenure;
        check(records::tenure_problem(t), path, type == records::kTenures ? "TENURES" : "TENURES_WEIGHTED");
        e.u32(t.tid);
        e.u64(t.position);
        e.u8(static_cast<uint8_t>(t.end));
        e.u8(static_cast<uint8_t>(t.steps.size()));
        for (const TenureStep& s : t.steps) {
            e.u64(s.gap);
            e.u32(s.accesses);
            e.u64(s.bytes);
            e.u64(s.used);
        }
    }
    e.end_record();
}

// Those a 1.8 reader accepts in TENURES, the others (a step past
// kTenureAccesses accesses: a roulette won) in TENURES_WEIGHTED, which it
// skips; a record each, when there are any.
void put_tenures(Encoder& e, std::span<const Tenure> tenures, const std::string& path) {
    std::vector<const Tenure*> plain, weighted;
    for (const Tenure& t : tenures)
        (t.steps.empty() || t.steps.back().accesses <= kTenureAccesses ? plain : weighted).push_back(&t);
    if (!plain.empty() || weighted.empty()) put_tenure_record(e, records::kTenures, plain, path);
    if (!weighted.empty()) put_tenure_record(e, records::kTenuresWeighted, weighted, path);
}

void put_data_object(Encoder& e, const DataObject& o, const records::Known& known, const std::string& path) {
    if (o.id != known.data)
        fail(path, fmt::format("data object id {} out of order (expected {})", o.id, known.data));
    check(records::data_object_problem(o, known), path, "DATA_OBJECT");
    e.begin_record(records::kDataObject);
    e.u32(o.id);
    e.u8(static_cast<uint8_t>(o.kind));
    e.u32(o.object);
    put_code(e, o.site);
    e.str(o.name);
    e.u64(o.size);
    e.end_record();
}

void put_sizes(Encoder& e, const std::vector<uint64_t>& sizes, const std::vector<uint64_t>& misses) {
    e.u32(static_cast<uint32_t>(sizes.size()));
    for (size_t i = 0; i < sizes.size(); ++i) {
        e.u64(sizes[i]);
        e.u64(misses[i]);
    }
}

void put_curve(Encoder& e, const ExactCurve& c, const std::string& path) {
    check(records::curve_problem(c), path, "EXACT_CURVE");
    e.begin_record(records::kExactCurve);
    e.u32(c.tid);
    e.u64(c.accesses);
    put_sizes(e, c.lines, c.lru_misses);
    put_sizes(e, c.random_lines, c.random_misses);
    e.u32(static_cast<uint32_t>(c.detail_lines.size()));
    for (uint64_t lines : c.detail_lines) e.u64(lines);
    e.end_record();
}

using CurveSizes = std::unordered_map<uint32_t, ExactCurveShape>;  // tid → its exact curve's sizes

const ExactCurveShape& curve_of(const CurveSizes& curve_sizes, uint32_t tid, const std::string& path, const char* record) {
    auto sizes = curve_sizes.find(tid);
    if (sizes == curve_sizes.end()) check(fmt::format("thread {} has no EXACT_CURVE before it", tid), path, record);
    return sizes->second;
}

void put_functions(Encoder& e, std::span<const ExactFunction> fns, const CurveSizes& curve_sizes, uint32_t n_functions,
                   const std::string& path) {
    e.begin_record(records::kExactFunctions);
    e.u32(static_cast<uint32_t>(fns.size()));
    for (const ExactFunction& f : fns) {
        const ExactCurveShape& shape = curve_of(curve_sizes, f.tid, path, "EXACT_FUNCTIONS");
        check(records::function_problem(f, shape.lines.size(), n_functions), path, "EXACT_FUNCTIONS");
        e.u32(f.tid);
        e.u32(f.function);
        e.u64(f.accesses);
        e.u32(static_cast<uint32_t>(f.lru_misses.size()));
        for (uint64_t m : f.lru_misses) e.u64(m);
    }
    e.end_record();
}

void put_instructions(Encoder& e, std::span<const ExactInstruction> instructions, const CurveSizes& curve_sizes,
                      const records::Known& known, const std::string& path) {
    e.begin_record(records::kExactInstructions);
    e.u32(static_cast<uint32_t>(instructions.size()));
    for (const ExactInstruction& i : instructions) {
        const ExactCurveShape& shape = curve_of(curve_sizes, i.tid, path, "EXACT_INSTRUCTIONS");
        check(records::instruction_problem(i, shape.detail.size(), known), path, "EXACT_INSTRUCTIONS");
        e.u32(i.tid);
        put_code(e, i.pc);
        e.u8(i.write ? 1 : 0);
        e.u64(i.accesses);
        e.u32(static_cast<uint32_t>(i.at.size()));
        for (const ExactUse& u : i.at) {
            e.u64(u.misses);
            e.u64(u.used_bytes);
            e.u64(u.bytes);
        }
    }
    e.end_record();
}

// A thread's curve may come in parts, all with the same sizes; `curve_sizes` learns them.
void put_curve_part(Encoder& e, const ExactCurve& c, CurveSizes& curve_sizes, const std::string& path) {
    auto [known, first] = curve_sizes.try_emplace(c.tid, ExactCurveShape{c.lines, c.detail_lines});
    if (!first && (known->second.lines != c.lines || known->second.detail != c.detail_lines))
        check(fmt::format("thread {}: a part with other cache sizes than its first", c.tid), path, "EXACT_CURVE");
    put_curve(e, c, path);
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
    n_data_ = 0;
    locality_ = false;
    curve_sizes_.clear();
    n_strings_ = 0;
    location_function_.clear();
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
    put_interval(e, iv, n_events_, n_functions_, location_function_.size(), n_stacks_, path_);
    write_buffer();  // INTERVAL and its cells with one write(): a killed run keeps all or none
}

void ProfileWriter::add_stacks(const std::vector<CallStack>& batch) {
    require_open("add_stacks");
    Encoder e = fresh_native(buffer_);
    size_t n = n_stacks_;
    put_stacks(e, batch, n, n_functions_, path_);
    write_buffer();
    n_stacks_ = n;  // a batch not written names nothing later records may refer to
}

void ProfileWriter::add_source_lines(const SourceLines& batch) {
    require_open("add_source_lines");
    Encoder e = fresh_native(buffer_);
    const uint32_t strings_before = n_strings_;
    const size_t locations_before = location_function_.size();
    try {
        put_source_lines(e, batch, n_strings_, location_function_, n_functions_, path_);
        write_buffer();
    } catch (...) {  // a batch not written names nothing later records may refer to
        n_strings_ = strings_before;
        location_function_.resize(locations_before);
        throw;
    }
}

void ProfileWriter::add_locality_run(const LocalityRun& run) {
    require_open("add_locality_run");
    if (locality_) fail(path_, "second LOCALITY record");
    Encoder e = fresh_native(buffer_);
    put_locality_run(e, run, path_);
    write_buffer();
    locality_ = true;
}

void ProfileWriter::require_locality(const char* what) const {
    require_open(what);
    if (!locality_) throw ProfileError(fmt::format("profile writer: {} before add_locality_run()", what));
}

void ProfileWriter::add_locality_window(const LocalityWindow& w) {
    require_locality("add_locality_window");
    Encoder e = fresh_native(buffer_);
    put_window(e, w);
    write_buffer();
}

void ProfileWriter::add_reuse_samples(std::span<const ReuseSample> samples) {
    require_locality("add_reuse_samples");
    Encoder e = fresh_native(buffer_);
    put_samples(e, samples, records::Known{n_objects_, n_functions_, n_data_}, path_);
    write_buffer();
}

void ProfileWriter::add_data_object(const DataObject& object) {
    require_locality("add_data_object");
    Encoder e = fresh_native(buffer_);
    put_data_object(e, object, records::Known{n_objects_, n_functions_, n_data_}, path_);
    ++n_data_;
    write_buffer();
}

void ProfileWriter::add_tenures(std::span<const Tenure> tenures) {
    require_locality("add_tenures");
    Encoder e = fresh_native(buffer_);
    put_tenures(e, tenures, path_);
    write_buffer();
}

void ProfileWriter::add_exact_curve(const ExactCurve& c) {
    require_locality("add_exact_curve");
    Encoder e = fresh_native(buffer_);
    put_curve_part(e, c, curve_sizes_, path_);
    write_buffer();
}

void ProfileWriter::add_exact_functions(std::span<const ExactFunction> functions) {
    require_locality("add_exact_functions");
    Encoder e = fresh_native(buffer_);
    put_functions(e, functions, curve_sizes_, n_functions_, path_);
    write_buffer();
}

void ProfileWriter::add_exact_instructions(std::span<const ExactInstruction> instructions) {
    require_locality("add_exact_instructions");
    Encoder e = fresh_native(buffer_);
    put_instructions(e, instructions, curve_sizes_, records::Known{n_objects_, n_functions_, n_data_}, path_);
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
    uint32_t n_strings = 0;
    std::vector<uint32_t> location_function;
    if (!profile.lines.empty()) put_source_lines(e, profile.lines, n_strings, location_function, n_functions, name);
    size_t n_stacks = 0;
    if (!profile.stacks.empty()) put_stacks(e, profile.stacks, n_stacks, n_functions, name);
    for (const auto& iv : profile.intervals)
        put_interval(e, iv, profile.header.events.size(), n_functions, location_function.size(), n_stacks, name);
    const Locality& loc = profile.locality;
    if (loc.run.present) {
        put_locality_run(e, loc.run, name);
        for (const auto& w : loc.windows) put_window(e, w);
        const auto n_data = static_cast<uint32_t>(loc.data.size());
        for (uint32_t i = 0; i < n_data; ++i) put_data_object(e, loc.data[i], records::Known{n_objects, n_functions, i}, name);
        const records::Known known{n_objects, n_functions, n_data};
        if (!loc.samples.empty()) put_samples(e, loc.samples, known, name);
        if (!loc.tenures.empty()) put_tenures(e, loc.tenures, name);
        CurveSizes curve_sizes;
        for (const auto& c : loc.exact) put_curve_part(e, c, curve_sizes, name);
        if (!loc.exact_functions.empty()) put_functions(e, loc.exact_functions, curve_sizes, n_functions, name);
        if (!loc.exact_instructions.empty()) put_instructions(e, loc.exact_instructions, curve_sizes, known, name);
    }
    if (profile.end.present) put_end(e, profile.end);
    return out;
}

}  // namespace sprof
