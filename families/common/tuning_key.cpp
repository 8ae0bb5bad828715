#include "gpen/families/common/tuning_key.hpp"

#include <fmt/format.h>

#include "gpen/runtime/nvrtc_library.hpp"

namespace gpen {

std::string TuningKey::str() const { return fmt::format("{}|{}|{}|{}|driver {}|nvrtc {}", spec_hash, size_class, gpu, arch, driver, nvrtc); }

std::string size_class(const std::array<long long, 3>& size, int dims) {
  std::string s;
  for (int ax = 0; ax < dims; ++ax) {
    int e = 0;
    while (e < 62 && (1LL << e) < size[ax]) ++e;
    s += fmt::format("{}2^{}", ax ? "x" : "", e);
  }
  return s;
}

// The NVRTC gpen was built with, not the one a compile would open: looking a
// record up (gpen run, a warm start) must not load NVRTC, and the library
// at that path is the one compiles use unless it was moved.
TuningKey tuning_key(const Spec& spec, const std::array<long long, 3>& size, const DeviceInfo& d) {
  const auto [major, minor] = nvrtc_build_version();
  return TuningKey{spec.hash, size_class(size, spec.dims), d.name, d.arch(), std::to_string(d.driver_version), fmt::format("{}.{}", major, minor)};
}

}  // namespace gpen
