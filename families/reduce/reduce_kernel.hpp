// A reduction spec's kernels, loaded: the one that combines chunks of rows,
// and the one that combines a result point's chunks in order, with the
// partials between them. Launches of one ReduceKernel share the partials, so
// they must follow each other in stream order.
#pragma once

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/reduce/reduce_plan.hpp"

namespace gpen {

class ReduceKernel : public Kernel {
 public:
  // `variant` is plan_unit(spec, choice): planned once, by whoever chose it.
  ReduceKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache = process_cache());

  const ReducePlan& plan() const { return source_.plan_as<ReducePlan>(); }
  // Writes each result (a device array: the interior with the reduced axes
  // of length 1) in `stream`; nothing waits for it on the host.
  void launch(const FieldBindings& fields, const ParamValues& params = {}, CUstream stream = nullptr) const override;
  // The partials of an interior of `shape` points: launches of that size
  // (or of any size that needs fewer) then allocate nothing.
  void prepare(const std::array<long long, 3>& shape) const override;

 private:
  CUfunction final_ = nullptr;
  mutable DeviceMemory partials_;  // grown on demand (a synchronous allocation, on the first launch of a size that needs more)
  mutable std::size_t partial_bytes_ = 0;
};

}  // namespace gpen
