// A kernel's two ceilings (issue 25): the time its bytes take at the copy
// bandwidth measured in the same run, and the time its arithmetic takes at
// the GPU's fused multiply-add rate in the spec's precision. The roofline
// time is the larger; % of roofline = that / the measured time.
#pragma once

#include <optional>

#include "gpen/generator/spec.hpp"
#include "gpen/runtime/device.hpp"

namespace gpen {

// Fused multiply-adds a second of the whole GPU in `dtype`: SMs x the
// boost clock x the FMA units an SM has for that precision on its
// architecture (the CUDA programming guide's throughput table); 0 for an
// architecture it does not know.
double fma_per_s(const DeviceInfo& d, Dtype dtype);

struct Roofline {
  double ops_per_point = 0;  // the unit's operations a point, common work once (Family::ops_per_point)
  double fma_per_s = 0;
  double memory_ms = 0;      // bytes at the copy bandwidth
  double fma_ms = 0;         // points x ops_per_point at fma_per_s
  double pct = 0;            // 100 max(memory_ms, fma_ms) / measured
};

// The roofline of a launch of `measured_ms` that computes `ops_per_point`
// operations in `dtype` at each of `points` points and moves `bytes`, at
// `copy_gbs`; nullopt for an unknown architecture.
std::optional<Roofline> roofline(double ops_per_point, Dtype dtype, const DeviceInfo& d, double points, double bytes, double copy_gbs, double measured_ms);

}  // namespace gpen
