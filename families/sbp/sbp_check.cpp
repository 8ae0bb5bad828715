#include "gpen/families/sbp/sbp_check.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace gpen {

int SbpDecl::left_width() const {
  std::size_t w = 0;
  for (const auto& r : left) w = std::max(w, r.size());
  return static_cast<int>(w);
}

int SbpDecl::right_width() const {
  std::size_t w = 0;
  for (const auto& r : right) w = std::max(w, r.size());
  return static_cast<int>(w);
}

long long SbpDecl::min_length() const {
  const long long rows_l = rows(), rows_r = static_cast<long long>(right.size());
  return std::max({left_width() + rows_r, right_width() + rows_l, rows_l + rows_r + 1});
}

RationalMatrix sbp_matrix(const SbpDecl& d, long long n) {
  RationalMatrix m(n, std::vector<Rational>(n));
  const long long rl = d.rows(), rr = static_cast<long long>(d.right.size()), r = d.radius();
  for (long long i = 0; i < n; ++i) {
    if (i < rl) {
      for (std::size_t j = 0; j < d.left[i].size(); ++j) m[i][j] = d.left[i][j];
    } else if (i >= n - rr) {
      const auto& row = d.right[n - 1 - i];
      for (std::size_t j = 0; j < row.size(); ++j) m[i][n - 1 - j] = row[j];
    } else {
      for (long long k = -r; k <= r; ++k) m[i][i + k] = d.interior[k + r];
    }
  }
  return m;
}

std::vector<Rational> sbp_norm(const SbpDecl& d, long long n) {
  std::vector<Rational> h(n, Rational(1));
  for (std::size_t i = 0; i < d.norm.size() && static_cast<long long>(i) < n; ++i) h[i] = h[n - 1 - i] = d.norm[i];
  return h;
}

Rational sbp_moment(const std::vector<Rational>& c, long long first, long long at, int p) {
  Rational s;
  for (std::size_t j = 0; j < c.size(); ++j) {
    Rational t = c[j];
    for (int k = 0; k < p; ++k) t *= Rational(first + static_cast<long long>(j) - at);
    s += t;
  }
  return s;
}

