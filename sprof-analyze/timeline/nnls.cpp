#include "nnls.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sprof::analyze {

namespace {

// Unconstrained least squares over the columns in `set` (normal equations,
// Cholesky; the problems here have a handful of columns).
std::vector<double> least_squares(const std::vector<double>& a, size_t rows, size_t cols,
                                  const std::vector<double>& b, const std::vector<size_t>& set) {
    const size_t n = set.size();
    std::vector<double> m(n * n, 0.0), rhs(n, 0.0);
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < n; ++i) {
            double ai = a[r * cols + set[i]];
            rhs[i] += ai * b[r];
            for (size_t j = 0; j < n; ++j) m[i * n + j] += ai * a[r * cols + set[j]];
        }
    // A tiny ridge keeps collinear columns solvable.
    double trace = 0;
    for (size_t i = 0; i < n; ++i) trace += m[i * n + i];
    for (size_t i = 0; i < n; ++i) m[i * n + i] += 1e-12 * (trace > 0 ? trace : 1);
    // Cholesky: m = L Lᵀ, stored in the lower triangle.
    for (size_t j = 0; j < n; ++j) {
        double s = m[j * n + j];
        for (size_t k = 0; k < j; ++k) s -= m[j * n + k] * m[j * n + k];
        if (s <= 0) throw std::runtime_error("calibration: the event counts are linearly dependent");
        m[j * n + j] = std::sqrt(s);
        for (size_t i = j + 1; i < n; ++i) {
            double t = m[i * n + j];
            for (size_t k = 0; k < j; ++k) t -= m[i * n + k] * m[j * n + k];
            m[i * n + j] = t / m[j * n + j];
        }
    }
    std::vector<double> y(n), x(n);
    for (size_t i = 0; i < n; ++i) {
        double t = rhs[i];
        for (size_t k = 0; k < i; ++k) t -= m[i * n + k] * y[k];
        y[i] = t / m[i * n + i];
    }
    for (size_t i = n; i-- > 0;) {
        double t = y[i];
        for (size_t k = i + 1; k < n; ++k) t -= m[k * n + i] * x[k];
        x[i] = t / m[i * n + i];
    }
    return x;
}

}  // namespace

std::vector<double> nnls(const std::vector<double>& a, size_t rows, size_t cols, const std::vector<double>& b) {
    std::vector<double> x(cols, 0.0);
    std::vector<bool> passive(cols, false);
    auto gradient = [&] {  // w = Aᵀ (b − A x)
        std::vector<double> w(cols, 0.0);
        for (size_t r = 0; r < rows; ++r) {
            double res = b[r];
            for (size_t c = 0; c < cols; ++c) res -= a[r * cols + c] * x[c];
            for (size_t c = 0; c < cols; ++c) w[c] += a[r * cols + c] * res;
        }
        return w;
    };
    double scale = 0;
    for (double v : a) scale = std::max(scale, std::abs(v));
    for (double v : b) scale = std::max(scale, std::abs(v));
    const double tol = 1e-10 * scale * scale * static_cast<double>(rows + 1);

    for (size_t iteration = 0; iteration < 3 * cols + 10; ++iteration) {
        auto w = gradient();
        size_t best = cols;
        for (size_t c = 0; c < cols; ++c)
            if (!passive[c] && w[c] > tol && (best == cols || w[c] > w[best])) best = c;
        if (best == cols) break;  // Kuhn–Tucker conditions hold
        passive[best] = true;
        for (;;) {
            std::vector<size_t> set;
            for (size_t c = 0; c < cols; ++c)
                if (passive[c]) set.push_back(c);
            auto z = least_squares(a, rows, cols, b, set);
            bool feasible = std::all_of(z.begin(), z.end(), [](double v) { return v > 0; });
            if (feasible) {
                for (size_t i = 0; i < set.size(); ++i) x[set[i]] = z[i];
                break;
            }
            // Step from x towards z until the first coefficient reaches zero.
            double alpha = 1;
            size_t blocking = 0;
            for (size_t i = 0; i < set.size(); ++i)
                if (z[i] <= 0 && x[set[i]] / (x[set[i]] - z[i]) <= alpha)
                    alpha = x[set[i]] / (x[set[i]] - z[i]), blocking = i;
            for (size_t i = 0; i < set.size(); ++i) {
                x[set[i]] += alpha * (z[i] - x[set[i]]);
                if (i == blocking || x[set[i]] <= 0) x[set[i]] = 0, passive[set[i]] = false;
            }
        }
    }
    return x;
}

}  // namespace sprof::analyze
