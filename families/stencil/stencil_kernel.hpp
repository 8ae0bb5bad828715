// A stencil spec compiled (through the cache) and loaded on a context, with
// launches whose arguments are bound by name and checked against the spec
// before anything runs.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/stencil/stencil_plan.hpp"

namespace gpen {

// Whether a march kernel with several points a thread may take its fast
// entry for these buffers: every pointer, x ghost width, padded row
// length, row and plane pitch a multiple of vector_x values, and at least
// rows_y rows (kernel y extent).
bool fits_vector_runs(const StencilPlan& plan, const std::array<long long, 3>& kernel_extent, const FieldBindings& fields);

// Whether the arrays fit a unit of `plan` (its fields using another's pitch
// where plan.shared_pitches: pitch_sources): each field's pitch along the
// kernel's axes the same as the one it uses.
bool shares_pitches(const Spec& spec, const StencilPlan& plan, const FieldBindings& fields);

// The context and the cache must outlive the kernel's launches, not only
// its construction: a launch on arrays padded unalike compiles and loads
// the unit of every field's own pitch through them (kernel_for).
class StencilKernel : public Kernel {
 public:
  // `variant` is plan_unit(spec, choice): planned once, by whoever chose it.
  StencilKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache = process_cache());
  StencilKernel(const Spec& spec, const TunableChoice& choice, const Context& ctx, KernelCache& cache = process_cache())
      : StencilKernel(spec, plan_unit(spec, choice), ctx, cache) {}

  const StencilPlan& plan() const { return source_.plan_as<StencilPlan>(); }
  // On arrays whose fields share pitches as the unit expects
  // (shares_pitches), the unit's kernel; else the same variant with every
  // field's own pitch, compiled and loaded at its first such launch.
  void launch(const FieldBindings& fields, const ParamValues& params = {}, CUstream stream = nullptr) const override;
  // The kernel a launch on `fields` runs: this one, or the one with every
  // field's own pitch (made at the first call that needs it).
  const StencilKernel& kernel_for(const FieldBindings& fields) const override;

 private:
  void launch_here(const std::array<long long, 3>& shape, const FieldBindings& fields, const ParamValues& params, CUstream stream) const;

  CUfunction clamped_ = nullptr;  // plan().clamped_kernel_name, when there is one
  const Context& ctx_;
  KernelCache& cache_;
  mutable std::once_flag own_pitches_once_;
  mutable std::unique_ptr<StencilKernel> own_pitches_;
};


}  // namespace gpen
