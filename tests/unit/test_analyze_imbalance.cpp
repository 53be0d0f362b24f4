// The imbalance analysis against numbers computed by hand from
// synthetic::small_profile() (see test_analyze_report.cpp for its content):
// rank 0 is the whole profile, rank 1 only its first interval and was cut
// short (no END), rank 2 of the job's three left no profile at all.
//   rank 0: compute(int) 1.0 s, main 0.2 s, memcpy 0.2 s → 1.4 s
//   rank 1: compute(int) 0.6 s, main 0.2 s               → 0.8 s
#include <doctest/doctest.h>

#include "imbalance.hpp"
#include "synthetic.hpp"

using namespace sprof;
using namespace sprof::analyze;

namespace {

Dataset three_rank_job() {
    Profile r0 = synthetic::small_profile();
    r0.header.rank = 0, r0.header.ranks = 3, r0.header.job_id = "77";
    Profile r1 = synthetic::small_profile();
    r1.header.rank = 1, r1.header.ranks = 3, r1.header.job_id = "77";
    r1.intervals.resize(1);
    r1.end = {};
    std::vector<Source> sources;
    sources.push_back({"job.rank1.sprof", std::move(r1)});  // any order on the command line
    sources.push_back({"job.rank0.sprof", std::move(r0)});
    return merge_profiles(std::move(sources));
}

const ImbalanceRow& row_of(const Imbalance& im, const Dataset& d, const std::string& name) {
    for (const auto& row : im.rows)
        if (row.function && d.functions[*row.function].name == name) return row;
    FAIL("no row " << name);
    return im.rows.front();
}

}  // namespace

TEST_CASE("imbalance: ranks, missing and incomplete ones") {
    Dataset d = three_rank_job();
    Imbalance im = imbalance(d, {});
    REQUIRE(im.ranks.size() == 2);
    CHECK(im.ranks[0].rank == 0);
    CHECK(im.ranks[0].complete);
    CHECK(im.ranks[1].rank == 1);
    CHECK_FALSE(im.ranks[1].complete);
    CHECK(im.ranks_expected == 3);
    CHECK(im.missing_ranks == std::vector<int>{2});
    CHECK(im.ranks[0].total.seconds() == doctest::Approx(1.4));
    CHECK(im.ranks[1].total.seconds() == doctest::Approx(0.8));
}

TEST_CASE("imbalance: max over mean and the slowest rank, per function and in total") {
    Dataset d = three_rank_job();
    Imbalance im = imbalance(d, {});
    REQUIRE_FALSE(im.rows.front().function);  // [total] first
    const Spread& total = im.rows.front().time_s;
    CHECK(total.max_over_mean == doctest::Approx(1.4 / 1.1));
    CHECK(total.slowest_rank == 0);

    const ImbalanceRow& compute = row_of(im, d, "compute(int)");
    CHECK(compute.time_s.mean == doctest::Approx(0.8));
    CHECK(compute.time_s.max_over_mean == doctest::Approx(1.0 / 0.8));
    CHECK(compute.time_s.slowest_rank == 0);
    // page-faults: on its own, rank 0 125 (hand-computed), rank 1 30 over
    // 200 of 600 ms → 90; the job's own 80 over 600 of 1600 ms → 213.3,
    // main's 40 and memcpy's 100 beside it add up to 353.3 of the job's
    // total, 150 over 900 of 2200 ms → 366.7: the flat report's is 213.3 ×
    // 55/53, shared 125 : 90 (the ranks add up to it).
    const double flat = 80 * 1600.0 / 600 * 55 / 53;
    const Spread& faults = compute.events[1];
    REQUIRE(faults.per_rank[0]);
    REQUIRE(faults.per_rank[1]);
    CHECK(*faults.per_rank[1] == doctest::Approx(90 * flat / 215));
    CHECK(*faults.per_rank[0] + *faults.per_rank[1] == doctest::Approx(flat));
    CHECK(faults.max_over_mean == doctest::Approx(125 / 107.5));
    // memcpy never ran on rank 1: that rank did none of its work.
    CHECK(row_of(im, d, "memcpy").time_s.max_over_mean == doctest::Approx(2.0));
    CHECK(row_of(im, d, "main").time_s.max_over_mean == doctest::Approx(1.0));
    // context-switches of compute were never live: unknown on every rank, no ratio.
    CHECK(compute.events[2].slowest_rank == -1);
    CHECK(compute.events[2].max_over_mean == 0);
    // Functions by their heaviest rank's time.
    CHECK(d.functions[*im.rows[1].function].name == "compute(int)");
}

TEST_CASE("imbalance: profiles outside a job are ranks of their own") {
    std::vector<Source> sources;
    sources.push_back({"a.sprof", synthetic::small_profile()});
    sources.push_back({"b.sprof", synthetic::small_profile()});
    Dataset d = merge_profiles(std::move(sources));
    Imbalance im = imbalance(d, {});
    REQUIRE(im.ranks.size() == 2);
    CHECK(im.ranks_expected == 0);
    CHECK(im.missing_ranks.empty());
    CHECK(im.rows.front().time_s.max_over_mean == doctest::Approx(1.0));
}
