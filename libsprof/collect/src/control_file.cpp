#include "sprof/control_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace sprof {
namespace {

struct FileStamp {
    uint64_t size = 0;
    int64_t mtime_ns = 0;
};

bool stamp_of(const std::string& path, FileStamp& st) {
    struct stat sb;
    if (stat(path.c_str(), &sb) != 0) return false;
    st.size = static_cast<uint64_t>(sb.st_size);
    st.mtime_ns = int64_t(sb.st_mtim.tv_sec) * 1'000'000'000 + sb.st_mtim.tv_nsec;
    return true;
}

std::string format_mtime(int64_t ns) { return fmt::format("{}.{:09}", ns / 1'000'000'000, ns % 1'000'000'000); }

// Line-by-line reader that knows where it is, for one-line errors.
class Lines {
public:
    explicit Lines(const std::string& path) : path_(path), in_(path) {
        if (!in_) throw ControlFileError(path + ": cannot read the control file: " + std::strerror(errno));
    }
    // Next non-blank, non-comment line split into keyword and rest; false at EOF.
    bool next(std::string& key, std::string& rest) {
        std::string line;
        while (std::getline(in_, line)) {
            ++number_;
            size_t b = line.find_first_not_of(" \t");
            if (b == std::string::npos || line[b] == '#') continue;
            size_t e = line.find_first_of(" \t", b);
            key = line.substr(b, e == std::string::npos ? std::string::npos : e - b);
            size_t r = e == std::string::npos ? std::string::npos : line.find_first_not_of(" \t", e);
            rest = r == std::string::npos ? "" : line.substr(r);
            return true;
        }
        return false;
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw ControlFileError(fmt::format("{}:{}: {} (malformed control file; run preprof again)", path_, number_, what));
    }
    uint64_t number(const std::string& s, int base = 10) const {
        char* end = nullptr;
        errno = 0;
        unsigned long long v = std::strtoull(s.c_str(), &end, base);
        if (s.empty() || *end || errno) fail("'" + s + "' is not a number");
        return v;
    }

private:
    std::string path_;
    std::ifstream in_;
    unsigned number_ = 0;
};

std::vector<std::string> words(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> w;
    for (std::string x; in >> x;) w.push_back(x);
    return w;
}

// "key=value" → value, checking the key.
std::string field(const Lines& lines, const std::string& word, const std::string& key) {
    if (word.rfind(key + "=", 0) != 0) lines.fail("expected " + key + "=…, found '" + word + "'");
    return word.substr(key.size() + 1);
}

int64_t parse_mtime(const Lines& lines, const std::string& s) {
    size_t dot = s.find('.');
    if (dot == std::string::npos || s.size() - dot - 1 != 9) lines.fail("bad mtime '" + s + "'");
    return static_cast<int64_t>(lines.number(s.substr(0, dot)) * 1'000'000'000 + lines.number(s.substr(dot + 1)));
}

// One object's table; checks it against the file as it is now.
ObjectSymbols read_table(Lines& lines, const std::string& rest, const std::string& control_path,
                         int64_t control_mtime) {
    auto w = words(rest);
    if (w.size() < 5) lines.fail("object needs size=, mtime=, segments=, functions= and a path");
    const uint64_t size = lines.number(field(lines, w[0], "size"));
    const int64_t mtime = parse_mtime(lines, field(lines, w[1], "mtime"));
    const uint64_t nseg = lines.number(field(lines, w[2], "segments"));
    const uint64_t nfun = lines.number(field(lines, w[3], "functions"));
    const std::string path = rest.substr(rest.find(w[4], rest.find(w[3]) + w[3].size()));

    FileStamp now;
    if (!stamp_of(path, now))
        throw ControlFileError(control_path + " is stale: " + path + " is gone (run preprof again)");
    if (now.size != size || now.mtime_ns != mtime)
        throw ControlFileError(control_path + " is stale: " + path + " changed since it was written (run preprof again)");
    if (now.mtime_ns > control_mtime)
        throw ControlFileError(control_path + " is stale: " + path + " is newer than it (run preprof again)");

    std::vector<LoadSegment> segs;
    std::vector<FunctionRange> funs;
    std::string key, line;
    for (uint64_t i = 0; i < nseg; ++i) {
        if (!lines.next(key, line) || key != "segment") lines.fail("expected " + std::to_string(nseg) + " segment lines");
        auto v = words(line);
        if (v.size() != 3) lines.fail("segment needs OFFSET VADDR FILESZ");
        segs.push_back({lines.number(v[0], 16), lines.number(v[1], 16), lines.number(v[2], 16)});
    }
    for (uint64_t i = 0; i < nfun; ++i) {
        if (!lines.next(key, line) || key != "function") lines.fail("expected " + std::to_string(nfun) + " function lines");
        auto v = words(line);
        if (v.size() < 3) lines.fail("function needs START END NAME");
        FunctionRange f{lines.number(v[0], 16), lines.number(v[1], 16),
                        line.substr(line.find(v[2], line.find(v[1]) + v[1].size()))};
        if (f.end <= f.start || (!funs.empty() && f.start < funs.back().end))
            lines.fail("function ranges must be non-empty, sorted and non-overlapping");
        funs.push_back(std::move(f));
    }
    return ObjectSymbols(path, std::move(funs), std::move(segs));
}

}  // namespace

void write_control_file(const std::string& path, const ControlFile& c) {
    std::string out = fmt::format(
        "# sprof control file, written by preprof for {}.\n"
        "# The options may be edited; the tables are checked against their files.\n"
        "sprof-control {}\nprogram {}\n",
        c.program, kControlFormatVersion, c.program);
    const RunOptions& run = c.run;
    for (const EventSpec& e : run.events)
        out += fmt::format("event {} type={} config=0x{:x}\n", e.name, e.attr.type, e.attr.config);
    out += fmt::format("slots {}\nsample-interval {}\n", run.slots, format_duration(run.sample_interval_ns));
    out += run.hist_interval_ns ? fmt::format("hist-interval {}\n", format_duration(run.hist_interval_ns))
                                : fmt::format("hist-samples {}\n", run.hist_samples);
    out += fmt::format("backend {}\n", run.backend);
    for (const ObjectSymbols& t : run.tables) {
        FileStamp st;
        if (!stamp_of(t.path(), st)) throw ControlFileError("cannot stat " + t.path() + ": " + std::strerror(errno));
        out += fmt::format("object size={} mtime={} segments={} functions={} {}\n", st.size, format_mtime(st.mtime_ns),
                           t.segments().size(), t.functions().size(), t.path());
        for (const LoadSegment& s : t.segments())
            out += fmt::format("segment {:x} {:x} {:x}\n", s.offset, s.vaddr, s.filesz);
        for (const FunctionRange& f : t.functions()) out += fmt::format("function {:x} {:x} {}\n", f.start, f.end, f.name);
    }
    out += "end\n";
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::trunc);
        f << out;
        if (!f.flush()) throw ControlFileError("cannot write " + tmp + ": " + std::strerror(errno));
    }
    if (rename(tmp.c_str(), path.c_str()) != 0)
        throw ControlFileError("cannot write " + path + ": " + std::strerror(errno));
}

