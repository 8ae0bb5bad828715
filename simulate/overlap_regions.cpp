#include "overlap_regions.hpp"

#include <algorithm>

namespace gpen::sim {

OverlapRegions overlap_regions(const std::array<long long, 3>& extent, int dims, const std::array<std::array<bool, 2>, 3>& exchanged,
                               const std::array<long long, 3>& width) {
  OverlapRegions r;
  HaloBox rest;  // what the slabs so far left
  for (int a = 0; a < dims; ++a) rest.end[static_cast<std::size_t>(a)] = extent[static_cast<std::size_t>(a)];
  for (std::size_t a = 0; a < static_cast<std::size_t>(dims); ++a) {
    if (rest.points() == 0) break;
    if (width[a] <= 0) continue;  // no slab: all core
    if (exchanged[a][0]) {
      HaloBox slab = rest;
      slab.end[a] = std::min(rest.end[a], rest.begin[a] + width[a]);
      rest.begin[a] = slab.end[a];
      r.shell.push_back(slab);
    }
    if (exchanged[a][1] && rest.end[a] > rest.begin[a]) {
      HaloBox slab = rest;
      slab.begin[a] = std::max(rest.begin[a], rest.end[a] - width[a]);
      rest.end[a] = slab.begin[a];
      r.shell.push_back(slab);
    }
  }
  if (rest.points() > 0) r.core.push_back(rest);
  return r;
}

DeviceBuffer moved_view(const DeviceBuffer& b, const std::array<long long, 3>& by, const std::array<long long, 3>& shape, int ghost) {
  const Pitch pitch = b.pitch();  // the caller's, or packed
  long long offset = by[0];
  if (b.dims() > 1) offset += by[1] * pitch.row;
  if (b.dims() > 2) offset += by[2] * pitch.plane;
  return DeviceBuffer::view(b.get() + static_cast<CUdeviceptr>(offset * static_cast<long long>(size_of(b.dtype()))), b.dtype(), b.dims(), shape, ghost,
                            b.dims() == 1 ? Pitch{} : pitch);
}

DeviceBuffer box_view(const DeviceBuffer& b, const HaloBox& box) {
  return moved_view(b, box.begin, {box.end[0] - box.begin[0], box.end[1] - box.begin[1], box.end[2] - box.begin[2]}, b.ghost());
}

}  // namespace gpen::sim
