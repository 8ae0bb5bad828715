// Compares two device buffers of the same geometry on the GPU: what a tuner
// needs to verify each variant against a reference output at full size
// without copying gigabytes back. Reports in the same Comparison as the host
// check: relative L2 and max error over the interior, non-finite values
// (an unwritten point stays NaN), and ghost values that lost their NaN poison.
#pragma once

#include "gpen/families/common/device_buffer.hpp"
#include "gpen/families/common/host_array.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/runtime/device.hpp"
#include "gpen/runtime/kernel_cache.hpp"

namespace gpen {

class DeviceComparer {
 public:
  DeviceComparer(Dtype dtype, const Context& ctx, KernelCache& cache = process_cache());
  // `got`'s ghosts must still hold the NaN poison; `want`'s are not read.
  Comparison compare(const DeviceBuffer& got, const DeviceBuffer& want, double tolerance, CUstream stream = nullptr) const;

 private:
  Dtype dtype_;
  Variant source_;
  KernelCache::Result compiled_;
  Module module_;
  unsigned blocks_;
  DeviceMemory partials_;
};

}  // namespace gpen
