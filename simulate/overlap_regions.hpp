// A rank's subdomain cut in two for the overlap of issue 30: the shell,
// the points within `width` of each face that a neighbour's exchange reads,
// and the core, the rest. A stage computes the shell first (on a stream of
// high priority), exchanges it there, and meanwhile computes the core: the
// core reads the state the stage starts from, while the exchange writes
// the next state's ghosts, from slabs of the shell (the width is at least
// every field's ghost width), where the core writes nothing.
#pragma once

#include <array>
#include <vector>

#include "gpen/families/common/device_buffer.hpp"
#include "halo.hpp"

namespace gpen::sim {

// Boxes of the subdomain's interior (HaloBox: unused axes [0, 1)).
struct OverlapRegions {
  std::vector<HaloBox> shell;  // disjoint, none empty
  std::vector<HaloBox> core;   // none where the shell covers the subdomain, else one
};

// The shell and core of a subdomain of `extent` points whose faces
// `exchanged[axis][side]` have a neighbour: along each such axis in turn a
// slab of `width[axis]` points on each such face, over what the earlier axes'
// slabs left; the core what remains. Slabs of a thin axis meet rather
// than overlap; a width of 0 makes no slab. Together the boxes cover the
// subdomain once.
OverlapRegions overlap_regions(const std::array<long long, 3>& extent, int dims, const std::array<std::array<bool, 2>, 3>& exchanged,
                               const std::array<long long, 3>& width);

// The array `b` seen from `by` points further along each axis: its first
// element moved by `by` (in b's pitches: rows and planes as they are), the
// interior `shape` and ghost width `ghost`. Nothing is copied: a box of a
// subdomain (box_view) is an array a kernel launches on, its ghosts the
// points around the box; so is b with fewer ghosts (by = b's ghost minus
// them on each axis b has).
DeviceBuffer moved_view(const DeviceBuffer& b, const std::array<long long, 3>& by, const std::array<long long, 3>& shape, int ghost);
// b's points of `box`, with b's ghost width.
DeviceBuffer box_view(const DeviceBuffer& b, const HaloBox& box);

}  // namespace gpen::sim
