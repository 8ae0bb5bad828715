#include "gpen/families/pairwise/pairwise_reference.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpen/families/pairwise/pairwise_scope.hpp"

namespace gpen {

std::vector<long long> sample_targets(long long n, long long count, std::uint64_t seed) {
  std::vector<long long> v;
  if (count >= n) {
    for (long long i = 0; i < n; ++i) v.push_back(i);
    return v;
  }
  const double stride = static_cast<double>(n) / count;
  for (long long k = 0; k < count; ++k) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    v.push_back(std::min(n - 1, static_cast<long long>(k * stride + static_cast<double>(seed >> 40) / (1ULL << 24) * stride)));
  }
  v.front() = 0;
  v.back() = n - 1;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

PairReference reference_pairwise(const Spec& spec, const std::vector<std::vector<double>>& inputs, const PairSizes& sizes,
                                 const std::vector<double>& params, std::vector<long long> targets, const PairGroupLists* groups) {
  const PairwiseDecl& d = spec.pairwise();
  const std::vector<IrPtr> exprs = spec.output_exprs();
  const IrTape tape(exprs);
  const std::size_t outs = exprs.size();
  PairReference ref;
  ref.targets = std::move(targets);
  ref.value.assign(outs, std::vector<double>(ref.targets.size()));
  ref.scale = ref.value;
  ref.terms.assign(ref.targets.size(), 0);
  ref.operations = static_cast<int>(tape.size());
  if (spec.math == MathPolicy::Fast) {
    // specs/README.md: float32's exp, log, sin, cos and pow within 128 ulp
    // (__expf's 2 + 1.173 |x| up to |x| = 107), the seeded rsqrt, sqrt and
    // division of either precision within 2 ulp beyond one rounding.
    if (spec.dtype == Dtype::Float32) ref.approximation_ulps = 127.0 * static_cast<double>(tape.calls({MathFn::Exp, MathFn::Log, MathFn::Sin, MathFn::Cos, MathFn::Pow}));
    ref.approximation_ulps += 2.0 * static_cast<double>(tape.calls({MathFn::Sqrt, MathFn::Rsqrt}) + tape.divisions());
  }
  // The value of a pair value at index i of its end.
  auto value_at = [&](const PairValue& v, long long i) {
    if (v.field >= 0) return inputs[spec.fields[v.field].slot][i];
    const long long c[3] = {i % sizes.grid[0], (i / sizes.grid[0]) % sizes.grid[1], i / (sizes.grid[0] * sizes.grid[1])};
    return static_cast<double>(c[v.axis]);
  };
  parallel_for(static_cast<long long>(ref.targets.size()), [&](long long k) {
    const long long i = ref.targets[k];
    // The pairs of a stretch of sources evaluated together (IrTape::run_points),
    // then taken in the sources' order.
    const std::size_t stretch_points = tape.stretch();
    std::vector<double> values(d.values.size() * stretch_points, 0), term(outs * stretch_points), term_mag(outs * stretch_points), acc(outs), mag(outs, 0);
    std::vector<long long> stretch;
    stretch.reserve(stretch_points);
    for (std::size_t v = 0; v < d.values.size(); ++v)
      if (!d.values[v].source) std::fill_n(values.begin() + static_cast<std::ptrdiff_t>(v * stretch_points), stretch_points, value_at(d.values[v], i));
    for (std::size_t o = 0; o < outs; ++o) acc[o] = reduce_identity(spec.outputs[o].reduce);
    long long terms = 0;
    auto evaluate = [&] {
      for (std::size_t p = 0; p < stretch.size(); ++p)
        for (std::size_t v = 0; v < d.values.size(); ++v)
          if (d.values[v].source) values[v * stretch_points + p] = value_at(d.values[v], stretch[p]);
      tape.run_points(values.data(), stretch_points, stretch.size(), params.data(), term.data(), term_mag.data());
      for (std::size_t p = 0; p < stretch.size(); ++p) {
        for (std::size_t o = 0; o < outs; ++o) {
          const double t = term[o * stretch_points + p], t_mag = term_mag[o * stretch_points + p];
          if (spec.outputs[o].reduce == Reduce::Sum) {
            acc[o] += t;
            mag[o] += t_mag;
          } else {
            const double before = acc[o];
            acc[o] = spec.outputs[o].reduce == Reduce::Min ? std::fmin(acc[o], t) : std::fmax(acc[o], t);
            if (acc[o] != before) mag[o] = t_mag;  // the chosen term's
          }
        }
        ++terms;
      }
      stretch.clear();
    };
    auto sources = [&](long long begin, long long end) {
      for (long long j = begin; j < end; ++j) {
        if (d.skip_self && j == i) continue;
        stretch.push_back(j);
        if (stretch.size() == stretch_points) evaluate();
      }
      if (!stretch.empty()) evaluate();
    };
    if (groups) {
      const auto& tg = groups->target_groups;
      const long long g = std::upper_bound(tg.begin(), tg.end(), static_cast<int>(i)) - tg.begin() - 1;
      for (int r = groups->range_offsets[g]; r < groups->range_offsets[g + 1]; ++r) sources(groups->source_ranges[2 * r], groups->source_ranges[2 * r + 1]);
    } else {
      sources(0, sizes.sources);
    }
    for (std::size_t o = 0; o < outs; ++o) {
      ref.value[o][k] = acc[o];
      ref.scale[o][k] = mag[o];
    }
    ref.terms[k] = terms;
  });
  return ref;
}

Comparison compare_pairwise(const Spec& spec, const std::vector<std::vector<double>>& got, const PairReference& want) {
  const double u = spec.dtype == Dtype::Float32 ? 0x1p-24 : 0x1p-53;
  Comparison c;
  c.pass = true;
  c.tolerance = 4;  // the sqrt(n) term's factor, for the summary
  c.bound_ratio = 0;
  double err2 = 0, ref2 = 0;
  for (std::size_t o = 0; o < got.size(); ++o) {
    for (double v : got[o])
      if (std::isnan(v)) ++c.non_finite;
    for (std::size_t k = 0; k < want.targets.size(); ++k) {
      const double g = got[o][want.targets[k]], w = want.value[o][k];
      if (g == w) continue;  // infinities of empty min/max included
      const double e = std::fabs(g - w);
      const double bound =
          u * (want.operations + want.approximation_ulps + 4 * std::sqrt(static_cast<double>(want.terms[k]))) * want.scale[o][k] + 1e-300;
      if (!(e <= bound)) c.pass = false;
      const double ratio = std::isfinite(e) ? e / bound : HUGE_VAL;
      if (!(ratio <= c.bound_ratio)) {
        c.bound_ratio = ratio;
        c.worst = {want.targets[k], static_cast<long long>(o), 0};
      }
      if (std::isfinite(w)) {
        err2 += e * e;
        ref2 += w * w;
      }
      c.max_abs = std::max(c.max_abs, e);
    }
  }
  if (c.non_finite) c.pass = false;
  c.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  return c;
}

Comparison compare_pairwise_outputs(Dtype dtype, const std::vector<std::vector<double>>& got, const std::vector<std::vector<double>>& want) {
  const double r = dtype == Dtype::Float32 ? 1e-2 : 1e-8;
  Comparison c;
  c.pass = true;
  c.tolerance = r;
  c.bound_text = fmt::format("{:.0e} x (|value| + mean |value|) of the default variant's output", r);
  c.bound_ratio = 0;
  double err2 = 0, ref2 = 0;
  for (std::size_t o = 0; o < got.size(); ++o) {
    double mean = 0;
    long long finite = 0;
    for (double w : want[o])
      if (std::isfinite(w)) mean += std::fabs(w), ++finite;
    mean = finite ? mean / finite : 0;
    for (std::size_t k = 0; k < got[o].size(); ++k) {
      const double g = got[o][k], w = want[o][k];
      if (std::isnan(g)) ++c.non_finite;
      if (g == w) continue;  // infinities of empty min/max included
      const double e = std::fabs(g - w);
      const double ratio = std::isfinite(e) ? e / (r * (std::fabs(w) + mean) + 1e-300) : HUGE_VAL;
      if (!(ratio <= c.bound_ratio)) {
        c.bound_ratio = ratio;
        c.worst = {static_cast<long long>(k), static_cast<long long>(o), 0};
      }
      if (std::isfinite(e)) {
        err2 += e * e;
        ref2 += w * w;
        c.max_abs = std::max(c.max_abs, e);
      }
    }
  }
  c.pass = c.non_finite == 0 && c.bound_ratio <= 1;
  c.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  return c;
}

}  // namespace gpen
