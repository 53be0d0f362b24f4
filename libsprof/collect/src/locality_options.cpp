#include "sprof/locality_options.hpp"

#include <bit>
#include <cerrno>
#include <cstdlib>

#include <stdexcept>

#include "sprof/instrumented.hpp"
#include "sprof/launch.hpp"
#include "sprof/run_options.hpp"

namespace sprof {
namespace {

// A whole decimal number in [min, max], or nothing.
bool parse_number(const std::string& s, uint64_t min, uint64_t max, uint64_t& out) {
    if (s.empty() || s[0] < '0' || s[0] > '9') return false;
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (*end || errno || v < min || v > max) return false;
    out = v;
    return true;
}

}  // namespace

void set_locality(LocalityRun& run, const std::string& value) {
    run.present = true;
    if (value == "exact") {
        run.mode = "exact";
        run.sample_period = 0;
        run.window_accesses = 0;
        return;
    }
    uint64_t period = kDefaultSamplePeriod;
    if (!value.empty() && !parse_number(value, 1, kMaxSamplePeriod, period))
        throw UsageError("invalid --locality '" + value + "' (exact, or the mean accesses between samples: 1 to " +
                         std::to_string(kMaxSamplePeriod) + ")");
    run.mode = "sampled";
    run.sample_period = period;
    run.window_accesses = kDefaultWindowAccesses;
}

std::string locality_text(const LocalityRun& run) {
    if (!run.present) return "";
    return run.mode == "exact" ? "exact" : std::to_string(run.sample_period);
}

uint32_t parse_line_size(const std::string& value) {
    uint64_t bytes = 0;
    if (!parse_number(value, kMinLineSize, kMaxLineSize, bytes) || !std::has_single_bit(bytes))
        throw UsageError("invalid --line-size '" + value + "' (bytes, a power of two from " +
                         std::to_string(kMinLineSize) + " to " + std::to_string(kMaxLineSize) + ")");
    return static_cast<uint32_t>(bytes);
}

void prepare_locality(RunOptions& run) {
    if (!run.locality.present) {
        if (run.given(Option::line_size) || run.given(Option::locality_seed))
            throw UsageError("--line-size and --locality-seed go with --locality");
        return;
    }
    if (!run.given(Option::locality_seed)) run.locality.seed = random_seed();
    // A program that cannot be found is exec_program's to report.
    if (const std::string path = find_program(run.program[0]); !path.empty())
        if (const std::string why = why_not_instrumented(path); !why.empty()) throw std::runtime_error(why);
}

}  // namespace sprof
