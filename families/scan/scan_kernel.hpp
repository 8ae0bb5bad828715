// A scan spec's kernel, loaded, with the scratch its look-back needs: a
// status per tile (state and value in one access), or, chained columns, a
// carry per column group. Status words and carries hold the launch's epoch,
// so no launch has to clear them; launches of one ScanKernel must therefore
// follow each other in stream order.
#pragma once

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/scan/scan_plan.hpp"

namespace gpen {

class ScanKernel : public Kernel {
 public:
  // `variant` is plan_unit(spec, choice): planned once, by whoever chose it.
  ScanKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache = process_cache());
  ScanKernel(const Spec& spec, const TunableChoice& choice, const Context& ctx, KernelCache& cache = process_cache())
      : ScanKernel(spec, plan_unit(spec, choice), ctx, cache) {}

  const ScanPlan& plan() const { return source_.plan_as<ScanPlan>(); }
  void launch(const FieldBindings& fields, const ParamValues& params = {}, CUstream stream = nullptr) const override;
  // The status (or carries) of an interior of `shape` points, allocated and
  // cleared now: launches of that size then allocate nothing.
  void prepare(const std::array<long long, 3>& shape) const override;

 private:
  std::size_t status_bytes_of(const ScanGeometry& g) const;
  // At least `bytes` of status, grown on demand (synchronous allocation,
  // cleared in `stream`); returns the next launch's epoch.
  unsigned reserve(std::size_t bytes, CUstream stream) const;
  // Every status word back to zero, in `stream`.
  void clear_status(CUstream stream) const;
  // Bytes of one tile's status: 8 for float32, 16 for float64 (families/scan/device/scan_common.cuh).
  std::size_t status_bytes() const { return 2 * size_of(spec_.dtype); }

  long long l2_bytes_;  // the GPU's, which chained carries must fit in (ScanPlan::geometry)
  mutable DeviceMemory status_;  // tile status or column carries
  mutable std::size_t status_size_ = 0;  // bytes
  mutable unsigned epoch_ = 0;
};

}  // namespace gpen
