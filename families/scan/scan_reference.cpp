#include "gpen/families/scan/scan_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpen/generator/associative_op.hpp"
#include "gpen/families/scan/scan_plan.hpp"

namespace gpen {
namespace {

// The array as [outer][length][inner] around the axis.
ScanGeometry lines_of(const Spec& spec, const HostArray& a) { return scan_lines(spec.dims, spec.scan().axis, a.shape); }

// Calls f(line, first, stride) for every line along the axis, on all cores.
template <class F>
void for_each_line(const ScanGeometry& g, F f) {
  parallel_for(g.outer * g.inner, [&](long long l) {
    const long long o = l / g.inner, c = l % g.inner;
    f(l, o * g.length * g.inner + c, g.inner);
  });
}

// Position of the p-th value in scan order along a line.
long long at(const Spec& spec, const ScanGeometry& g, long long first, long long stride, long long p) {
  return first + (spec.scan().reverse ? g.length - 1 - p : p) * stride;
}

}  // namespace

void reference_scan(const Spec& spec, const HostArray& in, HostArray& want, HostArray& scale) {
  const ScanGeometry g = lines_of(spec, in);
  const ScanDecl& s = spec.scan();
  for_each_line(g, [&](long long, long long first, long long stride) {
    double run = s.identity, big = 0;
    for (long long p = 0; p < g.length; ++p) {
      const long long i = at(spec, g, first, stride, p);
      const double x = in.data[i];
      const double next = apply_op(s, run, x);
      want.data[i] = s.exclusive ? run : next;
      run = next;
      // Infinite inputs (-inf in a log-cumsum-exp) round nothing: they would make every bound after them infinite.
      big = std::max({big, std::isfinite(x) ? std::fabs(x) : 0.0, std::isfinite(want.data[i]) ? std::fabs(want.data[i]) : 0.0});
      scale.data[i] = big;
    }
  });
}

Comparison compare_scan(const Spec& spec, const HostArray& got, const HostArray& want, const HostArray& scale) {
  const ScanGeometry g = lines_of(spec, got);
  const double eps = spec.dtype == Dtype::Float32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  struct Partial {
    double num = 0, den = 0, max_abs = 0, worst_ratio = 0;
    long long non_finite = 0, first_bad = -1, worst_at = -1;
  };
  std::vector<Partial> parts(static_cast<std::size_t>(g.outer * g.inner));
  for_each_line(g, [&](long long line, long long first, long long stride) {
    Partial& r = parts[static_cast<std::size_t>(line)];
    for (long long p = 0; p < g.length; ++p) {
      const long long i = at(spec, g, first, stride, p);
      const double x = got.data[i], w = want.data[i];
      if (x == w) {
        if (std::isfinite(w)) r.den += w * w;
        continue;
      }
      if (!std::isfinite(x) || !std::isfinite(w)) {
        ++r.non_finite;  // NaN (an unwritten value) or an infinity the reference does not have
        if (r.first_bad < 0) r.first_bad = i;
        continue;
      }
      const double d = std::fabs(x - w);
      r.num += d * d;
      r.den += w * w;
      const double n = static_cast<double>(std::max(1LL, spec.scan().exclusive ? p : p + 1));
      const double ratio = d / (kScanErrorBound * eps * std::sqrt(n) * std::max(scale.data[i], std::numeric_limits<double>::min()));
      if (ratio > r.worst_ratio) {
        r.worst_ratio = ratio;
        r.worst_at = i;
      }
      r.max_abs = std::max(r.max_abs, d);
    }
  });
  Partial all;
  for (const auto& r : parts) {
    all.num += r.num;
    all.den += r.den;
    all.max_abs = std::max(all.max_abs, r.max_abs);
    all.non_finite += r.non_finite;
    if (all.first_bad < 0) all.first_bad = r.first_bad;
    if (r.worst_ratio > all.worst_ratio) {
      all.worst_ratio = r.worst_ratio;
      all.worst_at = r.worst_at;
    }
  }
  if (all.first_bad >= 0) all.worst_at = all.first_bad;  // an unwritten value says more than a rounding
  Comparison c;
  c.tolerance = kScanErrorBound;
  c.bound_ratio = all.worst_ratio;
  c.rel_l2 = all.den > 0 ? std::sqrt(all.num / all.den) : std::sqrt(all.num);
  c.max_abs = all.max_abs;
  c.non_finite = all.non_finite;
  if (all.worst_at >= 0) {
    const auto s = got.shape;
    c.worst = {all.worst_at % s[0], (all.worst_at / s[0]) % s[1], all.worst_at / (s[0] * s[1])};
  }
  c.pass = c.non_finite == 0 && all.worst_ratio <= 1.0;
  return c;
}

}  // namespace gpen
