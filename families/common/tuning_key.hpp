// What a tuned choice is filed under (measure/tune/tuning_db.hpp): the
// spec's hash (its dtype included), the problem's size class, the GPU's name
// and compute capability, and the driver and NVRTC versions. Each family
// names its own problem's size class (RuntimeFamily::tuning_key).
#pragma once

#include <array>
#include <string>

#include "gpen/generator/spec.hpp"
#include "gpen/runtime/device.hpp"

namespace gpen {

struct TuningKey {
  std::string spec_hash, size_class, gpu, arch, driver, nvrtc;
  std::string str() const;
};

// "2^9x2^6x2^5" for 512x50x17: sizes that share a class share a record.
std::string size_class(const std::array<long long, 3>& size, int dims);
TuningKey tuning_key(const Spec& spec, const std::array<long long, 3>& size, const DeviceInfo& device);

}  // namespace gpen
