// ProfileStream, read_profile, parse_profile: the one reader of
// docs/FORMAT.md, whole files or bytes as they are appended. Trusts nothing
// in the bytes: every length is checked against what is really there
// before anything is allocated, nothing is sized or indexed by a number from
// the file, and the file itself is read with a bound.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "locality_reader.hpp"
#include "profile_decoder.hpp"
#include "profile_records.hpp"
#include "record_checksum.hpp"
#include "call_stack_records.hpp"
#include "source_lines_records.hpp"
#include "sprof/estimator.hpp"
#include "sprof/profile_io.hpp"
#include "sprof/profile_stream.hpp"

namespace sprof {
namespace {

using records::Corrupt;
using records::Decoder;

const char* type_name(uint32_t type) {
    switch (type) {
        case records::kHeader: return "HEADER";
        case records::kObject: return "OBJECT";
        case records::kFunction: return "FUNCTION";
        case records::kThread: return "THREAD";
        case records::kInterval: return "INTERVAL";
        case records::kEnd: return "END";
        case records::kLocality: return "LOCALITY";
        case records::kLocalityWindow: return "LOCALITY_WINDOW";
        case records::kReuseSamples: return "REUSE_SAMPLES";
        case records::kExactCurve: return "EXACT_CURVE";
        case records::kExactFunctions: return "EXACT_FUNCTIONS";
        case records::kReuseSamplesWide: return "REUSE_SAMPLES_WIDE";
        case records::kTenures: return "TENURES";
        case records::kTenuresWeighted: return "TENURES_WEIGHTED";
        case records::kDataObject: return "DATA_OBJECT";
        case records::kExactInstructions: return "EXACT_INSTRUCTIONS";
        case records::kCodeLocations: return "CODE_LOCATIONS";
        case records::kLineCells: return "LINE_CELLS";
        case records::kStacks: return "STACKS";
        case records::kStackCells: return "STACK_CELLS";
        default: return "unknown";
    }
}

// Every reader of a record ignores bytes after the fields it knows: a newer
// minor version may append fields to a record. `file_minor` is the file
// header's minor version.
void read_header(Decoder& d, ProfileHeader& h, uint16_t file_minor) {
    h.collector = d.str();
    h.backend = d.str();
    h.program = d.str();
    uint32_t argc = d.count(4, "arguments");
    h.argv.reserve(argc);
    for (uint32_t i = 0; i < argc; ++i) h.argv.push_back(d.str());
    h.hostname = d.str();
    h.pid = d.u32();
    h.start_unix_ns = d.u64();
    h.clock = d.str();
    h.sample_interval_ns = d.u64();
    h.hist_samples = d.u32();
    h.hist_interval_ns = d.u64();
    h.slots = d.u32();
    uint32_t n_events = d.count(4 + 1, "events");
    // Every report has a column per event and a time-line row holds one
    // count per event: more events than any collector writes would make the
    // analyzer's work grow with rows × events instead of the file's size.
    if (n_events > kMaxProfileEvents)
        throw Corrupt{fmt::format("{} events, more than the {} a profile may have", n_events, kMaxProfileEvents)};
    h.events.resize(n_events);
    for (auto& ev : h.events) {
        ev.name = d.str();
        const uint8_t flags = d.u8();
        ev.time_like = flags & 1;
        ev.user_only = flags & 2;
        ev.self_sampled = flags & 4;
    }
    // Cells are matched to events by name when profiles are merged: a name
    // twice would make two columns one. A hash set keeps this linear.
    std::unordered_set<std::string_view> names;
    for (const auto& ev : h.events)
        if (!names.insert(ev.name).second) throw Corrupt{fmt::format("event {} listed twice", ev.name)};
    if (d.left() > 0) {  // the place in a job: absent before format 1.2
        h.rank = d.i32();
        h.ranks = d.u32();
        h.job_id = d.str();
        h.launcher = d.str();
        if (h.rank < -1) throw Corrupt{fmt::format("rank {}", h.rank)};
    }
    if (d.left() > 0) {  // the rotation: absent before format 1.4 (round-robin)
        h.rotation = d.str();
        h.rotation_seed = d.u64();
        if (h.rotation != "round-robin" && h.rotation != "shuffled")
            throw Corrupt{fmt::format("unknown rotation '{}'", h.rotation)};
    }
    if (d.left() > 0) {  // the tick's spread: absent before format 1.8 (a fixed period)
        const uint32_t ppm = d.u32();
        if (ppm >= records::kDitherPpmLimit) throw Corrupt{fmt::format("tick dither {} ppm, not below 1", ppm)};
        h.tick_dither = ppm / 1e6;
    }
    if (d.left() > 0) {  // attached to a running process: absent before format 1.11 (started by the collector)
        const uint8_t attached = d.u8();
        if (attached > 1) throw Corrupt{fmt::format("attached flag {}, not 0 or 1", attached)};
        h.attached = attached == 1;
    }
    // The file header's minor again (since 1.12): the file header has no
    // checksum, and a damaged minor below 12 would turn the checks off.
    if (d.left() > 0) {
        const uint16_t minor = d.u16();
        if (minor != file_minor)
            throw Corrupt{fmt::format("written as format {}.{}, the file header at byte 14 says {}.{}", kFormatMajor,
                                      minor, kFormatMajor, file_minor)};
    }
}

// sprof --salvage: the records passed over may have held objects and
// functions that later records refer to by id. Those ids get stand-ins, no
// more than the bytes passed over could have held as the smallest OBJECT
// and FUNCTION records: never as many as a number read from the file says.
class StandIns {
public:
    void passed_over(uint64_t bytes) { allowed_ += bytes / kSmallestRecord; }
    // At least `n` objects (functions), the missing ones stand-ins, when allowed.
    void objects(Profile& p, uint64_t n) {
        while (p.objects.size() < n && allowed_ > 0) {
            --allowed_;
            p.objects.push_back({static_cast<uint32_t>(p.objects.size()), kName, ""});
        }
    }
    void functions(Profile& p, uint64_t n) {
        while (p.functions.size() < n && allowed_ > 0) {
            --allowed_;
            p.functions.push_back({static_cast<uint32_t>(p.functions.size()), kNoObject, 0, 0, kName});
        }
    }

private:
    static constexpr const char* kName = "[corrupt record]";
    // An OBJECT with an empty path and build-id: header, id, two lengths, checksum.
    static constexpr uint64_t kSmallestRecord = records::kRecordHeaderSize + 4 + 4 + 4 + records::kChecksumSize;
    uint64_t allowed_ = 0;
};

void read_object(Decoder& d, Profile& p, StandIns* stand_ins) {
    ProfileObject o;
    o.id = d.u32();
    if (stand_ins) stand_ins->objects(p, o.id);
    if (o.id != p.objects.size())
        throw Corrupt{fmt::format("object id {} out of order (expected {})", o.id, p.objects.size())};
    o.path = d.str();
    if (d.left() > 0) o.build_id = d.str();  // since 1.7
    p.objects.push_back(std::move(o));
}

void read_function(Decoder& d, Profile& p, StandIns* stand_ins) {
    ProfileFunction f;
    f.id = d.u32();
    if (stand_ins) stand_ins->functions(p, f.id);
    if (f.id != p.functions.size())
        throw Corrupt{fmt::format("function id {} out of order (expected {})", f.id, p.functions.size())};
    f.object = d.u32();
    if (stand_ins && f.object != kNoObject) stand_ins->objects(p, uint64_t{f.object} + 1);
    if (f.object != kNoObject && f.object >= p.objects.size())
        throw Corrupt{fmt::format("unknown object id {}", f.object)};
    f.start = d.u64();
    f.end = d.u64();
    f.name = d.str();
    p.functions.push_back(std::move(f));
}

void read_thread(Decoder& d, Profile& p) {
    ProfileThread t;
    t.tid = d.u32();
    t.name = d.str();
    p.threads.push_back(std::move(t));
}

// The spread block after an INTERVAL's cells (minor 4); without it (an
// older writer) the spread and the entries are unknown.
void read_spread(Decoder& d, std::vector<FunctionCell>& cells, size_t n_events) {
    if (d.left() == 0) {
        for (auto& c : cells) {
            c.entries = kUnknownEntries;
            for (auto& ev : c.events) ev.sq = ev.entry_sq = NAN;
        }
        return;
    }
    const size_t spread_size = records::kCellSpreadFixedSize + n_events * records::kEventSpreadSize;
    if (cells.size() > d.left() / spread_size)
        throw Corrupt{fmt::format("the spread of {} cells does not fit in the record", cells.size())};
    for (auto& c : cells) {
        c.entries = d.u64();
        if (c.entries != kUnknownEntries && c.entries > c.samples)
            throw Corrupt{fmt::format("{} entries in a cell of {} samples", c.entries, c.samples)};
        for (auto& ev : c.events) {
            ev.sq = d.f64();
            ev.entry_count = d.u64();
            ev.entry_coverage_ns = d.u64();
            ev.entry_sq = d.f64();
            if (ev.entry_count > ev.count || ev.entry_coverage_ns > ev.coverage_ns)
                throw Corrupt{"a cell's entries count more than the cell"};
        }
    }
}

Interval read_interval(Decoder& d, Profile& p, StandIns* stand_ins) {
    Interval iv;
    iv.tid = d.u32();
    iv.seq = d.u32();
    iv.start_ns = d.u64();
    iv.end_ns = d.u64();
    const auto n_events = static_cast<uint32_t>(p.header.events.size());
    iv.cells.resize(records::read_cell_count(d, n_events));
    for (auto& c : iv.cells) {
        c.function = d.u32();
        if (stand_ins) stand_ins->functions(p, uint64_t{c.function} + 1);
        if (c.function >= p.functions.size())
            throw Corrupt{fmt::format("unknown function id {}", c.function)};
        records::read_cell_sums(d, c, n_events);
    }
    read_spread(d, iv.cells, n_events);
    return iv;
}

// Adds a part's cells into an interval's: a function or location not seen
// before in the interval gets a new cell after the others, one seen before
// adds up. `index` (id → cell) is built when the interval gets its second
// part, and kept for its later parts.
template <class Cell, uint32_t Cell::*id>
void merge_cells(std::vector<Cell>& cells, std::vector<Cell>& part, std::unordered_map<uint32_t, size_t>& index) {
    if (index.empty())
        for (size_t i = 0; i < cells.size(); ++i) index.try_emplace(cells[i].*id, i);
    for (Cell& c : part) {
        auto [pos, added] = index.try_emplace(c.*id, cells.size());
        if (added) cells.push_back(std::move(c));
        else accumulate(cells[pos->second], c);
    }
}

// INTERVAL records with the same (tid, seq) are parts of one interval (the
// collectors flush a partial interval now and then, so a killed program
// loses little). The parts merge into the interval where the first part
// stood, and so do the LINE_CELLS records of its (tid, seq). The indexes
// grow with the records read, never with a number in them, and each cell
// of each part is merged in constant time: many parts of a wide interval
// cost what their bytes cost.
class IntervalMerger {
public:
    // Returns the index of the interval the part went into.
    size_t add(Profile& p, Interval&& part) {
        auto [at, first] = interval_at_.try_emplace(key(part.tid, part.seq), p.intervals.size());
        if (first) {
            p.intervals.push_back(std::move(part));
            return at->second;
        }
        Interval& iv = p.intervals[at->second];
        iv.start_ns = std::min(iv.start_ns, part.start_ns);
        iv.end_ns = std::max(iv.end_ns, part.end_ns);
        merge_cells<FunctionCell, &FunctionCell::function>(iv.cells, part.cells, cells_[at->second]);
        return at->second;
    }

