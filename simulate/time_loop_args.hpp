// The arguments the time-loop kernels take (families/common/device/
// time_loop.cuh), laid out as there: what the GPU back end and the halo
// exchange pass them.
#pragma once

#include "gpen/families/common/device_buffer.hpp"

namespace gpen::sim {

// One padded array: interior, pitches, dims, ghost width.
struct PaddedArray {
  long long n[3];
  long long row, plane;
  int dims, g;
};
static_assert(sizeof(PaddedArray) == 48, "PaddedArray as time_loop.cuh lays it out");

// The faces of one axis of up to kMaxFaceFields arrays (time_loop.cuh's AxisFaces).
constexpr int kMaxFaceFields = 16;
struct AxisFaces {
  CUdeviceptr a[kMaxFaceFields];
  PaddedArray p[kMaxFaceFields];
  int kind[kMaxFaceFields][2];
  double value[kMaxFaceFields][2];
};
static_assert(sizeof(AxisFaces) == 1280, "AxisFaces as time_loop.cuh lays it out");

// time_loop.cuh's TimeStepArgs.
struct TimeStepArgs {
  double cdt_h, diffusion, dt_max, stop, fixed;
  int count;
};
static_assert(sizeof(TimeStepArgs) == 48, "TimeStepArgs as time_loop.cuh lays it out");

// A box of a padded array (interior coordinates from `begin`, `len` points
// along each axis): a face's slab of the ghost-zone exchange.
struct HaloBoxArg {
  long long begin[3], len[3];
};
static_assert(sizeof(HaloBoxArg) == 48, "HaloBoxArg as time_loop.cuh lays it out");

inline PaddedArray padded_of(const DeviceBuffer& b) {
  const Pitch pitch = b.pitch();  // the caller's, or packed
  return PaddedArray{{b.shape()[0], b.shape()[1], b.shape()[2]}, pitch.row, pitch.plane, b.dims(), b.ghost()};
}

}  // namespace gpen::sim
