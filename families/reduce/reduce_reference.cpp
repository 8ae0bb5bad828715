#include "gpen/families/reduce/reduce_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "gpen/families/common/point_values.hpp"
#include "gpen/families/reduce/reduce_plan.hpp"
#include "gpen/generator/associative_op.hpp"

namespace gpen {
namespace {

double finite_abs(double v) { return std::isfinite(v) ? std::fabs(v) : 0.0; }

// op(x, x) = x on samples: min and max, whose result is one of the values.
bool idempotent(const AssociativeOp& op) {
  for (double x : {-1.5, 0.25, 3.0})
    if (apply_op(op, x, x) != x) return false;
  return true;
}

}  // namespace

void reference_reduce(const Spec& spec, const std::vector<const HostArray*>& inputs, const std::vector<double>& params,
                      const std::array<long long, 3>& shape, std::vector<HostArray>& want, std::vector<HostArray>& scale) {
  const std::array<bool, 3> reduced = reduced_axes(spec);
  const long long nx = shape[0], ny = shape[1], nz = shape[2];
  const long long kept_rows = (reduced[1] ? 1 : ny) * (reduced[2] ? 1 : nz), reduced_rows = (reduced[1] ? ny : 1) * (reduced[2] ? nz : 1);
  const long long xs = reduced[0] ? 1 : nx;
  const std::size_t results = spec.outputs.size();
  // Work: a kept row's reduced rows in `blocks` runs, each combined in
  // order, then the runs in order; enough runs to keep the cores busy.
  const long long want_items = 4LL * std::max(1u, std::thread::hardware_concurrency());
  long long blocks = kept_rows >= want_items ? 1 : std::min(reduced_rows, (want_items + kept_rows - 1) / kept_rows);
  const long long per_block = (reduced_rows + blocks - 1) / blocks;
  blocks = (reduced_rows + per_block - 1) / per_block;
  const std::size_t slots = static_cast<std::size_t>(xs) * results;
  std::vector<double> fold(static_cast<std::size_t>(kept_rows * blocks) * slots), big(fold.size(), 0.0);
  const PointValues points(spec, inputs, params);
  parallel_for(kept_rows * blocks, [&](long long w) {
    const long long kept = w / blocks, b = w % blocks;
    double* f = fold.data() + w * slots;
    double* m = big.data() + w * slots;
    for (std::size_t x = 0; x < slots; ++x) f[x] = spec.outputs[x % results].op->identity;
    std::vector<double> values, magnitudes;
    for (long long q = b * per_block; q < std::min(reduced_rows, (b + 1) * per_block); ++q) {
      long long j, k;  // as reduce_row in reduce.cuh
      if (reduced[1] && reduced[2]) j = q % ny, k = q / ny;
      else if (reduced[1]) j = q, k = kept;
      else if (reduced[2]) j = kept, k = q;
      else j = kept % ny, k = kept / ny;
      points.row(j, k, nx, values, &magnitudes);
      for (long long i = 0; i < nx; ++i)
        for (std::size_t r = 0; r < results; ++r) {
          const std::size_t x = static_cast<std::size_t>(reduced[0] ? 0 : i) * results + r, v = static_cast<std::size_t>(i) * results + r;
          f[x] = apply_op(*spec.outputs[r].op, f[x], values[v]);
          m[x] = std::max({m[x], finite_abs(values[v]), finite_abs(magnitudes[v]), finite_abs(f[x])});
        }
    }
  });
  std::vector<bool> idempotent_op;
  for (const auto& o : spec.outputs) idempotent_op.push_back(idempotent(*o.op));
  scale.clear();
  for (std::size_t r = 0; r < results; ++r) scale.emplace_back(want[r].dims, want[r].shape, want[r].ghost);
  for (long long kept = 0; kept < kept_rows; ++kept) {
    const long long j = reduced[1] ? 0 : kept % ny, k = reduced[2] ? 0 : reduced[1] ? kept : kept / ny;
    for (long long i = 0; i < xs; ++i)
      for (std::size_t r = 0; r < results; ++r) {
        const AssociativeOp& op = *spec.outputs[r].op;
        double v = op.identity, s = 0;
        for (long long b = 0; b < blocks; ++b) {
          const std::size_t x = static_cast<std::size_t>(kept * blocks + b) * slots + static_cast<std::size_t>(i) * results + r;
          v = apply_op(op, v, fold[x]);
          s = std::max({s, big[x], finite_abs(v)});
        }
        const double n = idempotent_op[r] ? 1.0 : static_cast<double>(reduced[0] ? nx : 1) * static_cast<double>(reduced_rows);
        want[r].at(i, j, k) = v;
        scale[r].at(i, j, k) = std::sqrt(n) * s;
      }
  }
}

Comparison compare_reduce(const Spec& spec, const HostArray& got, const HostArray& want, const HostArray& scale) {
  const double eps = spec.dtype == Dtype::Float32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  Comparison c;
  c.tolerance = kReduceErrorBound;
  c.bound_ratio = 0;
  double num = 0, den = 0;
  long long worst = -1, first_bad = -1;
  for (std::size_t f = 0; f < got.data.size(); ++f) {
    const double x = got.data[f], w = want.data[f];
    if (std::isfinite(w)) den += w * w;
    if (x == w) continue;
    if (!std::isfinite(x) || !std::isfinite(w)) {
      ++c.non_finite;
      if (first_bad < 0) first_bad = static_cast<long long>(f);
      continue;
    }
    const double d = std::fabs(x - w);
    num += d * d;
    c.max_abs = std::max(c.max_abs, d);
    const double ratio = d / (kReduceErrorBound * eps * std::max(scale.data[f], std::numeric_limits<double>::min()));
    if (ratio > c.bound_ratio) {
      c.bound_ratio = ratio;
      worst = static_cast<long long>(f);
    }
  }
  if (first_bad >= 0) worst = first_bad;  // an unwritten value says more than a rounding
  c.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  if (worst >= 0) {
    const auto s = got.shape;
    c.worst = {worst % s[0], (worst / s[0]) % s[1], worst / (s[0] * s[1])};
  }
  c.pass = c.non_finite == 0 && c.bound_ratio <= 1.0;
  return c;
}

}  // namespace gpen