    // Returns the index of the interval the line cells went into.
    size_t add_lines(Profile& p, records::LineCellsPart&& part) {
        return add_cells<LineCell, &LineCell::location, &Interval::lines>(p, part.tid, part.seq, part.cells, lines_,
                                                                          "line");
    }
    // Returns the index of the interval the stack cells went into.
    size_t add_stacks(Profile& p, records::StackCellsPart&& part) {
        return add_cells<StackCell, &StackCell::stack, &Interval::stacks>(p, part.tid, part.seq, part.cells, stacks_,
                                                                          "stack");
    }

private:
    using Index = std::unordered_map<size_t, std::unordered_map<uint32_t, size_t>>;
    template <class Cell, uint32_t Cell::*id, std::vector<Cell> Interval::*field>
    size_t add_cells(Profile& p, uint32_t tid, uint32_t seq, std::vector<Cell>& cells, Index& index, const char* what) {
        auto at = interval_at_.find(key(tid, seq));
        if (at == interval_at_.end())
            throw Corrupt{fmt::format("{} cells of thread {} interval {} before its INTERVAL", what, tid, seq)};
        std::vector<Cell>& into = p.intervals[at->second].*field;
        if (into.empty()) into = std::move(cells);
        else merge_cells<Cell, id>(into, cells, index[at->second]);
        return at->second;
    }
    static uint64_t key(uint32_t tid, uint32_t seq) { return uint64_t{tid} << 32 | seq; }
    std::unordered_map<uint64_t, size_t> interval_at_;  // (tid, seq) → index in Profile::intervals
    // Per merged interval: function → cell, location → line cell, stack → stack cell.
    Index cells_, lines_, stacks_;
};

void read_end(Decoder& d, ProfileEnd& end) {
    end.exit_status = d.i32();
    end.samples = d.u64();
    end.lost_samples = d.u64();
    if (d.left() > 0) {  // how it ended: absent in older profiles
        end.how = static_cast<EndHow>(d.u32());
        end.signal = d.i32();
    }
    end.present = true;
}

}  // namespace

// The decoding state between feeds: nothing in it is sized by a number read
// from the file, only by the records read.
struct ProfileStream::State {
    std::string name;
    bool track_changes = false;
    bool salvage = false;
    bool file_header_read = false;
    bool swap = false;
    bool have_header = false;
    bool last_interval_new = false;  // the last INTERVAL record began an interval (was not a later part of one)
    uint64_t consumed = 0;
    uint64_t end_at = 0;  // where the END record starts, when one was read
    Profile profile;
    IntervalMerger merger;
    LocalityReader locality;
    std::vector<size_t> changed;  // intervals touched since take_changed()
    std::vector<uint32_t> location_function;  // CODE_LOCATIONS: the function of every location read
    std::vector<std::pair<uint64_t, uint64_t>> skipped;  // --salvage: (byte, bytes) of each damaged record passed over
    StandIns stand_ins;  // --salvage: for the objects and functions of the records passed over
    // Salvage cannot tell which strings and locations a CODE_LOCATIONS
    // record passed over held: the ids of later ones would be misread.
    bool lines_dropped() const { return !skipped.empty(); }
    bool lines_lost = false;  // there were source lines to drop

