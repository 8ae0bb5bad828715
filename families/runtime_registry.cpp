// The runtime's half of each kernel family, and their list.
#include <algorithm>

#include "gpen/generator/error.hpp"
#include "gpen/families/pairwise/pairwise_kernel.hpp"
#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/families/common/runtime_family.hpp"
#include "gpen/families/sbp/sbp_kernel.hpp"
#include "gpen/families/sbp/sbp_reference.hpp"
#include "gpen/families/scan/scan_kernel.hpp"
#include "gpen/families/scan/scan_reference.hpp"
#include "gpen/families/stencil/stencil_kernel.hpp"

namespace gpen {
namespace {

// Stencil, scan and SBP: arrays on a grid, sized NX[xNY[xNZ]], checked by a Workload.
class GridFamily : public RuntimeFamily {
 public:
  void check_size(const Spec& spec, const std::string& size) const override { parse_size(size, spec.dims); }
  TuningKey tuning_key(const Spec& spec, const std::string& size, const DeviceInfo& d) const override {
    return gpen::tuning_key(spec, parse_size(size, spec.dims), d);
  }
  std::string small_size(const Spec& spec, const std::array<long long, 3>& grid) const override { return size_text(grid, spec.dims); }
  std::unique_ptr<Problem> make_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& o) const override {
    return make_grid_problem(ctx, spec, size, o);
  }
  Comparison compare(const Spec& spec, const HostArray& got, const HostArray& want, const HostArray*, const HostArray& poison) const override {
    return gpen::compare(got, want, poison, tolerance_for(spec.dtype));
  }
};

class StencilRuntime final : public GridFamily {
 public:
  const char* kind() const override { return "stencil"; }
  std::unique_ptr<Kernel> make_kernel(const Spec& s, const TunableChoice& c, const Context& ctx, KernelCache& cache) const override {
    return std::make_unique<StencilKernel>(s, c, ctx, cache);
  }
  void reference(const Spec& spec, const std::vector<HostArray>& inputs, const ParamValues& params, std::vector<HostArray>& outputs,
                 std::vector<HostArray>&) const override {
    std::vector<const HostArray*> ins;
    std::vector<HostArray*> outs;
    for (const auto& h : inputs) ins.push_back(&h);
    for (auto& o : outputs) outs.push_back(&o);
    std::vector<double> values;
    for (const auto& p : spec.params) values.push_back(params.count(p.name) ? params.at(p.name) : p.value);
    reference_stencil(spec, ins, values, outs);
  }
};

class ScanRuntime final : public GridFamily {
 public:
  const char* kind() const override { return "scan"; }
  std::unique_ptr<Kernel> make_kernel(const Spec& s, const TunableChoice& c, const Context& ctx, KernelCache& cache) const override {
    return std::make_unique<ScanKernel>(s, c, ctx, cache);
  }
  void reference(const Spec& spec, const std::vector<HostArray>& inputs, const ParamValues&, std::vector<HostArray>& outputs,
                 std::vector<HostArray>& scales) const override {
    scales.emplace_back(outputs[0].dims, outputs[0].shape, 0);
    reference_scan(spec, inputs[0], outputs[0], scales[0]);
  }
  // Against a bound that grows with the values summed (scan_reference.hpp).
  Comparison compare(const Spec& spec, const HostArray& got, const HostArray& want, const HostArray* scale, const HostArray&) const override {
    return compare_scan(spec, got, want, *scale);
  }
};

class SbpRuntime final : public GridFamily {
 public:
  const char* kind() const override { return "sbp"; }
  std::unique_ptr<Kernel> make_kernel(const Spec& s, const TunableChoice& c, const Context& ctx, KernelCache& cache) const override {
    return std::make_unique<SbpKernel>(s, c, ctx, cache);
  }
  void reference(const Spec& spec, const std::vector<HostArray>& inputs, const ParamValues& params, std::vector<HostArray>& outputs,
                 std::vector<HostArray>&) const override {
    reference_sbp(spec, inputs[0], params, outputs[0]);
  }
};

// Pairwise: N particles, N x M, or a grid of cells; checked by a PairWorkload.
class PairwiseRuntime final : public RuntimeFamily {
 public:
  const char* kind() const override { return "pairwise"; }
  std::unique_ptr<Kernel> make_kernel(const Spec& s, const TunableChoice& c, const Context& ctx, KernelCache& cache) const override {
    return std::make_unique<PairwiseKernel>(s, c, ctx, cache);
  }
  void check_size(const Spec& spec, const std::string& size) const override { parse_pair_size(spec, size); }
  TuningKey tuning_key(const Spec& spec, const std::string& size, const DeviceInfo& d) const override {
    return pair_tuning_key(spec, parse_pair_size(spec, size), d);
  }
  std::string small_size(const Spec& spec, const std::array<long long, 3>&) const override { return spec.pairwise().grid ? "9" : "1000"; }
  std::unique_ptr<Problem> make_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& o) const override {
    return make_pair_problem(ctx, spec, size, o);
  }
  void reference(const Spec& spec, const std::vector<HostArray>&, const ParamValues&, std::vector<HostArray>&, std::vector<HostArray>&) const override {
    throw InternalError("spec '" + spec.name + "': a pairwise spec is checked by its PairWorkload, not a Workload", __FILE__, __LINE__);
  }
  Comparison compare(const Spec& spec, const HostArray&, const HostArray&, const HostArray*, const HostArray&) const override {
    throw InternalError("spec '" + spec.name + "': a pairwise spec is checked by its PairWorkload, not a Workload", __FILE__, __LINE__);
  }
};

}  // namespace

const RuntimeFamily& runtime_family_of(const Spec& spec) {
  static const StencilRuntime stencil;
  static const ScanRuntime scan;
  static const SbpRuntime sbp;
  static const PairwiseRuntime pairwise;
  static const std::vector<const RuntimeFamily*> all = {&stencil, &scan, &sbp, &pairwise};
  const auto it = std::find_if(all.begin(), all.end(), [&](const RuntimeFamily* f) { return spec.kind == f->kind(); });
  GPEN_INTERNAL_CHECK(it != all.end(), "spec '" + spec.name + "' of kind '" + spec.kind + "', which no family has");
  return **it;
}

}  // namespace gpen
