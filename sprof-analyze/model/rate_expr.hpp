// Rate expressions: `+ - * /`, parentheses, unary minus, numbers (1e6) and
// variable names. Names may contain '-', ':' and '/' (page-faults,
// pmu::EVENT:umask, msr/tsc/), so they are matched greedily against the
// known names rather than split at operators.
#pragma once
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace sprof::analyze {

// A parse error; `position` is 1-based within the expression text.
struct RateExprError : std::runtime_error {
    RateExprError(const std::string& what, size_t position);
    size_t position;
};

class RateExpr {
public:
    // Parses `text`; every name must be one of `names`, and a variable's index
    // in evaluate()'s values is its index in `names`.
    static RateExpr parse(const std::string& text, const std::vector<std::string>& names);

    // nullopt when an operand is unknown, on division by zero, or when the
    // result is not finite.
    std::optional<double> evaluate(std::span<const std::optional<double>> values) const;

    // Indices of the variables the expression reads.
    std::vector<size_t> variables() const;

    struct Node;

private:
    std::shared_ptr<const Node> root_;
};

}  // namespace sprof::analyze