    [[noreturn]] void fail(const std::string& what) const {
        throw ProfileError(fmt::format("{}: {}", name, what));
    }

    bool checksummed() const { return profile.version_minor >= records::kChecksumMinor; }
    // Stand-ins only once something was passed over: till then ids are checked as ever.
    StandIns* salvaging() { return skipped.empty() ? nullptr : &stand_ins; }

    // A damaged record at `at` of `bytes` (the file's byte `consumed`): an
    // error, or with salvage passed over. Returns where reading goes on:
    // after the record when the record after it is intact (its length was
    // not what was damaged), else at the next intact record (`next`, when
    // the caller has looked for it already), else at the end of `bytes`.
    size_t pass_damaged(std::string_view bytes, size_t at, const std::string& why,
                        size_t next = std::string_view::npos) {
        Decoder rh(bytes.data() + at, records::kRecordHeaderSize, swap);
        const uint32_t type = rh.u32();
        const uint32_t length = rh.u32();
        const std::string what = fmt::format("corrupt {} record at byte {} ({})", type_name(type), consumed, why);
        // Nothing can be read without the HEADER: its damage is an error even then.
        if (!salvage || !have_header) fail(what);
        const size_t after = at + records::kRecordHeaderSize + length;
        if (next == std::string_view::npos) {
            const bool length_sound =
                length <= bytes.size() - at - records::kRecordHeaderSize &&
                (after == bytes.size() || records::check_record(bytes, after, swap) == records::RecordCheck::intact);
            next = length_sound ? after : records::next_intact_record(bytes, at + 1, swap);
            if (next == std::string_view::npos) next = bytes.size();
        }
        if (skipped.empty()) drop_lines();
        skipped.emplace_back(consumed, next - at);
        stand_ins.passed_over(next - at);
        consumed += next - at;
        return next;
    }

