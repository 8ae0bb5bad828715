// A stencil spec compiled (through the cache) and loaded on a context, with
// launches whose arguments are bound by name and checked against the spec
// before anything runs.
#pragma once

#include <string>

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/stencil/stencil_plan.hpp"

namespace gpen {

// Whether a march kernel with several points a thread may take its fast
// entry for these buffers: every pointer, x ghost width, padded row
// length, row and plane pitch a multiple of vector_x values, and at least
// rows_y rows (kernel y extent).
bool fits_vector_runs(const StencilPlan& plan, const std::array<long long, 3>& kernel_extent, const FieldBindings& fields);

class StencilKernel : public Kernel {
 public:
  // `variant` is plan_unit(spec, choice): planned once, by whoever chose it.
  StencilKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache = process_cache());
  StencilKernel(const Spec& spec, const TunableChoice& choice, const Context& ctx, KernelCache& cache = process_cache())
      : StencilKernel(spec, plan_unit(spec, choice), ctx, cache) {}

  const StencilPlan& plan() const { return source_.plan_as<StencilPlan>(); }
  void launch(const FieldBindings& fields, const ParamValues& params = {}, CUstream stream = nullptr) const override;

 private:
  CUfunction clamped_ = nullptr;  // plan().clamped_kernel_name, when there is one
};


}  // namespace gpen
