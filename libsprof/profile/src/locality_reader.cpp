#include "locality_reader.hpp"

#include "locality_checks.hpp"

namespace sprof {
namespace {

using records::Corrupt;
using records::Decoder;
using records::read_code;

uint64_t pair_key(uint32_t high, uint32_t low) { return uint64_t{high} << 32 | low; }

// Adds a part's count; parts whose sum does not fit are not parts of one run.
void add(uint64_t& into, uint64_t part, const char* what) {
    if (__builtin_add_overflow(into, part, &into)) throw Corrupt{fmt::format("{} overflow when adding parts", what)};
}

void add_all(std::vector<uint64_t>& into, const std::vector<uint64_t>& part, const char* what) {
    for (size_t i = 0; i < into.size(); ++i) add(into[i], part[i], what);
}

void check(const std::string& problem) {
    if (!problem.empty()) throw Corrupt{problem};
}

// A count of (size, misses) pairs, then the pairs.
void read_sizes(Decoder& d, std::vector<uint64_t>& sizes, std::vector<uint64_t>& misses) {
    const uint32_t n = d.count(16, "cache sizes");
    sizes.resize(n);
    misses.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
        sizes[i] = d.u64();
        misses[i] = d.u64();
    }
}

}  // namespace

void LocalityReader::read(uint32_t type, Decoder& d, Profile& p) {
    Locality& loc = p.locality;
    if (type == records::kLocality) {
        if (loc.run.present) throw Corrupt{"second LOCALITY record"};
        LocalityRun& r = loc.run;
        r.mode = d.str();
        r.line_size = d.u32();
        r.sample_period = d.u64();
        r.window_accesses = d.u64();
        r.seed = d.u64();
        check(records::run_problem(r));
        r.present = true;
        return;
    }
    if (!loc.run.present) throw Corrupt{"before the LOCALITY record"};
    switch (type) {
        case records::kLocalityWindow: read_window(d, loc); break;
        case records::kReuseSamples: read_samples(d, p, records::kReuseSampleSize); break;
        case records::kReuseSamplesWide: {
            const uint32_t n = d.u32();
            const uint32_t entry = d.u32();
            if (entry < records::kWideSampleSize)
                throw Corrupt{fmt::format("samples of {} bytes, fewer than the {} of their fields", entry,
                                          records::kWideSampleSize)};
            read_samples(d, p, entry, n);
            break;
        }
        case records::kTenures:
        case records::kTenuresWeighted: read_tenures(d, loc); break;
        case records::kDataObject: read_data_object(d, p); break;
        case records::kExactCurve: read_curve(d, loc); break;
        case records::kExactInstructions: read_instructions(d, p); break;
        default: read_functions(d, p); break;
    }
}

void LocalityReader::read_window(Decoder& d, Locality& loc) {
    LocalityWindow w;
    w.tid = d.u32();
    w.window = d.u32();
    w.accesses = d.u64();
    w.samples = d.u64();
    w.unseen_accesses = d.u64();
    if (d.left() >= 16) {  // since 1.10
        w.lost_records = d.u64();
        w.lost_allocations = d.u64();
    }
    auto [at, first] = window_at_.try_emplace(pair_key(w.tid, w.window), loc.windows.size());
    if (first) {
        loc.windows.push_back(w);
        return;
    }
    LocalityWindow& into = loc.windows[at->second];
    add(into.accesses, w.accesses, "window accesses");
    add(into.samples, w.samples, "window samples");
    add(into.unseen_accesses, w.unseen_accesses, "window unseen accesses");
    add(into.lost_records, w.lost_records, "window lost records");
    add(into.lost_allocations, w.lost_allocations, "window lost allocations");
}

// Entries of `entry` bytes: REUSE_SAMPLES (50, `n` read here) or
// REUSE_SAMPLES_WIDE (its own entry size; bytes after the known fields skipped).
void LocalityReader::read_samples(Decoder& d, Profile& p, size_t entry, std::optional<uint32_t> wide_count) {
    const uint32_t n = wide_count ? *wide_count : d.count(entry, "samples");
    if (n > d.left() / entry) throw Corrupt{fmt::format("{} samples do not fit in the record", n)};
    const bool wide = entry >= records::kWideSampleSize;
    const records::Known known{static_cast<uint32_t>(p.objects.size()), static_cast<uint32_t>(p.functions.size()),
                               static_cast<uint32_t>(p.locality.data.size())};
    auto& samples = p.locality.samples;
    samples.reserve(samples.size() + n);
    for (uint32_t i = 0; i < n; ++i) {
        const size_t start = d.left();
        ReuseSample s;
        s.tid = d.u32();
        s.window = d.u32();
        s.distance = d.u64();
        s.sample = read_code(d);
        s.trigger = read_code(d);
        s.address = d.u64();
        s.size = d.u8();
        const uint8_t flags = d.u8();
        s.sample_write = flags & records::kSampleWrite;
        s.trigger_write = flags & records::kTriggerWrite;
        if (wide) {
            s.position = d.u64();
            s.data = d.u32();
        }
        d.skip(entry - (start - d.left()));
        check(records::sample_problem(s, known));
        samples.push_back(s);
    }
}