    void drop_lines() {
        lines_lost = !profile.lines.empty();
        profile.lines.strings.clear();
        profile.lines.locations.clear();
        profile.lines.addresses.clear();
        for (Interval& iv : profile.intervals) iv.lines.clear();
        // Stack ids continue over STACKS records, as location ids do.
        lines_lost |= !profile.stacks.empty();
        profile.stacks.clear();
        for (Interval& iv : profile.intervals) iv.stacks.clear();
    }

    // With salvage, what was passed over, as one warning line.
    void warn_skipped() {
        if (skipped.empty()) return;
        std::string where;
        for (size_t i = 0; i < skipped.size(); ++i) {
            if (i == 10) {
                where += fmt::format(", … {} more", skipped.size() - i);
                break;
            }
            where += fmt::format("{}byte {} ({} bytes)", i ? ", " : "", skipped[i].first, skipped[i].second);
        }
        profile.warnings.push_back(
            fmt::format("{}: salvaged: passed over {} corrupt record{} at {}{}", name, skipped.size(),
                        skipped.size() == 1 ? "" : "s", where,
                        lines_lost ? "; source lines and call paths dropped (which ones it held cannot be told)" : ""));
    }

    // The 16 bytes of the file header, once they are all there; a wrong
    // magic is told as soon as its first bytes are.
    bool read_file_header(std::string_view bytes) {
        const size_t n = bytes.size();
        const size_t magic_len = std::min(n, sizeof records::kMagic);
        if (std::memcmp(bytes.data(), records::kMagic, magic_len) != 0) fail("not an sprof profile (bad magic)");
        if (n < records::kFileHeaderSize) return false;
        uint32_t tag;
        std::memcpy(&tag, bytes.data() + sizeof records::kMagic, sizeof tag);
        if (tag == records::swap_bytes(records::kByteOrderTag))
            swap = true;
        else if (tag != records::kByteOrderTag)
            fail(fmt::format("not an sprof profile (unknown byte-order tag 0x{:08x})", tag));
        Decoder d(bytes.data() + sizeof records::kMagic + 4, 4, swap);
        profile.version_major = d.u16();
        profile.version_minor = d.u16();
        profile.foreign_byte_order = swap;
        profile.lines.resolved = profile.version_minor < records::kDeferredLinesMinor;
        if (profile.version_major != kFormatMajor)
            fail(fmt::format("profile format version {}.{}, this sprof reads {}.x", profile.version_major,
                             profile.version_minor, kFormatMajor));
        file_header_read = true;
        consumed = records::kFileHeaderSize;
        return true;
    }

