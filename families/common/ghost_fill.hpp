// Periodic ghost zones of one buffer, on the GPU: the fill every grid
// family's inputs may ask for (`gpen run --periodic`).
#pragma once

#include "gpen/families/common/device_buffer.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/runtime/device.hpp"
#include "gpen/runtime/kernel_cache.hpp"

namespace gpen {

// Periodic ghost zones of one buffer, on the GPU.
class PeriodicFill {
 public:
  PeriodicFill(Dtype dtype, const Context& ctx, KernelCache& cache = process_cache());
  void launch(const DeviceBuffer& buffer, CUstream stream = nullptr) const;

 private:
  Dtype dtype_;
  Variant source_;
  KernelCache::Result compiled_;
  Module module_;
  int sm_count_;
};

}  // namespace gpen