void LocalityReader::read_tenures(Decoder& d, Locality& loc) {
    const uint32_t n = d.count(records::kTenureFixedSize, "tenures");
    for (uint32_t i = 0; i < n; ++i) {
        Tenure t;
        t.tid = d.u32();
        t.position = d.u64();
        t.end = static_cast<TenureEnd>(d.u8());
        const uint8_t steps = d.u8();
        if (steps > d.left() / records::kTenureStepSize)
            throw Corrupt{fmt::format("{} tenure steps do not fit in the record", steps)};
        t.steps.resize(steps);
        for (TenureStep& s : t.steps) {
            s.gap = d.u64();
            s.accesses = d.u32();
            s.bytes = d.u64();
            s.used = d.u64();
        }
        check(records::tenure_problem(t));
        loc.tenures.push_back(std::move(t));
    }
}

void LocalityReader::read_data_object(Decoder& d, Profile& p) {
    DataObject o;
    o.id = d.u32();
    o.kind = static_cast<DataKind>(d.u8());
    o.object = d.u32();
    o.site = read_code(d);
    o.name = d.str();
    o.size = d.u64();
    const auto n_data = static_cast<uint32_t>(p.locality.data.size());
    if (o.id != n_data) throw Corrupt{fmt::format("data object id {} out of order (expected {})", o.id, n_data)};
    check(records::data_object_problem(o, records::Known{static_cast<uint32_t>(p.objects.size()),
                                                         static_cast<uint32_t>(p.functions.size()), n_data}));
    p.locality.data.push_back(std::move(o));
}

void LocalityReader::read_instructions(Decoder& d, Profile& p) {
    const uint32_t n = d.count(4 + 12 + 1 + 8 + 4, "instructions");
    Locality& loc = p.locality;
    const records::Known known{static_cast<uint32_t>(p.objects.size()), static_cast<uint32_t>(p.functions.size()),
                               static_cast<uint32_t>(loc.data.size())};
    for (uint32_t i = 0; i < n; ++i) {
        ExactInstruction ins;
        ins.tid = d.u32();
        ins.pc = read_code(d);
        ins.write = d.u8() & 1;
        ins.accesses = d.u64();
        ins.at.resize(d.count(24, "detail counts"));
        for (ExactUse& u : ins.at) {
            u.misses = d.u64();
            u.used_bytes = d.u64();
            u.bytes = d.u64();
        }
        auto curve = curve_at_.find(ins.tid);
        if (curve == curve_at_.end()) throw Corrupt{fmt::format("thread {} has no EXACT_CURVE before it", ins.tid)};
        check(records::instruction_problem(ins, loc.exact[curve->second].detail_lines.size(), known));
        const InstructionKey key{ins.tid, ins.pc.function, ins.pc.address};
        auto [at, first] = instruction_at_.try_emplace(key, loc.exact_instructions.size());
        if (first) {
            loc.exact_instructions.push_back(std::move(ins));
            continue;
        }
        ExactInstruction& into = loc.exact_instructions[at->second];
        if (into.write != ins.write) throw Corrupt{"parts of an instruction disagree on whether it writes"};
        add(into.accesses, ins.accesses, "instruction accesses");
        for (size_t k = 0; k < into.at.size(); ++k) {
            add(into.at[k].misses, ins.at[k].misses, "instruction misses");
            add(into.at[k].used_bytes, ins.at[k].used_bytes, "instruction used bytes");
            add(into.at[k].bytes, ins.at[k].bytes, "instruction bytes");
        }
        check(records::instruction_problem(into, into.at.size(), known));
    }
}

void LocalityReader::read_curve(Decoder& d, Locality& loc) {
    ExactCurve c;
    c.tid = d.u32();
    c.accesses = d.u64();
    read_sizes(d, c.lines, c.lru_misses);
    read_sizes(d, c.random_lines, c.random_misses);
    if (d.left() > 0) {  // since 1.5
        c.detail_lines.resize(d.count(8, "detail sizes"));
        for (uint64_t& lines : c.detail_lines) lines = d.u64();
    }
    check(records::curve_problem(c));
    auto [at, first] = curve_at_.try_emplace(c.tid, loc.exact.size());
    if (first) {
        loc.exact.push_back(std::move(c));
        return;
    }
    ExactCurve& into = loc.exact[at->second];
    if (c.lines != into.lines || c.random_lines != into.random_lines || c.detail_lines != into.detail_lines)
        throw Corrupt{fmt::format("a part of thread {}'s curve with other cache sizes than its first", c.tid)};
    add(into.accesses, c.accesses, "exact accesses");
    add_all(into.lru_misses, c.lru_misses, "exact LRU misses");
    add_all(into.random_misses, c.random_misses, "exact random-replacement misses");
}

void LocalityReader::read_functions(Decoder& d, Profile& p) {
    const uint32_t n = d.count(4 + 4 + 8 + 4, "functions");
    const auto n_functions = static_cast<uint32_t>(p.functions.size());
    Locality& loc = p.locality;
    for (uint32_t i = 0; i < n; ++i) {
        ExactFunction f;
        f.tid = d.u32();
        f.function = d.u32();
        f.accesses = d.u64();
        f.lru_misses.resize(d.count(8, "miss counts"));
        for (auto& m : f.lru_misses) m = d.u64();
        auto curve = curve_at_.find(f.tid);
        if (curve == curve_at_.end()) throw Corrupt{fmt::format("thread {} has no EXACT_CURVE before it", f.tid)};
        check(records::function_problem(f, loc.exact[curve->second].lines.size(), n_functions));
        auto [at, first] = function_at_.try_emplace(pair_key(f.tid, f.function), loc.exact_functions.size());
        if (first) {
            loc.exact_functions.push_back(std::move(f));
            continue;
        }
        ExactFunction& into = loc.exact_functions[at->second];
        add(into.accesses, f.accesses, "function accesses");
        add_all(into.lru_misses, f.lru_misses, "function LRU misses");
    }
}

}  // namespace sprof
