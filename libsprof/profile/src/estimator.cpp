#include "sprof/estimator.hpp"

#include <stdexcept>

namespace sprof {

Estimator parse_estimator(const std::string& s) {
    if (s == "coverage") return Estimator::coverage;
    if (s == "carry") return Estimator::carry;
    throw std::invalid_argument("unknown estimator '" + s + "' (use coverage or carry)");
}

const char* to_string(Estimator e) { return e == Estimator::coverage ? "coverage" : "carry"; }

std::optional<double> estimate(const EventCell& c, uint64_t time_ns, Estimator e) {
    if (e == Estimator::carry) {
        if (std::isnan(c.carry)) return std::nullopt;
        return c.carry;
    }
    if (c.coverage_ns == 0) return std::nullopt;
    return static_cast<double>(c.count) * static_cast<double>(time_ns) /
           static_cast<double>(c.coverage_ns);
}

void accumulate(EventCell& a, const EventCell& b) {
    a.count += b.count;
    a.coverage_ns += b.coverage_ns;
    // Unknown + known = known: the unknown part contributed nothing measurable.
    if (std::isnan(a.carry)) a.carry = b.carry;
    else if (!std::isnan(b.carry)) a.carry += b.carry;
}

void withdraw(EventCell& a, const EventCell& b) {
    a.count -= std::min(a.count, b.count);
    a.coverage_ns -= std::min(a.coverage_ns, b.coverage_ns);
    if (!std::isnan(a.carry) && !std::isnan(b.carry)) a.carry -= b.carry;
}

}  // namespace sprof
