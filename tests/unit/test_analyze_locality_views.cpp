// The locality views' analyses (--misses, --use, --data, --reuse-pairs) on
// synthetic profiles whose answers are computed by hand here: the stack
// distances StatStack gives them (statstack.hpp: E[S(d)] = Σ_{k=0}^{d−2}
// P(D > k)), the misses each location is charged, the tenure step a cache
// evicts a line at, and the code between a use and its reuse.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "cache_levels.hpp"
#include "code_location.hpp"
#include "code_misses.hpp"
#include "data_structures.hpp"
#include "locality_views.hpp"
#include "reuse_outcomes.hpp"
#include "reuse_pairs.hpp"
#include "sprof/profile_io.hpp"
#include "sprof/splitmix.hpp"
#include "statement_use.hpp"

using namespace sprof;
using namespace sprof::analyze;

namespace {

constexpr uint32_t kLine = 64;
constexpr uint32_t kWalk = 0, kScan = 1;  // function ids

Profile views_profile(const char* mode = "sampled") {
    Profile p;
    p.header.program = "/usr/bin/app";
    p.objects = {{0, "/usr/bin/app", ""}};
    p.functions = {{0, 0, 0x1000, 0x1100, "walk"}, {1, 0, 0x1100, 0x1200, "scan"}};
    p.locality.run = {true, mode, kLine, 1000, 100'000'000, 1};
    return p;
}

CodeRef at(uint32_t function, uint64_t address) { return {function, address}; }

// Appends `n` samples of thread `tid` in window 0; returns the first's index.
size_t add_samples(Profile& p, size_t n, uint32_t tid, CodeRef sample, CodeRef trigger, uint64_t distance,
                   bool trigger_write = false, uint32_t data = kNoData) {
    const size_t first = p.locality.samples.size();
    for (size_t i = 0; i < n; ++i) {
        ReuseSample s;
        s.tid = tid;
        s.distance = distance;
        s.sample = sample;
        if (distance != kNoReuse) s.trigger = trigger;
        s.trigger_write = trigger_write;
        s.position = 1 + p.locality.samples.size();  // distinct; the views that read positions set their own
        s.data = data;
        p.locality.samples.push_back(s);
    }
    return first;
}

// The window of thread `tid`: `accesses` accesses, every sample of the thread.
void close_window(Profile& p, uint32_t tid, uint64_t accesses) {
    uint64_t n = 0;
    for (const ReuseSample& s : p.locality.samples) n += s.tid == tid;
    p.locality.windows.push_back({tid, 0, accesses, n, 0});
}

Dataset dataset_of(Profile p) {
    std::vector<Source> sources;
    sources.push_back({"app.sprof", std::move(p)});
    return merge_profiles(std::move(sources));
}

const CodeMisses& row_named(const LocationMisses& m, const std::string& name) {
    for (const CodeMisses& r : m.table.rows)
        if (m.locations[r.key].name == name) return r;
    FAIL("no row " << name);
    return m.table.rows.front();
}

// A followed line: steps (gap, accesses, bytes, chunks used).
Tenure tenure(uint32_t tid, uint64_t position, std::vector<TenureStep> steps) {
    return {tid, position, TenureEnd::no_reuse, std::move(steps)};
}

// The header and the first row of a view's CSV for caches of these sizes.
using View = void (*)(const Dataset&, const ViewParams&, std::ostream&);
std::pair<std::string, std::string> csv_head(View view, const Dataset& d, std::vector<uint64_t> caches) {
    ViewParams v;
    v.caches = std::move(caches);
    v.format = Format::csv;
    std::ostringstream csv;
    view(d, v, csv);
    std::istringstream lines(csv.str());
    std::string header, first;
    std::getline(lines, header);
    std::getline(lines, first);
    return {header, first};
}

uint64_t low_bits(unsigned n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

}  // namespace

TEST_CASE("locations: a function; a line FILE:LINE, or function+offset where the profile has none; an instruction") {
    Profile p = views_profile();  // the dataset holds the functions records refer to
    // walk's 0x1010 and 0x1028 on walk.c:18, 0x1020 on walk.c:19; 0x1030 in
    // list.h:5, inlined at walk.c:30; 0x1040 on a line the debug info does
    // not know; scan: no rows (as in a profile without source lines).
    p.lines.strings = {"/src/walk.c", "_Z4nextv", "/src/include/list.h"};
    p.lines.locations = {{kWalk, 0, 18, {}}, {kWalk, 0, 19, {}}, {kWalk, 2, 5, {{1, 0, 30}}}, {kWalk, kNoString, 0, {}}};
    p.lines.addresses = {{at(kWalk, 0x1010), 0, 3}, {at(kWalk, 0x1020), 1, 0}, {at(kWalk, 0x1028), 0, 9},
                         {at(kWalk, 0x1030), 2, 0}, {at(kWalk, 0x1040), 3, 0}};
    add_samples(p, 1, 1, at(kWalk, 0x1004), at(kScan, 0x1110), 5);
    close_window(p, 1, 100);
    const Dataset d = dataset_of(p);
    CHECK(location_of(d, at(kWalk, 0x1010), Granularity::function).name == "walk");
    CHECK(location_of(d, at(kWalk, 0x1010), Granularity::instruction).name == "walk+0x10");
    CHECK(location_of(d, at(kWalk, 0x1010), Granularity::line).name == "/src/walk.c:18");  // the full path
    CHECK(location_of(d, at(kWalk, 0x1030), Granularity::line).name == "/src/include/list.h:5");  // its own line
    CHECK(location_of(d, at(kWalk, 0x1040), Granularity::line).name == "walk+0x40");
    CHECK(location_of(d, at(kScan, 0x1100), Granularity::line).name == "scan+0x0");
    CHECK(location_of(d, at(kNoFunction, 0x7f0000001234), Granularity::function).name == "[unknown]");
    CHECK(location_of(d, at(kNoFunction, 0x7f0000001234), Granularity::instruction).name == "[unknown]+0x7f0000001234");
    LocationIndex functions(d, Granularity::function), lines(d, Granularity::line);
    CHECK(functions.of(at(kWalk, 0x1010)) == functions.of(at(kWalk, 0x1020)));
    CHECK(functions.of(at(kWalk, 0x1010)) != functions.of(at(kScan, 0x1110)));
    const uint32_t first = lines.of(at(kWalk, 0x1010)), second = lines.of(at(kWalk, 0x1020));
    CHECK(first == 0);
    CHECK(second == 1);  // numbered as first asked for
    CHECK(lines.of(at(kWalk, 0x1028)) == 0);  // one line, two instructions
    CHECK(lines.of(at(kScan, 0x1100)) != lines.of(at(kScan, 0x1110)));  // no lines: one per instruction
    CHECK(lines[1].function == kWalk);
    CHECK_THROWS_WITH_AS(parse_granularity("--by", "file"), "--by takes function, line or instruction, not 'file'",
                         std::invalid_argument);
}

TEST_CASE("--cache and --line-size: sizes in order, one line per bad value") {
    CHECK(parse_cache_sizes("--cache", "32K,1M") == std::vector<uint64_t>{32768, 1 << 20});
    CHECK(parse_cache_sizes("--cache", "256K") == std::vector<uint64_t>{262144});
    CHECK_THROWS_WITH_AS(parse_cache_sizes("--cache", "32K,big"),
                         "invalid --cache 'big' (a size in bytes: 32K, 1M or 4096)", UsageError);
    CHECK_THROWS_WITH_AS(parse_cache_sizes("--cache", "32K,32768"), "--cache names 32 KiB twice", UsageError);
    CHECK_THROWS_AS(parse_cache_sizes("--cache", "32K,"), UsageError);
    CHECK(parse_line_size("--line-size", "128") == 128);
    CHECK_THROWS_WITH_AS(parse_line_size("--line-size", "96"),
                         "invalid --line-size '96' (bytes, a power of two from 8 to 4096)", UsageError);
    CHECK(cache_label(32768) == "32K");
    CHECK(cache_label(1 << 20) == "1M");
    CHECK(cache_label(1536) == "1536");
    CHECK(cache_label(1536 * 1024) == "1536K");

    Profile p = views_profile();
    add_samples(p, 1, 1, at(kWalk, 0x1004), at(kWalk, 0x1008), 5);
    close_window(p, 1, 100);
    const LocalityData l = locality_data(dataset_of(p));
    CHECK_NOTHROW(check_line_size(l, 0));
    CHECK_NOTHROW(check_line_size(l, 64));
    CHECK_THROWS_WITH_AS(check_line_size(l, 128),
                         "--line-size 128: the profile was collected with 64-byte lines (the line size is fixed at "
                         "the run: sprof_lib --locality --line-size 128)",
                         std::invalid_argument);
    CHECK(cache_lines(l, std::vector<uint64_t>{32768, 1 << 20}) == std::vector<uint64_t>{512, 16384});
    CHECK_THROWS_AS(cache_lines(l, std::vector<uint64_t>{32}), std::invalid_argument);
}

TEST_CASE("--misses, sampled: a reuse's access and its miss at its trigger, a cold miss at the sample") {
    // 10 samples of 1000 accesses each: 5 consecutive reuses in walk, 3
    // reuses 5000 accesses on that scan makes, 2 lines scan touches last.
    // P(D > 0) = 1, P(D > k) = 5/10 for 1 ≤ k ≤ 4999: E[S(5000)] = 1 + 4998/2
    // = 2500 lines, a miss in 512 lines (32 KiB), a hit in 4096 (256 KiB).
    Profile p = views_profile();
    add_samples(p, 5, 1, at(kWalk, 0x1004), at(kWalk, 0x1008), 1);
    add_samples(p, 3, 1, at(kWalk, 0x1004), at(kScan, 0x1110), 5000);
    add_samples(p, 2, 1, at(kScan, 0x1110), {}, kNoReuse);
    close_window(p, 1, 10'000);
    const Dataset d = dataset_of(p);
    const LocalityData l = locality_data(d);
    const std::vector<uint64_t> sizes = {512, 4096};

    const LocationMisses by_line = location_misses(d, l, {sizes, Granularity::line});
    CHECK(by_line.table.accesses == doctest::Approx(10'000));
    CHECK(by_line.table.misses == std::vector<double>{5000, 2000});
    REQUIRE(by_line.table.rows.size() == 2);  // walk+0x4 is a sampled access only: no row
    CHECK(by_line.locations[by_line.table.rows[0].key].name == "scan+0x10");  // most misses first
    const CodeMisses& scan = row_named(by_line, "scan+0x10");
    CHECK(scan.accesses == doctest::Approx(5000));  // 3 triggers + 2 cold
    CHECK(scan.misses == std::vector<double>{5000, 2000});  // all of them; the cold ones only
    const CodeMisses& walk = row_named(by_line, "walk+0x8");
    CHECK(walk.accesses == doctest::Approx(5000));
    CHECK(walk.misses == std::vector<double>{0, 0});

    const LocationMisses by_function = location_misses(d, l, {sizes, Granularity::function});
    REQUIRE(by_function.table.rows.size() == 2);
    CHECK(row_named(by_function, "scan").misses == std::vector<double>{5000, 2000});
    CHECK(row_named(by_function, "walk").accesses == doctest::Approx(5000));

    const auto [header, first] = csv_head(write_misses_view, d, {32768, 262144});
    CHECK(header == "location,accesses_pct,miss_ratio,misses,miss_ratio_256K,misses_256K,function,accesses,misses_pct,"
                    "misses_pct_256K");
    CHECK(first == "scan+0x10,50,1,5000,0.4,2000,scan,5000,100,100");
}

TEST_CASE("--misses, sampled: a random-access update's rows never miss more than they access") {
    // a[r] += 1 over 16,384 lines, r random: a load (walk+0x4) and a store
    // (walk+0x8) of the same line. The store's next access is a load
    // thousands of accesses on, the load's the store right after it.
    // Samples drawn at random from the true trace (1 in 1000), their reuses
    // read off it. In a cache of 64 lines nearly every load misses, and when
    // the load row's accesses came from the load's samples but its misses
    // from the store's, it missed more often than it ran (seeds 1, 5 and 6
    // of 1 to 8: 1.024, 1.050, 1.006). Now each row's ratio is at most 1, and
    // the load's is the truth of this trace: a load misses unless its line
    // is among the last 64 of 16,384 drawn at random, the cold misses aside
    // (a line's first load: the model charges it to its last access, a
    // store).
    constexpr uint64_t kLines = 16384, kUpdates = 2'000'000, kPeriod = 1000, kCache = 64;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        CAPTURE(seed);
        uint64_t state = seed;
        std::vector<uint64_t> line(2 * kUpdates);
        for (uint64_t i = 0; i < kUpdates; ++i) line[2 * i] = line[2 * i + 1] = splitmix64(state) % kLines;
        std::vector<uint64_t> next(line.size(), kNoReuse), last(kLines, kNoReuse);
        uint64_t lines_touched = 0;
        for (uint64_t i = line.size(); i-- > 0;) {
            if (last[line[i]] != kNoReuse) next[i] = last[line[i]] - i;
            else ++lines_touched;
            last[line[i]] = i;
        }
        Profile p = views_profile();
        const CodeRef load = at(kWalk, 0x1004), store = at(kWalk, 0x1008);
        for (uint64_t i = 0; i < line.size(); ++i) {
            if (splitmix64(state) % kPeriod != 0) continue;
            add_samples(p, 1, 1, i % 2 ? store : load, i % 2 ? load : store, next[i]);
            p.locality.samples.back().position = i + 1;
        }
        close_window(p, 1, line.size());
        const Dataset d = dataset_of(p);
        const LocationMisses m = location_misses(d, locality_data(d), {{kCache}, Granularity::instruction});
        for (const CodeMisses& r : m.table.rows) {
            CAPTURE(m.locations[r.key].name);
            CHECK(r.misses[0] <= r.accesses);
        }
        const CodeMisses& l = row_named(m, "walk+0x4");
        const double n = l.accesses / kPeriod;  // samples behind the row
        const double truth = (1 - static_cast<double>(lines_touched) / kUpdates) * (1 - double{kCache} / kLines);
        CHECK(std::abs(l.misses[0] / l.accesses - truth) <= 5 * std::sqrt(truth * (1 - truth) / n) + 0.005);
    }
}

TEST_CASE("--misses, exact: the per-instruction counts at the detail sizes, no other size") {
    Profile p = views_profile("exact");
    p.locality.exact.push_back({1, 1000, {16, 512, 4096}, {600, 300, 100}, {}, {}, {512, 4096}});
    p.locality.exact_instructions.push_back({1, at(kWalk, 0x1004), false, 700, {{200, 0, 0}, {50, 0, 0}}});
    p.locality.exact_instructions.push_back({1, at(kScan, 0x1110), true, 300, {{100, 0, 0}, {50, 0, 0}}});
    p.locality.exact.push_back({2, 500, {16, 512, 4096}, {100, 50, 10}, {}, {}, {512, 4096}});
    p.locality.exact_instructions.push_back({2, at(kWalk, 0x1004), false, 500, {{50, 0, 0}, {10, 0, 0}}});
    const Dataset d = dataset_of(p);
    const LocalityData l = locality_data(d);
    const LocationMisses m = location_misses(d, l, {{512, 4096}, Granularity::line});
    CHECK(m.table.accesses == 1500);
    CHECK(m.table.misses == std::vector<double>{350, 110});
    const CodeMisses& walk = row_named(m, "walk+0x4");  // two threads, one instruction
    CHECK(walk.accesses == 1200);
    CHECK(walk.misses == std::vector<double>{250, 60});
    CHECK(m.locations[m.table.rows.front().key].name == "walk+0x4");
    CHECK_THROWS_WITH_AS(location_misses(d, l, {{512, 768}, Granularity::line}),
                         "the exact run counted misses per instruction at 32 KiB, 256 KiB only, not 48 KiB",
                         std::invalid_argument);
}

TEST_CASE("tenures: the cache evicts a followed line at the first gap whose stack distance reaches it") {
    // 6 consecutive reuses (d = 1) and 4 of d = 5000: P(D > k) = 0.4 for
    // 1 ≤ k ≤ 4999, so E[S(2)] = 1, E[S(3000)] = 1 + 2998·0.4 = 1200.2,
    // E[S(5000)] = 1 + 4998·0.4 = 2000.2. Each of the 4 brings its line in
    // (a miss below 2000.2 lines) and its tenure has three steps: 8 bytes
    // before a gap of 2, 32 bytes before a gap of 3000, 128 bytes over all
    // 64 before the end. In 512 lines the gap of 3000 evicts the line: 32 of
    // 64 bytes used once (spatial 50 %, temporal 0); in 2000 lines it stays
    // to the end: 64 bytes used, 128 bytes touched (100 %, 1 reuse a byte).
    Profile p = views_profile();
    add_samples(p, 6, 1, at(kWalk, 0x1004), at(kWalk, 0x1008), 1);
    const size_t loads = add_samples(p, 2, 1, at(kScan, 0x1110), at(kScan, 0x1114), 5000, false);
    const size_t stores = add_samples(p, 2, 1, at(kScan, 0x1110), at(kScan, 0x1118), 5000, true);
    for (size_t i : {loads, loads + 1, stores, stores + 1})
        p.locality.tenures.push_back(tenure(1, p.locality.samples[i].position,
                                            {{2, 1, 8, low_bits(8)}, {3000, 4, 32, low_bits(32)},
                                             {kNoReuse, 8, 128, low_bits(64)}}));
    close_window(p, 1, 10'000);
    const Dataset d = dataset_of(p);
    const LocalityData l = locality_data(d);
    CHECK(l.tenures == 4);

    const StackDistanceModel model = stack_model(l.streams.front());
    const Tenure& t = l.streams.front().tenures.front();
    CHECK(tenure_state(t, model, 0, 512).bytes == 32);
    CHECK(tenure_state(t, model, 0, 1200).bytes == 32);
    CHECK(tenure_state(t, model, 0, 1201).bytes == 128);
    CHECK(tenure_state(t, model, 0, 1).bytes == 8);  // E[S(2)] = 1: a one-line cache evicts at the first gap

    const UseTable u = statement_use(d, l, {{512, 2000}, Granularity::line});
    REQUIRE(u.rows.size() == 2);  // the two triggers; walk's reuses never miss
    for (const StatementUse& r : u.rows) {
        INFO(u.locations[r.location].name);
        CHECK(u.locations[r.location].name == (r.store ? "scan+0x18" : "scan+0x14"));
        CHECK(r.misses == std::vector<double>{2000, 2000});
        CHECK(r.use[0].samples == 2);
        CHECK(r.use[0].spatial(kLine) == doctest::Approx(0.5));
        CHECK(r.use[0].temporal() == doctest::Approx(0));
        CHECK(r.use[1].spatial(kLine) == doctest::Approx(1.0));
        CHECK(r.use[1].temporal() == doctest::Approx(1.0));
    }
    CHECK(u.total[0].spatial(kLine) == doctest::Approx(0.5));
    // Above E[S(5000)] the reuses hit: no line is brought in.
    const UseTable big = statement_use(d, l, {{4096}, Granularity::line});
    CHECK(big.rows.empty());

    const auto [header, first] = csv_head(write_use_view, d, {32768});
    CHECK(header == "location,spatial_use,temporal_use,access,misses,tenures,function");
    CHECK(first == "scan+0x14,50,0,load,2000,2,scan");

    Profile old = views_profile();  // no tenures: one line, not an empty table
    add_samples(old, 3, 1, at(kScan, 0x1110), at(kScan, 0x1114), 5000);
    close_window(old, 1, 100);
    const Dataset od = dataset_of(old);
    CHECK_THROWS_AS(statement_use(od, locality_data(od), {{512}, Granularity::line}), ProfileError);
}

TEST_CASE("--use, exact: spatial and temporal use of each instruction's tenures") {
    Profile p = views_profile("exact");
    p.locality.exact.push_back({1, 1000, {16, 512}, {600, 300}, {}, {}, {512}});
    // 10 tenures of 32 used bytes, each touched twice (640 bytes): 50 %, 1.
    p.locality.exact_instructions.push_back({1, at(kWalk, 0x1004), false, 700, {{10, 320, 640}}});
    p.locality.exact_instructions.push_back({1, at(kWalk, 0x1008), true, 300, {{4, 256, 256}}});
    p.locality.exact_instructions.push_back({1, at(kScan, 0x1110), false, 300, {{0, 0, 0}}});
    const Dataset d = dataset_of(p);
    const LocalityData l = locality_data(d);
    const UseTable u = statement_use(d, l, {{512}, Granularity::line});
    REQUIRE(u.rows.size() == 2);
    CHECK(u.locations[u.rows[0].location].name == "walk+0x4");
    CHECK_FALSE(u.rows[0].store);
    CHECK(u.rows[0].use[0].spatial(kLine) == doctest::Approx(0.5));
    CHECK(u.rows[0].use[0].temporal() == doctest::Approx(1));
    CHECK(u.rows[1].store);
    CHECK(u.rows[1].use[0].spatial(kLine) == doctest::Approx(1));
    CHECK(u.rows[1].use[0].temporal() == doctest::Approx(0));
    const UseTable by_function = statement_use(d, l, {{512}, Granularity::function});
    REQUIRE(by_function.rows.size() == 2);  // walk's loads and walk's stores
    CHECK(by_function.total[0].spatial(kLine) == doctest::Approx((320.0 + 256) / (14 * 64)));
}

TEST_CASE("--data: accesses, misses and use per data structure, heap blocks by allocation site") {
    // Data objects: 0 a heap block allocated at walk+0x20, 1 the static
    // array `table`. The heap's 4 samples reuse after 5000 accesses (misses
    // in 512 lines, as above) and used 16 bytes of each line; the table's 6
    // reuse at once.
    Profile p = views_profile();
    p.locality.data.push_back({0, DataKind::heap, kNoObject, at(kWalk, 0x1020), "", 0});
    p.locality.data.push_back({1, DataKind::static_data, 0, {}, "table", 4096});
    add_samples(p, 6, 1, at(kWalk, 0x1004), at(kWalk, 0x1008), 1, false, 1);
    const size_t heap = add_samples(p, 4, 1, at(kScan, 0x1110), at(kScan, 0x1114), 5000, false, 0);
    for (size_t i = heap; i < heap + 4; ++i)
        p.locality.tenures.push_back(tenure(1, p.locality.samples[i].position, {{kNoReuse, 2, 16, low_bits(16)}}));
    close_window(p, 1, 10'000);
    const Dataset d = dataset_of(p);
    const LocalityData l = locality_data(d);
    const DataTable t = data_structures(d, l, {{512}, Granularity::function});
    REQUIRE(t.rows.size() == 2);
    CHECK(t.rows[0].name == "heap@walk");
    CHECK(t.rows[0].kind == DataKind::heap);
    CHECK(t.rows[0].accesses == doctest::Approx(4000));
    CHECK(t.rows[0].misses[0] == doctest::Approx(4000));
    CHECK(t.rows[0].use[0].spatial(kLine) == doctest::Approx(0.25));
    CHECK(t.rows[0].use[0].temporal() == doctest::Approx(0));
    CHECK(t.rows[1].name == "table");
    CHECK(t.rows[1].object == "/usr/bin/app");
    CHECK(t.rows[1].size == 4096);
    CHECK(t.rows[1].misses[0] == 0);
    CHECK(std::isnan(t.rows[1].use[0].spatial(kLine)));
    CHECK(data_structures(d, l, {{512}, Granularity::instruction}).rows[0].name == "heap@walk+0x20");

    Profile exact = views_profile("exact");
    exact.locality.exact.push_back({1, 10, {16}, {5}, {}, {}, {}});
    const Dataset de = dataset_of(exact);
    CHECK_THROWS_AS(data_structures(de, locality_data(de), {{16}, Granularity::line}), ProfileError);
}

TEST_CASE("reuse pairs: the code between splits (fusion) or interleaves (tiling)") {
    CHECK(code_splits(std::vector<uint32_t>{1, 1, 1, 2, 2}, 0.1));
    CHECK_FALSE(code_splits(std::vector<uint32_t>{1, 2, 1, 2, 1, 2, 1, 2}, 0.1));
    CHECK_FALSE(code_splits(std::vector<uint32_t>{1, 1, 1, 1}, 0.1));  // one location: nothing to split
    // One stray element of 20 (5 %) on the wrong side is tolerated at 10 %, not at 1 %.
    std::vector<uint32_t> stray(10, 1);
    stray.insert(stray.end(), 9, 2);
    stray.push_back(1);
    CHECK(code_splits(stray, 0.1));
    CHECK_FALSE(code_splits(stray, 0.01));
    // Interleaved a, b and one c at the end (5 %): too little to be a loop of its own.
    std::vector<uint32_t> tail;
    for (int i = 0; i < 19; ++i) tail.push_back(1 + i % 2);
    tail.push_back(3);
    CHECK_FALSE(code_splits(tail, 0.1));
    tail.insert(tail.end(), 3, 3);  // 4 of 23 (17 %): a part of its own
    CHECK(code_splits(tail, 0.1));

    const std::vector<LocationShare> a = {{1, 1.0}}, b = {{2, 1.0}}, ab = {{1, 0.5}, {2, 0.5}};
    CHECK(cosine_similarity(a, a) == doctest::Approx(1));
    CHECK(cosine_similarity(a, b) == 0);
    CHECK(cosine_similarity(a, ab) == doctest::Approx(std::sqrt(0.5)));
    CHECK(cosine_similarity(a, {}) == 0);
}

TEST_CASE("reuse pairs: two loops one after the other get a fusion hint, one loop nest tiling, low use +layout") {
    // Thread 1, every access sampled (positions 1 … 2000): loop 1 (walk+0x4)
    // at 1 … 1000, loop 2 (scan+0x10) at 1001 … 2000. Every 100th access of
    // loop 1 is reused by loop 2 1000 accesses later; the other accesses
    // reuse their line at once. In a 2-line cache the 1000-access reuses
    // miss (E[S(1000)] = 1 + 998·P(D > k) ≈ 6 > 2), the others hit.
    // Thread 2: one loop nest, walk+0x30 and walk+0x38 in turn; every
    // 100th access of walk+0x30 is reused by itself 1000 accesses later, and
    // the lines it brings in use 8 of 64 bytes (12.5 %).
    Profile p = views_profile();
    auto add = [&](uint32_t tid, uint64_t position, CodeRef sample, CodeRef trigger, uint64_t distance) {
        ReuseSample s;
        s.tid = tid;
        s.position = position;
        s.distance = distance;
        s.sample = sample;
        s.trigger = trigger;
        p.locality.samples.push_back(s);
    };
    for (uint64_t pos = 1; pos <= 2000; ++pos) {
        const CodeRef here = pos <= 1000 ? at(kWalk, 0x1004) : at(kScan, 0x1110);
        const bool long_reuse = pos <= 1000 && pos % 100 == 0;
        add(1, pos, here, long_reuse ? at(kScan, 0x1110) : here, long_reuse ? 1000 : 1);
    }
    for (uint64_t pos = 1; pos <= 2000; ++pos) {
        const CodeRef here = pos % 2 ? at(kWalk, 0x1030) : at(kWalk, 0x1038);
        const bool long_reuse = pos % 100 == 1 && pos + 1000 <= 2000;
        add(2, pos, here, here, long_reuse ? 1000 : 1);
        if (long_reuse) p.locality.tenures.push_back(tenure(2, pos, {{kNoReuse, 1, 8, low_bits(8)}}));
    }
    close_window(p, 1, 2000);
    close_window(p, 2, 2000);
    const Dataset d = dataset_of(p);
    const LocalityData l = locality_data(d);
    PairParams params;
    params.lines = 2;
    params.by = Granularity::line;
    params.min_miss_share = 0;  // each pair misses in 10 of 4000 reuses: a hint all the same
    const PairTable t = reuse_pairs(d, l, params);
    CHECK(t.positions);
    CHECK(t.capacity_misses == doctest::Approx(20));
    CHECK(t.reuses == doctest::Approx(4000));
    CHECK(t.long_reuse_share() == doctest::Approx(20.0 / 4000));
    REQUIRE(t.pairs.size() == 2);
    REQUIRE(t.clusters.size() == 2);
    for (const ReusePair& pair : t.pairs) {
        const std::string use = t.locations[pair.use].name, reuse = t.locations[pair.reuse].name;
        INFO(use << " -> " << reuse);
        CHECK(pair.share == doctest::Approx(0.5));
        CHECK(pair.misses == doctest::Approx(10));
        REQUIRE(pair.histogram.size() == 10);  // 1000 is in [2^9, 2^10)
        CHECK(pair.histogram[9] == doctest::Approx(10));
        CHECK(pair.spans == 10);
        const std::string hint = pair.hint;
        CHECK(pair.rerun_period == 0);
        if (use == "walk+0x4") {
            CHECK(reuse == "scan+0x10");
            CHECK(pair.samples == 10);
            // The span from 1000 holds loop 2 only: 9 of 10 tell. The one
            // from 100 holds 99 accesses of loop 2 in 999 (25 of its 256
            // samples): less than the 10 % a part needs. The other 8 split.
            CHECK(pair.informative == 9);
            CHECK(pair.splits == 8);
            CHECK(hint == "fusion");
            // Between: loop 1 after the use, loop 2 before the reuse, half each on average.
            REQUIRE(pair.between.size() == 2);
            CHECK(pair.between[0].share + pair.between[1].share == doctest::Approx(1));
        } else {
            CHECK(use == "walk+0x30");
            CHECK(reuse == "walk+0x30");
            CHECK(pair.samples == 1000);  // its consecutive reuses too, in the histogram's first bucket
            CHECK(pair.histogram[0] == doctest::Approx(990));
            CHECK(pair.informative == 10);
            CHECK(pair.splits == 0);
            CHECK(hint == "tiling+layout");
            CHECK(pair.reuse_use.spatial(kLine) == doctest::Approx(0.125));
        }
    }
}

TEST_CASE("reuse pairs: spans of too few samples give no loop hint, but the period to rerun at") {
    // 1 sample in 1000 over 100,000 accesses: loop 1 (walk+0x4) to 50,000,
    // loop 2 (scan+0x10) after it. Every 10,000th access of loop 1 is
    // reused by loop 2 4000 accesses later (P(D > k) = 0.05 for 1 ≤ k <
    // 4000: E[S(4000)] ≈ 200 lines, a miss in 2); its span holds the 3
    // samples at +1000, +2000, +3000: fewer than kMinSpanSamples, so no span
    // tells fusion from tiling. Spans of 8 samples need a period of 4000 / 8
    // = 500; 8 spans (5 missing reuses now) one of 5 × 1000 / 8 = 625: 500.
    Profile p = views_profile();
    for (uint64_t pos = 1000; pos <= 100'000; pos += 1000) {
        ReuseSample s;
        s.tid = 1;
        s.position = pos;
        s.sample = pos <= 50'000 ? at(kWalk, 0x1004) : at(kScan, 0x1110);
        const bool long_reuse = pos <= 50'000 && pos % 10'000 == 0;
        s.distance = long_reuse ? 4000 : 1;
        s.trigger = long_reuse ? at(kScan, 0x1110) : s.sample;
        p.locality.samples.push_back(s);
    }
    close_window(p, 1, 100'000);
    const Dataset d = dataset_of(p);
    PairParams params;
    params.lines = 2;
    const PairTable t = reuse_pairs(d, locality_data(d), params);  // misses in 5 % of the reuses: worth a hint
    REQUIRE(t.pairs.size() == 1);
    params.min_miss_share = 0.06;
    CHECK(reuse_pairs(d, locality_data(d), params).pairs[0].hint == "-");  // under the share asked for: none
    const ReusePair& pair = t.pairs[0];
    CHECK(pair.spans == 5);
    CHECK(pair.informative == 0);
    CHECK(pair.median_distance == 4000);
    CHECK(pair.rerun_period == 500);
    CHECK(pair.hint == "too few samples: --locality=500");
    CHECK(t.clusters[0].hint == pair.hint);
    std::ostringstream text;
    ViewParams v;
    v.caches = {2 * kLine};
    write_reuse_pairs_view(d, v, text);
    CHECK(text.str().find("too few samples between these two loops (pairs hinted so): rerun with --locality=500") !=
          std::string::npos);
}

TEST_CASE("locality views of a profile without locality records: one line") {
    Profile p = views_profile();
    p.locality = {};
    const Dataset d = dataset_of(p);
    std::ostringstream out;
    for (View view : {write_misses_view, write_use_view, write_data_view, write_reuse_pairs_view})
        CHECK_THROWS_WITH_AS(view(d, {}, out),
                             "app.sprof: has no locality records: build the program with sprof-cc and run it under "
                             "sprof_lib --locality",
                             ProfileError);
}
