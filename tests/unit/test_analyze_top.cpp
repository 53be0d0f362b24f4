// sprof top: when a row of the live time line is complete, the numbering of
// exec'd images, and the CSV view against --timeline --by-function of the
// same profile.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "profile_io_support.hpp"
#include "reports.hpp"
#include "synthetic.hpp"
#include "top.hpp"
#include "top_view.hpp"

using namespace sprof;
using namespace sprof::analyze;
using namespace sprof::test;

namespace {

constexpr uint64_t kMs = 1'000'000;

Interval interval(uint32_t tid, uint32_t seq, uint32_t function, uint64_t samples) {
    return {.tid = tid, .seq = seq, .start_ns = seq * 100 * kMs, .end_ns = (seq + 1) * 100 * kMs,
            .cells = {{function, samples, samples * 10 * kMs, {{samples * 10 * kMs, samples * 10 * kMs, NAN},
                                                               {samples, samples * 10 * kMs, NAN}}}},
            .lines = {}};
}

// A profile growing as a stream would read it: intervals appended or added to.
struct Growing {
    Profile p = sample_profile();
    Growing() { p.intervals.clear(); }
    std::vector<size_t> add(Interval iv) {
        for (size_t i = 0; i < p.intervals.size(); ++i)
            if (p.intervals[i].tid == iv.tid && p.intervals[i].seq == iv.seq) {
                for (auto& c : iv.cells) p.intervals[i].cells.push_back(c);
                return {i};
            }
        p.intervals.push_back(iv);
        return {p.intervals.size() - 1};
    }
};

std::vector<uint64_t> numbers(const std::vector<const LiveRow*>& rows) {
    std::vector<uint64_t> out;
    for (const LiveRow* r : rows) out.push_back(r->number);
    return out;
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        auto& row = rows.emplace_back(1);
        bool quoted = false;  // names with commas are quoted ("compress(char const*, unsigned long)")
        for (char ch : line) {
            if (ch == '"') quoted = !quoted;
            else if (ch == ',' && !quoted) row.emplace_back();
            else row.back() += ch;
        }
    }
    return rows;
}

}  // namespace

