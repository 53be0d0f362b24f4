#include <doctest/doctest.h>

#include <unistd.h>

#include <vector>

#include "sprof/control_file.hpp"
#include "sprof/run_options.hpp"
#include "sprof/run_profile.hpp"

using namespace sprof;

namespace {
// Parses as `tool` would; returns the index of the program in args (its size when there is none).
int parse(std::vector<std::string> args, RunOptions& o, Tool tool = Tool::sprof_lib) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    parse_run_options(static_cast<int>(args.size()), argv.data(), tool, o);
    return o.program ? static_cast<int>(o.program - argv.data()) : static_cast<int>(args.size());
}
}  // namespace

TEST_CASE("run options: durations in every unit") {
    CHECK(parse_duration("-s", "10ms") == 10'000'000);
    CHECK(parse_duration("-s", "250us") == 250'000);
    CHECK(parse_duration("-s", "1.5s") == 1'500'000'000);
    CHECK(parse_duration("-s", "20") == 20'000'000);
    CHECK(format_duration(10'000'000) == "10ms");
    CHECK(format_duration(250'000) == "250us");
    for (const char* bad : {"", "ms", "-1ms", "10xs", "0", "1ns", "2h", "1e9s", "nan", "inf"})
        CHECK_THROWS_AS(parse_duration("-s", bad), UsageError);
}

TEST_CASE("run options: the program starts at the first non-option") {
    RunOptions o;
    int i = parse({"sprof_lib", "-e", "task-clock,page-faults", "--slots", "1", "-s", "5ms", "-H", "7", "-o",
                   "x.%p.sprof", "prog", "-e", "arg"},
                  o);
    CHECK(i == 11);
    CHECK(event_list(o.events) == "task-clock,page-faults");
    CHECK(o.slots == 1);
    CHECK(o.sample_interval_ns == 5'000'000);
    CHECK(o.hist_samples == 7);
    CHECK(o.output == "x.%p.sprof");
    RunOptions d;
    CHECK(parse({"sprof_pt", "--clock", "wall", "--no-follow", "--", "prog"}, d, Tool::sprof_pt) == 5);
    CHECK(d.clock == "wall");
    CHECK_FALSE(d.follow);
}

TEST_CASE("run options: sprof_pt -p and --tid take ids as perf and strace do, and no program") {
    RunOptions o;
    CHECK(parse({"sprof_pt", "-p", "12,34 56", "--tid", "7", "--duration", "2s"}, o, Tool::sprof_pt) == 7);
    CHECK(o.attach_pids == std::vector<pid_t>{12, 34, 56});
    CHECK(o.attach_tids == std::vector<pid_t>{7});
    CHECK(o.duration_ns == 2'000'000'000);
    CHECK(o.attaching());
    CHECK(o.program == nullptr);
    RunOptions twice;
    parse({"sprof_pt", "--pid=9,9,", "x"}, twice, Tool::sprof_pt);
    CHECK(twice.attach_pids == std::vector<pid_t>{9});  // said twice, attached once
    for (const char* bad : {"0", "-3", "12x", "abc", ",", "99999999999"}) {
        RunOptions b;
        CHECK_THROWS_AS(parse({"sprof_pt", "-p", bad}, b, Tool::sprof_pt), UsageError);
    }
    RunOptions lib;
    CHECK_THROWS_WITH(parse({"sprof_lib", "-p", "12"}, lib), "--pid is an option of sprof_pt");
}

TEST_CASE("run options: bad options are usage errors") {
    RunOptions o;
    CHECK_THROWS_AS(parse({"sprof_lib", "--slots", "0", "p"}, o), UsageError);
    CHECK_THROWS_AS(parse({"sprof_lib", "--slots", "x", "p"}, o), UsageError);
    CHECK_THROWS_AS(parse({"sprof_lib", "--bogus", "p"}, o), UsageError);
    CHECK_THROWS_AS(parse({"sprof_lib", "-e"}, o), UsageError);
    CHECK_THROWS_AS(parse({"sprof_lib", "--backend", "magic", "p"}, o), UsageError);
    CHECK_THROWS_WITH_AS(parse({"sprof_lib", "-g", "dwarf", "p"}, o), doctest::Contains("unknown call graph 'dwarf'"),
                         UsageError);
    CHECK_THROWS_AS(parse({"sprof_pt", "--call-graph-depth", "129", "p"}, o, Tool::sprof_pt), UsageError);
    CHECK_THROWS_AS(parse({"preprof", "-g", "fp", "p"}, o, Tool::preprof), UsageError);  // a run's, not a control file's
    RunOptions g;
    parse({"sprof_pt", "-g", "fp", "--call-graph-depth", "32", "p"}, g, Tool::sprof_pt);
    CHECK(call_depth(g) == 32);
    CHECK(call_depth(RunOptions{}) == 0);  // none unless asked for
    CHECK_THROWS_AS(parse({"sprof_lib", "--clock", "wall", "p"}, o), UsageError);  // sprof_pt only
    CHECK_THROWS_WITH(parse({"sprof_lib", "--rotation", "random", "p"}, o),
                      "unknown rotation 'random' (use shuffled or round-robin)");
    CHECK_THROWS_WITH(parse({"sprof_pt", "--rotation-seed", "-1", "p"}, o, Tool::sprof_pt),
                      "invalid --rotation-seed '-1' (a whole number below 2^64)");
    CHECK_THROWS_WITH(parse({"preprof", "--rotation", "shuffled", "p"}, o, Tool::preprof),
                      "--rotation is an option of sprof_lib and sprof_pt");
}

TEST_CASE("run options: the rotation is shuffled unless asked otherwise") {
    RunOptions o;
    CHECK(o.rotation.kind == Rotation::shuffled);
    parse({"sprof_pt", "--rotation", "round-robin", "--rotation-seed", "7", "p"}, o, Tool::sprof_pt);
    CHECK(o.rotation.kind == Rotation::round_robin);
    CHECK(o.rotation.seed == 7);
    CHECK(o.given(Option::rotation_seed));
}

TEST_CASE("run options: each tool takes its own options, and says whose another one is") {
    RunOptions o;
    CHECK_THROWS_WITH(parse({"sprof_lib", "--no-follow", "p"}, o), "--no-follow is an option of sprof_pt");
    CHECK_THROWS_WITH(parse({"preprof", "-c", "x.prf", "p"}, o, Tool::preprof),
                      "--control is an option of sprof_lib and sprof_pt");
    RunOptions pre;
    CHECK(parse({"preprof", "-o", "x.prf", "--slots", "2", "p"}, pre, Tool::preprof) == 5);
    CHECK(pre.output == "x.prf");
    const std::string lib = run_usage(Tool::sprof_lib), pt = run_usage(Tool::sprof_pt), pp = run_usage(Tool::preprof);
    CHECK(lib.find("--no-follow") == std::string::npos);
    CHECK(pt.find("      --no-follow           do not follow fork/vfork/exec\n") != std::string::npos);
    CHECK(pp.find("--control") == std::string::npos);
    CHECK(pp.find("  -o, --output FILE         control file to write") != std::string::npos);
    CHECK(lib.find("  -o, --output FILE         profile file") != std::string::npos);
    for (const std::string& usage : {lib, pt, pp}) {
        CHECK(usage.find("  -q, --quiet ") != std::string::npos);
        CHECK(usage.find("      --version ") != std::string::npos);
    }
    RunOptions v;
    CHECK(parse({"sprof_lib", "--version"}, v, Tool::sprof_lib) == 2);
    CHECK(v.show_version);
    CHECK_FALSE(v.quiet);
    CHECK(parse({"sprof_pt", "-q", "p"}, v, Tool::sprof_pt) == 2);
    CHECK(v.quiet);
}

TEST_CASE("run options: what the command line gave is marked, and only that") {
    RunOptions o;
    parse({"sprof_pt", "-H", "9", "--no-follow", "p"}, o, Tool::sprof_pt);
    CHECK(o.given(Option::histogram));
    CHECK(o.given(Option::follow));
    CHECK_FALSE(o.given(Option::events));
    CHECK_FALSE(o.given(Option::slots));
    CHECK_FALSE(o.given(Option::sample_interval));
    RunOptions h;
    parse({"sprof_lib", "--hist-interval", "1s", "-H", "5", "p"}, h);  // the last one wins
    CHECK(h.hist_samples == 5);
    CHECK(h.hist_interval_ns == 0);
}

TEST_CASE("run options: a control file fills what the command line left open") {
    RunOptions file;
    file.events = resolve_events("task-clock,page-faults", false);
    file.slots = 1;
    file.sample_interval_ns = 5'000'000;
    file.hist_interval_ns = 2'000'000'000;
    file.backend = "cmdev";
    file.tables.emplace_back("/bin/app", std::vector<FunctionRange>{{0x10, 0x20, "f"}});

    RunOptions none;
    parse({"sprof_lib", "p"}, none);
    apply_control_file(none, file);
    CHECK(event_list(none.events) == "task-clock,page-faults");
    CHECK(none.slots == 1);
    CHECK(none.sample_interval_ns == 5'000'000);
    CHECK(none.hist_interval_ns == 2'000'000'000);
    CHECK(none.backend == "cmdev");
    REQUIRE(none.tables.size() == 1);
    CHECK(none.tables[0].path() == "/bin/app");

    RunOptions cli;
    parse({"sprof_lib", "-e", "page-faults", "-s", "20ms", "-H", "3", "--backend", "perf", "p"}, cli);
    apply_control_file(cli, file);
    CHECK(event_list(cli.events) == "page-faults");
    CHECK(cli.slots == 0);  // the file's slots were set for its own events
    CHECK(cli.sample_interval_ns == 20'000'000);
    CHECK(cli.hist_samples == 3);
    CHECK(cli.hist_interval_ns == 0);
    CHECK(cli.backend == "perf");

    RunOptions slots;
    parse({"sprof_lib", "--slots", "2", "p"}, slots);
    apply_control_file(slots, file);
    CHECK(event_list(slots.events) == "task-clock,page-faults");
    CHECK(slots.slots == 2);
}

TEST_CASE("run options: the environment carries every runtime option, and names a bad one") {
    RunOptions o;
    o.events = resolve_events("task-clock,page-faults", false);
    o.hist_samples = 12;
    o.control = "/tmp/app.prf";
    o.backend = "cmdev";
    o.tick_dither = 0.125;
    const auto env = to_environment(o);
    std::vector<std::string> names;
    for (const auto& [k, v] : env) names.push_back(k);
    CHECK(names == std::vector<std::string>{"SPROF_EVENTS", "SPROF_SLOTS", "SPROF_SAMPLE_INTERVAL",
                                            "SPROF_TICK_DITHER", "SPROF_HIST_SAMPLES", "SPROF_HIST_INTERVAL", "SPROF_OUTPUT",
                                            "SPROF_CONTROL", "SPROF_BACKEND", "SPROF_ROTATION", "SPROF_ROTATION_SEED", "SPROF_LOCALITY",
                                            "SPROF_LINE_SIZE", "SPROF_LOCALITY_SEED", "SPROF_CALL_GRAPH",
                                            "SPROF_CALL_GRAPH_DEPTH", "SPROF_QUIET"});
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    RunOptions back = from_environment();
    CHECK(event_list(back.events) == "task-clock,page-faults");
    CHECK(back.slots == 0);  // unset stays unset
    CHECK(back.sample_interval_ns == 10'000'000);
    CHECK(back.tick_dither == 0.125);
    CHECK(back.hist_samples == 12);
    CHECK(back.hist_interval_ns == 0);
    CHECK(back.output.empty());
    CHECK(back.control == "/tmp/app.prf");
    CHECK(back.backend == "cmdev");
    setenv("SPROF_TICK_DITHER", "0.6", 1);
    CHECK_THROWS_WITH(from_environment(),
                      "SPROF_TICK_DITHER='0.6': invalid tick dither '0.6' (a number from 0 to 0.5)");
    setenv("SPROF_TICK_DITHER", "0.125", 1);
    setenv("SPROF_SAMPLE_INTERVAL", "soon", 1);
    CHECK_THROWS_WITH(from_environment(),
                      "SPROF_SAMPLE_INTERVAL='soon': invalid sampling interval 'soon' (a duration from 1us to 1h: 10ms, 250us, "
                      "1.5s; a bare number is milliseconds)");
    for (const auto& [k, v] : env) unsetenv(k.c_str());
}

TEST_CASE("run options: environment round trip and output names") {
    RunOptions o;
    o.events = resolve_events("task-clock", false);
    o.slots = 3;
    o.sample_interval_ns = 2'000'000;
    o.hist_interval_ns = 500'000'000;
    o.output = "out.sprof";
    o.rotation = {Rotation::round_robin, 18446744073709551615ull};
    o.quiet = true;
    for (const auto& [k, v] : to_environment(o)) setenv(k.c_str(), v.c_str(), 1);
    RunOptions back = from_environment();
    CHECK(back.quiet);
    CHECK(event_list(back.events) == "task-clock");
    CHECK(back.slots == 3);
    CHECK(back.rotation.kind == Rotation::round_robin);
    CHECK(back.rotation.seed == 18446744073709551615ull);
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
