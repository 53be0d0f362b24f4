// Derived rates: the defaults for the events present plus the user's
// `--rate NAME=EXPR`. Variables are the event names, `time` (reference
// seconds) and `samples`.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "aggregate.hpp"
#include "rate_expr.hpp"

namespace sprof::analyze {

struct Rate {
    std::string name;
    std::string expression;
    std::string unit;  // for plot axes; "" when not known
    RateExpr expr;
};

class RateSet {
public:
    // Defaults for `events` (unless `with_defaults` is false), then each
    // "NAME=EXPR" of `specs`; a user rate replaces a default of the same name.
    // Throws std::invalid_argument (one line, naming the rate) on a bad spec.
    RateSet(const std::vector<std::string>& events, const std::vector<std::string>& specs,
            bool with_defaults = true);

    const std::vector<Rate>& rates() const { return rates_; }
    size_t size() const { return rates_.size(); }
    // Index of the rate called `name`, if any.
    std::optional<size_t> find(const std::string& name) const;

    // Every rate over the given counts.
    std::vector<std::optional<double>> evaluate(const Counts& c, Estimator e) const;
    // Same, from event estimates already made for those counts.
    std::vector<std::optional<double>> evaluate(const Counts& c,
                                                const std::vector<std::optional<double>>& events) const;
    // The 95 % interval of every rate over the given counts, from the
    // events' spreads (estimate_spreads of the same counts); nullopt = unknown.
    std::vector<std::optional<Bounds>> intervals(const Counts& c,
                                                 const std::vector<std::optional<EstimateSpread>>& events) const;

private:
    void add(const std::string& name, const std::string& expression, const std::string& unit);
    std::vector<std::string> variables_;  // events…, time, samples
    std::vector<Rate> rates_;
};

// The default rate definitions ("NAME=EXPR") for a set of events.
struct DefaultRate {
    std::string name, expression, unit;
};
std::vector<DefaultRate> default_rates(const std::vector<std::string>& events);

}  // namespace sprof::analyze
