#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "sprof/estimator.hpp"
#include "sprof/tick_dither.hpp"

using sprof::TickDither;
using sprof::TickPlan;

TEST_CASE("tick dither: periods uniform on [x(1-d), x(1+d)], one stream per thread and seed") {
    const TickPlan plan{10'000, 0.25, 42};
    TickDither a(plan, 100), again(plan, 100), other(plan, 101);
    CHECK(a.first() == 10'000);
    const int n = 200'000;
    double sum = 0, sum_sq = 0;
    uint64_t low = UINT64_MAX, high = 0;
    bool same = true, differs = false;
    for (int i = 0; i < n; ++i) {
        const uint64_t p = a.next();
        same = same && p == again.next();
        differs = differs || p != other.next();
        low = std::min(low, p);
        high = std::max(high, p);
        sum += static_cast<double>(p);
        sum_sq += static_cast<double>(p) * static_cast<double>(p);
    }
    CHECK(same);
    CHECK(differs);
    CHECK(low == 7'500);  // 5001 values, 200 000 draws: both ends are met
    CHECK(high == 12'500);
    const double mean = sum / n, var = sum_sq / n - mean * mean;
    // Uniform: mean 10 000 (sd of the mean 1443/√n = 3.2), variance 2500²/3.
    CHECK(mean == doctest::Approx(10'000).epsilon(0.002));
    CHECK(var == doctest::Approx(2500.0 * 2500.0 / 3).epsilon(0.02));

    CHECK(a.varies());
    TickDither fixed(TickPlan{10'000, 0, 42}, 100);
    CHECK_FALSE(fixed.varies());
    for (int i = 0; i < 100; ++i) CHECK(fixed.next() == 10'000);
}

namespace {

// A program that spends `f_len` in f, then the rest of `round` in g, for
// `rounds` rounds, sampled by ticks whose periods come from `ticks` (the
// first after a phase `phase` into the run). Each tick charges the time
// since the one before to where it lands. Returns f's sampled time minus
// its true time.
double f_error(TickDither& ticks, double phase, double f_len, double round, int rounds) {
    const double end = round * rounds;
    double t = phase, last = 0, f_time = 0;
    while (t < end) {
        if (std::fmod(t, round) < f_len) f_time += t - last;
        last = t;
        t += static_cast<double>(ticks.next());
    }
    if (std::fmod(end, round) < f_len) f_time += end - last;  // the tail: the last sample's
    return f_time - f_len * rounds;
}

struct Spread {
    double mean = 0, sd = 0;
};

// Over `runs` runs of f_error, each from a random phase; f's visits longer
// by a random part of a period up to `f_extra`.
Spread errors(double dither, double f_len, double f_extra, double round, int rounds, int runs) {
    std::mt19937_64 random(8);
    std::uniform_real_distribution<double> phase(0, 10'000), extra(0, f_extra);
    double sum = 0, sum_sq = 0;
    for (int r = 0; r < runs; ++r) {
        TickDither ticks(TickPlan{10'000, dither, 7}, static_cast<uint32_t>(r));
        const double e = f_error(ticks, phase(random), f_len + extra(random), round, rounds);
        sum += e;
        sum_sq += e * e;
    }
    const double mean = sum / runs;
    return {mean, std::sqrt(sum_sq / runs - mean * mean)};
}

}  // namespace

TEST_CASE("tick dither: a visit's sampled time has the variance the analyzer's interval assumes") {
    // Visits of 30 to 31 periods: the two ends' ages are independent (for
    // a fixed period because the length's fraction of a period is uniform),
    // and 2·Var(age) is the variance of each visit's error.
    const int runs = 4000;
    for (double d : {0.0, 0.25, 0.5}) {
        const Spread s = errors(d, 300'000, 10'000, 1'000'000, 1, runs);
        const double predicted = std::sqrt(sprof::visit_time_variance(d)) * 10'000;
        CAPTURE(d);
        // sd of the mean: predicted/√4000 = 1.6 % of it; of the sd: 1.1 %.
        CHECK(std::abs(s.mean) < 4 * predicted / std::sqrt(runs));
        CHECK(s.sd == doctest::Approx(predicted).epsilon(0.05));
    }
    CHECK(sprof::visit_time_variance(0) == doctest::Approx(1.0 / 6));
}

TEST_CASE("tick dither: a program paced in multiples of the period no longer adds up its visits' errors") {
    // f takes 5.5 periods of every 20: with a fixed period every visit
    // meets the ticks at the phase of the first, so all ten visits get 5
    // ticks or all get 6 — ±5 periods together. Dithered, the ten errors are
    // independent: √10 times one visit's.
    const int runs = 4000, rounds = 10;
    const double one_visit = std::sqrt(sprof::visit_time_variance(0.25)) * 10'000;
    const Spread fixed = errors(0, 55'000, 0, 200'000, rounds, runs);
    const Spread dithered = errors(0.25, 55'000, 0, 200'000, rounds, runs);
    CHECK(fixed.sd == doctest::Approx(50'000).epsilon(0.05));
    CHECK(dithered.sd == doctest::Approx(one_visit * std::sqrt(rounds)).epsilon(0.08));
    CHECK(std::abs(dithered.mean) < 4 * dithered.sd / std::sqrt(runs));
}
