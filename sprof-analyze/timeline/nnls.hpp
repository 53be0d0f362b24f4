// Non-negative least squares: minimise |A x − b| subject to x ≥ 0
// (Lawson & Hanson, "Solving Least Squares Problems", 1974, ch. 23).
// Written here because no Debian-packaged C++ library offers it (Eigen 3.4's
// unsupported modules have none; GSL has no bound-constrained solver).
#pragma once
#include <cstddef>
#include <vector>

namespace sprof::analyze {

// A is rows × cols, row-major. Returns x (cols values, all ≥ 0).
std::vector<double> nnls(const std::vector<double>& a, size_t rows, size_t cols, const std::vector<double>& b);

}  // namespace sprof::analyze
