#include "sprof/locality_options.hpp"


#include <stdexcept>

#include "sprof/instrumented.hpp"
#include "sprof/launch.hpp"
#include "sprof/run_options.hpp"

namespace sprof {

void set_locality(LocalityRun& run, const std::string& value) {
    run.present = true;
    if (value == "exact") {
        run.mode = "exact";
        run.sample_period = 0;
        run.window_accesses = 0;
        return;
    }
    uint64_t period = kDefaultSamplePeriod;
    try {
        if (!value.empty()) period = parse_whole("--locality", value, 1, kMaxSamplePeriod);
    } catch (const UsageError&) {  // it takes a word too
        throw UsageError("invalid --locality '" + value + "' (exact, or the mean accesses between samples: 1 to " +
                         std::to_string(kMaxSamplePeriod) + ")");
    }
    run.mode = "sampled";
    run.sample_period = period;
    run.window_accesses = kDefaultWindowAccesses;
}

std::string locality_text(const LocalityRun& run) {
    if (!run.present) return "";
    return run.mode == "exact" ? "exact" : std::to_string(run.sample_period);
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
