#include <doctest/doctest.h>

#include <unistd.h>

#include <vector>

#include "sprof/run_options.hpp"

using namespace sprof;

namespace {
int parse(std::vector<std::string> args, RunOptions& o, bool pt = false) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    return parse_run_options(static_cast<int>(args.size()), argv.data(), o, pt);
}
}  // namespace

TEST_CASE("run options: durations in every unit") {
    CHECK(parse_duration("10ms") == 10'000'000);
    CHECK(parse_duration("250us") == 250'000);
    CHECK(parse_duration("1.5s") == 1'500'000'000);
    CHECK(parse_duration("20") == 20'000'000);
    CHECK(format_duration(10'000'000) == "10ms");
    CHECK(format_duration(250'000) == "250us");
    for (const char* bad : {"", "ms", "-1ms", "10xs", "0", "1ns", "2h"}) CHECK_THROWS_AS(parse_duration(bad), UsageError);
}

TEST_CASE("run options: the program starts at the first non-option") {
    RunOptions o;
    int i = parse({"sprof_lib", "-e", "task-clock,page-faults", "--slots", "1", "-s", "5ms", "-H", "7", "-o",
                   "x.%p.sprof", "prog", "-e", "arg"},
                  o);
    CHECK(i == 11);
    CHECK(o.events == "task-clock,page-faults");
    CHECK(o.slots == 1);
    CHECK(o.sample_interval_ns == 5'000'000);
    CHECK(o.hist_samples == 7);
    CHECK(o.output == "x.%p.sprof");
    RunOptions d;
    CHECK(parse({"sprof_pt", "--clock", "wall", "--no-follow", "--", "prog"}, d, true) == 5);
    CHECK(d.clock == "wall");
    CHECK_FALSE(d.follow);
}

TEST_CASE("run options: bad options are usage errors") {
    RunOptions o;
    CHECK_THROWS_AS(parse({"sprof_lib", "--slots", "0", "p"}, o), UsageError);
    CHECK_THROWS_AS(parse({"sprof_lib", "--slots", "x", "p"}, o), UsageError);
    CHECK_THROWS_AS(parse({"sprof_lib", "--bogus", "p"}, o), UsageError);
    CHECK_THROWS_AS(parse({"sprof_lib", "-e"}, o), UsageError);
    CHECK_THROWS_AS(parse({"sprof_lib", "--backend", "magic", "p"}, o), UsageError);
    CHECK_THROWS_AS(parse({"sprof_lib", "--clock", "wall", "p"}, o), UsageError);  // sprof_pt only
}

TEST_CASE("run options: environment round trip and output names") {
    RunOptions o;
    o.events = "task-clock";
    o.slots = 3;
    o.sample_interval_ns = 2'000'000;
    o.hist_interval_ns = 500'000'000;
    o.output = "out.sprof";
    for (const auto& [k, v] : to_environment(o)) setenv(k.c_str(), v.c_str(), 1);
    RunOptions back = from_environment();
    CHECK(back.events == "task-clock");
    CHECK(back.slots == 3);
    CHECK(back.sample_interval_ns == 2'000'000);
    CHECK(back.hist_interval_ns == 500'000'000);
    CHECK(back.output == "out.sprof");
    for (const auto& [k, v] : to_environment(o)) unsetenv(k.c_str());
    const sprof::JobPlace alone;  // the tests must not depend on the environment they run in
    CHECK(expand_output_path("", "/usr/bin/app", 42, false, 0, alone) == "app.42.sprof");
    CHECK(expand_output_path("p%p-%%", "app", 7, false, 0, alone) == "p7-%");
    CHECK(expand_output_path("out.sprof", "app", 9, false, 0, alone) == "out.sprof");
    CHECK(expand_output_path("out.sprof", "app", 9, true, 0, alone) == "out.9.sprof");
    CHECK(expand_output_path("out", "app", 9, true, 0, alone) == "out.9");
    CHECK(expand_output_path("out.%p.sprof", "app", 9, true, 0, alone) == "out.9.sprof");
    // Later images of one process (it exec'd) never share the first image's file.
    CHECK(expand_output_path("", "/usr/bin/app", 42, false, 1, alone) == "app.42.exec1.sprof");
    CHECK(expand_output_path("out.sprof", "app", 9, false, 2, alone) == "out.exec2.sprof");
    CHECK(expand_output_path("out", "app", 9, false, 1, alone) == "out.exec1");
    CHECK(expand_output_path("out.sprof", "app", 9, true, 1, alone) == "out.9.exec1.sprof");
    CHECK(expand_output_path("out.sprof", "app", 9, false, 0, alone) == "out.sprof");
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    CHECK(expand_output_path("%h.sprof", "app", 1, false, 0, alone) == std::string(host) + ".sprof");
    CHECK(expand_output_path("%j-%r.sprof", "app", 5, false, 0, alone) == "5-0.sprof");  // a process alone
}

TEST_CASE("ranks of one job never share a profile file") {
    sprof::JobPlace rank3;
    rank3.rank = 3, rank3.size = 4, rank3.job_id = "77", rank3.launcher = "openmpi";
    CHECK(expand_output_path("", "/usr/bin/app", 42, false, 0, rank3) == "app.77.rank3.sprof");
    CHECK(expand_output_path("job.sprof", "app", 42, false, 0, rank3) == "job.rank3.sprof");
    CHECK(expand_output_path("job.%r.sprof", "app", 42, false, 0, rank3) == "job.3.sprof");
    CHECK(expand_output_path("%j/%h.%r.sprof", "app", 42, false, 0, rank3).starts_with("77/"));
    CHECK(expand_output_path("job.%p.sprof", "app", 42, false, 0, rank3) == "job.42.rank3.sprof");
    // A process a rank starts keeps its own file too.
    CHECK(expand_output_path("job.%r.sprof", "app", 43, true, 0, rank3) == "job.3.43.sprof");
    sprof::JobPlace no_id = rank3;
    no_id.job_id.clear();
    CHECK(expand_output_path("", "app", 42, false, 0, no_id) == "app.42.rank3.sprof");
}

TEST_CASE("the image number handed to an exec'd image counts only for its own pid") {
    CHECK(image_number(nullptr, 42) == 0);
    CHECK(image_number("42:3", 42) == 3);
    CHECK(image_number("42:3", 43) == 0);  // a child inherited its parent's variable
    CHECK(image_number("4:3", 42) == 0);
    CHECK(image_number("42:", 42) == 0);
    CHECK(image_number("42:-1", 42) == 0);
    CHECK(image_number("42:3x", 42) == 0);
    CHECK(image_number("", 42) == 0);
}
