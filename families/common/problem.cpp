#include "gpen/families/common/problem.hpp"

#include <fmt/format.h>

#include "gpen/families/common/runtime_family.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/families/pairwise/pair_cost.hpp"
#include "gpen/families/pairwise/pairwise_run.hpp"

namespace gpen {
namespace {

// Stencil, scan and SBP specs: bytes of one read of every input and one
// write of every output, against a device-to-device copy.
class GridProblem final : public Problem {
 public:
  // The copy is measured before the workload is allocated: its 2 GiB and
  // the workload need not fit at once.
  GridProblem(const Context& ctx, const Spec& spec, std::string size, const ProblemOptions& o)
      : ctx_(ctx), size_(std::move(size)), copy_(o.copy_gbs ? *o.copy_gbs : measure_copy_gbs(ctx, std::size_t(1) << 30)),
        work_(ctx, spec, parse_size(size_, spec.dims), workload_options(o)) {
    const double copy = copy_;
    scale_ = {RateKind::Bandwidth, "bytes", "teff_gbs", 1e9, "copy_gbs", "pct_copy", copy, fmt::format("copy ({:.1f} GB/s, same run)", copy),
              "GB/s", "%copy"};
  }
  const Spec& spec() const override { return work_.spec(); }
  const std::string& size() const override { return size_; }
  std::optional<std::array<long long, 3>> grid_shape() const override { return work_.size(); }
  TuningKey tuning_key(const DeviceInfo& d) const override { return gpen::tuning_key(spec(), work_.size(), d); }
  const RateScale& scale() const override { return scale_; }
  Measurement measure(const Variant& variant, int repeat, Check check, int warmup) override {
    MeasureOptions mo;
    if (warmup >= 0) mo.warmup = warmup;
    mo.repeat = repeat;
    mo.check = check == Check::Cpu ? MeasureOptions::Check::Cpu : check == Check::Reference ? MeasureOptions::Check::Reference : MeasureOptions::Check::None;
    const RunReport r = measure_variant(ctx_, work_, variant, mo);
    Measurement m;
    static_cast<VariantFacts&>(m) = r;
    m.median_ms = r.median_ms;
    m.min_ms = r.min_ms;
    m.work = r.bytes;
    m.rate = r.teff_gbs * 1e9;
    m.check = r.check;
    const auto& n = work_.size();
    if (const auto ops = family_of(spec()).ops_per_point)
      m.roofline = roofline(ops(spec(), variant), spec().dtype, ctx_.info(), static_cast<double>(n[0]) * n[1] * n[2], r.bytes, copy_, r.median_ms);
    if (check == Check::Reference) m.mismatch = "differs from the default's output";
    return m;
  }
  std::string reference_check() const override { return "the default's output on the GPU"; }
  void keep_as_reference() override { work_.keep_as_reference(); }
  std::string rate_text(const Measurement& m) const override {
    return fmt::format("T_eff {:.1f} GB/s = {:.1f}% of {}", scale_.in_unit(m.rate), scale_.percent_of(m.rate), scale_.bound_text);
  }
  std::string rate_columns(const Measurement& m) const override {
    return fmt::format("{:>9.1f} {:>6.1f}%", scale_.in_unit(m.rate), scale_.percent_of(m.rate));
  }

