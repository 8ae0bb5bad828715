#include "gpen/families/common/roofline.hpp"

#include <algorithm>

namespace gpen {

double fma_per_s(const DeviceInfo& d, Dtype dtype) {
  const int cc = d.cc_major * 10 + d.cc_minor;
  // FMA units an SM: float32, float64 (programming guide, "Arithmetic Instructions").
  int f32 = 0, f64 = 0;
  switch (cc) {
    case 70: f32 = 64, f64 = 32; break;
    case 75: f32 = 64, f64 = 2; break;
    case 80: f32 = 64, f64 = 32; break;
    case 86: case 87: case 89: f32 = 128, f64 = 2; break;
    case 90: case 100: f32 = 128, f64 = 64; break;
    case 120: f32 = 128, f64 = 2; break;
    default: return 0;
  }
  return static_cast<double>(d.sm_count) * d.clock_khz * 1e3 * (dtype == Dtype::Float64 ? f64 : f32);
}

std::optional<Roofline> roofline(double ops_per_point, Dtype dtype, const DeviceInfo& d, double points, double bytes, double copy_gbs, double measured_ms) {
  if (copy_gbs <= 0 || measured_ms <= 0) return std::nullopt;
  Roofline r;
  r.fma_per_s = fma_per_s(d, dtype);
  if (r.fma_per_s <= 0) return std::nullopt;
  r.ops_per_point = ops_per_point;
  r.memory_ms = bytes / (copy_gbs * 1e9) * 1e3;
  r.fma_ms = points * r.ops_per_point / r.fma_per_s * 1e3;
  r.pct = 100 * std::max(r.memory_ms, r.fma_ms) / measured_ms;
  return r;
}

}  // namespace gpen
