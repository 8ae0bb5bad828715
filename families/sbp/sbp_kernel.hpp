// An SBP spec's kernel, loaded. A launch refuses lines shorter than the
// operator's two closures need (SbpDecl::min_length) before touching the GPU.
#pragma once

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/sbp/sbp_plan.hpp"

namespace gpen {

class SbpKernel : public Kernel {
 public:
  // `variant` is plan_unit(spec, choice): planned once, by whoever chose it.
  SbpKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache = process_cache());
  SbpKernel(const Spec& spec, const TunableChoice& choice, const Context& ctx, KernelCache& cache = process_cache())
      : SbpKernel(spec, plan_unit(spec, choice), ctx, cache) {}

  const SbpPlan& plan() const { return source_.plan_as<SbpPlan>(); }
  void launch(const FieldBindings& fields, const ParamValues& params = {}, CUstream stream = nullptr) const override;
};

// The checks of an SBP launch that need no GPU: every axis of the operator
// at least min_length() points. Throws BindingError.
void check_sbp_lengths(const Spec& spec, const std::array<long long, 3>& shape);

// 1 / h^derivative per axis (0 where the operator is not applied), h from
// `params` or the spec's defaults.
std::array<double, 3> sbp_scales(const Spec& spec, const ParamValues& params);

}  // namespace gpen