namespace {

Rational factorial(int n) { return n <= 1 ? Rational(1) : Rational(n) * factorial(n - 1); }

// Where the row serving point `i` of a line of n points comes from.
std::string row_pointer(const SbpDecl& d, long long i, long long n) {
  if (i < d.rows()) return fmt::format("/sbp/left/{}", i);
  if (i >= n - static_cast<long long>(d.right.size())) return fmt::format(d.right_given ? "/sbp/right/{}" : "/sbp/left/{}", n - 1 - i);
  return "/sbp/interior";
}

void check_shape(const SbpDecl& d, const JsonSource& src) {
  if (d.interior.size() % 2 == 0)
    src.fail("/sbp/interior", fmt::format("{} coefficients", d.interior.size()), "an odd number of coefficients, centred on the output point");
  if (d.rows() < d.radius())
    src.fail("/sbp/left", fmt::format("{} closure rows, but the interior stencil reaches {} points", d.rows(), d.radius()),
             fmt::format("at least {} closure rows, so that no interior row reaches past the boundary", d.radius()));
  if (d.right.size() != d.left.size())
    src.fail("/sbp/right", fmt::format("{} rows, but /sbp/left has {}", d.right.size(), d.left.size()), "as many right closure rows as left ones");
  auto nonzero = [](const std::vector<Rational>& row) { return std::any_of(row.begin(), row.end(), [](const Rational& c) { return !c.is_zero(); }); };
  for (std::size_t i = 0; i < d.left.size(); ++i)
    if (!nonzero(d.left[i])) src.fail(fmt::format("/sbp/left/{}", i), "every coefficient is zero", "a closure row with at least one nonzero coefficient");
  for (std::size_t i = 0; d.right_given && i < d.right.size(); ++i)
    if (!nonzero(d.right[i])) src.fail(fmt::format("/sbp/right/{}", i), "every coefficient is zero", "a closure row with at least one nonzero coefficient");
  if (d.norm.size() != d.left.size())
    src.fail("/sbp/norm", fmt::format("{} weights for {} closure rows", d.norm.size(), d.left.size()), "one norm weight per closure row");
  for (std::size_t i = 0; i < d.norm.size(); ++i)
    if (!(Rational(0) < d.norm[i]))
      src.fail(fmt::format("/sbp/norm/{}", i), fmt::format("weight {} is not positive", d.norm[i].str()), "a positive norm weight (H must be positive definite)");
}

// Exact for polynomials of degree < order + derivative: the p-th moment is
// derivative! when p == derivative, else 0.
void check_accuracy(const std::vector<Rational>& c, long long first, long long at, int order, int derivative, const std::string& ptr,
                    const char* what, const JsonSource& src) {
  for (int p = 0; p < order + derivative; ++p) {
    const Rational want = p == derivative ? factorial(derivative) : Rational(0);
    const Rational got = sbp_moment(c, first, at, p);
    if (got != want)
      src.fail(ptr, fmt::format("not accurate to order {}: applied to (x - x_i)^{} it gives {} at x_i, not {}", order, p, got.str(), want.str()),
               fmt::format("{} exact for polynomials of degree up to {} ({} order {} of derivative {})", what, order + derivative - 1, what,
                           order, derivative));
  }
}

void check_sbp_property(const SbpDecl& d, const JsonSource& src) {
  // A line long enough for both closures and for S's boundary rows.
  const long long n = std::max(d.min_length(), static_cast<long long>(d.boundary_derivative.size())) + 2;
  const RationalMatrix m = sbp_matrix(d, n);
  const std::vector<Rational> h = sbp_norm(d, n);
  // Q = H D (first derivatives) or M = B S - H D (second, with S).
  RationalMatrix q(n, std::vector<Rational>(n));
  for (long long i = 0; i < n; ++i)
    for (long long j = 0; j < n; ++j) q[i][j] = h[i] * m[i][j];
  if (d.derivative == 1) {
    for (long long i = 0; i < n; ++i)
      for (long long j = i; j < n; ++j) {
        const Rational want = i == j ? (i == 0 ? Rational(-1) : i == n - 1 ? Rational(1) : Rational(0)) : Rational(0);
        const Rational got = q[i][j] + q[j][i];
        if (got != want)
          src.fail(row_pointer(d, i, n),
                   fmt::format("not summation-by-parts with this norm: (HD + (HD)^T)[{}][{}] = {} on a line of {} points", i, j, got.str(), n),
                   fmt::format("HD + (HD)^T = diag(-1, 0, ..., 0, 1), i.e. {} there", want.str()));
      }
    return;
  }
  if (d.boundary_derivative.empty()) return;
  for (long long i = 0; i < n; ++i)
    for (long long j = 0; j < n; ++j) q[i][j] = -q[i][j];
  for (std::size_t j = 0; j < d.boundary_derivative.size(); ++j) {
    q[0][j] -= d.boundary_derivative[j];          // B = diag(-1, ..., 1), S's first row
    q[n - 1][n - 1 - j] -= d.boundary_derivative[j];  // last row: mirrored, sign flipped, times +1
  }
  for (long long i = 0; i < n; ++i)
    for (long long j = i + 1; j < n; ++j)
      if (q[i][j] != q[j][i])
        src.fail(row_pointer(d, i, n),
                 fmt::format("not summation-by-parts: M = B S - H D2 is not symmetric, M[{}][{}] = {} but M[{}][{}] = {}", i, j, q[i][j].str(), j, i,
                             q[j][i].str()),
                 "closure rows, norm and boundary_derivative with H D2 = -M + B S, M symmetric");
}

}  // namespace

void check_sbp(const SbpDecl& d, const JsonSource& src) {
  check_shape(d, src);
  try {
    check_accuracy(d.interior, -d.radius(), 0, d.order, d.derivative, "/sbp/interior", "the interior stencil", src);
    for (std::size_t i = 0; i < d.left.size(); ++i)
      check_accuracy(d.left[i], 0, static_cast<long long>(i), d.boundary_order, d.derivative, fmt::format("/sbp/left/{}", i), "each closure row", src);
    // Right row i serves point n-1-i from u[n-1], u[n-2], ...: mirrored, the
    // moments about the point change sign with p.
    for (std::size_t i = 0; d.right_given && i < d.right.size(); ++i) {
      std::vector<Rational> mirrored = d.right[i];
      if (d.derivative % 2)
        for (auto& c : mirrored) c = -c;
      check_accuracy(mirrored, 0, static_cast<long long>(i), d.boundary_order, d.derivative, fmt::format("/sbp/right/{}", i), "each closure row", src);
    }
    if (!d.boundary_derivative.empty())
      check_accuracy(d.boundary_derivative, 0, 0, 1, 1, "/sbp/boundary_derivative", "the boundary derivative", src);
    check_sbp_property(d, src);
  } catch (const std::overflow_error&) {
    src.fail("/sbp", "the coefficients are too large to check in exact 64-bit arithmetic", "fractions with smaller numerators and denominators");
  }
}

}  // namespace gpen
