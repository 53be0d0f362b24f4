#include "locality_checks.hpp"

#include <fmt/format.h>

#include <bit>

namespace sprof::records {
namespace {

std::string code_problem(const CodeRef& c, uint32_t n_functions, const char* what) {
    if (c.function != kNoFunction && c.function >= n_functions)
        return fmt::format("{} refers to unknown function id {}", what, c.function);
    return {};
}

// Sizes strictly ascending from 1 line.
std::string ascending_problem(const std::vector<uint64_t>& sizes, const char* what) {
    for (size_t i = 0; i < sizes.size(); ++i)
        if (sizes[i] == 0 || (i > 0 && sizes[i] <= sizes[i - 1]))
            return fmt::format("{} cache sizes not ascending from 1 line ({} lines at {})", what, sizes[i], i);
    return {};
}

// Ascending sizes, one miss count per size.
std::string sizes_problem(const std::vector<uint64_t>& sizes, const std::vector<uint64_t>& misses, const char* what) {
    if (misses.size() != sizes.size())
        return fmt::format("{} {} cache sizes but {} miss counts", sizes.size(), what, misses.size());
    return ascending_problem(sizes, what);
}

// No more misses than accesses; with LRU, no more misses in a larger cache
// (it holds whatever a smaller one holds: the stack property).
std::string misses_problem(const std::vector<uint64_t>& misses, uint64_t accesses, bool lru) {
    for (size_t i = 0; i < misses.size(); ++i) {
        if (misses[i] > accesses)
            return fmt::format("{} misses at size {}, more than the {} accesses", misses[i], i, accesses);
        if (lru && i > 0 && misses[i] > misses[i - 1])
            return fmt::format("LRU misses grow with the cache size ({} at size {}, {} at size {})", misses[i - 1],
                               i - 1, misses[i], i);
    }
    return {};
}

}  // namespace

std::string run_problem(const LocalityRun& run) {
    if (run.mode != "sampled" && run.mode != "exact")
        return fmt::format("unknown locality mode '{}' (sampled or exact)", run.mode);
    if (!std::has_single_bit(run.line_size)) return fmt::format("line size {} is not a power of two", run.line_size);
    return {};
}

std::string sample_problem(const ReuseSample& s, const Known& known) {
    if (s.distance == 0) return "reuse distance 0 (a trigger comes after its sample)";
    if (s.size == 0) return "sample of 0 bytes";
    if (auto p = code_problem(s.sample, known.functions, "sample PC"); !p.empty()) return p;
    if (auto p = code_problem(s.trigger, known.functions, "trigger PC"); !p.empty()) return p;
    if (s.distance == kNoReuse && (s.trigger.function != kNoFunction || s.trigger.address != 0 || s.trigger_write))
        return "a sample without reuse has a trigger";
    if (s.data != kNoData && s.data >= known.data) return fmt::format("sample refers to unknown data object {}", s.data);
    return {};
}

// Each step holds the one before it and the access that ended its gap.
std::string tenure_problem(const Tenure& t) {
    if (t.position == 0) return "tenure of a sample at position 0";
    if (t.steps.empty() || t.steps.size() > kTenureSteps)
        return fmt::format("tenure with {} steps (1 to {})", t.steps.size(), kTenureSteps);
    if (t.end != TenureEnd::no_reuse && t.end != TenureEnd::aged && t.end != TenureEnd::capped)
        return fmt::format("tenure ended in an unknown way ({})", static_cast<unsigned>(t.end));
    for (size_t i = 0; i < t.steps.size(); ++i) {
        const TenureStep& s = t.steps[i];
        if (s.gap == 0) return "tenure gap 0";
        if (s.accesses == 0) return "tenure step of 0 accesses";
        if (s.bytes < s.accesses) return fmt::format("tenure step of {} accesses but {} bytes", s.accesses, s.bytes);
        if (s.used == 0) return "tenure step that touched no byte";
        if (i == 0) continue;
        const TenureStep& b = t.steps[i - 1];
        if (b.gap == kNoReuse || s.gap <= b.gap) return "tenure gaps not ascending";
        if (s.accesses <= b.accesses || s.bytes <= b.bytes || (s.used & b.used) != b.used)
            return "a tenure step holds less than the one before it";
    }
    const bool open_ended = t.steps.back().gap == kNoReuse;
    if (open_ended != (t.end != TenureEnd::aged))
        return t.end == TenureEnd::aged ? "an aged tenure without its last gap" : "a tenure ends with a gap it did not see";
    return {};
}

std::string data_object_problem(const DataObject& o, const Known& known) {
    // Every kind's site, not only a heap block's: a merge maps them all.
    if (std::string p = code_problem(o.site, known.functions, "data object's site"); !p.empty()) return p;
    switch (o.kind) {
        case DataKind::heap: return {};
        case DataKind::static_data:
            if (o.object >= known.objects) return fmt::format("static data in unknown object id {}", o.object);
            return {};
        case DataKind::stack:
        case DataKind::other: return {};
    }
    return fmt::format("unknown data kind {}", static_cast<unsigned>(o.kind));
}

std::string curve_problem(const ExactCurve& c) {
    for (const std::string& p : {sizes_problem(c.lines, c.lru_misses, "LRU"),
                                 misses_problem(c.lru_misses, c.accesses, true),
                                 sizes_problem(c.random_lines, c.random_misses, "random-replacement"),
                                 misses_problem(c.random_misses, c.accesses, false),
                                 ascending_problem(c.detail_lines, "detail")})
        if (!p.empty()) return p;
    return {};
}

std::string instruction_problem(const ExactInstruction& i, size_t n_detail, const Known& known) {
    if (auto p = code_problem(i.pc, known.functions, "instruction"); !p.empty()) return p;
    if (i.at.size() != n_detail)
        return fmt::format("instruction with {} detail counts, its thread's curve {} detail sizes", i.at.size(), n_detail);
    for (const ExactUse& u : i.at) {
        if (u.misses > i.accesses)
            return fmt::format("{} misses of an instruction of {} accesses", u.misses, i.accesses);
        if (u.bytes < u.misses || (u.used_bytes == 0) != (u.misses == 0))
            return fmt::format("tenures of {} misses with {} bytes, {} used", u.misses, u.bytes, u.used_bytes);
    }
    return {};
}

std::string function_problem(const ExactFunction& f, size_t n_sizes, uint32_t n_functions) {
    if (f.function >= n_functions) return fmt::format("unknown function id {}", f.function);
    if (f.lru_misses.size() != n_sizes)
        return fmt::format("function {} has {} miss counts, its thread's curve {} sizes", f.function,
                           f.lru_misses.size(), n_sizes);
    return misses_problem(f.lru_misses, f.accesses, true);
}

}  // namespace sprof::records