 private:
  static WorkloadOptions workload_options(const ProblemOptions& o) {
    WorkloadOptions w;
    w.params = o.params;
    w.periodic = o.periodic;
    return w;
  }
  const Context& ctx_;
  std::string size_;
  double copy_;
  Workload work_;
  RateScale scale_;
};

// Pairwise specs: pairs evaluated, against the bound of the unit that
// limits the formula (pair_cost.hpp).
class PairProblem final : public Problem {
 public:
  PairProblem(const Context& ctx, const Spec& spec, std::string size, const ProblemOptions& o)
      : ctx_(ctx), size_(std::move(size)), work_(ctx, spec, parse_pair_size(spec, size_), o.params) {
    const DeviceInfo& d = ctx.info();
    const PairCost cost = pair_cost(spec);
    const UnitBound b = pair_unit_bound(cost, d);
    scale_ = {RateKind::Pairs, "pairs", "pairs_per_s", 1, "unit_bound_per_s", "pct_unit", b.pairs_per_s,
              fmt::format("the {} bound ({:.3e}/s: {} SMs x {:g} x {} MHz / {:g} instructions a pair)", b.unit, b.pairs_per_s, d.sm_count, b.lanes,
                          d.clock_khz / 1000, b.instructions),
              "pairs/s", "%unit"};
    scale_.bound_unit = b.unit;
    scale_.rsqrt_bound = rsqrt_bound_per_s(d);
    scale_.pair_counts = {{"pair_fp32", cost.fp32}, {"pair_fp64", cost.fp64}, {"pair_mufu", cost.mufu}, {"pair_issued", cost.issued()}};
  }
  const Spec& spec() const override { return work_.spec(); }
  const std::string& size() const override { return size_; }
  TuningKey tuning_key(const DeviceInfo& d) const override { return pair_tuning_key(spec(), work_.sizes(), d); }
  const RateScale& scale() const override { return scale_; }
  // Check::Reference: the CPU reference at the sample of targets (every
  // target for the NaN poison), then every target against the kept output.
  Measurement measure(const Variant& variant, int repeat, Check check, int warmup) override {
    const PairRunReport r = measure_pairwise(ctx_, work_, variant, warmup >= 0 ? warmup : 2, repeat, check != Check::None);
    Measurement m;
    static_cast<VariantFacts&>(m) = r;
    m.median_ms = r.median_ms;
    m.min_ms = r.min_ms;
    m.work = r.pairs;
    m.rate = r.pairs_per_s;
    m.check = r.check;
    if (check == Check::Reference && m.check->pass) {
      m.check = work_.compare_to_reference();
      m.mismatch = "differs from the default's output";
    }
    return m;
  }
  std::string reference_check() const override {
    return "the CPU reference at the sampled targets and, at every target, the default's output";
  }
  void keep_as_reference() override { work_.keep_as_reference(); }
  std::string rate_text(const Measurement& m) const override {
    return fmt::format("{:.4g} pairs, {:.3e} pairs/s = {:.1f}% of {}", m.work, m.rate, scale_.percent_of(m.rate), scale_.bound_text);
  }
  std::string rate_columns(const Measurement& m) const override {
    return fmt::format("{:>9.3e} pairs/s {:>5.1f}% of {}", m.rate, scale_.percent_of(m.rate), scale_.bound_unit);
  }

 private:
  const Context& ctx_;
  std::string size_;
  PairWorkload work_;
  RateScale scale_;
};

}  // namespace

std::string RateScale::number(double rate) const { return kind == RateKind::Pairs ? fmt::format("{:.3e}", rate) : fmt::format("{:.1f}", rate); }

std::string RateScale::bound_short() const {
  return kind == RateKind::Pairs ? fmt::format("{} bound {:.3e}/s", bound_unit, bound_value) : fmt::format("copy {:.1f} GB/s", bound_value);
}

std::string RateScale::progress(double rate) const {
  if (kind == RateKind::Pairs) return fmt::format("{:.3g} pairs/s ({:.1f}% of the {} bound)", rate, percent_of_unit(rate), bound_unit);
  return fmt::format("{:.1f}% of copy", percent_of_unit(rate));
}

void check_problem_size(const Spec& spec, const std::string& size) { runtime_family_of(spec).check_size(spec, size); }

TuningKey problem_tuning_key(const Spec& spec, const std::string& size, const DeviceInfo& device) {
  return runtime_family_of(spec).tuning_key(spec, size, device);
}

std::string small_problem_size(const Spec& spec, const std::array<long long, 3>& grid) { return runtime_family_of(spec).small_size(spec, grid); }

std::unique_ptr<Problem> make_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& options) {
  return runtime_family_of(spec).make_problem(ctx, spec, size, options);
}

std::unique_ptr<Problem> make_grid_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& options) {
  return std::make_unique<GridProblem>(ctx, spec, size, options);
}

std::unique_ptr<Problem> make_pair_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& options) {
  return std::make_unique<PairProblem>(ctx, spec, size, options);
}

}  // namespace gpen