TEST_CASE("one thread: a row is complete when the next one begins, the last when the image ends") {
    LiveTimeline t;
    Growing g;
    t.begin_image("a.sprof", g.p.header);
    t.update(g.p, g.add(interval(1, 0, 0, 5)), 0);
    CHECK(t.take_complete(10 * kMs).empty());  // the newest row is open
    t.update(g.p, g.add(interval(1, 0, 2, 3)), 20 * kMs);  // a part of it
    t.update(g.p, g.add(interval(1, 1, 0, 4)), 30 * kMs);
    auto rows = t.take_complete(30 * kMs);
    REQUIRE(numbers(rows) == std::vector<uint64_t>{0});
    const Counts all = total(t.data(), std::span<const uint32_t>(rows[0]->intervals));
    CHECK(all.samples == 8);  // both parts
    CHECK(t.take_complete(10'000 * kMs).empty());  // row 1 stays open however long
    t.end_image();
    CHECK(numbers(t.take_complete(10'000 * kMs)) == std::vector<uint64_t>{1});
    CHECK(numbers(t.last_taken(5)) == std::vector<uint64_t>{0, 1});
    CHECK(t.late_parts() == 0);
}

TEST_CASE("threads: a row waits for every thread in it to move on, or for quiet") {
    LiveTimeline t;
    Growing g;
    t.begin_image("a.sprof", g.p.header);
    t.update(g.p, g.add(interval(1, 0, 0, 5)), 0);
    t.update(g.p, g.add(interval(2, 0, 1, 5)), 0);
    t.update(g.p, g.add(interval(1, 1, 0, 5)), 50 * kMs);  // thread 1 moved on, thread 2 still in row 0
    CHECK(t.take_complete(60 * kMs).empty());
    SUBCASE("thread 2 moves on too") {
        t.update(g.p, g.add(interval(2, 0, 1, 1)), 70 * kMs);  // its last part of row 0
        t.update(g.p, g.add(interval(2, 1, 1, 1)), 80 * kMs);
        const auto rows = t.take_complete(80 * kMs);
        REQUIRE(numbers(rows) == std::vector<uint64_t>{0});
        CHECK(total(t.data(), std::span<const uint32_t>(rows[0]->intervals)).samples == 11);
    }
    SUBCASE("thread 2 stops: row 0 is complete once no part came for kQuietNs") {
        CHECK(t.take_complete(LiveTimeline::kQuietNs - 1).empty());
        CHECK(numbers(t.take_complete(LiveTimeline::kQuietNs)) == std::vector<uint64_t>{0});
        // A part after that is late: in the sums from now on, told as late.
        t.update(g.p, g.add(interval(2, 0, 1, 2)), LiveTimeline::kQuietNs + kMs);
        CHECK(t.late_parts() == 1);
        CHECK(total(t.data(), std::span<const uint32_t>(t.last_taken(1)[0]->intervals)).samples == 12);
    }
}

TEST_CASE("an exec'd image continues the time line after the rows of the image before") {
    LiveTimeline t;
    Growing first, second;
    t.begin_image("a.sprof", first.p.header);
    for (uint32_t s = 0; s < 3; ++s) t.update(first.p, first.add(interval(1, s, 0, 5)), s);
    CHECK(numbers(t.take_complete(3)) == std::vector<uint64_t>{0, 1});
    second.p.functions = {{0, 0, 0x2000, 0x2100, "_Z4workv"}, {1, kNoObject, 0, 0, "other"}};
    second.p.objects = {{0, "/usr/bin/app", ""}};
    t.begin_image("a.exec1.sprof", second.p.header);  // image 0 ended with its exec
    CHECK(numbers(t.take_complete(4)) == std::vector<uint64_t>{2});
    t.update(second.p, second.add(interval(1, 0, 1, 5)), 5);
    t.update(second.p, second.add(interval(1, 1, 0, 5)), 6);
    const auto rows = t.take_complete(6);
    REQUIRE(numbers(rows) == std::vector<uint64_t>{3});
    CHECK(rows[0]->image == 1);
    // Functions match across images by (object, name): work() of both is one.
    CHECK(t.data().functions.size() == 2);
    CHECK(t.data().functions[0].name == "work()");
    CHECK(t.data().functions[1].name == "other");
}

TEST_CASE("sprof top's CSV is --timeline --by-function with each function's share, once the profile ended") {
    // Carry-forward: its row sums are the time line's shares of the run's
    // (coverage's are not: the time line shares the whole run's estimate,
    // which a live view cannot know).
    const Profile p = synthetic::build(synthetic::phases_spec());
    TempFile tmp;
    std::ofstream(tmp.path, std::ios::binary) << encode_profile(p);
    for (bool ci : {false, true}) {  // --ci: the same X_low and X_high columns as the time line's
        CAPTURE(ci);
        Options o;
        o.profiles = {tmp.path};
        o.format = Format::csv;
        o.by_function = true;
        o.ci = ci;
        o.estimator = Estimator::carry;
        std::ostringstream live, offline;
        follow_profile(o, live);
        const Dataset d = load_dataset({tmp.path});
        const RateSet rates(d.event_names(), {}, true);
        report_timeline({d, o, rates, offline});

        auto got = csv_rows(live.str());
        const auto want = csv_rows(offline.str());
        // The run's summary ends it (interval `all`): per function, the sums of its interval rows.
        std::vector<std::vector<std::string>> summary;
        while (!got.empty() && got.back()[0] == "all") {
            summary.insert(summary.begin(), got.back());
            got.pop_back();
        }
        REQUIRE(!summary.empty());
        std::map<std::string, std::pair<uint64_t, double>> sums;  // function → samples, time_s
        for (size_t i = 1; i < got.size(); ++i) {
            sums[got[i][3]].first += std::stoull(got[i][5]);
            sums[got[i][3]].second += std::stod(got[i][6]);
        }
        CHECK(summary.size() == sums.size());
        double share = 0;
        for (const auto& row : summary) {
            CAPTURE(row[3]);
            CHECK(std::stoull(row[5]) == sums[row[3]].first);
            CHECK(std::stod(row[6]) == doctest::Approx(sums[row[3]].second).epsilon(1e-3));
            CHECK(row[2] == got.back()[2]);  // to the end of the last interval
            share += std::stod(row[7]);
        }
        CHECK(share == doctest::Approx(100).epsilon(1e-3));
        REQUIRE(got.size() == want.size());
        REQUIRE(got.size() > 40);
        const std::vector<std::string>& head = got[0];
        REQUIRE(head[7] == "time_pct");
        const std::string first_event = d.event_names().at(0);
        REQUIRE(head[8] == first_event);
        if (ci) {
            CHECK(head[9] == first_event + "_low");
            CHECK(head[10] == first_event + "_high");
        }
        std::map<std::string, double> interval_time;  // the sum of time_s per interval
        for (size_t i = 1; i < got.size(); ++i) interval_time[got[i][0]] += std::stod(got[i][6]);
        for (size_t i = 0; i < got.size(); ++i) {
            CAPTURE(i);
            std::vector<std::string> without_pct = got[i];
            without_pct.erase(without_pct.begin() + 7);
            CHECK(without_pct == want[i]);
            if (i > 0) CHECK(std::stod(got[i][7]) == doctest::Approx(100 * std::stod(got[i][6]) / interval_time[got[i][0]]).epsilon(1e-3));
        }
    }
}

TEST_CASE("a live profile's line cells name the dataset's locations, as merge_profiles names them") {
    const Profile p = lines_profile();
    LiveTimeline t;
    t.begin_image("a.sprof", p.header);
    std::vector<size_t> all(p.intervals.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    t.update(p, all, 0);
    std::vector<Source> sources(1);
    sources[0].path = "a.sprof";
    sources[0].profile = p;
    const Dataset whole = merge_profiles(std::move(sources));
    // Each line cell as "function file:line samples", in both datasets.
    auto lines_of = [](const Dataset& d) {
        std::vector<std::string> out;
        for (const Interval& iv : d.intervals)
            for (const LineCell& c : iv.lines) {
                const SourceLocation& l = d.locations.at(c.location);
                for (const SourceFrame& f : l.frames)
                    out.push_back(d.frame_function(l, f) + " " + d.source_text(f) + " " + std::to_string(c.samples));
            }
        return out;
    };
    const auto live = lines_of(t.data());
    CHECK(live == lines_of(whole));
    // lines_profile(): work() at app.cc:12, square inlined at util.h:3 and called at app.cc:14.
    CHECK(live == std::vector<std::string>{"work() app.cc:12 60", "square(int) util.h:3 30", "work() app.cc:14 30",
                                           "[unknown] ??:0 10"});
}
