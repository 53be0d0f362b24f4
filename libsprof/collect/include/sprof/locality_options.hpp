// The run options of locality collection (sprof_lib --locality[=RATE|exact],
// --line-size N, --locality-seed N): what their values mean, read from the
// command line's text and written back to it (the runtime's environment
// speaks the same language). They fill a LocalityRun, which the runtime
// writes as the profile's LOCALITY record.
#pragma once
#include <cstdint>
#include <string>

#include "sprof/option_values.hpp"
#include "sprof/profile.hpp"

namespace sprof {

struct RunOptions;

// One sample point per 10^5 accesses on average, as StatCache samples: a
// run of 10^9 accesses (a second or two of CPU time) gives 10^4 samples,
// which hold the curve within about 0.01 (bench/RESULTS.md, locality
// accuracy by rate). Each sample costs about 1.5 µs (its watch, the line
// followed for SIP, the writer), so a shorter run that needs more samples
// asks for them (--locality=10000); sprof --mrc says when the band is wide.
constexpr uint64_t kDefaultSamplePeriod = 100'000;
constexpr uint64_t kMaxSamplePeriod = 1'000'000'000;
// Windows of 10^8 accesses: 10^3 samples each at the default rate.
constexpr uint64_t kDefaultWindowAccesses = 100'000'000;

// --locality's value: "" (the flag alone) samples at the default period,
// "exact" runs the exact simulator, a number N samples once per N accesses
// on average. Sets run.present and the mode's fields. Throws UsageError.
void set_locality(LocalityRun& run, const std::string& value);
// The value that gives `run` back: "exact" or the period; "" when absent.
std::string locality_text(const LocalityRun& run);

// Before sprof_lib starts the program: a random seed when none was given
// (the LOCALITY record keeps it, so the run can be repeated); an error for
// --line-size or --locality-seed without --locality (UsageError), and for a
// program that was not built with sprof-cc (std::runtime_error, saying why
// and what to do).
void prepare_locality(RunOptions& run);

}  // namespace sprof
