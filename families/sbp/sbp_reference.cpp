#include "gpen/families/sbp/sbp_reference.hpp"

#include <algorithm>

#include "gpen/families/sbp/sbp_kernel.hpp"

namespace gpen {
namespace {

std::vector<double> doubles(const std::vector<Rational>& r) {
  std::vector<double> d;
  for (const auto& x : r) d.push_back(x.to_double());
  return d;
}

}  // namespace

void reference_sbp(const Spec& spec, const HostArray& in, const ParamValues& params, HostArray& out) {
  const SbpDecl& d = spec.sbp();
  check_sbp_lengths(spec, in.shape);
  const std::vector<double> interior = doubles(d.interior);
  std::vector<std::vector<double>> left, right;
  for (const auto& r : d.left) left.push_back(doubles(r));
  for (const auto& r : d.right) right.push_back(doubles(r));
  const auto scale = sbp_scales(spec, params);
  const int rad = d.radius();
  const auto& n = in.shape;
  parallel_for(n[1] * n[2], [&](long long row) {
    const long long j = row % n[1], k = row / n[1];
    for (long long i = 0; i < n[0]; ++i) {
      const long long c[3] = {i, j, k};
      double sum = 0;
      for (int a : d.axes) {
        // u at position p of the line through (i, j, k) along axis a.
        auto u = [&](long long p) {
          long long q[3] = {i, j, k};
          q[a] = p;
          return in.at(q[0], q[1], q[2]);
        };
        const long long len = n[a], p = c[a];
        double v = 0;
        if (p < d.rows()) {
          for (std::size_t m = 0; m < left[p].size(); ++m) v += left[p][m] * u(m);
        } else if (p >= len - static_cast<long long>(right.size())) {
          const auto& row = right[len - 1 - p];
          for (std::size_t m = 0; m < row.size(); ++m) v += row[m] * u(len - 1 - m);
        } else {
          for (int m = -rad; m <= rad; ++m) v += interior[m + rad] * u(p + m);
        }
        sum += scale[a] * v;
      }
      out.at(i, j, k) = sum;
    }
  });
}

}  // namespace gpen
