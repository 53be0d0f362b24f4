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

// Sizes strictly ascending from 1 line, one miss count per size.
std::string sizes_problem(const std::vector<uint64_t>& sizes, const std::vector<uint64_t>& misses, const char* what) {
    if (misses.size() != sizes.size())
        return fmt::format("{} {} cache sizes but {} miss counts", sizes.size(), what, misses.size());
    for (size_t i = 0; i < sizes.size(); ++i)
        if (sizes[i] == 0 || (i > 0 && sizes[i] <= sizes[i - 1]))
            return fmt::format("{} cache sizes not ascending from 1 line ({} lines at {})", what, sizes[i], i);
    return {};
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

std::string sample_problem(const ReuseSample& s, uint32_t n_functions) {
    if (s.distance == 0) return "reuse distance 0 (a trigger comes after its sample)";
    if (s.size == 0) return "sample of 0 bytes";
    if (auto p = code_problem(s.sample, n_functions, "sample PC"); !p.empty()) return p;
    if (auto p = code_problem(s.trigger, n_functions, "trigger PC"); !p.empty()) return p;
    if (s.distance == kNoReuse && (s.trigger.function != kNoFunction || s.trigger.address != 0 || s.trigger_write))
        return "a sample without reuse has a trigger";
    return {};
}

std::string curve_problem(const ExactCurve& c) {
    for (const std::string& p : {sizes_problem(c.lines, c.lru_misses, "LRU"),
                                 misses_problem(c.lru_misses, c.accesses, true),
                                 sizes_problem(c.random_lines, c.random_misses, "random-replacement"),
                                 misses_problem(c.random_misses, c.accesses, false)})
        if (!p.empty()) return p;
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
