// A spec's field on the device: device memory (runtime/device.hpp) with the
// dtype, shape and ghost width a launch checks its bindings against.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "gpen/generator/spec.hpp"
#include "gpen/runtime/device.hpp"

namespace gpen {

// A field on the device: a padded 1-3-D array with its dtype, interior
// shape (x, y, z; unused axes 1) and ghost width on each axis it has.
class DeviceBuffer {
 public:
  DeviceBuffer(Dtype dtype, int dims, std::array<long long, 3> shape, int ghost);
  Dtype dtype() const { return dtype_; }
  int dims() const { return dims_; }
  const std::array<long long, 3>& shape() const { return shape_; }
  int ghost() const { return ghost_; }
  // Padded extent per axis: shape + 2 ghost on the axes the array has.
  std::array<long long, 3> padded() const;
  std::size_t elements() const;
  std::size_t bytes() const { return elements() * size_of(dtype_); }
  CUdeviceptr get() const { return mem_.get(); }

  // Whole padded array as doubles (converted from float32 if needed);
  // both wait for the copy.
  void upload(const std::vector<double>& host);
  std::vector<double> download() const;
  // The whole padded array's bytes (dtype as it is) into `host`, which holds
  // bytes(), in `stream`: nothing else waits. The copy is done when the
  // stream is (cuStreamSynchronize, or an event); page-locked `host` memory
  // makes it asynchronous to the host too. A reduction's result this way
  // costs the caller no device-wide synchronisation.
  void copy_to_host_async(void* host, CUstream stream) const;

 private:
  Dtype dtype_;
  int dims_;
  std::array<long long, 3> shape_;
  int ghost_;
  DeviceMemory mem_;
};

}  // namespace gpen
