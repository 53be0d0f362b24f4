#include <doctest/doctest.h>

#include "sprof/locality_options.hpp"
#include "sprof/run_options.hpp"

#include <cstdlib>
#include <string>

using namespace sprof;

TEST_CASE("--locality: the flag alone, a period, exact; and back to text") {
    LocalityRun run;
    set_locality(run, "");
    CHECK(run.present);
    CHECK(run.mode == "sampled");
    CHECK(run.sample_period == kDefaultSamplePeriod);
    CHECK(run.window_accesses == kDefaultWindowAccesses);
    CHECK(locality_text(run) == "100000");
    set_locality(run, "250");
    CHECK(run.sample_period == 250);
    CHECK(locality_text(run) == "250");
    set_locality(run, "exact");
    CHECK(run.mode == "exact");
    CHECK(run.sample_period == 0);
    CHECK(locality_text(run) == "exact");
    CHECK(locality_text(LocalityRun{}) == "");
    for (const char* bad : {"0", "-5", "1e5", "fast", "1000000001", "99999999999999999999999"})
        CHECK_THROWS_WITH_AS(set_locality(run, bad),
                             ("invalid --locality '" + std::string(bad) +
                              "' (exact, or the mean accesses between samples: 1 to 1000000000)")
                                 .c_str(),
                             UsageError);
}

TEST_CASE("--line-size: a power of two from 8 to 4096 bytes") {
    CHECK(parse_line_size("--line-size", "64") == 64);
    CHECK(parse_line_size("--line-size", "8") == 8);
    CHECK(parse_line_size("--line-size", "4096") == 4096);
    for (const char* bad : {"96", "4", "8192", "0", "", "64B", "-64", "+64", " 64"})
        CHECK_THROWS_WITH_AS(parse_line_size("--line-size", bad),
                             ("invalid --line-size '" + std::string(bad) +
                              "' (bytes, a power of two from 8 to 4096)")
                                 .c_str(),
                             UsageError);
    CHECK(parse_whole("--locality-seed", "18446744073709551615", 0, UINT64_MAX) == UINT64_MAX);
    CHECK_THROWS_WITH_AS(parse_whole("--locality-seed", "18446744073709551616", 0, UINT64_MAX),
                         "invalid --locality-seed '18446744073709551616' (a whole number below 2^64)", UsageError);
}

TEST_CASE("--locality on the command line and through the environment") {
    const char* args[] = {"sprof_lib", "--locality=exact", "--line-size", "128", "--locality-seed", "77", "app", nullptr};
    RunOptions run;
    parse_run_options(7, const_cast<char**>(args), Tool::sprof_lib, run);
    CHECK(run.locality.present);
    CHECK(run.locality.mode == "exact");
    CHECK(run.locality.line_size == 128);
    CHECK(run.locality.seed == 77);
    REQUIRE(run.program);
    CHECK(std::string(run.program[0]) == "app");
    for (const auto& [name, value] : to_environment(run)) setenv(name.c_str(), value.c_str(), 1);
    const RunOptions back = from_environment();
    CHECK(back.locality.present);
    CHECK(back.locality.mode == "exact");
    CHECK(back.locality.line_size == 128);
    CHECK(back.locality.seed == 77);

    const char* alone[] = {"sprof_lib", "--locality", "app", nullptr};
    RunOptions sampled;
    parse_run_options(3, const_cast<char**>(alone), Tool::sprof_lib, sampled);
    CHECK(sampled.locality.sample_period == kDefaultSamplePeriod);
    CHECK(std::string(sampled.program[0]) == "app");  // the flag alone takes no value from the next word

    const char* pt[] = {"sprof_pt", "--locality", "app", nullptr};
    RunOptions other;
    CHECK_THROWS_WITH_AS(parse_run_options(3, const_cast<char**>(pt), Tool::sprof_pt, other),
                         "--locality is an option of sprof_lib", UsageError);
    for (const auto& [name, value] : to_environment(RunOptions{})) unsetenv(name.c_str());
    CHECK_FALSE(from_environment().locality.present);
}
