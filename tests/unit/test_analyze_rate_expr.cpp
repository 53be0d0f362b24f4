#include <doctest/doctest.h>

#include "rate_expr.hpp"
#include "rates.hpp"

using namespace sprof::analyze;

namespace {

const std::vector<std::string> kNames = {"page-faults", "task-clock", "page", "msr/tsc/", "cycles",
                                         "instructions", "pmu::EVENT:umask"};

double eval(const std::string& text, std::vector<std::optional<double>> values) {
    auto v = RateExpr::parse(text, kNames).evaluate(values);
    REQUIRE(v.has_value());
    return *v;
}

// page-faults=10, task-clock=4, page=1000, msr/tsc/=6, cycles=8, instructions=2, umask=3
std::vector<std::optional<double>> values() { return {10.0, 4.0, 1000.0, 6.0, 8.0, 2.0, 3.0}; }

size_t error_position(const std::string& text) {
    try {
        RateExpr::parse(text, kNames);
    } catch (const RateExprError& e) {
        return e.position;
    }
    FAIL("no error for '" << text << "'");
    return 0;
}

}  // namespace

TEST_CASE("rate expressions: precedence, associativity and parentheses") {
    CHECK(eval("1+2*3", {}) == 7);
    CHECK(eval("(1+2)*3", {}) == 9);
    CHECK(eval("8/4/2", {}) == 1);     // left associative
    CHECK(eval("10-4-3", {}) == 3);
    CHECK(eval("2*(3+(4-1))/4", {}) == 3);
    CHECK(eval(" 1e6 * 2.5e-3 ", {}) == doctest::Approx(2500));
}

TEST_CASE("rate expressions: unary minus binds tighter than * and /") {
    CHECK(eval("-2*3", {}) == -6);
    CHECK(eval("--2", {}) == 2);
    CHECK(eval("4*-2", {}) == -8);
    CHECK(eval("-(1+2)", {}) == -3);
    CHECK(eval("1-+1", {}) == 0);
}

TEST_CASE("rate expressions: event names with '-', '/' and ':' are read greedily") {
    // page-faults is one name (10), not page (1000) minus faults.
    CHECK(eval("page-faults/task-clock*1e6", values()) == doctest::Approx(10.0 / 4 * 1e6));
    CHECK(eval("page-page-faults", values()) == doctest::Approx(990));
    CHECK(eval("msr/tsc//instructions", values()) == doctest::Approx(3));
    CHECK(eval("cycles/instructions", values()) == 4);
    CHECK(eval("pmu::EVENT:umask*2", values()) == 6);
}

TEST_CASE("rate expressions: unknown operands and division by zero are unknown") {
    auto e = RateExpr::parse("cycles/instructions", kNames);
    auto v = values();
    v[4].reset();  // cycles unknown
    CHECK_FALSE(e.evaluate(v).has_value());
    v = values();
    v[5] = 0.0;
    CHECK_FALSE(e.evaluate(v).has_value());
    CHECK(RateExpr::parse("0/cycles", kNames).evaluate(values()) == 0.0);
}

TEST_CASE("rate expressions: errors give the 1-based position") {
    CHECK(error_position("") == 1);
    CHECK(error_position("1+") == 3);
    CHECK(error_position("(1+2") == 5);
    CHECK(error_position("1+2)") == 4);
    CHECK(error_position("cycles/bogus-event") == 8);
    CHECK(error_position("2 $ 3") == 3);
    CHECK(error_position("* 2") == 1);
    try {
        RateExpr::parse("cycles/bogus", kNames);
    } catch (const RateExprError& e) {
        CHECK(std::string(e.what()) == "unknown name 'bogus' at position 8");
    }
}

TEST_CASE("rate expressions: variables() lists each variable once") {
    auto e = RateExpr::parse("cycles/instructions + cycles", kNames);
    CHECK(e.variables() == std::vector<size_t>{4, 5});
}

TEST_CASE("default rates follow the events present") {
    auto names = [](const std::vector<std::string>& events) {
        std::vector<std::string> out;
        for (const auto& d : default_rates(events)) out.push_back(d.name + "=" + d.expression);
        return out;
    };
    CHECK(names({"task-clock", "page-faults", "context-switches", "cpu-migrations"}) ==
          std::vector<std::string>{"faults_per_ms=page-faults/task-clock*1e6", "cs_per_s=context-switches/time",
                                   "migrations_per_s=cpu-migrations/time"});
    CHECK(names({"cycles", "instructions", "cache-misses"}) ==
          std::vector<std::string>{"CPI=cycles/instructions", "cache-misses_per_instr=cache-misses/instructions"});
    CHECK(names({"page-faults"}) == std::vector<std::string>{"faults_per_ms=page-faults/time/1e3"});
}

TEST_CASE("rate set: user rates replace defaults; bad specs name the rate") {
    RateSet r({"task-clock", "page-faults"}, {"faults_per_ms=page-faults/time", "per_sample=task-clock/samples"});
    REQUIRE(r.size() == 2);
    CHECK(r.rates()[0].expression == "page-faults/time");
    sprof::analyze::Counts c(2);
    c.samples = 4;
    c.time_ns = 2'000'000'000;
    c.events[0] = {400, 1'000'000'000, NAN};  // estimate 800
    c.events[1] = {3, 2'000'000'000, NAN};    // estimate 3
    auto v = r.evaluate(c, sprof::Estimator::coverage);
    CHECK(*v[0] == doctest::Approx(1.5));  // 3 faults / 2 s
    CHECK(*v[1] == doctest::Approx(200));  // 800 / 4
    CHECK_THROWS_WITH_AS(RateSet({"task-clock"}, {"x=task-clock/("}),
                         "bad rate x=task-clock/(: expected a number, a name or '(' at position 13",
                         std::invalid_argument);
    CHECK_THROWS_AS(RateSet({"task-clock"}, {"=1"}), std::invalid_argument);
}