    void read_record(uint32_t type, const char* payload, uint32_t length, uint64_t pos) {
        Decoder d(payload, length, swap);
        try {
            switch (type) {
                case records::kHeader:
                    if (have_header) fail(fmt::format("second HEADER record at byte {}", pos));
                    read_header(d, profile.header, profile.version_minor);
                    have_header = true;
                    break;
                case records::kObject: read_object(d, profile, salvaging()); break;
                case records::kFunction: read_function(d, profile, salvaging()); break;
                case records::kThread: read_thread(d, profile); break;
                case records::kInterval: {
                    const size_t before = profile.intervals.size();
                    const size_t at = merger.add(profile, read_interval(d, profile, salvaging()));
                    last_interval_new = profile.intervals.size() > before;
                    if (track_changes) changed.push_back(at);
                    break;
                }
                case records::kEnd:
                    read_end(d, profile.end);
                    end_at = pos;
                    break;
                case records::kLocality:
                case records::kLocalityWindow:
                case records::kReuseSamples:
                case records::kExactCurve:
                case records::kExactFunctions:
                case records::kReuseSamplesWide:
                case records::kTenures:
                case records::kTenuresWeighted:
                case records::kDataObject:
                case records::kExactInstructions: locality.read(type, d, profile); break;
                // Source lines: types 18 and 19 from minor 6 on; in an
                // earlier file they are a kind this reader does not know.
                case records::kCodeLocations:
                    lines_lost |= lines_dropped();
                    if (profile.version_minor >= records::kSourceLinesMinor && !lines_dropped())
                        records::read_code_locations(d, profile, location_function);
                    break;
                case records::kLineCells:
                    if (profile.version_minor >= records::kSourceLinesMinor && !lines_dropped()) {
                        const size_t at = merger.add_lines(profile, records::read_line_cells(d, profile));
                        if (track_changes) changed.push_back(at);
                    }
                    break;
                // Call paths: types 21 and 22 from minor 13 on.
                case records::kStacks:
                    if (profile.version_minor >= records::kCallPathsMinor && !lines_dropped())
                        records::read_stacks(d, profile);
                    break;
                case records::kStackCells:
                    if (profile.version_minor >= records::kCallPathsMinor && !lines_dropped()) {
                        const size_t at = merger.add_stacks(profile, records::read_stack_cells(d, profile));
                        if (track_changes) changed.push_back(at);
                    }
                    break;
                default: break;  // a later kind of record: skipped, its length says how far
            }
        } catch (const Corrupt& c) {
            fail(fmt::format("corrupt {} record at byte {} ({})", type_name(type), pos, c.why));
        }
    }
};

ProfileStream::ProfileStream(std::string name, bool track_changes, ReadOptions options)
    : s_(std::make_unique<State>()) {
    s_->name = std::move(name);
    s_->track_changes = track_changes;
    s_->salvage = options.salvage;
}
ProfileStream::~ProfileStream() = default;
ProfileStream::ProfileStream(ProfileStream&&) noexcept = default;
ProfileStream& ProfileStream::operator=(ProfileStream&&) noexcept = default;

size_t ProfileStream::feed(std::string_view bytes) {
    State& s = *s_;
    size_t pos = 0;
    if (!s.file_header_read) {
        if (!s.read_file_header(bytes)) return 0;
        pos = records::kFileHeaderSize;
    }
    while (pos < bytes.size()) {
        const size_t rest = bytes.size() - pos;
        if (rest < records::kRecordHeaderSize) break;
        Decoder rh(bytes.data() + pos, records::kRecordHeaderSize, s.swap);
        const uint32_t type = rh.u32();
        const uint32_t length = rh.u32();
        // The writer writes each record with one write(): a record that runs
        // past the bytes there are is still being written, or the tail of a
        // cut-short run.
        if (length > rest - records::kRecordHeaderSize) break;
        uint32_t payload_length = length;
        if (s.checksummed()) {
            if (records::check_record(bytes, pos, s.swap) == records::RecordCheck::damaged) {
                pos = s.pass_damaged(bytes, pos, records::damage_of(bytes, pos, s.swap));
                continue;
            }
            payload_length -= records::kChecksumSize;
        }
        const uint64_t file_pos = s.consumed;  // where this record starts in the file
        if (s.profile.end.present)
            s.fail(fmt::format("{} record after END at byte {}", type_name(type), file_pos));
        if (!s.have_header && type != records::kHeader)
            s.fail(fmt::format("{} record (type {}) before HEADER at byte {}", type_name(type), type, file_pos));
        s.read_record(type, bytes.data() + pos + records::kRecordHeaderSize, payload_length, file_pos);
        pos += records::kRecordHeaderSize + length;
        s.consumed += records::kRecordHeaderSize + length;
    }
    return pos;
}

Profile ProfileStream::finish(std::string_view tail) && {
    State& s = *s_;
    if (!s.file_header_read) {
        if (tail.empty()) s.fail("empty file (not a profile)");
        s.fail(fmt::format("truncated file header ({} of {} bytes)", tail.size(), records::kFileHeaderSize));
    }
    // A record that runs past the end is the tail of a cut-short run, unless
    // intact records follow it: then its length was damaged.
    while (s.checksummed() && tail.size() >= records::kRecordHeaderSize) {
        size_t next = tail.size();
        std::string why = "its length runs past the end of the file, where its checksum says it ends";
        if (!records::intact_to_end(tail, s.swap)) {
            next = records::next_intact_record(tail, 1, s.swap);
            if (next == std::string_view::npos) break;
            why = fmt::format("its length runs past the end of the file, and an intact record follows at byte {}",
                              s.consumed + next);
        }
        const size_t at = s.pass_damaged(tail, 0, why, next);
        tail.remove_prefix(at);
        tail.remove_prefix(feed(tail));
    }
    s.warn_skipped();
    const size_t unconsumed = tail.size();
    if (unconsumed > 0) {
        if (!s.have_header) s.fail(fmt::format("truncated inside the HEADER record at byte {}", s.consumed));
        // The writer puts an interval and its cells (LINE_CELLS, STACK_CELLS)
        // in one write(): cut inside them, the last interval is torn, and kept
        // it would count in the flat report and not in --lines. (A later part
        // of an interval, merged into it, cannot be taken back out.)
        if (unconsumed >= sizeof(uint32_t) && s.last_interval_new) {
            const uint32_t torn = Decoder(tail.data(), sizeof(uint32_t), s.swap).u32();
            if (torn == records::kLineCells || torn == records::kStackCells) s.profile.intervals.pop_back();
        }
        s.profile.warnings.push_back(fmt::format("{}: truncated after {} complete intervals ({} bytes ignored)",
                                                 s.name, s.profile.intervals.size(), unconsumed));
        return std::move(s.profile);
    }
    if (!s.have_header) s.fail("HEADER record missing (no records after the file header)");
    if (!s.profile.end.present)
        s.profile.warnings.push_back(fmt::format(
            "{}: no END record after {} intervals (the profiled program did not finish)", s.name,
            s.profile.intervals.size()));
    return std::move(s.profile);
}

const Profile& ProfileStream::profile() const { return s_->profile; }
bool ProfileStream::has_header() const { return s_->have_header; }
uint64_t ProfileStream::consumed() const { return s_->consumed; }

std::vector<size_t> ProfileStream::take_changed() {
    std::vector<size_t> out = std::move(s_->changed);
    s_->changed.clear();
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

uint64_t ProfileStream::retract_end() {
    State& s = *s_;
    if (!s.profile.end.present) return s.consumed;
    s.profile.end = ProfileEnd{};
    s.consumed = s.end_at;
    return s.consumed;
}

namespace {

// Closes the descriptor however read_file leaves.
struct Fd {
    int fd;
    ~Fd() { ::close(fd); }
};

[[noreturn]] void file_error(const std::string& path, const std::string& what, int err) {
    throw ProfileError(fmt::format("{}: {} ({})", path, what, std::strerror(err)));
}

// The bytes of the files a thread reads, one file at a time. Kept from file
// to file and never zeroed: reading a job's thousand profiles then costs no
// allocation, no clearing and no fresh pages per file, only the read.
class FileBuffer {
public:
    char* data() { return data_.get(); }
    size_t capacity() const { return capacity_; }
    // At least n bytes, the first `keep` of them kept.
    void reserve(size_t n, size_t keep) {
        if (n <= capacity_) return;
        std::unique_ptr<char[]> bigger(new char[n]);  // not value-initialised: read() fills it
        if (keep) std::memcpy(bigger.get(), data_.get(), keep);
        data_ = std::move(bigger);
        capacity_ = n;
    }

private:
    std::unique_ptr<char[]> data_;
    size_t capacity_ = 0;
};

// The whole file, read with a bound: a regular file larger than a profile
// can be is refused by its size; a device or pipe is read only as far as
// the bound (/dev/zero, an endless FIFO), and no further than its first
// bytes when those are not the magic — the parser then says "bad magic".
// The bytes stay valid until this thread's next read_file.
std::string_view read_file(const std::string& path) {
    thread_local FileBuffer buffer;
    Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0) file_error(path, "cannot open", errno);
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) file_error(path, "cannot stat", errno);
    if (S_ISDIR(st.st_mode)) file_error(path, "not a profile", EISDIR);
    const bool regular = S_ISREG(st.st_mode);
    if (regular && static_cast<uint64_t>(st.st_size) > kMaxProfileBytes)
        throw ProfileError(fmt::format("{}: {} bytes, more than the {} a profile may have (not a profile?)", path,
                                       st.st_size, kMaxProfileBytes));
    // One byte more than the size lets the EOF read happen without growing.
    const size_t limit = kMaxProfileBytes + 1;  // one byte past the bound tells "too large"
    size_t size_hint = regular ? static_cast<size_t>(st.st_size) + 1 : 0;
    buffer.reserve(std::clamp<size_t>(size_hint, 1 << 16, limit), 0);
    size_t used = 0;
    bool magic_checked = false;
    for (;;) {
        if (used == buffer.capacity()) {
            if (used == limit) break;
            buffer.reserve(std::min(buffer.capacity() * 2, limit), used);
        }
        ssize_t n = ::read(f.fd, buffer.data() + used, buffer.capacity() - used);
        if (n < 0) {
            if (errno == EINTR) continue;
            file_error(path, "cannot read", errno);
        }
        if (n == 0) break;
        used += static_cast<size_t>(n);
        if (!magic_checked && used >= sizeof records::kMagic) {
            magic_checked = true;
            if (std::memcmp(buffer.data(), records::kMagic, sizeof records::kMagic) != 0) break;
        }
    }
    if (used > kMaxProfileBytes)
        throw ProfileError(fmt::format("{}: more than the {} bytes a profile may have (not a profile?)", path,
                                       kMaxProfileBytes));
    return {buffer.data(), used};
}

}  // namespace

Profile parse_profile(std::string_view bytes, const std::string& name, ReadOptions options) {
    ProfileStream stream(name, false, options);
    const size_t used = stream.feed(bytes);
    return std::move(stream).finish(bytes.substr(used));
}

Profile read_profile(const std::string& path, ReadOptions options) {
    return parse_profile(read_file(path), path, options);
}

}  // namespace sprof
