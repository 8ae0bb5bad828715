// A scan spec's kernel, loaded, with the scratch its look-back needs: tile
// status (aggregate, inclusive prefix, status word). Status words
// carry the launch's epoch, so no launch has to clear them; launches of one
// ScanKernel must therefore follow each other in stream order.
#pragma once

#include "gpen/runtime/kernel.hpp"

namespace gpen {

class ScanKernel : public Kernel {
 public:
  ScanKernel(const Spec& spec, const TunableChoice& choice, const Context& ctx, KernelCache& cache = process_cache());

  const ScanPlan& plan() const { return source_.scan_plan; }
  void launch(const FieldBindings& fields, const ParamValues& params = {}, CUstream stream = nullptr) const override;

 private:
  // Status for `tiles` tiles, grown on demand (synchronous allocation).
  void reserve(long long tiles) const;

  mutable DeviceMemory status_;  // aggregate[tiles], inclusive[tiles], status[tiles] (8 bytes each)
  mutable long long status_tiles_ = 0;
  mutable unsigned epoch_ = 0;
};

}  // namespace gpen
