#include <doctest/doctest.h>

#include <linux/perf_event.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sprof/events.hpp"

using namespace sprof;

TEST_CASE("events: perf's generic names resolve to the kernel's software events") {
    EventSpec tc = resolve_event("task-clock");
    CHECK(tc.attr.type == PERF_TYPE_SOFTWARE);
    CHECK(tc.attr.config == PERF_COUNT_SW_TASK_CLOCK);
    CHECK(tc.time_like);
    CHECK(bool(tc.attr.disabled));
    EventSpec pf = resolve_event("page-faults");
    CHECK(pf.attr.type == PERF_TYPE_SOFTWARE);
    CHECK(pf.attr.config == PERF_COUNT_SW_PAGE_FAULTS);
    CHECK_FALSE(pf.time_like);
    CHECK(resolve_event("alignment-faults").attr.config == PERF_COUNT_SW_ALIGNMENT_FAULTS);
    CHECK(resolve_event("cycles").attr.type == PERF_TYPE_HARDWARE);
    CHECK(resolve_event("L1-dcache-load-misses").attr.type == PERF_TYPE_HW_CACHE);
}

// The msr PMU's TSC event, where the kernel has it.
const std::filesystem::path msr = "/sys/bus/event_source/devices/msr";

TEST_CASE("events: sysfs PMU syntax reads type and config from /sys"
          * doctest::skip(!std::filesystem::exists(msr / "events/tsc"))) {
    unsigned type = 0;
    std::ifstream(msr / "type") >> type;
    EventSpec tsc = resolve_event("msr/tsc/");
    CHECK(tsc.attr.type == type);
    CHECK(tsc.attr.config == 0);
    CHECK(tsc.time_like);
    // The msr PMU refuses every exclude bit: where this user may count the
    // kernel, the event opens (exclude_hv left out, as perf does); where it
    // may not, probing says why.
    if (!tsc.attr.exclude_kernel) {
        const bool excludes_hv = tsc.attr.exclude_hv;
        CHECK_FALSE(excludes_hv);
        CHECK_NOTHROW(probe_event(tsc));
    } else {
        CHECK_THROWS_WITH_AS(probe_event(tsc), doctest::Contains("user space only"), EventError);
    }
    CHECK_THROWS_WITH_AS(resolve_event("nopmu/x/"), doctest::Contains("no PMU named 'nopmu'"), EventError);
    CHECK_THROWS_WITH_AS(resolve_event("msr/bogus/"), doctest::Contains("no event or term 'bogus'"), EventError);
}

TEST_CASE("events: unknown names and uncountable events are errors naming the event") {
    CHECK_THROWS_WITH_AS(resolve_event("no-such-event"), doctest::Contains("'no-such-event'"), EventError);
    CHECK_THROWS_WITH_AS(resolve_events("task-clock,task-clock"), doctest::Contains("listed twice"), EventError);
    CHECK_THROWS_AS(split_list("a,,b"), EventError);
    // Software events always count; a hardware event counts only with a PMU.
    CHECK_NOTHROW(probe_event(resolve_event("page-faults")));
    bool have_pmu = true;
    try {
        probe_event(resolve_event("cycles"));
    } catch (const EventError& e) {
        have_pmu = false;
        CHECK(std::string(e.what()).find("cycles") != std::string::npos);
    }
    std::string why;
    std::string defaults = default_events(why);
    CHECK(why.empty() == have_pmu);
    CHECK(defaults.find(have_pmu ? "cycles" : "task-clock") != std::string::npos);
}

TEST_CASE("events: lists keep commas inside a sysfs event") {
    auto items = split_list("task-clock,cpu/event=0x3c,umask=0/,page-faults");
    REQUIRE(items.size() == 3);
    CHECK(items[1] == "cpu/event=0x3c,umask=0/");
}

TEST_CASE("events: --list-events offers what really counts") {
    auto names = countable_events();
    for (const char* n : {"task-clock", "page-faults", "context-switches", "cpu-migrations"})
        CHECK(std::find(names.begin(), names.end(), n) != names.end());
    for (const auto& n : names) CHECK_NOTHROW(probe_event(resolve_event(n)));
}