ControlFile read_control_file(const std::string& path) {
    Lines lines(path);
    FileStamp self;
    stamp_of(path, self);
    ControlFile c;
    RunOptions& run = c.run;
    std::string key, rest;
    if (!lines.next(key, rest) || key != "sprof-control") lines.fail("not a control file (no 'sprof-control' line)");
    if (lines.number(rest) != kControlFormatVersion)
        throw ControlFileError(fmt::format("{}: control file version {}, this sprof reads {} (run preprof again)",
                                           path, rest, kControlFormatVersion));
    bool ended = false;
    while (!ended && lines.next(key, rest)) {
        if (key == "program") {
            c.program = rest;
            FileStamp prog;
            if (stamp_of(rest, prog) && prog.mtime_ns > self.mtime_ns)
                throw ControlFileError(path + " is stale: " + rest + " is newer than it (run preprof again)");
        } else if (key == "event") {
            auto w = words(rest);
            if (w.size() != 3) lines.fail("event needs NAME type=T config=C");
            const uint64_t type = lines.number(field(lines, w[1], "type"));
            const uint64_t config = lines.number(field(lines, w[2], "config"), 16);
            EventSpec ev;
            try {
                ev = resolve_event(w[0]);
            } catch (const EventError& e) {
                throw ControlFileError(path + ": " + e.what());
            }
            if (ev.attr.type != type || ev.attr.config != config)
                throw ControlFileError(fmt::format("{} is stale: event {} is type={} config=0x{:x} on this machine "
                                                   "(run preprof again)", path, w[0], ev.attr.type, ev.attr.config));
            run.events.push_back(ev);
            run.give(Option::events);
        } else if (key == "slots") {
            run.slots = static_cast<unsigned>(lines.number(rest));
            run.give(Option::slots);
        } else if (key == "backend") {
            run.backend = rest;
            run.give(Option::backend);
        } else if (key == "sample-interval" || key == "hist-interval") {
            try {
                (key == "sample-interval" ? run.sample_interval_ns : run.hist_interval_ns) = parse_duration(key, rest);
            } catch (const UsageError& e) {
                lines.fail(e.what());
            }
            run.give(key == "sample-interval" ? Option::sample_interval : Option::histogram);
        } else if (key == "hist-samples") {
            run.hist_samples = static_cast<uint32_t>(lines.number(rest));
            run.give(Option::histogram);
        } else if (key == "object") {
            run.tables.push_back(read_table(lines, rest, path, self.mtime_ns));
        } else if (key == "end") {
            ended = true;
        } else {
            lines.fail("unknown keyword '" + key + "'");
        }
    }
    if (!ended) lines.fail("no 'end' line (file cut short)");
    if (c.program.empty() || run.events.empty() || !run.given(Option::backend) || run.backend.empty() ||
        !run.given(Option::sample_interval) || !run.given(Option::histogram) ||
        !(run.hist_samples || run.hist_interval_ns))
        lines.fail("program, event, sample-interval, hist-samples or hist-interval, and backend are required");
    if (run.slots > run.events.size()) lines.fail("more slots than events");
    return c;
}

void apply_control_file(RunOptions& run, RunOptions file) {
    if (!run.given(Option::events)) {
        run.events = std::move(file.events);
        if (!run.given(Option::slots)) run.slots = file.slots;
    }
    if (!run.given(Option::sample_interval)) run.sample_interval_ns = file.sample_interval_ns;
    if (!run.given(Option::histogram)) {
        run.hist_samples = file.hist_samples;
        run.hist_interval_ns = file.hist_interval_ns;
    }
    if (!run.given(Option::backend)) run.backend = std::move(file.backend);
    run.tables = std::move(file.tables);
}

}  // namespace sprof
