// The analyzer's source lines against numbers computed by hand from
// test::lines_profile(): frames and every CodeRef's line, inline
// attribution both ways, and the --lines report.
#include <doctest/doctest.h>

#include <sstream>

#include "analyze_support.hpp"
#include "profile_io_support.hpp"
#include "reports.hpp"
#include "source_line_profile.hpp"

using namespace sprof;
using namespace sprof::test;
using namespace sprof::analyze;

namespace {

Dataset lines_dataset(size_t copies, InlineMode mode) {
    std::vector<Source> sources;
    for (size_t i = 0; i < copies; ++i) sources.push_back({"p" + std::to_string(i), lines_profile()});
    Dataset d = merge_profiles(std::move(sources));
    if (mode == InlineMode::callee) charge_inlined_code(d);
    return d;
}

}  // namespace

TEST_CASE("source lines in the dataset: frames, and every CodeRef's line") {
    const Dataset d = lines_dataset(2, InlineMode::caller);
    REQUIRE(d.locations.size() == 3);  // the same locations of both profiles are one
    const uint32_t work = function_named(d, "work()");
    const auto inlined = d.code_line({work, 0x1024});
    REQUIRE(inlined);
    CHECK(inlined->column == 9);
    const SourceLocation& l = d.locations[inlined->location];
    REQUIRE(l.frames.size() == 2);
    CHECK(d.frame_function(l, l.frames[0]) == "square(int)");
    CHECK(d.source_text(l.frames[0]) == "util.h:3");
    CHECK(d.file_path(l.frames[0]) == "/src/util.h");
    CHECK(d.frame_function(l, l.frames[1]) == "work()");
    CHECK(d.source_text(l.frames[1]) == "app.cc:14");
    CHECK(d.source_text(d.shown_frame(l, InlineMode::caller)) == "app.cc:14");
    CHECK(d.source_text(d.shown_frame(l, InlineMode::callee)) == "util.h:3");
    const auto plain = d.code_line({work, 0x1010});
    REQUIRE(plain);
    CHECK(d.source_text(d.locations[plain->location].frames[0]) == "app.cc:12");
    const auto unknown = d.code_line({function_named(d, "[unknown]"), 0x7f0000001234});
    REQUIRE(unknown);
    CHECK(d.source_text(d.locations[unknown->location].frames[0]) == "??:0");
    CHECK_FALSE(d.code_line({work, 0x1011}));  // no row: no line
}

TEST_CASE("inlined code: --inline charges it to the inlined function, --no-inline leaves it with its caller") {
    const Dataset callee = lines_dataset(1, InlineMode::callee);
    const Dataset caller = lines_dataset(1, InlineMode::caller);
    auto counts = [](const Dataset& d, const std::string& name) {
        return by_function(d, all_intervals(d))[function_named(d, name)];
    };
    CHECK(counts(caller, "work()").samples == 90);
    CHECK(counts(callee, "work()").samples == 60);
    const Counts square = counts(callee, "square(int)");
    CHECK(square.samples == 30);
    CHECK(square.time_ns == 30'000'000);
    CHECK(square.events[0].count == 30'000'000);
    CHECK(square.events[1].count == 4);
    const Counts work = counts(callee, "work()");
    CHECK(work.events[0].carry == doctest::Approx(6e5));  // 1e6 less square's 4e5
    CHECK(work.events[1].count == 8);
    // Nothing is lost or made: the totals are the same.
    CHECK(total(callee, all_intervals(callee)).samples == total(caller, all_intervals(caller)).samples);
}

TEST_CASE("sprof --lines: per line, per function, and the time of an interval without lines at ??:0") {
    const Dataset d = lines_dataset(1, InlineMode::callee);
    const LineProfile callee = line_profile(d, {InlineMode::callee, ""});
    REQUIRE(callee.rows.size() == 4);
    auto row_of = [](const Dataset& in, const LineRow& r) {
        return in.functions[r.function].name + " " + in.source_text(r.frame) + " " + std::to_string(r.counts.samples);
    };
    auto row = [&](const LineRow& r) { return row_of(d, r); };
    CHECK(row(callee.rows[0]) == "__vdso_clock_gettime ??:0 80");  // its interval has no line cells
    CHECK(row(callee.rows[1]) == "work() app.cc:12 60");
    CHECK(row(callee.rows[2]) == "square(int) util.h:3 30");
    CHECK(row(callee.rows[3]) == "[unknown] ??:0 10");
    CHECK(callee.total.samples == 180);

    const Dataset plain = lines_dataset(1, InlineMode::caller);
    const LineProfile caller = line_profile(plain, {InlineMode::caller, ""});
    REQUIRE(caller.rows.size() == 4);
    CHECK(row_of(plain, caller.rows[1]) == "work() app.cc:12 60");
    CHECK(row_of(plain, caller.rows[2]) == "work() app.cc:14 30");

    const LineProfile work = line_profile(d, {InlineMode::caller, "work"});  // in source order
    REQUIRE(work.rows.size() == 2);
    CHECK(row(work.rows[0]) == "work() app.cc:12 60");
    CHECK(row(work.rows[1]) == "work() app.cc:14 30");
    CHECK_THROWS_WITH_AS(line_profile(d, {InlineMode::callee, "nothere"}),
                         "--lines=func:nothere: no samples in a function of that name", std::invalid_argument);

    // The report: estimates by the same estimator as the flat profile.
    Options o;
    o.format = Format::csv;
    o.default_rates = false;
    o.inline_mode = InlineMode::callee;
    RateSet rates(d.event_names(), o.rates, o.default_rates);
    std::ostringstream out;
    report_lines({d, o, rates, out});
    std::istringstream csv(out.str());
    std::string header, first, second, third;
    std::getline(csv, header), std::getline(csv, first), std::getline(csv, second), std::getline(csv, third);
    CHECK(header == "source,function,object,samples,time_s,time_pct,task-clock,page-faults,file,line");
    // square: task-clock 30e6 counted over 15 ms of its 30 ms → 60e6; page-faults 4 over 15 ms → 8.
    // Its share of the run's totals: task-clock's, 170e6 over 125 of the 170 ms
    // of the functions where it was live, 231.2e6, shared out of 260e6 (work
    // 120e6, square 60e6, the vdso 80e6); page-faults', 15 over 55 of 100 ms,
    // 27.27, of 27 (work 16, square 8, [unknown] 3).
    CHECK(third == "util.h:3,square(int),app,30,0.03,16.666666666666668,53353846.15384616,8.080808080808081,/src/util.h,3");
    CHECK(first == "??:0,__vdso_clock_gettime,[vdso],80,0.08,44.44444444444444,71138461.53846154,,,");
}
